// JSON-RPC 2.0 with LSP framing (Content-Length headers) over a pair of streams: the sidecar's
// stdout and stdin. Requests get ids and a timeout (no request waits forever; on timeout, and when
// the caller cancels the future, `$/cancelRequest` is sent); server-to-client requests
// (session/summarize, session/title) are answered when the handler's future completes, and
// cancelled when the sidecar sends `$/cancelRequest`; notifications go to listeners in arrival
// order; when the stream ends every pending request fails at once. Nothing here knows a method of
// the protocol beyond its name: Protocol holds the messages.
package dev.levelcode.sessions.core.rpc;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.levelcode.sessions.core.Log;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

public final class Connection implements AutoCloseable {
  private final InputStream in;
  private final OutputStream out;
  private final Log log;
  private final String name;
  private final AtomicInteger nextId = new AtomicInteger(1);
  private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
  private final Map<String, Function<JsonElement, CompletableFuture<?>>> handlers = new ConcurrentHashMap<>();
  private final Map<String, List<Consumer<JsonElement>>> listeners = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<?>> serving = new ConcurrentHashMap<>();
  private final List<Consumer<Throwable>> closeListeners = new CopyOnWriteArrayList<>();
  private final ExecutorService events;
  private final ScheduledExecutorService timers;
  private volatile Throwable closed;

  private record Pending(String method, CompletableFuture<JsonElement> future, ScheduledFuture<?> timer) {}

  public Connection(InputStream in, OutputStream out, Log log, String name) {
    this.in = new BufferedInputStream(in);
    this.out = out;
    this.log = log;
    this.name = name;
    this.events = Executors.newSingleThreadExecutor(daemon(name + "-events"));
    this.timers = Executors.newSingleThreadScheduledExecutor(daemon(name + "-timers"));
  }

  /** Starts reading frames (on a thread of its own). */
  public Connection start() {
    Thread t = daemon(name + "-reader").newThread(this::readLoop);
    t.start();
    return this;
  }

  public boolean isClosed() { return closed != null; }

  // ---- client to server ----

  /** A typed request with the given timeout; cancel the future to send $/cancelRequest. */
  public <P, R> CompletableFuture<R> request(Protocol.Method<P, R> m, P params, Duration timeout) {
    CompletableFuture<JsonElement> raw = request(m.name(), params, timeout);
    CompletableFuture<R> typed = raw.thenApply(r -> Json.from(r, m.result()));
    typed.whenComplete((v, e) -> {
      if (typed.isCancelled()) raw.cancel(true); // cancelling the typed answer cancels the request
    });
    return typed;
  }

  /** A request by name; the answer as JSON. */
  public CompletableFuture<JsonElement> request(String method, Object params, Duration timeout) {
    int id = nextId.getAndIncrement();
    CompletableFuture<JsonElement> future = new CompletableFuture<>() {
      @Override
      public boolean cancel(boolean mayInterrupt) {
        boolean done = super.cancel(mayInterrupt);
        if (done) abandon(id, "cancelled by the client");
        return done;
      }
    };
    Throwable gone = closed;
    if (gone != null) {
      future.completeExceptionally(closedError(method, gone));
      return future;
    }
    ScheduledFuture<?> timer = timers.schedule(() -> {
      if (future.isDone()) return;
      abandon(id, "timed out"); // the sidecar hears of it before the caller does
      future.completeExceptionally(new RpcException(RpcException.TIMEOUT,
          method + " got no answer within " + timeout.toMillis() + " ms", null));
    }, timeout.toMillis(), TimeUnit.MILLISECONDS);
    pending.put(id, new Pending(method, future, timer));
    JsonObject msg = new JsonObject();
    msg.addProperty("jsonrpc", "2.0");
    msg.addProperty("id", id);
    msg.addProperty("method", method);
    msg.add("params", params == null ? new JsonObject() : Json.tree(params));
    try {
      send(msg);
    } catch (IOException e) {
      pending.remove(id);
      timer.cancel(false);
      future.completeExceptionally(closedError(method, e));
    }
    return future;
  }

  public void notify(String method, Object params) {
    JsonObject msg = new JsonObject();
    msg.addProperty("jsonrpc", "2.0");
    msg.addProperty("method", method);
    if (params != null) msg.add("params", Json.tree(params));
    try {
      send(msg);
    } catch (IOException e) {
      log.warn(name + ": could not send " + method + ": " + e.getMessage());
    }
  }

  private void abandon(int id, String why) {
    Pending p = pending.remove(id);
    if (p == null) return;
    p.timer.cancel(false);
    log.debug(name + ": " + p.method + " (" + id + ") " + why + "; sending $/cancelRequest");
    JsonObject params = new JsonObject();
    params.addProperty("id", id);
    notify("$/cancelRequest", params);
  }

  // ---- server to client ----

  /**
   * Answers the sidecar's requests of one method. The handler runs on the event thread and must
   * not block: it returns a future, answered when it completes (an RpcException's code is sent as
   * the error's code; any other failure as InternalError). A `$/cancelRequest` from the sidecar
   * cancels the future, and the answer is then -32800.
   */
  public <P, R> void onRequest(Protocol.Method<P, R> m, Function<P, CompletableFuture<R>> handler) {
    handlers.put(m.name(), raw -> handler.apply(Json.from(raw, m.params())));
  }

  /** Adds a listener for a notification; listeners run on the event thread, in arrival order. */
  public <P> void onNotification(Protocol.Method<P, ?> m, Consumer<P> listener) {
    onNotification(m.name(), raw -> listener.accept(Json.from(raw, m.params())));
  }

  public void onNotification(String method, Consumer<JsonElement> listener) {
    listeners.computeIfAbsent(method, k -> new CopyOnWriteArrayList<>()).add(listener);
  }

  /** Told once, with the reason, when the stream ends or the connection is closed. */
  public void onClose(Consumer<Throwable> listener) {
    closeListeners.add(listener);
    Throwable c = closed;
    if (c != null) listener.accept(c);
  }

  // ---- frames ----

  private void send(JsonObject msg) throws IOException {
    byte[] body = Json.write(msg).getBytes(StandardCharsets.UTF_8);
    byte[] head = ("Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    synchronized (out) {
      out.write(head);
      out.write(body);
      out.flush();
    }
  }

  private void readLoop() {
    Throwable reason;
    try {
      while (true) {
        byte[] body = readFrame();
        JsonElement msg;
        try {
          msg = JsonParser.parseString(new String(body, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
          log.error(name + ": a frame that is not JSON: " + e.getMessage());
          continue;
        }
        if (msg.isJsonObject()) dispatch(msg.getAsJsonObject());
        else log.error(name + ": a frame that is not a JSON object");
      }
    } catch (EOFException e) {
      reason = new IOException("the sidecar closed its output");
    } catch (IOException e) {
      reason = e;
    }
    shutdown(reason);
  }

  /** One frame's body: headers up to an empty line, then Content-Length bytes. */
  private byte[] readFrame() throws IOException {
    int length = -1;
    while (true) {
      String line = readHeaderLine();
      if (line.isEmpty()) break;
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
        try {
          length = Integer.parseInt(line.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
          throw new IOException("bad Content-Length header: " + line);
        }
      }
    }
    if (length < 0) throw new IOException("a frame without Content-Length");
    byte[] body = in.readNBytes(length);
    if (body.length < length) throw new EOFException();
    return body;
  }

  private String readHeaderLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    while (true) {
      int b = in.read();
      if (b < 0) throw new EOFException();
      if (b == '\n') break;
      if (b != '\r') line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private void dispatch(JsonObject msg) {
    if (msg.has("method")) {
      String method = msg.get("method").getAsString();
      JsonElement params = msg.has("params") ? msg.get("params") : JsonNull.INSTANCE;
      if (msg.has("id")) events.execute(() -> serve(msg.get("id"), method, params));
      else events.execute(() -> deliver(method, params));
      return;
    }
    if (!msg.has("id") || !msg.get("id").isJsonPrimitive()) {
      log.warn(name + ": an answer without an id");
      return;
    }
    Pending p = pending.remove(msg.get("id").getAsInt());
    if (p == null) return; // cancelled or timed out: a late answer is dropped
    p.timer.cancel(false);
    if (msg.has("error")) {
      JsonObject err = msg.getAsJsonObject("error");
      p.future.completeExceptionally(new RpcException(err.get("code").getAsInt(),
          err.has("message") ? err.get("message").getAsString() : "error", err.get("data")));
    } else {
      p.future.complete(msg.has("result") ? msg.get("result") : JsonNull.INSTANCE);
    }
  }

  private void deliver(String method, JsonElement params) {
    if (method.equals("$/cancelRequest")) {
      JsonElement id = params.isJsonObject() ? params.getAsJsonObject().get("id") : null;
      CompletableFuture<?> f = id == null ? null : serving.get(id.toString());
      if (f != null) f.cancel(true);
      return;
    }
    if (method.equals("window/logMessage") && params.isJsonObject()) {
      log.debug("[sidecar] " + params.getAsJsonObject().get("message").getAsString());
      return;
    }
    for (Consumer<JsonElement> l : listeners.getOrDefault(method, List.of())) {
      try {
        l.accept(params);
      } catch (RuntimeException e) {
        log.error(name + ": a " + method + " listener failed: " + e);
      }
    }
  }

  private void serve(JsonElement id, String method, JsonElement params) {
    Function<JsonElement, CompletableFuture<?>> h = handlers.get(method);
    if (h == null) {
      answerError(id, Protocol.Errors.METHOD_NOT_FOUND, "this client does not answer " + method);
      return;
    }
    CompletableFuture<?> f;
    try {
      f = h.apply(params);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    String key = id.toString();
    serving.put(key, f);
    f.whenComplete((result, error) -> {
      serving.remove(key);
      if (error == null) {
        answer(id, Json.tree(result));
        return;
      }
      RpcException r = RpcException.unwrap(error);
      boolean cancelled = error instanceof java.util.concurrent.CancellationException
          || error.getCause() instanceof java.util.concurrent.CancellationException;
      int code = cancelled ? Protocol.Errors.REQUEST_CANCELLED : r != null ? r.code() : Protocol.Errors.INTERNAL_ERROR;
      String message = cancelled ? "cancelled" : r != null ? r.getMessage() : String.valueOf(rootMessage(error));
      log.warn(name + ": " + method + " failed: " + message);
      answerError(id, code, message);
    });
  }

  private void answer(JsonElement id, JsonElement result) {
    JsonObject msg = new JsonObject();
    msg.addProperty("jsonrpc", "2.0");
    msg.add("id", id);
    msg.add("result", result);
    trySend(msg);
  }

  private void answerError(JsonElement id, int code, String message) {
    JsonObject err = new JsonObject();
    err.addProperty("code", code);
    err.addProperty("message", message);
    JsonObject msg = new JsonObject();
    msg.addProperty("jsonrpc", "2.0");
    msg.add("id", id);
    msg.add("error", err);
    trySend(msg);
  }

  private void trySend(JsonObject msg) {
    try {
      send(msg);
    } catch (IOException e) {
      log.warn(name + ": could not answer the sidecar: " + e.getMessage());
    }
  }

  private static String rootMessage(Throwable t) {
    while (t.getCause() != null && (t instanceof java.util.concurrent.CompletionException
        || t instanceof java.util.concurrent.ExecutionException)) t = t.getCause();
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  // ---- the end ----

  private void shutdown(Throwable reason) {
    synchronized (this) {
      if (closed != null) return;
      closed = reason;
    }
    for (Integer id : List.copyOf(pending.keySet())) {
      Pending p = pending.remove(id);
      if (p == null) continue;
      p.timer.cancel(false);
      p.future.completeExceptionally(closedError(p.method, reason));
    }
    for (CompletableFuture<?> f : serving.values()) f.cancel(true);
    for (Consumer<Throwable> l : closeListeners) {
      events.execute(() -> l.accept(reason));
    }
    events.shutdown();
    timers.shutdownNow();
  }

  private static RpcException closedError(String method, Throwable why) {
    return new RpcException(RpcException.CLOSED, method + " failed: the sidecar is gone (" + why.getMessage() + ")", null);
  }

  /** Fails every pending request and stops; the streams are the owner's to close. */
  @Override
  public void close() {
    shutdown(new IOException("the connection was closed"));
  }

  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
