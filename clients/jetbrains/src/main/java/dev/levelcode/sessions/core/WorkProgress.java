// One request's progress as the sidecar reports it: a work-done token sent with the request
// (`workDoneToken`), and the `$/progress` reports that come back for it (protocol.md, "Progress").
// The sidecar's begin, report and end values are folded into the latest message and percentage,
// which the IDE's progress indicator shows (a determinate bar once a percentage is known); the
// listeners hear every report, in arrival order (the tests read them).
package dev.levelcode.sessions.core;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

public final class WorkProgress {
  /** One report: its text (null when it had none) and percentage (null while indeterminate). */
  public record Step(String message, Integer percentage) {}

  private final String token;
  private final List<Consumer<Step>> listeners = new CopyOnWriteArrayList<>();
  private volatile String message;
  private volatile Integer percentage;

  WorkProgress(String token) { this.token = token; }

  /** The token to send as the request's `workDoneToken`. */
  public JsonElement token() { return new JsonPrimitive(token); }

  String id() { return token; }

  /** The latest text reported, or null. */
  public String message() { return message; }

  /** The latest percentage reported (0 to 100), or null while the work is indeterminate. */
  public Integer percentage() { return percentage; }

  public void onStep(Consumer<Step> l) { listeners.add(l); }

  /** A `$/progress` value for this token (kind begin, report or end). */
  void take(JsonObject value) {
    if (value.has("message") && value.get("message").isJsonPrimitive()) message = value.get("message").getAsString();
    if (value.has("percentage") && value.get("percentage").isJsonPrimitive())
      percentage = Math.max(0, Math.min(100, value.get("percentage").getAsInt()));
    Step s = new Step(message, percentage);
    listeners.forEach(l -> l.accept(s));
  }
}
