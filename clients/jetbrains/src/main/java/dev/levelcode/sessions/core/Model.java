// The language model an AI assistant plugin lends LevelCode Sessions (LevelCodeSessionsApi.setModel):
// it writes the briefing of a tier-3 resume and the titles of untitled chats. Without one, the
// sidecar uses its fallback titles, and a resume that needs a summary says so.
package dev.levelcode.sessions.core;

import com.google.gson.JsonElement;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;

public interface Model {
  /** The briefing of `messages` (verbatim provider messages), following `instructions`. */
  CompletableFuture<String> summarize(List<JsonElement> messages, String instructions);

  /** A title for the chat opening `messages`, following `instructions`. */
  CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions);

  /** The model's context window in tokens, or null to use the setting. */
  default Integer contextWindow() { return null; }
}
