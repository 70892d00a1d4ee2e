// The sidecar connection against the real sidecar (and, for what a sidecar never does on purpose,
// a real peer process that never answers): framing, typed answers, error codes and data,
// didChange, server-to-client requests answered asynchronously and cancelled, timeouts with
// $/cancelRequest, pending requests failed when the process dies, stderr logged.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.levelcode.sessions.core.rpc.Connection;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.RpcException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConnectionTest {
  Fixture fx;

  @BeforeEach void setUp() throws Exception { fx = new Fixture(); }
  @AfterEach void tearDown() throws Exception { fx.close(); }

  @Test
  void initializeAnswersTheServerCapability() throws Exception {
    Sidecar s = new Sidecar(fx.options(), fx.log);
    fx.closeLater(s);
    Protocol.ServerCapability cap = Fixture.get(s.start());
    assertEquals(Protocol.VERSION, cap.version());
    assertEquals(fx.store.toString(), cap.store());
    assertTrue(cap.features().contains(Protocol.Feature.DID_CHANGE), cap.features().toString());
    assertTrue(cap.features().contains(Protocol.Feature.RESUME_COMPACT));
  }

  @Test
  void listsTheSessionsTheCliWrote() throws Exception {
    String id = fx.newSession("claude-sonnet-4");
    fx.append(id, Fixture.user("2026-11-30T10:00:00.000Z", "Add idempotency to RefundService"),
        Fixture.assistant("2026-11-30T10:00:05.000Z", "Use a Redis SET NX key per refund."));
    Sidecar s = fx.sidecar(o -> o);
    Protocol.ListResult r = Fixture.get(s.request(Protocol.LIST, new Protocol.ListParams(fx.project.toString(), null, null, null)));
    assertEquals(1, r.sessions().size());
    Protocol.SessionSummary one = r.sessions().get(0);
    assertEquals(id, one.id());
    assertEquals("Add idempotency to RefundService", one.title());
    assertEquals(1, one.turns());
    assertEquals("claude-sonnet-4", one.model());
    assertEquals("2026-11-30T10:00:05.000Z", one.updatedAt());
    assertEquals(List.of(), r.problems());
  }

  @Test
  void anErrorAnswerCarriesItsCodeAndData() throws Exception {
    Sidecar s = fx.sidecar(o -> o);
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> Fixture.get(s.request(Protocol.READ, new Protocol.ReadParams("2020-01-01T00-00-00-zzzz", 1, null, null))));
    assertEquals(Protocol.Errors.UNKNOWN_SESSION, RpcException.codeOf(e));
    String id = fx.newSession(null);
    ExecutionException bad = assertThrows(ExecutionException.class,
        () -> Fixture.get(s.request(Protocol.RENAME, new Protocol.RenameParams(id, "   "))));
    RpcException r = RpcException.unwrap(bad);
    assertEquals(Protocol.Errors.INVALID_PARAMS, r.code());
    assertTrue(r.data().getAsJsonObject().has("issues"), String.valueOf(r.data()));
  }

  @Test
  void didChangeReachesTheListenersWhenTheCliAppends() throws Exception {
    String id = fx.newSession(null);
    Sidecar s = fx.sidecar(o -> o);
    Fixture.get(s.request(Protocol.LIST, new Protocol.ListParams(null, true, null, null))); // the watch's starting point
    CompletableFuture<Protocol.DidChangeParams> seen = new CompletableFuture<>();
    s.onChange(c -> {
      if (c.id().equals(id) && c.change() == Protocol.Change.APPENDED) seen.complete(c);
    });
    fx.append(id, Fixture.user("2026-11-30T10:00:00.000Z", "hello"));
    Protocol.DidChangeParams c = Fixture.get(seen);
    assertEquals(fx.project.toString(), c.project());
  }

  @Test
  void theSummarizeCallbackIsAnsweredAsynchronously() throws Exception {
    String id = longSession();
    Sidecar s = fx.sidecar(o -> o);
    CompletableFuture<Protocol.SummarizeParams> asked = new CompletableFuture<>();
    CompletableFuture<Protocol.SummarizeResult> answer = new CompletableFuture<>();
    s.answerSummarize(p -> {
      asked.complete(p);
      return answer;
    });
    CompletableFuture<Protocol.ResumeResult> r = s.request(Protocol.RESUME, resume(id, 2000, true));
    Protocol.SummarizeParams p = Fixture.get(asked);
    assertEquals(id, p.id());
    assertTrue(p.messages().size() > 0);
    assertTrue(!r.isDone(), "the resume waits for the briefing");
    new Thread(() -> answer.complete(new Protocol.SummarizeResult("FACT: the deploy key is in vault"))).start();
    Protocol.ResumeResult done = Fixture.get(r);
    assertEquals(3, done.tier());
    assertEquals("Resumed from summary — full transcript in History.", done.note());
    assertTrue(done.conversation().get(0).toString().contains("FACT: the deploy key is in vault"));
  }

  @Test
  void cancellingAResumeCancelsTheCallbackAndWritesNothing() throws Exception {
    String id = longSession();
    byte[] before = fx.fileOf(id);
    Sidecar s = fx.sidecar(o -> o);
    CompletableFuture<Protocol.SummarizeResult> answer = new CompletableFuture<>();
    CompletableFuture<Void> asked = new CompletableFuture<>();
    s.answerSummarize(p -> {
      asked.complete(null);
      return answer;
    });
    CompletableFuture<Protocol.ResumeResult> r = s.request(Protocol.RESUME, resume(id, 2000, true));
    Fixture.get(asked);
    r.cancel(true);
    // The sidecar cancels its summarize request in turn ($/cancelRequest), which cancels our future.
    assertThrows(CancellationException.class, () -> answer.get(Fixture.WAIT_S, TimeUnit.SECONDS));
    assertTrue(answer.isCancelled());
    assertArrayEquals(before, fx.fileOf(id), "a cancelled resume writes nothing");
  }

  @Test
  void theTitleCallbackNamesASealedChat() throws Exception {
    Sidecar s = fx.sidecar(o -> o);
    s.answerTitle(p -> CompletableFuture.supplyAsync(() -> new Protocol.TitleResult("Add idempotent refunds")));
    Protocol.NewResult n = Fixture.get(s.request(Protocol.NEW, new Protocol.NewParams(fx.project.toString(), null)));
    Fixture.get(s.request(Protocol.APPEND, new Protocol.AppendParams(n.id(),
        List.of(com.google.gson.JsonParser.parseString(Fixture.user("2026-11-30T10:00:00.000Z", "Add idempotency")).getAsJsonObject()))));
    Protocol.SealResult sealed = Fixture.get(s.request(Protocol.SEAL, new Protocol.IdParams(n.id())));
    assertEquals(Protocol.TitleSource.MODEL, sealed.titleSource());
    assertEquals("Add idempotent refunds", sealed.title());
  }

  @Test
  void aRequestWithoutAnAnswerTimesOutAndIsCancelled() throws Exception {
    Path seen = fx.root.resolve("peer-stdin");
    Process peer = silentPeer(seen);
    Connection c = new Connection(peer.getInputStream(), peer.getOutputStream(), fx.log, "test").start();
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> c.request("session/list", new Protocol.ListParams(null, true, null, null), Duration.ofMillis(300)).get(Fixture.WAIT_S, TimeUnit.SECONDS));
    assertEquals(RpcException.TIMEOUT, RpcException.codeOf(e));
    peer.getOutputStream().close(); // the peer's stdin ends: it exits, its copy of what it got is complete
    assertTrue(peer.waitFor(Fixture.WAIT_S, TimeUnit.SECONDS));
    String got = Files.readString(seen, StandardCharsets.UTF_8);
    assertTrue(got.contains("\"method\":\"session/list\""), got);
    assertTrue(got.contains("\"method\":\"$/cancelRequest\",\"params\":{\"id\":1}"), got);
    c.close();
  }

  @Test
  void everyPendingRequestFailsAtOnceWhenTheProcessDies() throws Exception {
    Process peer = silentPeer(fx.root.resolve("peer-stdin"));
    Connection c = new Connection(peer.getInputStream(), peer.getOutputStream(), fx.log, "test").start();
    List<CompletableFuture<com.google.gson.JsonElement>> pending = List.of(
        c.request("session/list", null, Duration.ofHours(1)),
        c.request("session/read", null, Duration.ofHours(1)),
        c.request("session/search", null, Duration.ofHours(1)));
    peer.destroyForcibly();
    for (var f : pending) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(Fixture.WAIT_S, TimeUnit.SECONDS));
      assertEquals(RpcException.CLOSED, RpcException.codeOf(e));
    }
    ExecutionException after = assertThrows(ExecutionException.class, () -> Fixture.get(c.request("session/list", null, Duration.ofHours(1))));
    assertEquals(RpcException.CLOSED, RpcException.codeOf(after));
    peer.waitFor();
  }

  @Test
  void theSidecarsStderrIsLoggedAtItsLevel() throws Exception {
    Sidecar s = fx.sidecar(o -> o.withEnv(java.util.Map.of("LEVELCODE_SESSIONS_LOG", "debug")));
    Fixture.get(s.request(Protocol.LIST, new Protocol.ListParams(null, true, null, null)));
    assertNotNull(fx.log.await(l -> l.startsWith("DEBUG [sidecar] ") || l.startsWith("INFO [sidecar] ")), fx.log.lines().toString());
    assertTrue(fx.log.lines().stream().noneMatch(l -> l.startsWith("ERROR [sidecar] [levelcode-sessions")), "the level prefix is read, not kept");
  }

  /** A peer that never answers: it copies what it reads to `seen`. */
  private Process silentPeer(Path seen) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("node", "-e",
        "const fs=require('fs');const o=fs.openSync(process.argv[1],'w');process.stdin.on('data',d=>fs.writeSync(o,d));process.stdin.on('end',()=>{fs.closeSync(o);process.exit(0)})",
        seen.toString());
    Process p = pb.start();
    fx.closeLater(p::destroyForcibly);
    return p;
  }

  /** A session of 14 turns of ~600 characters each: tier 3 in a 2,000-token window. */
  String longSession() throws Exception {
    String id = fx.newSession("claude-sonnet-4");
    String[] events = new String[28];
    for (int i = 0; i < 14; i++) {
      String t = String.format("2026-11-30T10:%02d:00.000Z", i);
      events[2 * i] = Fixture.user(t, "turn " + i + ": " + "please continue the deploy pipeline work. ".repeat(14));
      events[2 * i + 1] = Fixture.assistant(t.replace(":00.000Z", ":30.000Z"), "reply " + i + ": " + "done with that step, next. ".repeat(20));
    }
    fx.append(id, events);
    return id;
  }

  static Protocol.ResumeParams resume(String id, int window, boolean confirm) {
    return new Protocol.ResumeParams(id, window, null, null, null, confirm ? true : null, null, null, null, null);
  }
}
