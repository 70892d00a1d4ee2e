// The public API other plugins call to save their chats and resume them from the History: the
// same shape as the VS Code extension's api.d.ts, per project (a JetBrains window is a project).
// Get it with `LevelCodeSessionsApi api = LevelCodeSessionsService.getInstance();` (declare
// `<depends>dev.levelcode.sessions</depends>` in your plugin.xml).
// Every call answers a future; a failure's cause is an RpcException whose code() is the sidecar's
// JSON-RPC error code (protocol.md, "Errors").
package dev.levelcode.sessions.plugin;

import com.google.gson.JsonObject;
import com.intellij.openapi.Disposable;
import com.intellij.openapi.project.Project;
import dev.levelcode.sessions.core.Chat;
import dev.levelcode.sessions.core.Model;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

public interface LevelCodeSessionsApi {
  int API_VERSION = 1;

  default int apiVersion() { return API_VERSION; }

  /** Creates an empty session for the project and makes it the current chat (the one New Chat seals). */
  CompletableFuture<Protocol.NewResult> newSession(Project project, String model);

  /**
   * Appends events in order, all or nothing; completes once they are on disk. Each append carries
   * the seq this window expects: when another window continued the chat meanwhile, nothing is
   * written, the future fails (-33013 SessionConflict, or -33004 while that window holds it), and
   * for the current chat the user is offered a copy; choosing it resumes the copy (onDidResume).
   */
  CompletableFuture<Protocol.AppendResult> append(Project project, String id, List<JsonObject> events);

  /** The project's sessions (every project's with `all`), newest first. */
  CompletableFuture<List<Protocol.SessionSummary>> list(Project project, boolean all);

  /** Rebuilds a session's working context and makes it the current chat (no dialogs: see needsConfirmation). */
  CompletableFuture<Protocol.ResumeResult> resume(Project project, String id, Chat.ResumeOptions options);

  /** What New Chat does to a session: title it if untitled, mark it sealed, let it go. */
  CompletableFuture<Protocol.SealResult> seal(Project project, String id);

  /** The Markdown transcript of a session. */
  CompletableFuture<String> exportMarkdown(Project project, String id);

  /** The project's current chat, or null. */
  String currentSessionId(Project project);

  /** Lends the plugin's language model: it writes resume briefings and chat titles. Null: none. */
  void setModel(Model model);

  /** The user resumed a chat from the History: show its conversation. */
  void onDidResume(Project project, Disposable parent, Consumer<Chat.Resumed> listener);

  /** The user chose New Chat: clear the chat view (the old session is already saved). */
  void onDidStartNewChat(Project project, Disposable parent, Consumer<Chat.NewChat> listener);

  /** A session changed in the store, written by any window or tool. */
  void onDidChangeSessions(Project project, Disposable parent, Consumer<Protocol.DidChangeParams> listener);
}
