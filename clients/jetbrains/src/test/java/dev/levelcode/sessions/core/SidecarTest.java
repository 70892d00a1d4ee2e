// The launcher: which command starts the sidecar (setting, bundled copy, PATH), the restart after
// a crash (told to the status listeners), giving up after MAX_RESTARTS, and a clean stop
// (shutdown, exit: the process ends with 0).
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.levelcode.sessions.core.rpc.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SidecarTest {
  Fixture fx;

  @BeforeEach void setUp() throws Exception { fx = new Fixture(); }
  @AfterEach void tearDown() throws Exception { fx.close(); }

  @Test
  void theSettingWinsThenTheBundledCopyThenPath() throws Exception {
    Path bundled = Files.writeString(fx.root.resolve("main.cjs"), "");
    Path onPath = Path.of("/opt/bin/levelcode-sessions");
    var which = (java.util.function.Function<String, Optional<Path>>) n -> Optional.of(onPath);
    Sidecar.Options base = Sidecar.Options.defaults();
    assertEquals(List.of("node", Fixture.BIN.toString()),
        new Sidecar(base.withSidecarPath(Fixture.BIN.toString()).withBundled(bundled), fx.log, which).command());
    assertEquals(List.of("node", bundled.toString()), new Sidecar(base.withBundled(bundled), fx.log, which).command());
    assertEquals(List.of(onPath.toString()), new Sidecar(base, fx.log, which).command());
    Path exe = Files.writeString(fx.root.resolve("levelcode-sessions"), "#!/bin/sh\n");
    assertEquals(List.of(exe.toString()), new Sidecar(base.withSidecarPath(exe.toString()), fx.log, which).command());
  }

  @Test
  void aMissingSidecarIsAClearError() {
    IllegalStateException set = assertThrows(IllegalStateException.class,
        () -> new Sidecar(Sidecar.Options.defaults().withSidecarPath("/nowhere/sidecar.js"), fx.log, n -> Optional.empty()).command());
    assertEquals(Strings.Sidecar.notFound("/nowhere/sidecar.js"), set.getMessage());
    IllegalStateException none = assertThrows(IllegalStateException.class,
        () -> new Sidecar(Sidecar.Options.defaults(), fx.log, n -> Optional.empty()).command());
    assertEquals(Strings.Sidecar.NOT_ON_PATH, none.getMessage());
    Sidecar s = new Sidecar(Sidecar.Options.defaults(), fx.log, n -> Optional.empty());
    ExecutionException e = assertThrows(ExecutionException.class, () -> Fixture.get(s.start()));
    assertEquals(Strings.Sidecar.NOT_ON_PATH, e.getCause().getMessage());
  }

  @Test
  void aSidecarThatDiesIsRestartedAndSaysSo() throws Exception {
    Sidecar s = new Sidecar(fx.options(), fx.log);
    fx.closeLater(s);
    LinkedBlockingQueue<Sidecar.StatusEvent> heard = new LinkedBlockingQueue<>();
    s.onStatus(heard::add);
    Fixture.get(s.start());
    long first = s.pid();
    s.process().orElseThrow().destroyForcibly();
    assertEquals(Sidecar.Status.RESTARTING, nextOtherThan(heard, Sidecar.Status.STARTING, Sidecar.Status.READY).status());
    assertEquals(Strings.Sidecar.RESTARTING, lastRestartMessage);
    assertEquals(Sidecar.Status.READY, nextOtherThan(heard, Sidecar.Status.STARTING).status());
    assertNotEquals(first, s.pid());
    var r = Fixture.get(s.request(Protocol.LIST, new Protocol.ListParams(null, true, null, null)));
    assertEquals(List.of(), r.sessions());
    assertTrue(fx.log.lines().stream().anyMatch(l -> l.contains("restarting in 500 ms")), fx.log.lines().toString());
  }

  private String lastRestartMessage;

  private Sidecar.StatusEvent nextOtherThan(LinkedBlockingQueue<Sidecar.StatusEvent> q, Sidecar.Status... skip) throws Exception {
    while (true) {
      Sidecar.StatusEvent e = q.poll(Fixture.WAIT_S, TimeUnit.SECONDS);
      if (e == null) throw new AssertionError("no status");
      if (e.status() == Sidecar.Status.RESTARTING) lastRestartMessage = e.message();
      if (!List.of(skip).contains(e.status())) return e;
    }
  }

  @Test
  void aSidecarThatKeepsDyingIsGivenUpOn() throws Exception {
    Path dying = Files.writeString(fx.root.resolve("dying.js"), "process.exit(3)\n");
    Sidecar s = new Sidecar(fx.options().withSidecarPath(dying.toString()), fx.log);
    fx.closeLater(s);
    List<Sidecar.Status> heard = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> gaveUp = new CompletableFuture<>();
    s.onStatus(e -> {
      heard.add(e.status());
      if (e.status() == Sidecar.Status.GAVE_UP) gaveUp.complete(null);
    });
    s.start();
    Fixture.get(gaveUp);
    assertEquals(Sidecar.MAX_RESTARTS, heard.stream().filter(x -> x == Sidecar.Status.RESTARTING).count(), heard.toString());
    assertEquals(Sidecar.MAX_RESTARTS + 1, heard.stream().filter(x -> x == Sidecar.Status.STARTING).count(), heard.toString());
  }

  @Test
  void stopSendsShutdownAndExitAndTheProcessEndsWithZero() throws Exception {
    Sidecar s = new Sidecar(fx.options(), fx.log);
    Fixture.get(s.start());
    Process p = s.process().orElseThrow();
    s.close();
    assertTrue(p.waitFor(Fixture.WAIT_S, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), "exit after shutdown ends with 0 (protocol.md, Lifecycle)");
    assertEquals(-1, s.pid());
  }
}
