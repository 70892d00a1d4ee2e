// The chat's flows against the real sidecar, with a scripted user (ScriptedUi) and a model that
// answers at once: resume verbatim; the consent step both ways; tier 3 through the summarize
// callback and through the two-step flow (session/compact), one call per piece, with the
// summariser's window passed, a failed piece keeping the ones before; no model; read-only with "Open a
// Copy"; resume last; New Chat's seal and its once-only notice.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChatTest {
  Fixture fx;
  ScriptedUi ui;
  AtomicInteger summaries = new AtomicInteger();
  /** The pieces the model was asked for, in order. */
  List<Protocol.SummarizeParams> pieces = new CopyOnWriteArrayList<>();

  @BeforeEach void setUp() throws Exception { fx = new Fixture(); ui = new ScriptedUi(); }
  @AfterEach void tearDown() throws Exception { fx.close(); }

  /** A model that writes a fixed briefing and title, counting its summaries and keeping the pieces it was asked for. */
  final Model model = new Model() {
    public CompletableFuture<String> summarize(List<JsonElement> messages, String instructions) {
      summaries.incrementAndGet();
      return CompletableFuture.supplyAsync(() -> "FACT: the pipeline deploys from main (" + messages.size() + " messages)");
    }
    @Override public CompletableFuture<String> summarize(Protocol.SummarizeParams p) {
      pieces.add(p);
      return Model.super.summarize(p);
    }
    public CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions) {
      return CompletableFuture.completedFuture("Deploy pipeline work");
    }
  };

  LevelCode core(Settings settings, List<String> callbacks) throws Exception {
    Sidecar s = new Sidecar(fx.options().withCallbacks(callbacks).withConsentThreshold(settings.consentThreshold()), fx.log);
    LevelCode c = new LevelCode(s, fx.project.toString(), ui, Chat.State.inMemory(), () -> settings, fx.log,
        PendingDeletes.Timers.real(), Duration.ofMillis(50), Clock.systemDefaultZone());
    fx.closeLater(c);
    Fixture.get(s.start());
    return c;
  }

  static Settings small(int consent) { return new Settings(null, null, 2000, 0.4, consent); }

  Protocol.SessionSummary summary(LevelCode c, String id) throws Exception {
    Fixture.get(c.history.refresh());
    return c.history.find(id);
  }

  @Test
  void aShortChatResumesVerbatim() throws Exception {
    String id = fx.newSession("claude-sonnet-4");
    fx.append(id, Fixture.user("2026-11-30T10:00:00.000Z", "Add idempotency"), Fixture.assistant("2026-11-30T10:00:01.000Z", "Sure."));
    LevelCode c = core(Settings.defaults(), null);
    List<Chat.Resumed> heard = new CopyOnWriteArrayList<>();
    c.chat.onResumed(heard::add);
    Protocol.ResumeResult r = Fixture.get(c.chat.resume(summary(c, id), false));
    assertEquals(1, r.tier());
    assertEquals(2, r.conversation().size());
    assertEquals("Resumed “Add idempotency”: the whole chat.", ui.next().message());
    assertEquals(id, c.chat.current());
    assertEquals("Add idempotency", heard.get(0).title());
  }

  @Test
  void aCostlySummaryAsksFirstAndResumesFromSummaryThroughTheCallback() throws Exception {
    String id = new ConnectionTestAccess(fx).longSession();
    LevelCode c = core(small(10), null);
    c.chat.setModel(model);
    ui.answers.put(Strings.Resume.FROM_SUMMARY, Strings.Resume.FROM_SUMMARY);
    Protocol.ResumeResult r = Fixture.get(c.chat.resume(summary(c, id), false));
    ScriptedUi.Said asked = ui.next();
    assertEquals(Ui.Kind.WARNING, asked.kind());
    assertTrue(asked.message().startsWith("Resuming this chat needs a summary of about "), asked.message());
    assertEquals(List.of(Strings.Resume.FROM_SUMMARY, Strings.Resume.START_FRESH), asked.options());
    assertEquals(3, r.tier());
    // One session/summarize per piece, in order, each answered; the question named their number.
    int calls = pieces.get(0).piece().count();
    assertTrue(calls > 1, "the 2,000-token window cuts the head into pieces: " + calls);
    assertTrue(asked.message().contains(", in " + calls + " requests. Continue?"), asked.message());
    assertEquals(calls, summaries.get());
    assertPiecesInOrder(calls);
    assertTrue(r.conversation().get(0).toString().contains("FACT: the pipeline deploys from main"), r.conversation().get(0).toString());
    assertTrue(r.agentMessages().get(0).toString().contains("FACT: the pipeline deploys from main"));
    String said = ui.next().message();
    assertTrue(said.contains(": from a new summary and the recent turns. "), said);
    assertFalse(said.contains("tier"), said);
    assertCompactEvents(c, id, calls);
  }

  /** Each piece asked once, index 0 to count - 1, each with its figures; every later one starts with the briefing so far. */
  void assertPiecesInOrder(int calls) {
    assertEquals(calls, pieces.size());
    for (int i = 0; i < calls; i++) {
      Protocol.SummarizeParams p = pieces.get(i);
      assertEquals(new Protocol.Piece(i, calls), p.piece());
      assertNotNull(p.coversThrough());
      assertTrue(p.inputTokens() != null && p.inputTokens() > 0);
      assertTrue(p.maxBriefingTokens() != null && p.maxBriefingTokens() > 0);
      if (i > 0) {
        assertTrue(p.coversThrough() > pieces.get(i - 1).coversThrough());
        assertTrue(p.messages().get(0).toString().contains("FACT: the pipeline deploys from main"), "piece " + i + " starts with the briefing so far");
      }
    }
  }

  /** The file: one rolling compact event per piece but the last, then the final one covering the whole head. */
  void assertCompactEvents(LevelCode c, String id, int calls) throws Exception {
    List<com.google.gson.JsonObject> compacts = Fixture.get(c.sidecar.request(Protocol.READ, new Protocol.ReadParams(id, null, null, null)))
        .events().stream().map(Protocol.SeqEvent::event).filter(e -> e.get("kind").getAsString().equals("compact")).toList();
    assertEquals(calls, compacts.size(), compacts.toString());
    for (int i = 0; i < calls; i++) {
      com.google.gson.JsonObject e = compacts.get(i);
      assertEquals(pieces.get(i).coversThrough().intValue(), e.get("coversThrough").getAsInt());
      assertEquals(i < calls - 1, e.has("rolling") && e.get("rolling").getAsBoolean(), e.toString());
    }
    assertEquals("compact", lastEventKind(c, id));
  }

  @Test
  void theSummarisersWindowIsPassedAndSetsThePieces() throws Exception {
    String id = new ConnectionTestAccess(fx).longSession();
    LevelCode c = core(small(10), null);
    c.chat.setModel(model);
    int byContextWindow = Fixture.get(c.chat.resumeQuiet(id, Chat.ResumeOptions.DEFAULT)).needsConfirmation().calls();
    c.chat.setModel(new Model() {
      public CompletableFuture<String> summarize(List<JsonElement> messages, String instructions) { return model.summarize(messages, instructions); }
      public CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions) { return model.title(messages, instructions); }
      @Override public Integer summaryWindow() { return 1200; }
    });
    int bySummaryWindow = Fixture.get(c.chat.resumeQuiet(id, Chat.ResumeOptions.DEFAULT)).needsConfirmation().calls();
    assertTrue(bySummaryWindow > byContextWindow, "a smaller summariser window, more pieces: " + bySummaryWindow + " vs " + byContextWindow);
    assertEquals(0, summaries.get());
  }

  @Test
  void startFreshInsteadWritesNothing() throws Exception {
    String id = new ConnectionTestAccess(fx).longSession();
    byte[] before = fx.fileOf(id);
    LevelCode c = core(small(10), null);
    c.chat.setModel(model);
    List<Chat.NewChat> fresh = new CopyOnWriteArrayList<>();
    c.chat.onNewChat(fresh::add);
    ui.answers.put(Strings.Resume.FROM_SUMMARY, Strings.Resume.START_FRESH);
    assertNull(Fixture.get(c.chat.resume(summary(c, id), false)));
    assertEquals(1, fresh.size());
    assertEquals(0, summaries.get());
    assertArrayEquals(before, fx.fileOf(id));
  }

  @Test
  void withoutTheCallbackTheTwoStepFlowCompacts() throws Exception {
    String id = new ConnectionTestAccess(fx).longSession();
    LevelCode c = core(small(1_000_000), List.of(Sidecar.Callbacks.TITLE));
    c.chat.setModel(model);
    Protocol.ResumeResult first = Fixture.get(c.chat.resumeQuiet(id, Chat.ResumeOptions.DEFAULT));
    assertNotNull(first.needsSummary(), "a sidecar without summarize answers needsSummary");
    assertEquals(List.of(), first.conversation());
    int calls = first.needsSummary().piece().count();
    assertEquals(0, first.needsSummary().piece().index());
    assertTrue(calls > 1, "the 2,000-token window cuts the head into pieces: " + calls);
    Protocol.ResumeResult r = Fixture.get(c.chat.resume(summary(c, id), false));
    assertEquals(3, r.tier());
    assertNull(r.needsSummary());
    // Each piece summarised once and recorded by session/compact, until the last answered the context.
    assertEquals(calls, summaries.get());
    assertPiecesInOrder(calls);
    assertTrue(r.conversation().get(0).toString().contains("FACT: the pipeline deploys from main"));
    assertCompactEvents(c, id, calls);
    assertEquals(id, c.chat.current());
  }

  @Test
  void aTwoStepPieceThatFailsKeepsThePiecesBeforeAndTheNextResumeGoesOnFromThem() throws Exception {
    String id = new ConnectionTestAccess(fx).longSession();
    LevelCode c = core(small(1_000_000), List.of(Sidecar.Callbacks.TITLE));
    c.chat.setModel(new Model() {
      public CompletableFuture<String> summarize(List<JsonElement> messages, String instructions) { return model.summarize(messages, instructions); }
      public CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions) { return model.title(messages, instructions); }
      @Override public CompletableFuture<String> summarize(Protocol.SummarizeParams p) {
        if (p.piece().index() == 1) return CompletableFuture.failedFuture(new IllegalStateException("the model is overloaded"));
        return model.summarize(p);
      }
    });
    int calls = Fixture.get(c.chat.resumeQuiet(id, Chat.ResumeOptions.DEFAULT)).needsSummary().piece().count();
    assertTrue(calls > 2, "pieces: " + calls);
    assertNull(Fixture.get(c.chat.resume(summary(c, id), false)));
    ScriptedUi.Said said = ui.next();
    assertEquals(Ui.Kind.ERROR, said.kind());
    assertTrue(said.message().contains("the model is overloaded (1 part summarised before is kept; resuming again goes on from there)"),
        said.message());
    assertEquals("compact", lastEventKind(c, id));
    assertNull(c.chat.current());
    // Again with a model that works: only the pieces left are asked for.
    c.chat.setModel(model);
    pieces.clear();
    Protocol.ResumeResult r = Fixture.get(c.chat.resume(summary(c, id), false));
    assertEquals(3, r.tier());
    assertEquals(calls - 1, pieces.get(0).piece().count());
    assertEquals(calls - 1, pieces.size());
    assertTrue(r.conversation().get(0).toString().contains("FACT: the pipeline deploys from main"));
    assertEquals(id, c.chat.current());
  }

  @Test
  void withoutAModelTheResumeSaysSoAndOffersAFreshStart() throws Exception {
    String id = new ConnectionTestAccess(fx).longSession();
    byte[] before = fx.fileOf(id);
    LevelCode c = core(small(1_000_000), null);
    assertNull(Fixture.get(c.chat.resume(summary(c, id), false)));
    ScriptedUi.Said said = ui.next();
    assertEquals(Ui.Kind.ERROR, said.kind());
    assertTrue(said.message().contains(Strings.Resume.NO_MODEL), said.message());
    assertEquals(List.of(Strings.Resume.START_FRESH), said.options());
    assertArrayEquals(before, fx.fileOf(id));
  }

  @Test
  void aChatAnotherWindowOwnsIsReadOnlyAndACopyCanBeOpened() throws Exception {
    String id = fx.newSession("claude-sonnet-4");
    fx.append(id, Fixture.user("2026-11-30T10:00:00.000Z", "Owned elsewhere"));
    Sidecar other = fx.sidecar(o -> o);
    Fixture.get(other.request(Protocol.APPEND, new Protocol.AppendParams(id,
        List.of(com.google.gson.JsonParser.parseString(Fixture.assistant("2026-11-30T10:00:02.000Z", "mine now")).getAsJsonObject()))));
    LevelCode c = core(Settings.defaults(), null);
    Protocol.ResumeResult r = Fixture.get(c.chat.resume(summary(c, id), false));
    assertTrue(r.readOnly());
    assertNotNull(r.heldBy());
    ScriptedUi.Said said = ui.next();
    assertEquals(Strings.Resume.readOnly("Owned elsewhere"), said.message());
    assertNull(c.chat.current(), "a read-only chat does not become the current one");
    CompletableFuture<Chat.Resumed> copy = new CompletableFuture<>();
    c.chat.onResumed(e -> { if (!e.result().readOnly()) copy.complete(e); });
    ui.click(said.message(), Strings.Resume.OPEN_COPY);
    Protocol.ResumeResult copied = Fixture.get(copy).result();
    assertEquals(id, copied.forkedFrom());
    assertNotEquals(id, copied.id());
    assertEquals(copied.id(), c.chat.current());
  }

  @Test
  void resumeLastTakesTheNewestChatAndSaysWhenThereIsNone() throws Exception {
    LevelCode c = core(Settings.defaults(), null);
    assertNull(Fixture.get(c.chat.resumeLast()));
    assertEquals(Strings.Resume.NOTHING, ui.next().message());
    String old = fx.newSession(null);
    fx.append(old, Fixture.user("2026-11-20T10:00:00.000Z", "older chat"));
    String recent = fx.newSession(null);
    fx.append(recent, Fixture.user("2026-11-30T10:00:00.000Z", "newer chat"));
    assertEquals(recent, Fixture.get(c.chat.resumeLast()).id());
    // What Export Chat as Markdown (Tools menu) acts on: the selection, else the current chat, else the newest.
    assertEquals(old, c.history.target(c.history.find(old), recent).id());
    assertEquals(old, c.history.target(null, old).id());
    assertEquals(recent, c.history.target(null, null).id());
    // What the API's list() answers: every page, without the panel's search.
    c.history.search("older");
    assertEquals(List.of(recent, old), Fixture.get(c.history.fetch(false)).stream().map(Protocol.SessionSummary::id).toList());
  }

  @Test
  void newChatSealsTheCurrentChatAndSaysWhereItWentOnce() throws Exception {
    LevelCode c = core(Settings.defaults(), null);
    c.chat.setModel(model);
    String id = Fixture.get(c.chat.newSession(null, "claude-sonnet-4")).id();
    assertEquals(id, c.chat.current());
    Fixture.get(c.chat.append(id, List.of(com.google.gson.JsonParser.parseString(Fixture.user("2026-11-30T10:00:00.000Z", "deploy")).getAsJsonObject())));
    Chat.NewChat first = Fixture.get(c.chat.startNewChat());
    assertEquals(Protocol.TitleSource.MODEL, first.sealed().titleSource());
    assertEquals("Deploy pipeline work", first.sealed().title());
    assertNull(c.chat.current());
    assertEquals(Strings.NewChat.SAVED_ONCE, ui.next().message());
    String second = Fixture.get(c.chat.newSession(null, null)).id();
    Fixture.get(c.chat.append(second, List.of(com.google.gson.JsonParser.parseString(Fixture.user("2026-11-30T10:01:00.000Z", "again")).getAsJsonObject())));
    Fixture.get(c.chat.startNewChat());
    assertTrue(ui.said.isEmpty(), "the notice is shown once: " + ui.said);
  }

  static String lastEventKind(LevelCode c, String id) throws Exception {
    Protocol.ReadResult r = Fixture.get(c.sidecar.request(Protocol.READ, new Protocol.ReadParams(id, 1, null, null)));
    return r.events().get(0).event().get("kind").getAsString();
  }

  /** ConnectionTest's long session, for these tests. */
  record ConnectionTestAccess(Fixture fx) {
    String longSession() throws Exception {
      ConnectionTest t = new ConnectionTest();
      t.fx = fx;
      return t.longSession();
    }
  }
}
