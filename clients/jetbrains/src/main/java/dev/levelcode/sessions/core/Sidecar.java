// Finds, starts, restarts and stops the sidecar (`levelcode-sessions serve --stdio`), and is the
// one door the rest of the core sends requests through. The command is, first to last: the
// sidecar path setting (a .js file runs under node), the plugin's bundled copy, then
// `levelcode-sessions` on PATH. NODE_EXTRA_CA_CERTS is emptied (protocol.md, "Starting the
// sidecar"). A sidecar that dies is restarted after a growing delay (0.5 s, 1 s, 2 s, 4 s), and
// the status listeners are told so; after MAX_RESTARTS within RESTART_WINDOW it stays down until
// start() is called again. stop() sends shutdown and exit and waits for the process to end.
package dev.levelcode.sessions.core;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.levelcode.sessions.core.rpc.Connection;
import dev.levelcode.sessions.core.rpc.Json;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.RpcException;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

public final class Sidecar implements AutoCloseable {
  public static final int MAX_RESTARTS = 4;
  public static final Duration RESTART_WINDOW = Duration.ofMinutes(3);
  /** Requests that read whole sessions (resume, export, search, reindex) may take this long. */
  public static final Duration LONG_TIMEOUT = Duration.ofMinutes(5);

  /**
   * How to start the sidecar. `sidecarPath` is the user's setting (null or blank: not set);
   * `bundled` the plugin's own copy (null: none); `store` the store folder (null: the default);
   * `autoArchiveDays` and `retention` History's lifecycle rules for initializationOptions (null:
   * not sent, so the sidecar archives nothing by itself).
   */
  public record Options(String sidecarPath, Path bundled, Path store, Integer consentThreshold, List<String> callbacks,
      Duration requestTimeout, String node, Map<String, String> env, Integer autoArchiveDays, Protocol.RetentionRules retention) {
    public Options {
      callbacks = callbacks == null ? List.of(Callbacks.SUMMARIZE, Callbacks.TITLE) : List.copyOf(callbacks);
      requestTimeout = requestTimeout == null ? Duration.ofSeconds(30) : requestTimeout;
      node = node == null || node.isBlank() ? "node" : node;
      env = env == null ? Map.of() : Map.copyOf(env);
    }

    public static Options defaults() {
      return new Options(null, null, null, null, null, null, null, null, null, null);
    }

    public Options withStore(Path s) { return new Options(sidecarPath, bundled, s, consentThreshold, callbacks, requestTimeout, node, env, autoArchiveDays, retention); }
    public Options withSidecarPath(String p) { return new Options(p, bundled, store, consentThreshold, callbacks, requestTimeout, node, env, autoArchiveDays, retention); }
    public Options withBundled(Path b) { return new Options(sidecarPath, b, store, consentThreshold, callbacks, requestTimeout, node, env, autoArchiveDays, retention); }
    public Options withCallbacks(List<String> c) { return new Options(sidecarPath, bundled, store, consentThreshold, c, requestTimeout, node, env, autoArchiveDays, retention); }
    public Options withConsentThreshold(Integer t) { return new Options(sidecarPath, bundled, store, t, callbacks, requestTimeout, node, env, autoArchiveDays, retention); }
    public Options withRequestTimeout(Duration d) { return new Options(sidecarPath, bundled, store, consentThreshold, callbacks, d, node, env, autoArchiveDays, retention); }
    public Options withEnv(Map<String, String> e) { return new Options(sidecarPath, bundled, store, consentThreshold, callbacks, requestTimeout, node, e, autoArchiveDays, retention); }
    /** The lifecycle rules of initializationOptions: auto-archive days (0: off) and retention (null: none). */
    public Options withLifecycle(Integer days, Protocol.RetentionRules r) { return new Options(sidecarPath, bundled, store, consentThreshold, callbacks, requestTimeout, node, env, days, r); }

    /** initializationOptions: the lifecycle options and the user's time zone. */
    Protocol.InitializationOptions initializationOptions() {
      // The user's time zone: the sidecar groups History and writes its times in it.
      return new Protocol.InitializationOptions(consentThreshold, null, autoArchiveDays, retention, java.time.ZoneId.systemDefault().getId());
    }
  }

  /** The callbacks (server-to-client requests) this client may advertise. */
  public static final class Callbacks {
    private Callbacks() {}
    public static final String SUMMARIZE = "summarize";
    public static final String TITLE = "title";
  }

  /** What the status listeners hear. */
  public enum Status { STARTING, READY, RESTARTING, GAVE_UP, STOPPED }

  public record StatusEvent(Status status, String message) {}

  private final Options options;
  private final Log log;
  private final Function<String, Optional<Path>> which;
  private final List<Consumer<Protocol.DidChangeParams>> changeListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<StatusEvent>> statusListeners = new CopyOnWriteArrayList<>();
  private final List<Long> restarts = new ArrayList<>();
  private final Map<String, WorkProgress> progress = new ConcurrentHashMap<>();
  private final AtomicLong nextToken = new AtomicLong();
  private final ScheduledExecutorService restarter = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "levelcode-sidecar-restart");
    t.setDaemon(true);
    return t;
  });
  private volatile Function<Protocol.SummarizeParams, CompletableFuture<Protocol.SummarizeResult>> summarize;
  private volatile Function<Protocol.TitleParams, CompletableFuture<Protocol.TitleResult>> title;
  private Process process;
  private Connection connection;
  private CompletableFuture<Protocol.ServerCapability> ready;
  private volatile Protocol.ServerCapability capability;
  private boolean stopping;

  public Sidecar(Options options, Log log) {
    this(options, log, Sidecar::onPath);
  }

  /** `which` finds an executable on PATH (tests pass their own). */
  public Sidecar(Options options, Log log, Function<String, Optional<Path>> which) {
    this.options = options;
    this.log = log;
    this.which = which;
  }

  public Options options() { return options; }

  // ---- finding the sidecar ----

  /** The command line that starts the sidecar, without `serve --stdio`; an error says what is missing. */
  public List<String> command() {
    String own = options.sidecarPath() == null ? "" : options.sidecarPath().trim();
    if (!own.isEmpty()) {
      Path p = Path.of(own);
      if (!Files.isRegularFile(p)) throw new IllegalStateException(Strings.Sidecar.notFound(own));
      return launch(p);
    }
    if (options.bundled() != null && Files.isRegularFile(options.bundled())) return launch(options.bundled());
    return which.apply("levelcode-sessions").map(p -> List.of(p.toString()))
        .orElseThrow(() -> new IllegalStateException(Strings.Sidecar.NOT_ON_PATH));
  }

  private List<String> launch(Path p) {
    String n = p.getFileName().toString().toLowerCase();
    if (n.endsWith(".js") || n.endsWith(".cjs") || n.endsWith(".mjs")) return List.of(options.node(), p.toString());
    return List.of(p.toString());
  }

  /** An executable named `name` in a folder of PATH. */
  public static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) return Optional.empty();
    boolean windows = System.getProperty("os.name", "").toLowerCase().startsWith("windows");
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) continue;
      for (String ext : windows ? List.of(".cmd", ".exe", "") : List.of("")) {
        Path p = Path.of(dir, name + ext);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  // ---- listeners and callbacks ----

  /** Adds a didChange listener (kept across restarts); the answer removes it. */
  public Runnable onChange(Consumer<Protocol.DidChangeParams> l) {
    changeListeners.add(l);
    return () -> changeListeners.remove(l);
  }

  public void onStatus(Consumer<StatusEvent> l) { statusListeners.add(l); }

  /** The summarize callback's handler (asked only when `summarize` is advertised). */
  public void answerSummarize(Function<Protocol.SummarizeParams, CompletableFuture<Protocol.SummarizeResult>> h) { summarize = h; }

  /** The title callback's handler (asked only when `title` is advertised). */
  public void answerTitle(Function<Protocol.TitleParams, CompletableFuture<Protocol.TitleResult>> h) { title = h; }

  /** Whether session/summarize will be asked (else resume answers needsSummary: the two-step flow). */
  public boolean advertisesSummarize() { return options.callbacks().contains(Callbacks.SUMMARIZE); }

  // ---- life ----

  /** Starts the sidecar once; concurrent callers share the start. Resolves with its capability. */
  public synchronized CompletableFuture<Protocol.ServerCapability> start() {
    if (ready != null && !ready.isCompletedExceptionally()) return ready;
    stopping = false;
    ready = new CompletableFuture<>();
    CompletableFuture<Protocol.ServerCapability> mine = ready;
    try {
      spawn(mine);
    } catch (RuntimeException | IOException e) {
      String m = e instanceof IllegalStateException ? e.getMessage() : Strings.Sidecar.startFailed(e.getMessage());
      log.error(m);
      status(Status.GAVE_UP, m);
      mine.completeExceptionally(new IllegalStateException(m, e));
    }
    return mine;
  }

  private void spawn(CompletableFuture<Protocol.ServerCapability> mine) throws IOException {
    List<String> cmd = new ArrayList<>(command());
    cmd.add("serve");
    cmd.add("--stdio");
    if (options.store() != null) {
      cmd.add("--dir");
      cmd.add(options.store().toString());
    }
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("NODE_EXTRA_CA_CERTS", "");
    if (options.consentThreshold() != null) pb.environment().put("LEVELCODE_SESSIONS_CONSENT_TOKENS", options.consentThreshold().toString());
    pb.environment().putAll(options.env());
    status(Status.STARTING, "starting the sidecar: " + String.join(" ", cmd));
    Process p = pb.start();
    Connection c = new Connection(p.getInputStream(), p.getOutputStream(), log, "levelcode-rpc");
    c.onNotification(Protocol.DID_CHANGE, e -> changeListeners.forEach(l -> l.accept(e)));
    c.onNotification("$/progress", this::progressed);
    c.onRequest(Protocol.SUMMARIZE, params -> {
      var h = summarize;
      return h == null ? CompletableFuture.failedFuture(new IllegalStateException(Strings.Model.NONE)) : h.apply(params);
    });
    c.onRequest(Protocol.TITLE, params -> {
      var h = title;
      return h == null ? CompletableFuture.failedFuture(new IllegalStateException(Strings.Model.NONE)) : h.apply(params);
    });
    c.start();
    pumpStderr(p);
    synchronized (this) {
      process = p;
      connection = c;
    }
    p.onExit().thenAccept(done -> exited(p, c, done.exitValue()));
    c.request("initialize", initializeParams(), options.requestTimeout()).thenAccept(result -> {
      JsonObject cap = result.getAsJsonObject().getAsJsonObject("capabilities").getAsJsonObject("experimental")
          .getAsJsonObject("levelcodeSessions");
      Protocol.ServerCapability sc = Json.from(cap, Protocol.ServerCapability.class);
      if (sc.version() != Protocol.VERSION) {
        String m = Strings.Sidecar.wrongVersion(sc.version(), Protocol.VERSION);
        log.error(m);
        mine.completeExceptionally(new IllegalStateException(m));
        return;
      }
      c.notify("initialized", new JsonObject());
      log.info("sidecar ready: store " + sc.store() + ", features " + sc.features());
      capability = sc;
      status(Status.READY, sc.store());
      mine.complete(sc);
    }).exceptionally(e -> {
      mine.completeExceptionally(e);
      return null;
    });
  }

  private JsonObject initializeParams() {
    JsonObject params = new JsonObject();
    params.addProperty("processId", ProcessHandle.current().pid());
    JsonObject info = new JsonObject();
    info.addProperty("name", "LevelCode Sessions for JetBrains IDEs");
    params.add("clientInfo", info);
    JsonObject caps = new JsonObject();
    JsonObject experimental = new JsonObject();
    experimental.add("levelcodeSessions", Json.tree(new Protocol.ClientCapability(options.callbacks())));
    caps.add("experimental", experimental);
    params.add("capabilities", caps);
    Protocol.InitializationOptions init = options.initializationOptions();
    if (init != null) params.add("initializationOptions", Json.tree(init));
    params.addProperty("trace", "off");
    return params;
  }

  private void pumpStderr(Process p) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) logStderr(log, line);
      } catch (IOException e) {
        log.debug("sidecar stderr: " + e.getMessage());
      }
    }, "levelcode-sidecar-stderr");
    t.setDaemon(true);
    t.start();
  }

  private static final java.util.regex.Pattern LINE =
      java.util.regex.Pattern.compile("^\\[levelcode-sessions \\d+\\] (error|warn|info|debug): (.*)$", java.util.regex.Pattern.DOTALL);

  /** A stderr line ("[levelcode-sessions 123] warn: message", server/rpc/log.ts) at its level; anything else (a crash trace) is an error. */
  static void logStderr(Log log, String line) {
    java.util.regex.Matcher m = LINE.matcher(line);
    if (!m.matches()) {
      log.error("[sidecar] " + line);
      return;
    }
    Log.Level level = Log.Level.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT));
    log.log(level, "[sidecar] " + m.group(2));
  }

  private void exited(Process p, Connection c, int code) {
    c.close();
    long delay;
    synchronized (this) {
      if (process != p) return;
      process = null;
      connection = null;
      if (stopping) return;
      ready = null;
      long now = System.nanoTime();
      restarts.removeIf(t -> now - t > RESTART_WINDOW.toNanos());
      if (restarts.size() >= MAX_RESTARTS) {
        log.error("the sidecar stopped " + (restarts.size() + 1) + " times in " + RESTART_WINDOW.toMinutes() + " min; not restarting");
        status(Status.GAVE_UP, Strings.Sidecar.GAVE_UP);
        return;
      }
      delay = 500L << restarts.size();
      restarts.add(now);
    }
    log.warn("the sidecar exited with code " + code + "; restarting in " + delay + " ms");
    status(Status.RESTARTING, Strings.Sidecar.RESTARTING);
    restarter.schedule(() -> {
      synchronized (this) {
        if (stopping) return;
      }
      start();
    }, delay, TimeUnit.MILLISECONDS);
  }

  private void status(Status s, String message) {
    for (Consumer<StatusEvent> l : statusListeners) l.accept(new StatusEvent(s, message));
  }

  /** What the running (or last) sidecar said it can do at initialize; null before it is ready. */
  public Protocol.ServerCapability capability() { return capability; }

  /** Whether the sidecar announced `f` (false before it is ready). */
  public boolean has(Protocol.Feature f) {
    Protocol.ServerCapability c = capability;
    return c != null && c.features() != null && c.features().contains(f);
  }

  /** The running sidecar's pid (tests), or -1. */
  public synchronized long pid() { return process == null ? -1 : process.pid(); }

  /** The running process (tests kill it to see the restart). */
  public synchronized Optional<Process> process() { return Optional.ofNullable(process); }

  // ---- requests ----

  /**
   * A work-done token for one request, whose `$/progress` reports it keeps until the sidecar's
   * `end`, or until `forget` (for a request that fails before any end).
   */
  public WorkProgress workProgress() {
    WorkProgress w = new WorkProgress("levelcode-jb-" + nextToken.incrementAndGet());
    progress.put(w.id(), w);
    return w;
  }

  public void forget(WorkProgress w) { progress.remove(w.id()); }

  private void progressed(JsonElement raw) {
    if (!raw.isJsonObject()) return;
    JsonObject p = raw.getAsJsonObject();
    JsonElement token = p.get("token");
    JsonElement value = p.get("value");
    if (token == null || !token.isJsonPrimitive() || value == null || !value.isJsonObject()) return;
    WorkProgress w = progress.get(token.getAsString());
    if (w == null) return; // a token this client did not give (the sidecar's own, created by request)
    w.take(value.getAsJsonObject());
    if (value.getAsJsonObject().has("kind") && "end".equals(value.getAsJsonObject().get("kind").getAsString())) progress.remove(w.id());
  }

  public <P, R> CompletableFuture<R> request(Protocol.Method<P, R> m, P params) {
    boolean longOne = m == Protocol.RESUME || m == Protocol.EXPORT || m == Protocol.SEARCH || m == Protocol.REINDEX;
    return request(m, params, longOne ? LONG_TIMEOUT : options.requestTimeout());
  }

  /**
   * Sends once the sidecar is ready (starting it if needed). Cancelling the returned future
   * cancels the request on the sidecar ($/cancelRequest).
   */
  public <P, R> CompletableFuture<R> request(Protocol.Method<P, R> m, P params, Duration timeout) {
    CompletableFuture<R> out = new CompletableFuture<>();
    CompletableFuture<Protocol.ServerCapability> r;
    synchronized (this) {
      r = ready;
    }
    if (r == null) r = start();
    r.thenAccept(cap -> {
      Connection c;
      synchronized (this) {
        c = connection;
      }
      if (c == null) {
        out.completeExceptionally(new RpcException(RpcException.CLOSED, Strings.Sidecar.DOWN, null));
        return;
      }
      CompletableFuture<R> f = c.request(m, params, timeout);
      out.whenComplete((v, e) -> {
        if (out.isCancelled()) f.cancel(true);
      });
      f.whenComplete((v, e) -> {
        if (e != null) out.completeExceptionally(e);
        else out.complete(v);
      });
    }).exceptionally(e -> {
      out.completeExceptionally(e);
      return null;
    });
    return out;
  }

  /** Sends shutdown then exit, waits up to 5 s for the process to end, then kills it. */
  public void stop() {
    Process p;
    Connection c;
    synchronized (this) {
      stopping = true;
      p = process;
      c = connection;
      ready = null;
    }
    if (p == null) return;
    try {
      if (c != null && !c.isClosed()) {
        try {
          c.request("shutdown", null, Duration.ofSeconds(3)).get(4, TimeUnit.SECONDS);
        } catch (Exception e) {
          log.warn("shutdown: " + e.getMessage());
        }
        c.notify("exit", null);
      }
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        log.warn("the sidecar did not exit after shutdown; killing it");
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
    synchronized (this) {
      // Ended: forget it now, not when onExit's handler gets round to it (pid() is -1 once stop returns).
      if (process == p && !p.isAlive()) {
        process = null;
        connection = null;
      }
    }
    status(Status.STOPPED, "stopped");
  }

  @Override
  public void close() {
    stop();
    restarter.shutdownNow();
  }
}
