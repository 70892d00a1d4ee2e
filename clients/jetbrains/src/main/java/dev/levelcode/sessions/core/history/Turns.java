// The turns of a session, for Fork from Turn…: each user line that starts a turn, numbered as
// History counts `turns` (protocol.md, "Forks": a user line is a turn unless its content is only
// tool_result or function_call_output blocks), with the first line of what the user wrote. Pure:
// callers pass session/read's events.
package dev.levelcode.sessions.core.history;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.levelcode.sessions.core.rpc.Protocol.SeqEvent;
import java.util.ArrayList;
import java.util.List;

public final class Turns {
  private Turns() {}

  /** Turn `number` (from 1) starts at `seq`; `firstLine` is its text's first line (at most 80 characters). */
  public record Turn(int number, int seq, String firstLine) {}

  public static List<Turn> of(List<SeqEvent> events) {
    List<Turn> out = new ArrayList<>();
    for (SeqEvent e : events) {
      if (e.event() != null && isTurn(e.event())) out.add(new Turn(out.size() + 1, e.seq(), firstLine(e.event().get("content"))));
    }
    return out;
  }

  /** server/store/reader.ts isTurn. */
  public static boolean isTurn(JsonObject ev) {
    if (!ev.has("kind") || !"user".equals(ev.get("kind").getAsString())) return false;
    JsonElement c = ev.get("content");
    if (c == null || !c.isJsonArray() || c.getAsJsonArray().isEmpty()) return true;
    for (JsonElement b : c.getAsJsonArray()) {
      String type = b.isJsonObject() && b.getAsJsonObject().has("type") ? b.getAsJsonObject().get("type").getAsString() : "";
      if (!type.equals("tool_result") && !type.equals("function_call_output")) return true;
    }
    return false;
  }

  /** The first non-blank line of a message's text (a string, or text / input_text blocks), cut to 80 characters. */
  static String firstLine(JsonElement content) {
    StringBuilder text = new StringBuilder();
    if (content != null && content.isJsonPrimitive()) text.append(content.getAsString());
    else if (content != null && content.isJsonArray()) {
      JsonArray a = content.getAsJsonArray();
      for (JsonElement b : a) {
        if (!b.isJsonObject()) continue;
        JsonElement t = b.getAsJsonObject().get("text");
        if (t != null && t.isJsonPrimitive()) text.append(t.getAsString()).append('\n');
      }
    }
    String line = text.toString().lines().map(String::trim).filter(l -> !l.isEmpty()).findFirst().orElse("");
    line = line.replaceAll("\\s+", " ");
    return line.length() > 80 ? line.substring(0, 79).trim() + "…" : line;
  }
}
