// A failed request: the sidecar's JSON-RPC error (code, message, data), a timeout, or the
// connection gone. `code` is the protocol's (Protocol.Errors) for an error answer, and one of the
// client-side codes below otherwise, so callers switch on one number.
package dev.levelcode.sessions.core.rpc;

import com.google.gson.JsonElement;

public class RpcException extends RuntimeException {
  /** No answer within the request's timeout (the request was cancelled with $/cancelRequest). */
  public static final int TIMEOUT = -1;
  /** The sidecar's process ended (or the stream closed) before it answered. */
  public static final int CLOSED = -2;

  private final int code;
  private final transient JsonElement data;

  public RpcException(int code, String message, JsonElement data) {
    super(message);
    this.code = code;
    this.data = data;
  }

  public int code() { return code; }

  /** The error's `data` (`reason`, `issues`, `heldBy`, ...), or null. */
  public JsonElement data() { return data; }

  /** `data.reason`, the store's code for a domain error, or null. */
  public String reason() {
    if (data != null && data.isJsonObject() && data.getAsJsonObject().has("reason")) {
      JsonElement r = data.getAsJsonObject().get("reason");
      return r.isJsonPrimitive() ? r.getAsString() : null;
    }
    return null;
  }

  /** The code of `t` (unwrapping CompletionException), or null when it is no RpcException. */
  public static Integer codeOf(Throwable t) {
    RpcException e = unwrap(t);
    return e == null ? null : e.code;
  }

  public static RpcException unwrap(Throwable t) {
    while (t != null) {
      if (t instanceof RpcException r) return r;
      t = t.getCause();
    }
    return null;
  }
}
