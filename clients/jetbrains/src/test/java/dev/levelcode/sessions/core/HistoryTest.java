// The History's pure parts: the labels and grey line from the sidecar's view (with each row's
// state), how a narrow panel cuts it, the export file name, the turns Fork from Turn offers, and the delete-with-Undo state machine on a hand-driven
// clock.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.levelcode.sessions.core.history.Labels;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class HistoryTest {
  // Wednesday 2 Dec 2026, 00:30 in Berlin: "yesterday" is Tuesday, the week began on Monday.
  static final ZonedDateTime NOW = ZonedDateTime.of(2026, 12, 2, 0, 30, 0, 0, ZoneId.of("Europe/Berlin"));

  static SessionSummary s(String id, String updatedAt, String title, int turns, String model) {
    return new SessionSummary(id, "/p", title, true, updatedAt, updatedAt, turns, model, "first message", 1, 100, null, null, null);
  }

  /** A summary with the sidecar's view of it (what session/list sends). */
  static SessionSummary viewed(SessionSummary s, Protocol.View v) {
    return new SessionSummary(s.id(), s.project(), s.title(), s.titled(), s.createdAt(), s.updatedAt(), s.turns(), s.model(), s.preview(),
        s.v(), s.bytes(), s.source(), s.sourceLabel(), s.continueIn(), s.forkedFrom(), s.movedFrom(), s.pinned(), s.archived(),
        s.unarchivedAt(), s.interrupted(), s.heldBy(), s.device(), v);
  }

  @Test
  void theGreyLineIsTheSidecarsViewAndAnImportedChatNamesItsToolFirst() {
    ZonedDateTime noon = NOW.withHour(12);
    String at = noon.minusMinutes(5).toInstant().toString();
    SessionSummary ours = viewed(s("2026-12-02T10-00-00-aaaa", at, "Ours", 2, "claude-sonnet-4"),
        new Protocol.View("today", "Today", "Ours", "11:55", null, "2 turns", "claude-sonnet-4", "11:55 · 2 turns · claude-sonnet-4"));
    SessionSummary imported = viewed(new SessionSummary("2026-12-02T10-00-00-bbbb", "/p", "Theirs", true, at, at, 2, "claude-sonnet-4-20250514",
        "first message", 1, 100, new Protocol.Source("claude-code", "2.1.0", "/home/ada/.claude/projects/-p/8f1e.jsonl", "8f1e", "/p", null, null), "Claude Code", null),
        new Protocol.View("today", "Today", "Theirs, in full", "11:55", "Claude Code", "2 turns", "claude-sonnet-4", "Claude Code · 11:55 · 2 turns · claude-sonnet-4"));
    assertEquals("11:55 · 2 turns · claude-sonnet-4", Labels.secondary(ours));
    assertEquals("Claude Code · 11:55 · 2 turns · claude-sonnet-4", Labels.secondary(imported));
    assertEquals("Theirs, in full", Labels.label(imported));
    assertNull(Labels.sourceTool(ours));
    List<String> tip = Labels.tooltip(imported, noon);
    assertTrue(tip.contains("Imported from Claude Code 2.1.0 (its session 8f1e)"), tip.toString());
    assertTrue(tip.contains("Source file /home/ada/.claude/projects/-p/8f1e.jsonl"), tip.toString());
  }

  @Test
  void aNarrowPanelCutsTheModelFirstThenTheTurnsAndKeepsTheToolAndTime() {
    Labels.Line line = new Labels.Line("Claude Code", "Mon 14:05", "12 turns", "claude-sonnet-4", List.of());
    java.util.function.ToIntFunction<String> chars = String::length; // one unit a character
    String full = "Claude Code · Mon 14:05 · 12 turns · claude-sonnet-4";
    assertEquals(full, line.fit(full.length(), chars));
    assertEquals("Claude Code · Mon 14:05 · 12 turns", line.fit(full.length() - 1, chars));
    assertEquals("Claude Code · Mon 14:05", line.fit("Claude Code · Mon 14:05 · 12 turns".length() - 1, chars));
    assertEquals("Claude Code · Mon…", line.fit(18, chars));
    assertTrue(line.fit(12, chars).startsWith("Claude Code"));
  }

  static SessionSummary state(String id, boolean pinned, boolean archived, Protocol.ForkedFrom fork, String moved, Boolean interrupted,
      Protocol.HeldBy held) {
    String at = NOW.withHour(12).minusMinutes(5).toInstant().toString();
    return new SessionSummary(id, "/p", "T " + id, true, at, at, 2, "m", "first", 1, 100, null, null, null, fork, moved, pinned, archived,
        null, interrupted, held);
  }

  @Test
  void aRowSaysItsStateInItsGreyLineAndTooltip() {
    ZonedDateTime noon = NOW.withHour(12);
    java.util.function.Function<String, String> titles = id -> id.equals("parent") ? "Plan  the\nmigration" : null;
    SessionSummary all = state("x", true, true, new Protocol.ForkedFrom("parent", 3), "/old/notes", true, new Protocol.HeldBy(4242, "box"));
    // Pinned and archived have their icons; the rest of the state follows the sidecar's line.
    assertEquals("2 turns · m · forked from “Plan the migration” turn 3 · moved from /old/notes"
        + " · open in another window · interrupted", Labels.secondary(all, titles));
    List<String> tip = Labels.tooltip(all, noon, titles);
    assertTrue(tip.contains(Strings.State.PINNED_TIP), tip.toString());
    assertTrue(tip.contains(Strings.State.ARCHIVED_TIP), tip.toString());
    assertTrue(tip.contains("Forked from “Plan the migration” at turn 3"), tip.toString());
    assertTrue(tip.contains("Moved from /old/notes (the folder it was recorded in; one project with this one)"), tip.toString());
    assertTrue(tip.contains("Open in another window (pid 4242 on box): resuming it here opens it read-only"), tip.toString());
    assertTrue(tip.contains(Strings.State.INTERRUPTED_TIP), tip.toString());
    // A parent not listed here; a holder that names nothing.
    SessionSummary orphan = state("y", false, false, new Protocol.ForkedFrom("gone", 1), null, false, new Protocol.HeldBy(null, null));
    assertEquals("2 turns · m · forked at turn 1 of another chat · open in another window", Labels.secondary(orphan, titles));
    assertTrue(Labels.tooltip(orphan, noon, titles).contains("Forked from chat gone at turn 1"));
    assertTrue(Labels.tooltip(orphan, noon, titles).contains("Open in another window: resuming it here opens it read-only"));
    // A sync conflict's fork: continued on the device whose copy it is; the device in the tooltip.
    SessionSummary cont = state("w", false, false, new Protocol.ForkedFrom("parent", 2, "desktop"), null, false, null);
    assertEquals("2 turns · m · continued on desktop after turn 2", Labels.secondary(cont, titles));
    assertTrue(Labels.tooltip(cont, noon, titles).contains(
        "Continued on desktop: “Plan the migration” went on there from turn 2 while the devices were apart (a sync conflict, kept whole)"));
    SessionSummary made = new SessionSummary("v", "/p", "T v", true, cont.createdAt(), cont.updatedAt(), 2, "m", "first", 1, 100, null,
        null, null, null, null, false, false, null, null, null, "laptop");
    assertTrue(Labels.tooltip(made, noon, titles).contains("Device laptop"), Labels.tooltip(made, noon, titles).toString());
    // None of it: the grey line as before.
    assertEquals("2 turns · m", Labels.secondary(state("z", false, false, null, null, null, null), titles));
    String home = System.getProperty("user.home");
    assertEquals("~/code/app", Labels.shortPath(home + "/code/app"));
  }

  @Test
  void turnsAreTheUserLinesThatStartOne() {
    List<Protocol.SeqEvent> ev = List.of(
        seq(0, "{\"kind\":\"user\",\"content\":\"\\n  Add idempotency\\nto refunds\"}"),
        seq(1, "{\"kind\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\"}]}"),
        seq(2, "{\"kind\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\"}]}"),
        seq(3, "{\"kind\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + "x".repeat(100) + "\"}]}"),
        seq(4, "{\"kind\":\"event\",\"type\":\"pin\"}"),
        seq(5, "{\"kind\":\"user\",\"content\":[]}"));
    List<dev.levelcode.sessions.core.history.Turns.Turn> t = dev.levelcode.sessions.core.history.Turns.of(ev);
    assertEquals(List.of(1, 2, 3), t.stream().map(dev.levelcode.sessions.core.history.Turns.Turn::number).toList());
    assertEquals(List.of(0, 3, 5), t.stream().map(dev.levelcode.sessions.core.history.Turns.Turn::seq).toList());
    assertEquals("Add idempotency", t.get(0).firstLine());
    assertEquals("x".repeat(79) + "…", t.get(1).firstLine());
    assertEquals("", t.get(2).firstLine());
  }

  static Protocol.SeqEvent seq(int n, String json) {
    return new Protocol.SeqEvent(n, com.google.gson.JsonParser.parseString(json).getAsJsonObject());
  }

  @Test
  void withoutAViewTheLabelIsTheTitleOnOneLine() {
    SessionSummary one = s("2026-12-02T10-00-00-aaaa", "2026-12-02T10:00:00.000Z", "  Fix   the\nbuild ", 1, "claude-sonnet-4");
    assertEquals("Fix the build", Labels.label(one));
    assertEquals("1 turn · claude-sonnet-4", Labels.secondary(one));
    assertEquals(Strings.History.UNTITLED, Labels.label(s("x", "", "  ", 0, null)));
  }

  @Test
  void exportFileNamesAreSafe() {
    assertEquals("a b c.md", Labels.exportFileName(s("id", "", "a/b:c?", 0, null)));
    assertEquals("2026-12-02T10-00-00-aaaa.md", Labels.exportFileName(s("2026-12-02T10-00-00-aaaa", "", "...", 0, null)));
  }

  /** Timers the test fires by hand. */
  static final class HandTimers implements PendingDeletes.Timers {
    final List<Runnable> due = new ArrayList<>();
    public Runnable schedule(Runnable task, Duration delay) {
      due.add(task);
      return () -> due.remove(task);
    }
    void fireAll() { new ArrayList<>(due).forEach(r -> { due.remove(r); r.run(); }); }
  }

  @Test
  void deleteWaitsForTheGracePeriodAndUndoIsHonest() {
    HandTimers timers = new HandTimers();
    List<String> removed = new ArrayList<>();
    PendingDeletes d = new PendingDeletes(id -> { removed.add(id); return CompletableFuture.completedFuture(null); },
        Duration.ofSeconds(8), timers, (id, e) -> { });
    CompletableFuture<PendingDeletes.Outcome> a = d.schedule("a");
    assertTrue(d.hidden().contains("a"));
    assertEquals(PendingDeletes.UndoResult.UNDONE, d.undo("a"));
    assertEquals(PendingDeletes.Outcome.UNDONE, a.join());
    timers.fireAll();
    assertEquals(List.of(), removed, "an undone deletion never touches the file");
    CompletableFuture<PendingDeletes.Outcome> b = d.schedule("b");
    timers.fireAll();
    assertEquals(PendingDeletes.Outcome.DELETED, b.join());
    assertEquals(List.of("b"), removed);
    assertEquals(PendingDeletes.UndoResult.ALREADY_DELETED, d.undo("b"));
    assertEquals(PendingDeletes.UndoResult.UNKNOWN, d.undo("c"));
    d.schedule("c");
    d.flush().join();
    assertEquals(List.of("b", "c"), removed, "flush carries out what the user asked for");
  }

  @Test
  void aFailedDeletionShowsTheChatAgain() {
    HandTimers timers = new HandTimers();
    List<String> failed = new ArrayList<>();
    PendingDeletes d = new PendingDeletes(id -> CompletableFuture.failedFuture(new IllegalStateException("locked")),
        Duration.ofSeconds(8), timers, (id, e) -> failed.add(id));
    CompletableFuture<PendingDeletes.Outcome> a = d.schedule("a");
    timers.fireAll();
    assertEquals(PendingDeletes.Outcome.FAILED, a.join());
    assertEquals(List.of("a"), failed);
    assertFalse(d.isPending("a"));
  }
}
