// History's lifecycle against the real sidecar, with a scripted user: pin first and unpin;
// archive, Show Archived and the notice's Undo; the settings' auto-archive and retention sent as
// initializationOptions (and 0 turning auto-archive off); Apply Retention's checklist, archiving a
// part or all of it, and Move to Trash only after a confirmation naming the count, with Undo
// restoring; Fork from Turn (the turns from session/read, session/fork atTurn, the fork resumed);
// Relink from another folder (dry run count, confirm, apply, rows "moved from …"); and the rows'
// state: open in another window (heldBy), interrupted, forked from.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Json;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LifecycleTest {
  Fixture fx;
  ScriptedUi ui;
  final Instant now = Instant.now();

  @BeforeEach void setUp() throws Exception { fx = new Fixture(); ui = new ScriptedUi(); }
  @AfterEach void tearDown() throws Exception { fx.close(); }

  final Model model = new Model() {
    public CompletableFuture<String> summarize(List<JsonElement> messages, String instructions) {
      return CompletableFuture.completedFuture("FACT: a briefing");
    }
    public CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions) {
      return CompletableFuture.completedFuture("A title");
    }
  };

  /** A chat in `project` whose `turns` user turns end `daysAgo` days ago, titled `title`. */
  String chat(Path project, String title, int turns, double daysAgo) throws Exception {
    String out = fx.cli(null, "new", "--project", project.toString(), "--json");
    String id = JsonParser.parseString(out).getAsJsonObject().get("id").getAsString();
    String[] events = new String[turns * 2 + 1];
    for (int i = 0; i < turns; i++) {
      Instant at = now.minus(Duration.ofMinutes((long) (daysAgo * 1440) + 2L * (turns - i)));
      events[2 * i] = Fixture.user(at.toString(), i == 0 ? title : "then step " + (i + 1) + "\nmore text");
      events[2 * i + 1] = Fixture.assistant(at.plusSeconds(30).toString(), "Done " + (i + 1));
    }
    events[turns * 2] = Fixture.title(now.minus(Duration.ofMinutes((long) (daysAgo * 1440))).toString(), title);
    fx.append(id, events);
    return id;
  }

  String chat(String title, int turns, double daysAgo) throws Exception { return chat(fx.project, title, turns, daysAgo); }

  LevelCode core(Settings settings) throws Exception {
    Sidecar s = new Sidecar(fx.options(), fx.log);
    LevelCode c = new LevelCode(s, fx.project.toString(), ui, Chat.State.inMemory(), () -> settings, fx.log,
        PendingDeletes.Timers.real(), Duration.ofMillis(50), Clock.systemDefaultZone());
    fx.closeLater(c);
    c.chat.setModel(model);
    Fixture.get(s.start());
    Fixture.get(c.history.refresh());
    return c;
  }

  static List<String> labels(HistoryModel.Snapshot s) {
    return s.rows().stream().map(r -> r instanceof HistoryModel.Entry e ? e.label() : ((HistoryModel.Header) r).label() + ":").toList();
  }

  static HistoryModel.Entry entry(HistoryModel.Snapshot s, String id) {
    return s.rows().stream().filter(r -> r instanceof HistoryModel.Entry e && e.session().id().equals(id))
        .map(r -> (HistoryModel.Entry) r).findFirst().orElse(null);
  }

  @Test
  void pinnedChatsComeFirstAndUnpinPutsThemBack() throws Exception {
    String old = chat("Old one", 1, 3);
    chat("New one", 1, 0);
    LevelCode c = core(Settings.defaults());
    SessionSummary s = c.history.find(old);
    assertEquals(Boolean.TRUE, Fixture.get(c.lifecycle.setPinned(s, true)));
    HistoryModel.Snapshot snap = c.history.snapshot();
    assertEquals(List.of("Pinned:", "Old one"), labels(snap).subList(0, 2));
    assertFalse(entry(snap, old).secondary().contains("pinned"), "the pin icon and the heading say it: " + entry(snap, old).secondary());
    assertTrue(entry(snap, old).tooltip().contains(Strings.State.PINNED_TIP));
    assertTrue(c.history.find(old).pinned());
    assertEquals(Boolean.FALSE, Fixture.get(c.lifecycle.setPinned(c.history.find(old), false)));
    assertFalse(labels(c.history.snapshot()).contains("Pinned:"));
    assertEquals("New one", labels(c.history.snapshot()).get(1));
  }

  @Test
  void archiveLeavesHistoryShowArchivedListsItAndUndoBringsItBack() throws Exception {
    String a = chat("Keep me around", 1, 1);
    chat("Another", 1, 0);
    LevelCode c = core(Settings.defaults());
    assertEquals(Boolean.TRUE, Fixture.get(c.lifecycle.setArchived(c.history.find(a), true)));
    ScriptedUi.Said said = ui.await("Archived “Keep me around”");
    assertEquals(List.of(Strings.Lifecycle.UNDO), said.options());
    assertNull(c.history.find(a), "out of the main History");
    HistoryModel.Snapshot archived = Fixture.get(c.history.showArchived(true));
    assertEquals(List.of(a), archived.sessions().stream().map(SessionSummary::id).toList());
    assertEquals("Archived:", labels(archived).get(0)); // the sidecar's heading; the row's icon says it too
    assertTrue(Fixture.get(c.history.showArchived(false)).sessions().stream().noneMatch(x -> x.id().equals(a)));
    ui.click(said.message(), Strings.Lifecycle.UNDO);
    assertEquals(Strings.Lifecycle.unarchived("Keep me around"), ui.await("is back in History").message());
    assertNotNull(Fixture.get(c.history.refresh()).sessions().stream().filter(x -> x.id().equals(a)).findFirst().orElse(null));
    assertTrue(Fixture.get(c.history.showArchived(true)).sessions().isEmpty());
    assertEquals(Strings.History.ARCHIVED_EMPTY, c.history.snapshot().emptyText());
  }

  @Test
  void resumeLastTakesTheMainListEvenWhileShowArchivedIsOn() throws Exception {
    String older = chat("Still in History", 1, 2);
    String newest = chat("Archived newest", 1, 0);
    LevelCode c = core(Settings.defaults());
    Fixture.get(c.lifecycle.setArchived(c.history.find(newest), true));
    Fixture.get(c.history.showArchived(true));
    assertEquals(older, Fixture.get(c.chat.resumeLast()).id());
  }

  @Test
  void theLifecycleSettingsGoToInitializeAndAutoArchiveIdleChats() throws Exception {
    Settings on = Settings.defaults().withLifecycle(30, 5, 0);
    Sidecar.Options o = LevelCode.options(on, null);
    // …with the user's time zone, which the sidecar groups History in.
    String zone = ",\"timeZone\":\"" + java.time.ZoneId.systemDefault().getId() + "\"";
    assertEquals("{\"autoArchiveDays\":30,\"retention\":{\"keep\":5}" + zone + "}", Json.tree(o.initializationOptions()).toString()
        .replace("\"consentThreshold\":50000,", ""));
    assertEquals("{\"consentThreshold\":50000,\"autoArchiveDays\":0" + zone + "}",
        Json.tree(LevelCode.options(Settings.defaults().withLifecycle(0, 0, 0), null).initializationOptions()).toString());
    assertNull(LevelCode.retentionRules(Settings.defaults()), "retention is off by default");
    assertEquals(30, Settings.defaults().autoArchiveDays());

    String idle = chat("Forty days quiet", 1, 40);
    String fresh = chat("Yesterday's", 1, 1);
    // Auto-archive off (0): nothing archived at start.
    Settings off = new Settings(fx.store.toString(), Fixture.BIN.toString(), 128_000, 0.4, 50_000, 0, 0, 0);
    try (LevelCode c = LevelCode.create(off, null, fx.project.toString(), ui, Chat.State.inMemory(), () -> off, fx.log)) {
      assertEquals(2, Fixture.get(c.history.refresh()).sessions().size());
    }
    // The default, 30 days: the idle chat is archived at start, the other stays.
    Settings dflt = new Settings(fx.store.toString(), Fixture.BIN.toString(), 128_000, 0.4, 50_000);
    try (LevelCode c = LevelCode.create(dflt, null, fx.project.toString(), ui, Chat.State.inMemory(), () -> dflt, fx.log)) {
      assertEquals(List.of(fresh), Fixture.get(c.history.refresh()).sessions().stream().map(SessionSummary::id).toList());
      assertEquals(List.of(idle), Fixture.get(c.history.showArchived(true)).sessions().stream().map(SessionSummary::id).toList());
    }
  }

  @Test
  void applyRetentionShowsTheDryRunAndArchivesWhatIsChecked() throws Exception {
    String a = chat("Newest", 1, 0);
    String b = chat("Second", 1, 1);
    String c3 = chat("Third", 1, 2);
    String d = chat("Fourth", 1, 3);
    LevelCode c = core(Settings.defaults().withLifecycle(0, 2, 0));
    // Cancelled: nothing changes.
    assertNull(Fixture.get(c.lifecycle.applyRetention()));
    assertEquals(4, Fixture.get(c.history.refresh()).sessions().size());
    // The checklist: the two beyond the newest 2, why, all checked; uncheck the first, archive.
    ui.checker = items -> new Ui.Checked(Strings.Retention.ARCHIVE, List.of(1));
    Lifecycle.RetentionOutcome o = Fixture.get(c.lifecycle.applyRetention());
    ScriptedUi.Said list = ui.await(Strings.Retention.TITLE);
    assertTrue(list.message().contains("keep the newest 2 per project"), list.message());
    assertEquals(2, list.options().size());
    assertTrue(list.options().get(0).startsWith("[x] “Third”: beyond the newest 2 (last active "), list.options().toString());
    assertTrue(list.options().get(1).startsWith("[x] “Fourth”: beyond the newest 2"), list.options().toString());
    assertEquals(List.of(d), o.archived());
    assertEquals(Strings.Retention.archivedN(1), ui.await("Archived 1 chat").message());
    assertEquals(List.of(a, b, c3), Fixture.get(c.history.refresh()).sessions().stream().map(SessionSummary::id).toList());

    // Again, everything checked: session/retention itself archives (the rest of the plan).
    ui.checker = items -> new Ui.Checked(Strings.Retention.ARCHIVE, List.of(0));
    o = Fixture.get(c.lifecycle.applyRetention());
    assertEquals(List.of(c3), o.archived());
    assertEquals(List.of(a, b), c.history.snapshot().sessions().stream().map(SessionSummary::id).toList());
    assertTrue(new String(fx.fileOf(c3)).contains("\"auto\":true"), "the rule's own archive, auto and its reason");

    // Nothing left to fall out: said, and no checklist.
    ui.said.clear();
    assertNull(Fixture.get(c.lifecycle.applyRetention()));
    assertTrue(ui.next().message().startsWith("Nothing falls out of History."));
  }

  @Test
  void retentionLeavesAChatLiveInAnotherWindowAloneAndSaysWhy() throws Exception {
    chat("Newest", 1, 0);
    String busy = chat("Busy", 1, 1);
    String old = chat("Old", 1, 2);
    Sidecar other = fx.sidecar(o -> o);
    Fixture.get(other.request(Protocol.RESUME, new Protocol.ResumeParams(busy, 128_000, null, null, null, null, null, null, null, null)));
    LevelCode c = core(Settings.defaults().withLifecycle(0, 1, 0));
    ui.checker = items -> new Ui.Checked(Strings.Retention.ARCHIVE, List.of(0, 1));
    Lifecycle.RetentionOutcome o = Fixture.get(c.lifecycle.applyRetention());
    ScriptedUi.Said list = ui.await(Strings.Retention.TITLE);
    assertTrue(list.options().get(0).startsWith("[x] “Old”: beyond the newest 1"), list.options().toString());
    assertEquals("[-] “Busy”: left alone, live in another window (pid " + other.pid() + ")", list.options().get(1));
    assertEquals(List.of(old), o.archived());
    assertEquals(Strings.Retention.archivedN(1) + Strings.Retention.leftAlone(1), ui.await("Archived 1 chat").message());
    assertTrue(fx.log.lines().stream().anyMatch(l -> l.contains("retention leaves " + busy)), "said in the log too");
  }

  @Test
  void moveToTrashAsksWithTheCountThenTrashesAndUndoRestores() throws Exception {
    chat("Newest", 1, 0);
    String b = chat("Second", 1, 1);
    String d = chat("Third", 1, 2);
    LevelCode c = core(Settings.defaults().withLifecycle(0, 1, 0));
    ui.checker = items -> new Ui.Checked(Strings.Retention.TRASH, List.of(0, 1));
    // First refused: nothing is deleted.
    assertNull(Fixture.get(c.lifecycle.applyRetention()));
    ScriptedUi.Said q = ui.await("to the trash?");
    assertEquals(Strings.Retention.confirmTrash(2, List.of("Second", "Third"), 0), q.message());
    assertEquals(List.of(Strings.Retention.trashNow(2), Strings.Retention.CANCEL), q.options());
    assertTrue(fx.inStore(b) && fx.inStore(d));
    // Then confirmed.
    ui.answers.put(Strings.Retention.trashNow(2), Strings.Retention.trashNow(2));
    Lifecycle.RetentionOutcome o = Fixture.get(c.lifecycle.applyRetention());
    assertEquals(List.of(b, d), o.trashed());
    assertFalse(fx.inStore(b) || fx.inStore(d));
    assertTrue(fx.inTrash(b) && fx.inTrash(d));
    ScriptedUi.Said done = ui.await("Moved 2 chats to the trash");
    assertEquals(List.of(Strings.Lifecycle.UNDO), done.options());
    ui.answers.remove(Strings.Retention.trashNow(2));
    assertEquals(1, Fixture.get(c.history.refresh()).sessions().size());
    assertEquals(2, Fixture.get(c.lifecycle.undo(o)));
    assertTrue(fx.inStore(b) && fx.inStore(d));
    assertEquals(3, c.history.snapshot().sessions().size());
  }

  @Test
  void deleteTrashesAtOnceAndUndoRestores() throws Exception {
    String a = chat("Delete me", 2, 0);
    LevelCode c = core(Settings.defaults());
    assertTrue(c.sidecar.has(Protocol.Feature.RESTORE), "a Linux sidecar can search its trash");
    byte[] before = fx.fileOf(a);
    Fixture.get(c.lifecycle.delete(c.history.find(a)));
    assertFalse(fx.inStore(a));
    assertTrue(c.history.snapshot().sessions().isEmpty());
    ScriptedUi.Said said = ui.await("was moved to the trash");
    ui.click(said.message(), Strings.Delete.UNDO);
    assertEquals(Strings.Delete.restored("Delete me"), ui.await("was restored").message());
    org.junit.jupiter.api.Assertions.assertArrayEquals(before, fx.fileOf(a));
    assertEquals(1, Fixture.get(c.history.refresh()).sessions().size());
  }

  @Test
  void forkFromTurnListsTheTurnsForksThereAndResumesTheFork() throws Exception {
    String a = chat("Plan the migration", 3, 0);
    LevelCode c = core(Settings.defaults());
    ui.chooser = items -> items.indexOf(items.stream().filter(i -> i.startsWith("Turn 2")).findFirst().orElseThrow());
    Protocol.ResumeResult r = Fixture.get(c.lifecycle.forkFromTurn(c.history.find(a)));
    ScriptedUi.Said chooser = ui.await("from turn");
    assertEquals(Strings.Fork.choose("Plan the migration"), chooser.message());
    assertEquals(List.of("Turn 1 · Plan the migration", "Turn 2 · then step 2", "Turn 3 · then step 3"), chooser.options());
    assertNotNull(r);
    String fork = r.id();
    assertEquals(fork, c.chat.current());
    assertEquals(4, r.conversation().size(), "turns 1 and 2, each a user and an assistant message");
    HistoryModel.Snapshot s = Fixture.get(c.history.refresh());
    SessionSummary f = c.history.find(fork);
    assertEquals(new Protocol.ForkedFrom(a, 2), f.forkedFrom());
    assertEquals(2, f.turns());
    assertTrue(entry(s, fork).secondary().endsWith(" · forked from “Plan the migration” turn 2"), entry(s, fork).secondary());
    assertTrue(entry(s, fork).tooltip().contains("Forked from “Plan the migration” at turn 2"), entry(s, fork).tooltip());
    String resumed = ui.await("Resumed").message();
    assertTrue(resumed.startsWith("Resumed “Plan the migration"), resumed);
  }

  @Test
  void relinkFromAnotherFolderCountsConfirmsAndMovesThem() throws Exception {
    Path old = Files.createDirectories(fx.root.resolve("old-notes")).toRealPath();
    String a = chat(old, "Meeting notes", 1, 1);
    String b = chat(old, "Agenda", 1, 2);
    chat("Here already", 1, 0);
    Files.delete(old); // the folder moved away
    LevelCode c = core(Settings.defaults());
    assertEquals(List.of(old.toString()), Fixture.get(c.lifecycle.relinkCandidates()));
    ui.chooser = items -> 0;
    // Refused at the confirmation: nothing moves.
    assertNull(Fixture.get(c.lifecycle.relink()));
    ScriptedUi.Said chooser = ui.await(Strings.Relink.CHOOSE);
    assertEquals(List.of(Strings.Relink.candidate(old.toString(), 2, true), Strings.Relink.OTHER), chooser.options());
    ScriptedUi.Said q = ui.await("Move 2 chats recorded under");
    assertEquals(List.of(Strings.Relink.relinkNow(2), Strings.Relink.CANCEL), q.options());
    assertEquals(1, Fixture.get(c.history.refresh()).sessions().size());
    // Confirmed.
    ui.answers.put(Strings.Relink.relinkNow(2), Strings.Relink.relinkNow(2));
    Protocol.RelinkResult r = Fixture.get(c.lifecycle.relink());
    assertEquals(2, r.sessions().size());
    assertEquals(Strings.Relink.done(2, old.toString()), ui.await("Relinked").message());
    HistoryModel.Snapshot s = c.history.snapshot();
    assertEquals(3, s.sessions().size());
    assertEquals(old.toString(), c.history.find(a).movedFrom());
    assertTrue(entry(s, b).secondary().endsWith(" · moved from " + old), entry(s, b).secondary());
  }

  @Test
  void rowsSayOpenInAnotherWindowAndInterrupted() throws Exception {
    String held = chat("Busy elsewhere", 1, 0);
    String cut = chat("Stopped part way", 1, 1);
    fx.append(cut, "{\"kind\":\"event\",\"t\":\"" + now + "\",\"type\":\"interrupted\"}");
    // Another window (another sidecar process) resumes `held`, so it holds the lock.
    Sidecar other = fx.sidecar(o -> o);
    Fixture.get(other.request(Protocol.RESUME, new Protocol.ResumeParams(held, 128_000, null, null, null, null, null, null, null, null)));
    LevelCode c = core(Settings.defaults());
    HistoryModel.Snapshot s = c.history.snapshot();
    assertNotNull(c.history.find(held).heldBy());
    assertTrue(entry(s, held).secondary().endsWith(" · open in another window"), entry(s, held).secondary());
    assertTrue(entry(s, held).tooltip().contains("Open in another window (pid " + other.pid()), entry(s, held).tooltip());
    assertTrue(entry(s, cut).secondary().endsWith(" · interrupted"), entry(s, cut).secondary());
    assertTrue(entry(s, cut).tooltip().contains(Strings.State.INTERRUPTED_TIP));
  }
}
