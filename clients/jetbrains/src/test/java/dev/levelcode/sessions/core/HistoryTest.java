// The History's pure parts: grouping by the local calendar (pinned first), the labels and
// secondary text (with each row's state), relative times, the search filter, the export file
// name, the turns Fork from Turn offers, and the delete-with-Undo state machine on a hand-driven
// clock.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.levelcode.sessions.core.history.Groups;
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

  @Test
  void anImportedChatNamesItsToolInTheSecondaryTextAndTooltip() {
    ZonedDateTime noon = NOW.withHour(12);
    String at = noon.minusMinutes(5).toInstant().toString();
    SessionSummary ours = s("2026-12-02T10-00-00-aaaa", at, "Ours", 2, "claude-sonnet-4");
    SessionSummary imported = new SessionSummary("2026-12-02T10-00-00-bbbb", "/p", "Theirs", true, at, at, 2, "claude-sonnet-4",
        "first message", 1, 100, new Protocol.Source("claude-code", "2.1.0", "/home/ada/.claude/projects/-p/8f1e.jsonl", "8f1e", "/p", null, null), "Claude Code", null);
    assertEquals("5 min ago · 2 turns · claude-sonnet-4", Labels.secondary(ours, noon));
    assertEquals("5 min ago · 2 turns · claude-sonnet-4 · Claude Code", Labels.secondary(imported, noon));
    assertNull(Labels.sourceTool(ours));
    List<String> tip = Labels.tooltip(imported, noon);
    assertTrue(tip.contains("Imported from Claude Code 2.1.0 (its session 8f1e)"), tip.toString());
    assertTrue(tip.contains("Source file /home/ada/.claude/projects/-p/8f1e.jsonl"), tip.toString());
    assertEquals(Labels.tooltip(ours, noon).size() + 2, tip.size());
    SessionSummary codex = new SessionSummary("2026-12-02T10-00-00-cccc", "/p", "Codex one", true, at, at, 1, null,
        "first message", 1, 100, new Protocol.Source("codex", null, "/home/ada/.codex/sessions/r.jsonl", "r1", "/p", null, null), "Codex", null);
    assertEquals("5 min ago · 1 turn · Codex", Labels.secondary(codex, noon));
    assertTrue(Labels.tooltip(codex, noon).contains("Imported from Codex (its session r1)"));
    assertTrue(Labels.matches(imported, "claude code"));
    assertFalse(Labels.matches(ours, "claude code"));
  }

  @Test
  void groupsFollowTheLocalCalendar() {
    assertEquals(Groups.Key.TODAY, Groups.groupOf("2026-12-01T23:10:00.000Z", NOW)); // 00:10 local
    assertEquals(Groups.Key.YESTERDAY, Groups.groupOf("2026-12-01T22:50:00.000Z", NOW)); // 23:50 local, Tuesday
    assertEquals(Groups.Key.THIS_WEEK, Groups.groupOf("2026-11-30T08:00:00.000Z", NOW)); // Monday
    assertEquals(Groups.Key.OLDER, Groups.groupOf("2026-11-29T08:00:00.000Z", NOW)); // Sunday
    assertEquals(Groups.Key.OLDER, Groups.groupOf("not a time", NOW));
  }

  @Test
  void groupsAreNewestFirstAndInOrder() {
    List<Groups.Group> g = Groups.group(List.of(
        s("2026-11-01T00-00-00-aaaa", "2026-11-01T10:00:00.000Z", "old", 1, null),
        s("2026-12-01T00-00-00-bbbb", "2026-12-01T23:20:00.000Z", "today b", 1, null),
        s("2026-12-01T00-00-00-cccc", "2026-12-01T23:20:00.000Z", "today c", 1, null)), NOW);
    assertEquals(List.of(Groups.Key.TODAY, Groups.Key.OLDER), g.stream().map(Groups.Group::key).toList());
    assertEquals(List.of("today c", "today b"), g.get(0).items().stream().map(SessionSummary::title).toList());
  }

  static SessionSummary state(String id, boolean pinned, boolean archived, Protocol.ForkedFrom fork, String moved, Boolean interrupted,
      Protocol.HeldBy held) {
    String at = NOW.withHour(12).minusMinutes(5).toInstant().toString();
    return new SessionSummary(id, "/p", "T " + id, true, at, at, 2, "m", "first", 1, 100, null, null, null, fork, moved, pinned, archived,
        null, interrupted, held);
  }

  @Test
  void pinnedChatsAreGroupedFirstNewestFirst() {
    SessionSummary old = state("2026-10-01T00-00-00-aaaa", true, false, null, null, null, null);
    List<Groups.Group> g = Groups.group(List.of(
        s("2026-12-01T00-00-00-bbbb", "2026-12-01T23:20:00.000Z", "today", 1, null),
        new SessionSummary(old.id(), "/p", "old pinned", true, "2026-10-01T10:00:00.000Z", "2026-10-01T10:00:00.000Z", 1, null, null, 1, 1,
            null, null, null, null, null, true, false, null, null, null),
        state("2026-12-01T00-00-00-cccc", true, false, null, null, null, null)), NOW);
    assertEquals(List.of(Groups.Key.PINNED, Groups.Key.TODAY), g.stream().map(Groups.Group::key).toList());
    assertEquals("Pinned", g.get(0).key().label);
    assertEquals(List.of("T 2026-12-01T00-00-00-cccc", "old pinned"), g.get(0).items().stream().map(SessionSummary::title).toList());
  }

  @Test
  void aRowSaysItsStateInItsGreyLineAndTooltip() {
    ZonedDateTime noon = NOW.withHour(12);
    java.util.function.Function<String, String> titles = id -> id.equals("parent") ? "Plan  the\nmigration" : null;
    SessionSummary all = state("x", true, true, new Protocol.ForkedFrom("parent", 3), "/old/notes", true, new Protocol.HeldBy(4242, "box"));
    assertEquals("5 min ago · 2 turns · m · pinned · archived · forked from “Plan the migration” turn 3 · moved from /old/notes"
        + " · open in another window · interrupted", Labels.secondary(all, noon, titles));
    List<String> tip = Labels.tooltip(all, noon, titles);
    assertTrue(tip.contains(Strings.State.PINNED_TIP), tip.toString());
    assertTrue(tip.contains(Strings.State.ARCHIVED_TIP), tip.toString());
    assertTrue(tip.contains("Forked from “Plan the migration” at turn 3"), tip.toString());
    assertTrue(tip.contains("Moved from /old/notes (the folder it was recorded in; one project with this one)"), tip.toString());
    assertTrue(tip.contains("Open in another window (pid 4242 on box): resuming it here opens it read-only"), tip.toString());
    assertTrue(tip.contains(Strings.State.INTERRUPTED_TIP), tip.toString());
    // A parent not listed here; a holder that names nothing.
    SessionSummary orphan = state("y", false, false, new Protocol.ForkedFrom("gone", 1), null, false, new Protocol.HeldBy(null, null));
    assertEquals("5 min ago · 2 turns · m · forked at turn 1 of another chat · open in another window", Labels.secondary(orphan, noon, titles));
    assertTrue(Labels.tooltip(orphan, noon, titles).contains("Forked from chat gone at turn 1"));
    assertTrue(Labels.tooltip(orphan, noon, titles).contains("Open in another window: resuming it here opens it read-only"));
    // A sync conflict's fork: continued on the device whose copy it is; the device in the tooltip.
    SessionSummary cont = state("w", false, false, new Protocol.ForkedFrom("parent", 2, "desktop"), null, false, null);
    assertEquals("5 min ago · 2 turns · m · continued on desktop after turn 2", Labels.secondary(cont, noon, titles));
    assertTrue(Labels.tooltip(cont, noon, titles).contains(
        "Continued on desktop: “Plan the migration” went on there from turn 2 while the devices were apart (a sync conflict, kept whole)"));
    SessionSummary made = new SessionSummary("v", "/p", "T v", true, cont.createdAt(), cont.updatedAt(), 2, "m", "first", 1, 100, null,
        null, null, null, null, false, false, null, null, null, "laptop");
    assertTrue(Labels.tooltip(made, noon, titles).contains("Device laptop"), Labels.tooltip(made, noon, titles).toString());
    // None of it: the grey line as before.
    assertEquals("5 min ago · 2 turns · m", Labels.secondary(state("z", false, false, null, null, null, null), noon, titles));
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
  void labelsSayTimeTurnsAndModel() {
    ZonedDateTime noon = NOW.withHour(12);
    assertEquals("just now", Labels.relativeTime(noon.minusSeconds(20).toInstant().toString(), noon));
    assertEquals("5 min ago", Labels.relativeTime(noon.minusMinutes(5).toInstant().toString(), noon));
    assertEquals("3 h ago", Labels.relativeTime(noon.minusHours(3).toInstant().toString(), noon));
    assertEquals("yesterday", Labels.relativeTime(noon.minusDays(1).toInstant().toString(), noon));
    assertEquals("4 days ago", Labels.relativeTime(noon.minusDays(4).toInstant().toString(), noon));
    assertEquals("12 Mar", Labels.relativeTime("2026-03-12T10:00:00.000Z", noon));
    assertEquals("12 Mar 2024", Labels.relativeTime("2024-03-12T10:00:00.000Z", noon));
    SessionSummary one = s("2026-12-02T10-00-00-aaaa", noon.minusMinutes(5).toInstant().toString(), "  Fix   the\nbuild ", 1, "claude-sonnet-4");
    assertEquals("Fix the build", Labels.label(one));
    assertEquals("5 min ago · 1 turn · claude-sonnet-4", Labels.secondary(one, noon));
    assertEquals("5 min ago · 3 turns", Labels.secondary(s("x", noon.minusMinutes(5).toInstant().toString(), "t", 3, null), noon));
    assertEquals(Strings.History.UNTITLED, Labels.label(s("x", "", "  ", 0, null)));
  }

  @Test
  void searchMatchesEveryWordOfTitleOrPreview() {
    SessionSummary one = s("x", "2026-12-01T10:00:00.000Z", "Idempotent refunds", 2, "claude-sonnet-4");
    assertTrue(Labels.matches(one, "refunds IDEM"));
    assertTrue(Labels.matches(one, "first"));
    assertFalse(Labels.matches(one, "refunds redis"));
    assertTrue(Labels.matches(one, "  "));
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
