// One writer per chat across windows (issue 43), against real sidecars on one store: this window
// resumes a chat and learns the seq its appends expect; its sidecar lets the chat go (as a
// restarted sidecar has); another window continues the chat. This window's next append is
// refused (SessionConflict when the other window gave the chat back, SessionLocked while it holds
// it), nothing is written, and the user is told "This chat is continuing in another window" with
// "Open a Copy": a fork at the last turn this window saw, the refused events appended, the copy
// current and resumed for the chat plugins. Dismissing the balloon writes nothing anywhere.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.Errors;
import dev.levelcode.sessions.core.rpc.RpcException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ContinuedElsewhereTest {
  Fixture fx;
  ScriptedUi ui;

  @BeforeEach void setUp() throws Exception { fx = new Fixture(); ui = new ScriptedUi(); }
  @AfterEach void tearDown() throws Exception { fx.close(); }

  static JsonObject json(String line) { return JsonParser.parseString(line).getAsJsonObject(); }

  LevelCode window() throws Exception {
    Sidecar s = new Sidecar(fx.options(), fx.log);
    LevelCode c = new LevelCode(s, fx.project.toString(), ui, Chat.State.inMemory(), Settings::defaults, fx.log,
        PendingDeletes.Timers.real(), Duration.ofMillis(50), Clock.systemDefaultZone());
    fx.closeLater(c);
    Fixture.get(s.start());
    return c;
  }

  /** A two-turn chat this window resumed and then let go; `other` continues it (holding it or not). */
  String resumedThenContinuedElsewhere(LevelCode c, boolean otherHolds) throws Exception {
    String id = fx.newSession("claude-sonnet-4");
    fx.append(id, Fixture.user("2026-11-30T10:00:00.000Z", "Split the importer"), Fixture.assistant("2026-11-30T10:00:01.000Z", "By tool."),
        Fixture.user("2026-11-30T10:00:02.000Z", "And the tests?"), Fixture.assistant("2026-11-30T10:00:03.000Z", "One suite."),
        Fixture.title("2026-11-30T10:00:04.000Z", "Split the importer"));
    Fixture.get(c.history.refresh());
    Fixture.get(c.chat.resume(c.history.find(id), false));
    ui.next(); // "Resumed …"
    assertEquals(id, c.chat.current());
    Fixture.get(c.sidecar.request(Protocol.RELEASE, new Protocol.IdParams(id)));
    Sidecar other = fx.sidecar(o -> o);
    Fixture.get(other.request(Protocol.APPEND, new Protocol.AppendParams(id,
        List.of(json(Fixture.user("2026-11-30T10:01:00.000Z", "From the other window"))), otherHolds ? null : true, null)));
    return id;
  }

  String file(String id) throws Exception { return new String(fx.fileOf(id), StandardCharsets.UTF_8); }

  void refusedThenCopied(boolean otherHolds, int code) throws Exception {
    LevelCode c = window();
    String id = resumedThenContinuedElsewhere(c, otherHolds);
    CompletableFuture<Chat.Resumed> copy = new CompletableFuture<>();
    c.chat.onResumed(copy::complete);
    var refused = assertThrows(Exception.class, () -> Fixture.get(c.chat.append(id, List.of(json(Fixture.user("2026-11-30T10:02:00.000Z", "From this window"))))));
    assertEquals(code, RpcException.codeOf(refused));
    assertFalse(file(id).contains("From this window"), "nothing written to the chat the other window continued");
    ScriptedUi.Said said = ui.next();
    assertEquals(Ui.Kind.WARNING, said.kind());
    assertEquals(Strings.Elsewhere.continuing("Split the importer"), said.message());
    assertTrue(said.message().startsWith("This chat is continuing in another window"));
    assertEquals(List.of(Strings.Resume.OPEN_COPY), said.options());
    ui.click(said.message(), Strings.Resume.OPEN_COPY);
    Protocol.ResumeResult copied = Fixture.get(copy).result();
    assertNotEquals(id, copied.id());
    assertEquals(copied.id(), c.chat.current());
    String text = file(copied.id());
    assertTrue(text.contains("\"forkedFrom\":{\"id\":\"" + id + "\",\"turn\":2}"), text);
    assertTrue(text.contains("From this window"), text);
    assertFalse(text.contains("From the other window"), text);
    assertEquals(3, copied.conversation().stream().filter(m -> "user".equals(m.getAsJsonObject().get("role").getAsString())).count());
    assertEquals(Strings.Elsewhere.inCopy("Split the importer"), ui.next().message());
    // The next append goes to the copy, checked against it; the original keeps one conversation.
    Fixture.get(c.chat.append(copied.id(), List.of(json(Fixture.user("2026-11-30T10:03:00.000Z", "Again from this window")))));
    assertTrue(file(copied.id()).contains("Again from this window"));
    assertFalse(file(id).contains("this window"));
  }

  @Test
  void aChatTheOtherWindowGaveBackIsAConflictAndGoesOnInACopy() throws Exception {
    refusedThenCopied(false, Errors.SESSION_CONFLICT);
  }

  @Test
  void aChatTheOtherWindowHoldsIsLockedAndGoesOnInACopy() throws Exception {
    refusedThenCopied(true, Errors.SESSION_LOCKED);
  }

  @Test
  void dismissingTheOfferWritesNothing() throws Exception {
    LevelCode c = window();
    String id = resumedThenContinuedElsewhere(c, false);
    String before = file(id);
    assertThrows(Exception.class, () -> Fixture.get(c.chat.append(id, List.of(json(Fixture.user("2026-11-30T10:02:00.000Z", "From this window"))))));
    ScriptedUi.Said said = ui.next();
    ui.click(said.message(), null);
    assertEquals(before, file(id));
    assertEquals(id, c.chat.current());
    assertEquals(1, Fixture.get(c.history.fetch(true)).size(), "no copy made");
  }
}
