// The application service behind LevelCodeSessionsApi: each call goes to the project's core
// (LevelCodeProjectService). A listener is removed when its parent Disposable is disposed.
// The model a plugin lends is handed to every project's chat, now and when one opens. Wiring only.
package dev.levelcode.sessions.plugin;

import com.google.gson.JsonObject;
import com.intellij.openapi.Disposable;
import com.intellij.openapi.application.ApplicationManager;
import com.intellij.openapi.components.Service;
import com.intellij.openapi.project.Project;
import com.intellij.openapi.util.Disposer;
import dev.levelcode.sessions.core.Chat;
import dev.levelcode.sessions.core.LevelCode;
import dev.levelcode.sessions.core.Model;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

@Service(Service.Level.APP)
public final class LevelCodeSessionsService implements LevelCodeSessionsApi {
  private final Map<Project, LevelCode> cores = new ConcurrentHashMap<>();
  private volatile Model model;

  public static LevelCodeSessionsService getInstance() {
    return ApplicationManager.getApplication().getService(LevelCodeSessionsService.class);
  }

  void attach(Project p, LevelCode core) {
    cores.put(p, core);
    core.chat.setModel(model);
  }

  void detach(Project p) { cores.remove(p); }

  private static LevelCode core(Project p) { return LevelCodeProjectService.getInstance(p).core(); }

  @Override
  public CompletableFuture<Protocol.NewResult> newSession(Project p, String modelName) { return core(p).chat.newSession(null, modelName); }

  @Override
  public CompletableFuture<Protocol.AppendResult> append(Project p, String id, List<JsonObject> events) { return core(p).chat.append(id, events); }

  @Override
  public CompletableFuture<List<Protocol.SessionSummary>> list(Project p, boolean all) {
    return core(p).history.fetch(all);
  }

  @Override
  public CompletableFuture<Protocol.ResumeResult> resume(Project p, String id, Chat.ResumeOptions o) {
    return core(p).chat.resumeQuiet(id, o == null ? Chat.ResumeOptions.DEFAULT : o);
  }

  @Override
  public CompletableFuture<Protocol.SealResult> seal(Project p, String id) { return core(p).chat.seal(id); }

  @Override
  public CompletableFuture<String> exportMarkdown(Project p, String id) { return core(p).chat.exportMarkdown(id); }

  @Override
  public String currentSessionId(Project p) { return core(p).chat.current(); }

  @Override
  public void setModel(Model m) {
    model = m;
    cores.values().forEach(c -> c.chat.setModel(m));
  }

  @Override
  public void onDidResume(Project p, Disposable parent, Consumer<Chat.Resumed> l) {
    Disposer.register(parent, core(p).chat.onResumed(l)::run);
  }

  @Override
  public void onDidStartNewChat(Project p, Disposable parent, Consumer<Chat.NewChat> l) {
    Disposer.register(parent, core(p).chat.onNewChat(l)::run);
  }

  @Override
  public void onDidChangeSessions(Project p, Disposable parent, Consumer<Protocol.DidChangeParams> l) {
    Disposer.register(parent, core(p).sidecar.onChange(l)::run);
  }
}
