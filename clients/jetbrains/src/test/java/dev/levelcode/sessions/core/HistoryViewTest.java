// The History the JetBrains panel draws, against the real sidecar (issue 40): the shared fixture
// set test/fixtures/history-view/ (materialised with times computed from now; the JVM's zone set
// to the fixture's, which the client sends at initialize) gives the expected groups, headings,
// titles, grey lines and order; the search field finds the same chats, in the same order, as
// session/search (full text, not titles); a narrow panel keeps the tool and the time and drops the
// model first; the empty History offers Import, which finds a real Claude Code and a real Codex
// file, imports the chosen tool and reports per tool.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.ui.HistoryPanel;
import java.awt.BorderLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.swing.JFrame;
import javax.swing.SwingUtilities;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HistoryViewTest {
  Fixture fx;
  ScriptedUi ui;
  LevelCode core;
  HistoryPanel panel;
  JFrame frame;
  TimeZone zone;
  final LinkedBlockingQueue<HistoryModel.Snapshot> rendered = new LinkedBlockingQueue<>();

  @BeforeEach
  void setUp() throws Exception {
    fx = new Fixture();
    ui = new ScriptedUi();
    zone = TimeZone.getDefault();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (frame != null) SwingUtilities.invokeAndWait(frame::dispose);
    fx.close();
    TimeZone.setDefault(zone);
  }

  /** The core on the fixture's store with `env` for the sidecar, and the panel in a frame `width` wide. */
  void open(Map<String, String> env, int width) throws Exception {
    Map<String, String> all = new java.util.HashMap<>(Map.of("XDG_DATA_HOME", fx.data().toString()));
    all.putAll(env);
    Sidecar s = new Sidecar(fx.options().withEnv(all).withLifecycle(0, null), fx.log);
    core = new LevelCode(s, fx.project.toString(), ui, Chat.State.inMemory(), Settings::defaults, fx.log,
        PendingDeletes.Timers.real(), Duration.ofMillis(300), Clock.systemDefaultZone());
    fx.closeLater(core);
    SwingUtilities.invokeAndWait(() -> {
      panel = new HistoryPanel(core.history, core.chat, core.lifecycle, core.importer);
      panel.onRendered(rendered::add);
      frame = new JFrame("LevelCode History");
      frame.getContentPane().setLayout(new BorderLayout());
      frame.getContentPane().add(panel, BorderLayout.CENTER);
      frame.setSize(width, 700);
      frame.setVisible(true);
    });
    core.start();
  }

  HistoryModel.Snapshot await(Predicate<HistoryModel.Snapshot> p) throws Exception {
    HistoryModel.Snapshot now = HistoryPanelTest.onEdt(panel::shown);
    if (now != null && p.test(now)) return now;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Fixture.WAIT_S);
    while (System.nanoTime() < end) {
      HistoryModel.Snapshot s = rendered.poll(1, TimeUnit.SECONDS);
      if (s != null && p.test(s)) return s;
    }
    throw new AssertionError("the panel never showed what was expected; last: " + HistoryPanelTest.labels(HistoryPanelTest.onEdt(panel::shown)));
  }

  /** `node test/fixtures/history-view/materialise.mjs --store S --project P`: the expected rows. */
  JsonObject materialise() throws Exception {
    ProcessBuilder pb = new ProcessBuilder("node", Fixture.REPO.resolve("test/fixtures/history-view/materialise.mjs").toString(),
        "--store", fx.store.toString(), "--project", fx.project.toString()).redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(Fixture.WAIT_S, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    return JsonParser.parseString(out).getAsJsonObject();
  }

  /** What the panel must show for the expected rows: "Heading:" whenever the group changes, then "title | grey line". */
  static List<String> drawn(JsonArray rows) {
    List<String> out = new ArrayList<>();
    String group = null;
    for (JsonElement e : rows) {
      JsonObject r = e.getAsJsonObject();
      if (!r.get("group").getAsString().equals(group)) {
        group = r.get("group").getAsString();
        out.add(r.get("groupLabel").getAsString() + ":");
      }
      out.add(r.get("title").getAsString() + " | " + r.get("description").getAsString());
    }
    return out;
  }

  static List<String> shown(HistoryModel.Snapshot s) {
    return s.rows().stream().map(r -> r instanceof HistoryModel.Entry e ? e.label() + " | " + e.secondary()
        : ((HistoryModel.Header) r).label() + ":").toList();
  }

  @Test
  void theFixtureSetDrawsTheSidecarsGroupsHeadingsTitlesAndOrder() throws Exception {
    JsonObject want = materialise();
    TimeZone.setDefault(TimeZone.getTimeZone(want.get("timeZone").getAsString())); // the zone the client sends
    open(Map.of("TZ", "UTC"), 900); // the sidecar's own zone is not the user's: the groups only hold in +05:30
    JsonArray rows = want.getAsJsonArray("rows");
    HistoryModel.Snapshot s = await(x -> x.sessions().size() == rows.size());
    assertEquals(drawn(rows), shown(s));
    List<String> ids = new ArrayList<>();
    for (JsonElement e : rows) ids.add(e.getAsJsonObject().get("id").getAsString());
    assertEquals(ids, s.sessions().stream().map(Protocol.SessionSummary::id).toList());

    // For the README: the whole fixture in a narrow panel (the tool and time stay, the model goes).
    SwingUtilities.invokeAndWait(() -> {
      frame.getContentPane().add(HistoryPanelTest.titleStrip(), BorderLayout.NORTH);
      frame.setSize(260, 640);
      frame.validate();
    });
    HistoryPanelTest.onEdt(() -> { panel.listComponent().ensureIndexIsVisible(0); return null; });
    HistoryPanelTest.screenshot(frame, "history-narrow.png");

    // Show Archived: the archived rows under their own heading.
    HistoryModel.Snapshot a = Fixture.get(core.history.showArchived(true));
    assertEquals(drawn(want.getAsJsonArray("archived")), shown(a));
  }

  @Test
  void searchFindsTheSameChatsAsSessionSearchInEveryMessage() throws Exception {
    String[][] chats = {
        {"Release notes", "Draft the release notes", "Mention the flaky upload retry fix"},
        {"Upload retries", "Why does the upload retry twice?", "Because the client and the proxy both retry"},
        {"CSS variables", "Rename the CSS variables", "Done: --brand-500 and friends"},
        {"Proxy config", "Set up the proxy", "The proxy will retry an upload on 502"},
        {"Old chat", "Something else entirely", "Nothing about it"},
    };
    for (String[] c : chats) {
      String id = fx.newSession("claude-sonnet-4");
      fx.append(id, Fixture.user("2026-12-01T10:00:00.000Z", c[1]), Fixture.assistant("2026-12-01T10:01:00.000Z", c[2]),
          Fixture.title("2026-12-01T10:02:00.000Z", c[0]));
    }
    open(Map.of(), 420);
    await(x -> x.sessions().size() == chats.length);
    Sidecar direct = fx.sidecar(o -> o); // session/search asked directly, as the other editors ask it
    for (String q : List.of("upload retry", "proxy", "\"release notes\"", "nothing-matches-this")) {
      Protocol.SearchResult found = Fixture.get(
          direct.request(Protocol.SEARCH, new Protocol.SearchParams(q, fx.project.toString(), null, null, null, 100, 1, null, null)));
      List<String> expected = found.sessions().stream().map(Protocol.SearchSession::sessionId).toList();
      SwingUtilities.invokeAndWait(() -> panel.searchField().setText(q));
      HistoryModel.Snapshot s = await(x -> q.equals(core.history.searchedFor()) && core.history.query().equals(q));
      assertEquals(expected, s.sessions().stream().map(Protocol.SessionSummary::id).toList(), q);
      if (q.equals("upload retry")) {
        // Not found by title or first message alone: "Release notes" says it only in its answer.
        assertEquals(3, expected.size(), found.toString());
        assertTrue(HistoryPanelTest.labels(s).contains("Release notes"), HistoryPanelTest.labels(s).toString());
      }
      if (expected.isEmpty()) assertEquals(Strings.History.NO_MATCH, s.emptyText());
    }
    SwingUtilities.invokeAndWait(() -> panel.searchField().setText(""));
    await(x -> x.sessions().size() == chats.length && core.history.query().isEmpty());
  }

  @Test
  void aNarrowPanelKeepsTheToolAndTimeAndDropsTheModelFirst() throws Exception {
    Path home = toolHome();
    open(Map.of("HOME", home.toString(), "CLAUDE_CONFIG_DIR", "", "CODEX_HOME", ""), 900);
    await(x -> true);
    Fixture.get(core.importer.run(new Importer.Choice("claude-code", "Claude Code")));
    HistoryModel.Snapshot s = await(x -> x.sessions().size() == 1);
    HistoryModel.Entry e = (HistoryModel.Entry) s.rows().get(1);
    String id = e.session().id();
    String full = e.secondary();
    assertTrue(full.matches("Claude Code · .+ · 4 turns · claude-sonnet-4-5"), full);
    String time = e.session().view().time();
    // Wide: all of it.
    assertEquals(full, HistoryPanelTest.onEdt(() -> panel.shownGreyLine(id)));
    // Narrower and narrower: the model goes, then the turns; the tool and the time stay.
    List<String> seen = new ArrayList<>();
    for (int w : new int[] {360, 300, 260, 230, 200}) {
      SwingUtilities.invokeAndWait(() -> {
        frame.setSize(w, 700);
        frame.validate();
      });
      String line = HistoryPanelTest.onEdt(() -> panel.shownGreyLine(id));
      seen.add(w + ": " + line);
      assertTrue(line.startsWith("Claude Code · "), seen.toString());
      if (!line.endsWith("…")) assertTrue(line.contains(time), seen.toString());
      if (line.contains("claude-sonnet")) assertTrue(line.contains("4 turns"), "the model goes before the turns: " + seen);
    }
    assertTrue(seen.stream().anyMatch(l -> l.endsWith("Claude Code · " + time)), "at some width only the tool and time: " + seen);
  }

  /** A home folder with a real Claude Code session (in this project) and a real Codex rollout. */
  Path toolHome() throws Exception {
    Path fixtures = Fixture.REPO.resolve("test/fixtures/import");
    Path home = Files.createDirectories(fx.root.resolve("home"));
    Path claude = Files.createDirectories(home.resolve(".claude/projects").resolve(fx.project.toString().replaceAll("[^A-Za-z0-9]", "-")));
    String uuid = "81de8f02-0841-48b1-9a80-29d83a4a2fd3";
    String real = Files.readString(fixtures.resolve("claude-code/real-1.0.128/projects/-tmp-levelcode-fixture-demo/" + uuid + ".jsonl"));
    Files.writeString(claude.resolve(uuid + ".jsonl"), real.replace("/tmp/levelcode-fixture/demo", fx.project.toString()));
    Path day = Files.createDirectories(home.resolve(".codex/sessions/2026/12/02"));
    String rollout = "rollout-2026-12-02T18-45-57-01a23813-e62c-7653-913d-2941332094fa.jsonl";
    String codex = Files.readString(fixtures.resolve("codex/real-0.171.0/sessions/2026/12/02/" + rollout));
    Files.writeString(day.resolve(rollout), codex.replace("/tmp/levelcode-fixture/demo", fx.project.toString()));
    return home;
  }

  @Test
  void theEmptyHistoryOffersImportWhichListsTheToolsFoundAndReportsPerTool() throws Exception {
    Path home = toolHome();
    open(Map.of("HOME", home.toString(), "CLAUDE_CONFIG_DIR", "", "CODEX_HOME", ""), 420);
    HistoryModel.Snapshot empty = await(x -> !Strings.History.LOADING.equals(x.emptyText()));
    assertTrue(empty.rows().isEmpty());
    assertTrue(HistoryPanelTest.onEdt(panel::showsEmptyImport), "the empty History shows the Import link");
    assertTrue(HistoryPanelTest.onEdt(() -> panel.emptyImportLink().isShowing()));
    assertEquals(Strings.Import.ACTION, HistoryPanelTest.onEdt(() -> panel.emptyImportLink().getText()));
    SwingUtilities.invokeAndWait(() -> {
      frame.getContentPane().add(HistoryPanelTest.titleStrip(), BorderLayout.NORTH);
      frame.setSize(400, 420);
      frame.validate();
    });
    HistoryPanelTest.screenshot(frame, "history-empty.png");

    ui.chooser = items -> items.indexOf(items.stream().filter(i -> i.startsWith("Codex")).findFirst().orElseThrow());
    SwingUtilities.invokeAndWait(() -> panel.emptyImportLink().doClick());
    ScriptedUi.Said asked = ui.await(Strings.Import.CHOOSE);
    assertEquals(List.of("All of them · 2 chats new or updated", "Claude Code · 1 file found · 1 new or updated",
        "Codex · 1 file found · 1 new or updated"), asked.options());
    ScriptedUi.Said done = ui.await("Imported 1 chat");
    assertTrue(done.message().contains("Codex: 1 new chat"), done.message());
    assertFalse(done.message().contains("Claude Code"), done.message());
    HistoryModel.Snapshot s = await(x -> x.sessions().size() == 1);
    assertTrue(s.sessions().get(0).view().source().equals("Codex"), s.sessions().get(0).toString());
    assertFalse(HistoryPanelTest.onEdt(panel::showsEmptyImport), "the list again");

    // The toolbar's Import, with all of them.
    ui.chooser = items -> 0;
    ui.steps.clear();
    HistoryPanelTest.onEdt(() -> {
      for (java.awt.Component c : panel.toolbar().getComponents()) if ("levelcode.import".equals(c.getName())) ((javax.swing.AbstractButton) c).doClick();
      return null;
    });
    ui.await(Strings.Import.CHOOSE);
    ScriptedUi.Said all = ui.await("Imported 1 chat");
    assertTrue(all.message().contains("Claude Code: 1 new chat"), all.message());
    assertTrue(all.message().contains("Codex: 1 already in History"), all.message());
    // The indicator follows the sidecar's $/progress for this import: files and a percentage.
    assertEquals(Strings.Import.progress(Strings.Import.ALL), ui.progressTitles.get(ui.progressTitles.size() - 1));
    WorkProgress.Step last = ui.steps.isEmpty() ? null : ui.steps.get(ui.steps.size() - 1);
    assertNotNull(last, "no $/progress report reached the indicator");
    assertEquals(100, last.percentage(), ui.steps.toString());
    assertTrue(last.message() != null && last.message().matches("(\\d+) of \\1 source files"), ui.steps.toString());
    await(x -> x.sessions().size() == 2);
  }
}
