// The Swing History panel, for real, on a display (Xvfb in CI: xvfb-run): it lists the chats the
// CLI wrote, grouped, with time, turns and model; it shows a chat another process creates
// (session/didChange) without being asked; and its toolbar and context menu work: search, resume
// (verbatim, and from a summary after consent), open transcript, rename, delete to the trash with
// an Undo that restores, export; and History's lifecycle: pin, archive, Show Archived, fork from
// a turn, the rows' state.
// It also saves the README's first screenshot (-Dlevelcode.screenshots=DIR: clients/jetbrains/screenshots.sh).
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.ui.HistoryPanel;
import dev.levelcode.sessions.core.ui.Theme;
import java.awt.BorderLayout;
import java.awt.Component;
import java.awt.Container;
import java.awt.Font;
import java.awt.GraphicsEnvironment;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.imageio.ImageIO;
import javax.swing.AbstractButton;
import javax.swing.BorderFactory;
import javax.swing.JFrame;
import javax.swing.JLabel;
import javax.swing.JMenuItem;
import javax.swing.JPanel;
import javax.swing.SwingUtilities;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HistoryPanelTest {
  Fixture fx;
  ScriptedUi ui;
  LevelCode core;
  HistoryPanel panel;
  JFrame frame;
  final LinkedBlockingQueue<HistoryModel.Snapshot> rendered = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    assertFalse(GraphicsEnvironment.isHeadless(), "the panel test needs a display: run it under xvfb-run");
    fx = new Fixture();
    ui = new ScriptedUi();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (frame != null) SwingUtilities.invokeAndWait(frame::dispose);
    fx.close();
  }

  /** The test's "now": chats are written relative to it and the panel's clock stands still at it,
   *  so a relative time reads the same however long the machine takes to draw. */
  Instant base = Instant.now();

  String ago(Duration d) { return base.minus(d).toString(); }

  /** A chat written by the CLI: a title, `turns` user turns ending `last` ago. */
  String chat(String title, String model, int turns, Duration last, boolean titled) throws Exception {
    String id = fx.newSession(model);
    String[] events = new String[turns * 2 + (titled ? 1 : 0)];
    for (int i = 0; i < turns; i++) {
      Duration at = last.plusMinutes(2L * (turns - i));
      events[2 * i] = Fixture.user(ago(at), i == 0 ? title : "and then step " + i);
      events[2 * i + 1] = Fixture.assistant(ago(at.minusMinutes(1)), "Done: step " + i + ".");
    }
    if (titled) events[turns * 2] = Fixture.title(ago(last), title);
    fx.append(id, events);
    return id;
  }

  void open(Settings settings) throws Exception {
    Sidecar s = new Sidecar(fx.options().withConsentThreshold(settings.consentThreshold()), fx.log);
    core = new LevelCode(s, fx.project.toString(), ui, Chat.State.inMemory(), () -> settings, fx.log,
        PendingDeletes.Timers.real(), Duration.ofMillis(300), Clock.fixed(base, java.time.ZoneId.systemDefault()));
    fx.closeLater(core);
    core.chat.setModel(new Model() {
      public CompletableFuture<String> summarize(List<JsonElement> messages, String instructions) {
        return CompletableFuture.completedFuture("FACT: we deploy from main.");
      }
      public CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions) {
        return CompletableFuture.completedFuture("A model title");
      }
    });
    SwingUtilities.invokeAndWait(() -> {
      panel = new HistoryPanel(core.history, core.chat, core.lifecycle, core.importer);
      panel.onRendered(rendered::add);
      frame = new JFrame("LevelCode History");
      frame.getContentPane().setLayout(new BorderLayout());
      frame.getContentPane().add(titleStrip(), BorderLayout.NORTH);
      frame.getContentPane().add(panel, BorderLayout.CENTER);
      frame.setSize(400, 600);
      frame.setVisible(true);
    });
    core.start();
  }

  /** The tool window's title bar, which the IDE draws around the panel (here, for the screenshot). */
  static JPanel titleStrip() {
    JPanel p = new JPanel(new BorderLayout());
    p.setBackground(Theme.LIGHT.background());
    p.setBorder(BorderFactory.createCompoundBorder(BorderFactory.createMatteBorder(0, 0, 1, 0, Theme.LIGHT.separator()),
        BorderFactory.createEmptyBorder(7, 12, 7, 12)));
    JLabel t = new JLabel(Strings.History.TOOL_WINDOW);
    t.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    p.add(t, BorderLayout.WEST);
    JLabel more = new JLabel("⋮   —");
    more.setForeground(Theme.LIGHT.icon());
    p.add(more, BorderLayout.EAST);
    return p;
  }

  /** Waits for a rendered snapshot that satisfies `p` (the latest, or the next ones). */
  HistoryModel.Snapshot await(Predicate<HistoryModel.Snapshot> p) throws Exception {
    HistoryModel.Snapshot now = onEdt(panel::shown);
    if (now != null && p.test(now)) return now;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Fixture.WAIT_S);
    while (System.nanoTime() < end) {
      HistoryModel.Snapshot s = rendered.poll(1, TimeUnit.SECONDS);
      if (s != null && p.test(s)) return s;
    }
    throw new AssertionError("the panel never showed what was expected; last: " + labels(onEdt(panel::shown)));
  }

  static List<String> labels(HistoryModel.Snapshot s) {
    return s == null ? List.of() : s.rows().stream().map(r -> r instanceof HistoryModel.Entry e ? e.label()
        : ((HistoryModel.Header) r).label() + ":").toList();
  }

  static boolean shows(HistoryModel.Snapshot s, String label) {
    return s.rows().stream().anyMatch(r -> r instanceof HistoryModel.Entry e && e.label().equals(label));
  }

  static <T> T onEdt(java.util.concurrent.Callable<T> f) throws Exception {
    AtomicReference<T> out = new AtomicReference<>();
    AtomicReference<Exception> err = new AtomicReference<>();
    SwingUtilities.invokeAndWait(() -> {
      try {
        out.set(f.call());
      } catch (Exception e) {
        err.set(e);
      }
    });
    if (err.get() != null) throw err.get();
    return out.get();
  }

  void click(String name) throws Exception {
    SwingUtilities.invokeAndWait(() -> {
      Component c = find(panel, name);
      if (c == null) for (Component m : panel.menu().getComponents()) if (name.equals(m.getName())) c = m;
      if (c == null) for (Component m : panel.moreMenu().getComponents()) if (name.equals(m.getName())) c = m;
      assertNotNull(c, "no component " + name);
      ((AbstractButton) c).doClick();
    });
  }

  static Component find(Container root, String name) {
    for (Component c : root.getComponents()) {
      if (name.equals(c.getName())) return c;
      if (c instanceof Container k) {
        Component f = find(k, name);
        if (f != null) return f;
      }
    }
    return null;
  }

  void select(String id) throws Exception {
    assertTrue(onEdt(() -> panel.select(id)), "not listed: " + id);
  }

  @Test
  void thePanelShowsTheHistoryReactsToChangesAndItsActionsWork() throws Exception {
    String refunds = chat("Idempotent refunds via Redis keys", "claude-sonnet-4", 3, Duration.ofMinutes(4), true);
    chat("Fix the flaky checkout test", "gpt-4.1", 2, Duration.ofMinutes(50), false);
    chat("Why is the Docker build slow?", "claude-sonnet-4", 5, Duration.ofHours(26), true);
    String tracing = chat("Add OpenTelemetry tracing to the API", "claude-opus-4", 8, Duration.ofDays(3), true);
    String billing = chat("Migrate billing to Stripe API v2", "gemini-2.5-pro", 12, Duration.ofDays(12), true);
    chat("Refactor the auth middleware", null, 4, Duration.ofDays(40), true);
    String big = new ChatTest.ConnectionTestAccess(fx).longSession(); // tier 3 in a 2,000-token window
    fx.append(big, Fixture.title("2026-11-30T10:40:00.000Z", "Deploy pipeline, step by step"));
    open(new Settings(null, null, 2000, 0.4, 10));

    // 1. The chats the CLI wrote, grouped, newest first, with their secondary text.
    HistoryModel.Snapshot s = await(x -> x.sessions().size() == 7);
    List<String> shown = labels(s);
    // The sidecar's groups and headings (session/list's view), not the panel's own.
    assertTrue(List.of("Today:", "Yesterday:").contains(shown.get(0)), shown.toString());
    assertEquals("Idempotent refunds via Redis keys", shown.get(1));
    assertTrue(shown.contains("Older:"), shown.toString());
    HistoryModel.Entry first = (HistoryModel.Entry) s.rows().get(1);
    // Listed by its last message (two minutes after the title event, see chat()).
    assertTrue(first.secondary().matches("(\\w{3} )?\\d\\d:\\d\\d · 3 turns · claude-sonnet-4"), first.secondary());
    assertEquals("7 chats · " + fx.project.getFileName(), onEdt(() -> panel.status().getText()));

    // 2. Resume (tier 1) from the context menu: the chat becomes the current one.
    select(refunds);
    click("levelcode.menu.resume");
    assertEquals("Resumed “Idempotent refunds via Redis keys”: the whole chat.", ui.await("Resumed").message());
    assertEquals(refunds, core.chat.current());
    // (For the screenshot: one chat pinned, listed first.)
    Fixture.get(core.lifecycle.setPinned(core.history.find(billing), true));
    await(x -> labels(x).subList(0, 2).equals(List.of("Pinned:", "Migrate billing to Stripe API v2")));
    select(tracing);
    SwingUtilities.invokeAndWait(() -> panel.listComponent().requestFocusInWindow());
    saveScreenshot();

    // 3. A chat another process creates shows without a refresh (session/didChange).
    chat("Upgrade to Java 21", "claude-sonnet-4", 1, Duration.ZERO, false);
    await(x -> shows(x, "Upgrade to Java 21"));

    // 4. The search field searches every message (session/search): the matches under one header.
    SwingUtilities.invokeAndWait(() -> panel.searchField().setText("stripe billing"));
    s = await(x -> x.sessions().size() == 1);
    assertEquals(List.of(Strings.History.RESULTS + ":", "Migrate billing to Stripe API v2"), labels(s));
    SwingUtilities.invokeAndWait(() -> panel.searchField().setText(""));
    await(x -> x.sessions().size() == 8);

    // 5. Rename: a blank title is refused, a good one is stored and shown.
    select(billing);
    ui.nextInput = "   ";
    click("levelcode.menu.rename");
    assertEquals(Strings.Rename.EMPTY, ui.lastInputProblem);
    ui.nextInput = "Stripe v2 migration";
    click("levelcode.menu.rename");
    assertEquals("Renamed to “Stripe v2 migration”.", ui.await("Renamed").message());
    await(x -> shows(x, "Stripe v2 migration") && !shows(x, "Migrate billing to Stripe API v2"));

    // 6. Open transcript: the Markdown export in an editor tab.
    select(billing);
    click("levelcode.menu.transcript");
    String[] tab = waitForTab();
    assertEquals("Stripe v2 migration", tab[0]);
    assertTrue(tab[1].startsWith("# "), tab[1]);
    assertTrue(tab[1].contains("and then step 11"), tab[1]);

    // 7. Export from the toolbar: the file the save dialog chose.
    Path out = Files.createDirectories(fx.root.resolve("exports"));
    ui.nextSave = out;
    select(billing);
    click("levelcode.export");
    String done = ui.await("Exported to").message();
    Path file = out.resolve("Stripe v2 migration.md");
    assertEquals(Strings.Export.done(file.toString()), done);
    assertTrue(Files.readString(file).contains("and then step 11"));

    // 8. Delete moves the file to the trash at once; the notice's Undo brings it back (session/restore).
    byte[] before = fx.fileOf(tracing);
    select(tracing);
    click("levelcode.menu.delete");
    String deleting = ui.await("was moved to the trash").message();
    assertEquals(Strings.Delete.trashed("Add OpenTelemetry tracing to the API"), deleting);
    await(x -> !shows(x, "Add OpenTelemetry tracing to the API"));
    assertFalse(fx.inStore(tracing), "the file left the store at once");
    ui.click(deleting, Strings.Delete.UNDO);
    assertEquals(Strings.Delete.restored("Add OpenTelemetry tracing to the API"), ui.await("was restored").message());
    await(x -> shows(x, "Add OpenTelemetry tracing to the API"));
    org.junit.jupiter.api.Assertions.assertArrayEquals(before, fx.fileOf(tracing), "the same bytes came back");

    // 9. Delete without Undo: the file stays in the trash and the row stays gone.
    select(tracing);
    click("levelcode.menu.delete");
    ui.await("was moved to the trash");
    await(x -> x.sessions().stream().noneMatch(e -> e.id().equals(tracing)) && core.history.find(tracing) == null);
    assertFalse(fx.inStore(tracing));
    assertTrue(fx.inTrash(tracing), "in the trash, not unlinked");

    // 10. Resume a long chat: consent first, then a summary through the model (tier 3).
    ui.answers.put(Strings.Resume.FROM_SUMMARY, Strings.Resume.FROM_SUMMARY);
    select(big);
    click("levelcode.menu.resume");
    ScriptedUi.Said consent = ui.await("needs a summary");
    assertEquals(List.of(Strings.Resume.FROM_SUMMARY, Strings.Resume.START_FRESH), consent.options());
    String resumed = ui.await("Resumed").message();
    assertTrue(resumed.contains(": from a new summary and the recent turns."), resumed);
    assertFalse(resumed.contains("tier"), resumed);
    assertEquals("compact", ChatTest.lastEventKind(core, big));

    // 11. Resume Last from the toolbar: the newest chat.
    click("levelcode.resumeLast");
    assertTrue(ui.await("Resumed").message().startsWith("Resumed “"));

    // 12. New Chat from the toolbar seals the current chat: awaited on New Chat's own event (the
    // seal's didChange may redraw the panel before New Chat lets the chat go).
    CompletableFuture<Chat.NewChat> newChat = new CompletableFuture<>();
    Runnable stopListening = core.chat.onNewChat(newChat::complete);
    click("levelcode.newChat");
    assertNotNull(newChat.get(Fixture.WAIT_S, TimeUnit.SECONDS).sealed());
    stopListening.run();
    assertNull(core.chat.current());
  }

  String menuText(String name) throws Exception {
    return onEdt(() -> {
      panel.updateMenu();
      for (Component m : panel.menu().getComponents()) if (name.equals(m.getName())) return ((JMenuItem) m).getText();
      throw new AssertionError("no menu item " + name);
    });
  }

  static HistoryModel.Entry entry(HistoryModel.Snapshot s, String id) {
    return s.rows().stream().filter(r -> r instanceof HistoryModel.Entry e && e.session().id().equals(id))
        .map(r -> (HistoryModel.Entry) r).findFirst().orElse(null);
  }

  @Test
  void theContextMenuToolbarAndMoreMenuDriveTheLifecycle() throws Exception {
    String a = chat("Pin me", "claude-sonnet-4", 2, Duration.ofMinutes(30), true);
    String b = chat("Archive me", "claude-sonnet-4", 1, Duration.ofMinutes(10), true);
    open(new Settings(null, null, 128_000, 0.4, 50_000).withLifecycle(0, 1, 0));
    await(x -> x.sessions().size() == 2);

    // Pin from the context menu: the row moves under Pinned, with its pin; the menu then says Unpin.
    select(a);
    assertEquals(Strings.Actions.PIN, menuText("levelcode.menu.pin"));
    click("levelcode.menu.pin");
    HistoryModel.Snapshot s = await(x -> labels(x).size() > 1 && labels(x).subList(0, 2).equals(List.of("Pinned:", "Pin me")));
    assertTrue(entry(s, a).session().pinned());
    assertFalse(entry(s, a).secondary().contains("pinned"), "the pin icon says it");
    select(a);
    assertEquals(Strings.Actions.UNPIN, menuText("levelcode.menu.pin"));

    // Archive: the row leaves; the Show Archived toggle lists it, with Unarchive in its menu.
    select(b);
    assertEquals(Strings.Actions.ARCHIVE, menuText("levelcode.menu.archive"));
    click("levelcode.menu.archive");
    assertEquals(List.of(Strings.Lifecycle.UNDO), ui.await("Archived “Archive me”").options());
    await(x -> !shows(x, "Archive me"));
    click("levelcode.showArchived");
    await(x -> core.history.showsArchived() && x.sessions().size() == 1 && shows(x, "Archive me"));
    assertEquals("1 archived chat · " + fx.project.getFileName(), onEdt(() -> panel.status().getText()));
    select(b);
    assertEquals(Strings.Actions.UNARCHIVE, menuText("levelcode.menu.archive"));
    click("levelcode.menu.archive");
    ui.await("is back in History");
    s = await(x -> x.sessions().isEmpty());
    assertEquals(Strings.History.ARCHIVED_EMPTY, s.emptyText());
    click("levelcode.showArchived");
    await(x -> !core.history.showsArchived() && x.sessions().size() == 2);

    // Fork from Turn…: the turns to choose from, then the fork is resumed and listed as such.
    ui.chooser = items -> 0;
    select(a);
    click("levelcode.menu.fork");
    assertEquals(List.of("Turn 1 · Pin me", "Turn 2 · and then step 1"), ui.await("from turn").options());
    assertTrue(ui.await("Resumed").message().startsWith("Resumed “Pin me"));
    String fork = core.chat.current();
    s = await(x -> x.sessions().size() == 3 && entry(x, fork) != null);
    assertTrue(entry(s, fork).secondary().endsWith(" · forked from “Pin me” turn 1"), entry(s, fork).secondary());

    // More | Apply Retention…: the dry run as a checklist (keep 1; the pinned chat never falls out,
    // and the chat this window holds is left alone: New Chat lets the fork go first).
    click("levelcode.newChat");
    await(x -> core.chat.current() == null);
    click("levelcode.more.retention");
    ScriptedUi.Said list = ui.await(Strings.Retention.TITLE);
    assertEquals(1, list.options().size(), list.options().toString());
    assertTrue(list.options().get(0).startsWith("[x] “"), list.options().toString());
    assertEquals(3, core.history.snapshot().sessions().size(), "cancelled: nothing changed");

    // More | Relink Chats from Another Folder…: no other folder has chats, so only "Another folder…".
    click("levelcode.more.relink");
    assertEquals(List.of(Strings.Relink.OTHER), ui.await(Strings.Relink.CHOOSE).options());
  }

  String[] waitForTab() throws Exception {
    synchronized (ui) {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Fixture.WAIT_S);
      while (ui.opened.isEmpty() && System.nanoTime() < end) ui.wait(1000);
      assertFalse(ui.opened.isEmpty(), "no transcript was opened");
      return ui.opened.get(ui.opened.size() - 1);
    }
  }

  void saveScreenshot() throws Exception { screenshot(frame, "history.png"); }

  /**
   * Saves what `frame` shows as `name` in the folder -Dlevelcode.screenshots names (the README's
   * pictures: clients/jetbrains/screenshots.sh); nothing without it.
   */
  static void screenshot(JFrame frame, String name) throws Exception {
    String dir = System.getProperty("levelcode.screenshots");
    if (dir == null || dir.isEmpty()) return;
    BufferedImage img = onEdt(() -> {
      Container c = frame.getContentPane();
      c.validate();
      BufferedImage i = new BufferedImage(c.getWidth(), c.getHeight(), BufferedImage.TYPE_INT_RGB);
      java.awt.Graphics2D g = i.createGraphics();
      c.paint(g);
      g.dispose();
      return i;
    });
    Files.createDirectories(Path.of(dir));
    ImageIO.write(img, "png", Path.of(dir, name).toFile());
  }

}
