// The language model an AI assistant plugin lends LevelCode Sessions (LevelCodeSessionsApi.setModel):
// it writes the briefings of a tier-3 resume, one per piece of the earlier chat (protocol.md,
// "Pieces"), and the titles of untitled chats. Without one, the sidecar uses its fallback titles,
// and a resume that needs a summary says so.
package dev.levelcode.sessions.core;

import com.google.gson.JsonElement;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;

public interface Model {
  /** The briefing of `messages` (verbatim provider messages, the briefing so far first), following `instructions`. */
  CompletableFuture<String> summarize(List<JsonElement> messages, String instructions);

  /**
   * One piece of a resume's head: `piece` says which of how many (the last gives the final
   * briefing), `shortened` whether a turn was cut to fit. The instructions already say so; a
   * model that wants the figures overrides this. By default, summarize(messages, instructions).
   */
  default CompletableFuture<String> summarize(Protocol.SummarizeParams piece) {
    return summarize(piece.messages(), piece.instructions());
  }

  /** A title for the chat opening `messages`, following `instructions`. */
  CompletableFuture<String> title(List<Protocol.TitleMessage> messages, String instructions);

  /** The model's context window in tokens, or null to use the setting. */
  default Integer contextWindow() { return null; }

  /**
   * The input limit of the model that writes the summaries, in tokens: the sidecar cuts the head
   * into pieces that each fit it (session/resume's summaryWindow). Null: the resume's context
   * window. By default the model's own window, since the same model summarises.
   */
  default Integer summaryWindow() { return contextWindow(); }
}
