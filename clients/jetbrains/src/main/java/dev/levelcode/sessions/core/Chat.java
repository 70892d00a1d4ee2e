// The current chat and what the History's actions do, for the panel, the IDE's actions and the
// application service alike: New Chat (seal the old session; once ever say "Previous chat saved to
// History."), resume (the consent step, both tier-3 flows of protocol.md, read-only with "Open a
// Copy"), resume last, open transcript, rename, delete with Undo, copy and export as Markdown.
// Mirrors clients/vscode/src/chat.ts and commands/; the Ui answers the questions.
// One writer per chat across windows: each append carries `expectedSeq` (the seq the chat's next
// event had when this window last wrote, resumed or made it); when another window continued the
// current chat meanwhile (SessionConflict, or SessionLocked while it holds it), nothing is written
// and the user is told, with "Open a Copy": a fork at the last turn this window saw, the refused
// events appended, the copy made current and resumed for the chat plugins (onResumed).
package dev.levelcode.sessions.core;

import com.google.gson.JsonObject;
import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.Labels;
import dev.levelcode.sessions.core.history.PendingDeletes;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.Errors;
import dev.levelcode.sessions.core.rpc.Protocol.ResumeResult;
import dev.levelcode.sessions.core.rpc.Protocol.SealResult;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import dev.levelcode.sessions.core.rpc.RpcException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

public final class Chat {
  /** Where the current chat's id and the once-only notice are kept (the IDE's workspace and application state). */
  public interface State {
    String current();
    void setCurrent(String id);
    boolean savedNoticeShown();
    void setSavedNoticeShown();

    static State inMemory() {
      return new State() {
        private volatile String current;
        private volatile boolean shown;
        public String current() { return current; }
        public void setCurrent(String id) { current = id; }
        public boolean savedNoticeShown() { return shown; }
        public void setSavedNoticeShown() { shown = true; }
      };
    }
  }

  /** Options of a resume (null: the setting or the model's). */
  public record ResumeOptions(Integer contextWindow, Double budgetRatio, boolean copy, boolean confirm) {
    public static final ResumeOptions DEFAULT = new ResumeOptions(null, null, false, false);
    ResumeOptions withConfirm() { return new ResumeOptions(contextWindow, budgetRatio, copy, true); }
  }

  public record Resumed(ResumeResult result, String title) {}

  public record NewChat(SealResult sealed) {}

  private final Sidecar sidecar;
  private final Ui ui;
  private final State state;
  private final Supplier<Settings> settings;
  private final String project;
  private final HistoryModel history;
  private final PendingDeletes deletes;
  private final Log log;
  private volatile Model model;
  private final List<Consumer<Resumed>> resumedListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<NewChat>> newChatListeners = new CopyOnWriteArrayList<>();
  private final List<Runnable> showHistoryListeners = new CopyOnWriteArrayList<>();
  /** The seq each session's next event gets, as this window last saw it: sent as `expectedSeq`. */
  private final Map<String, Integer> nextSeq = new ConcurrentHashMap<>();

  public Chat(Sidecar sidecar, Ui ui, State state, Supplier<Settings> settings, String project, HistoryModel history,
      PendingDeletes deletes, Log log) {
    this.sidecar = sidecar;
    this.ui = ui;
    this.state = state;
    this.settings = settings;
    this.project = project;
    this.history = history;
    this.deletes = deletes;
    this.log = log;
    sidecar.answerSummarize(p -> withModel(m -> m.summarize(p))
        .thenApply(b -> new Protocol.SummarizeResult(nonBlank(b))));
    sidecar.answerTitle(p -> withModel(m -> m.title(p.messages(), p.instructions()))
        .thenApply(t -> new Protocol.TitleResult(nonBlank(t).lines().findFirst().orElse("").trim())));
  }

  private <T> CompletableFuture<T> withModel(java.util.function.Function<Model, CompletableFuture<T>> f) {
    Model m = model;
    return m == null ? CompletableFuture.failedFuture(new IllegalStateException(Strings.Model.NONE)) : f.apply(m);
  }

  private static String nonBlank(String s) {
    if (s == null || s.isBlank()) throw new IllegalStateException(Strings.Model.EMPTY);
    return s.trim();
  }

  /** The model an AI plugin lends (null: none). */
  public void setModel(Model m) { model = m; }

  public Model model() { return model; }

  /** Adds a listener; the answer removes it. */
  public Runnable onResumed(Consumer<Resumed> l) {
    resumedListeners.add(l);
    return () -> resumedListeners.remove(l);
  }

  /** Adds a listener; the answer removes it. */
  public Runnable onNewChat(Consumer<NewChat> l) {
    newChatListeners.add(l);
    return () -> newChatListeners.remove(l);
  }

  /** The user asked to see the History (the "Show History" link); the plugin activates the tool window. */
  public void onShowHistory(Runnable l) { showHistoryListeners.add(l); }

  public String current() { return state.current(); }

  public String project() { return project; }

  // ---- the API's calls ----

  public CompletableFuture<Protocol.NewResult> newSession(String projectPath, String modelName) {
    String p = projectPath != null ? projectPath : project;
    if (p == null) return CompletableFuture.failedFuture(new IllegalStateException(Strings.Errors.NO_PROJECT));
    return sidecar.request(Protocol.NEW, new Protocol.NewParams(p, modelName)).thenApply(r -> {
      nextSeq.put(r.id(), 0);
      state.setCurrent(r.id());
      return r;
    });
  }

  /**
   * Appends with the seq this window expects (when it knows it). A refusal because another window
   * continued the chat fails the future as any error does and, for the current chat, offers the
   * user a copy (continuedElsewhere).
   */
  public CompletableFuture<Protocol.AppendResult> append(String id, List<JsonObject> events) {
    return sidecar.request(Protocol.APPEND, new Protocol.AppendParams(id, events, null, nextSeq.get(id)))
        .whenComplete((r, e) -> {
          if (r != null) nextSeq.put(id, r.lastSeq() + 1);
          else if (e != null && id.equals(state.current()) && elsewhere(e)) continuedElsewhere(id, events, e);
        });
  }

  /** SessionConflict, or SessionLocked for an append that carried expectedSeq: another window continued the chat. */
  static boolean elsewhere(Throwable e) {
    Integer code = RpcException.codeOf(e);
    return Integer.valueOf(Errors.SESSION_CONFLICT).equals(code) || Integer.valueOf(Errors.SESSION_LOCKED).equals(code);
  }

  /** `data.turn` of the refusal: the turns this window saw (null from an older sidecar). */
  static Integer turnOf(Throwable e) {
    RpcException x = RpcException.unwrap(e);
    var d = x == null ? null : x.data();
    if (d == null || !d.isJsonObject() || !d.getAsJsonObject().has("turn")) return null;
    return d.getAsJsonObject().get("turn").getAsInt();
  }

  /** Tells the user another window continued chat `id`; "Open a Copy" goes on in a copy. The copy's resume, or null. */
  CompletableFuture<ResumeResult> continuedElsewhere(String id, List<JsonObject> events, Throwable e) {
    SessionSummary s = history.find(id);
    String title = s == null ? id : Labels.label(s);
    return ui.notify(Ui.Kind.WARNING, Strings.Elsewhere.continuing(title), List.of(Strings.Resume.OPEN_COPY)).thenCompose(pick -> {
      if (!Strings.Resume.OPEN_COPY.equals(pick)) return CompletableFuture.completedFuture((ResumeResult) null);
      return openCopy(id, turnOf(e), events, title);
    });
  }

  /**
   * The copy: a fork at `turn` (a new chat when the window saw no turn), the refused events
   * appended, made current, then resumed so the chat plugins show it (onResumed).
   */
  CompletableFuture<ResumeResult> openCopy(String id, Integer turn, List<JsonObject> events, String title) {
    CompletableFuture<String> made = turn != null && turn == 0
        ? newSession(null, null).thenApply(Protocol.NewResult::id)
        : sidecar.request(Protocol.FORK, new Protocol.ForkParams(id, turn, null)).thenApply(Protocol.ForkResult::id);
    return made
        .thenCompose(copy -> sidecar.request(Protocol.APPEND, new Protocol.AppendParams(copy, events)).thenApply(r -> copy))
        .thenCompose(copy -> {
          if (id.equals(state.current())) state.setCurrent(copy);
          return resumeQuiet(copy, ResumeOptions.DEFAULT);
        })
        .thenApply(r -> {
          Resumed event = new Resumed(r, title);
          resumedListeners.forEach(l -> l.accept(event));
          history.refresh();
          ui.notify(Ui.Kind.INFO, Strings.Elsewhere.inCopy(title), List.of());
          return r;
        })
        .exceptionally(x -> {
          ui.notify(Ui.Kind.ERROR, Strings.Elsewhere.failed(messageOf(x)), List.of());
          return null;
        });
  }

  public CompletableFuture<SealResult> seal(String id) {
    return sidecar.request(Protocol.SEAL, new Protocol.IdParams(id)).thenApply(r -> {
      if (id.equals(state.current())) state.setCurrent(null);
      return r;
    });
  }

  public CompletableFuture<String> exportMarkdown(String id) {
    return sidecar.request(Protocol.EXPORT, new Protocol.ExportParams(id, Protocol.ExportFormat.MARKDOWN, null, null, null, null))
        .thenApply(Protocol.ExportResult::content);
  }

  /** The API's resume: no dialogs; the caller handles needsConfirmation, needsSummary and readOnly. */
  public CompletableFuture<ResumeResult> resumeQuiet(String id, ResumeOptions o) {
    Settings s = settings.get();
    Model m = model;
    Integer mw = m == null ? null : m.contextWindow();
    int window = o.contextWindow() != null ? o.contextWindow() : mw != null ? mw : s.contextWindow();
    double ratio = o.budgetRatio() != null ? o.budgetRatio() : s.budgetRatio();
    // Each summary request must fit the model that makes it: the sidecar cuts the head into pieces.
    Integer summaryWindow = m == null ? null : m.summaryWindow();
    var params = new Protocol.ResumeParams(id, window, ratio, null, o.copy() ? true : null, o.confirm() ? true : null,
        s.consentThreshold(), summaryWindow != null && summaryWindow > 0 ? summaryWindow : null, null, null);
    return sidecar.request(Protocol.RESUME, params).thenCompose(this::adopt);
  }

  /**
   * A resumed chat becomes the current one, with the seq its appends expect: read while this
   * sidecar holds it (resume took it), so no other window's turn slips in between.
   */
  private CompletableFuture<ResumeResult> adopt(ResumeResult r) {
    if (r.needsConfirmation() != null || r.needsSummary() != null || r.readOnly()) return CompletableFuture.completedFuture(r);
    state.setCurrent(r.id());
    nextSeq.remove(r.id());
    return sidecar.request(Protocol.READ, new Protocol.ReadParams(r.id(), 0, null, null)).handle((read, e) -> {
      if (read != null && read.totalEvents() != null) nextSeq.put(r.id(), read.totalEvents());
      return r;
    });
  }

  // ---- New Chat ----

  /** Seals the current chat (if any), tells the chat plugins, and once ever says where it went. */
  public CompletableFuture<NewChat> startNewChat() {
    String id = state.current();
    CompletableFuture<SealResult> sealing = id == null ? CompletableFuture.completedFuture(null)
        : seal(id).exceptionally(e -> {
          if (Integer.valueOf(Errors.UNKNOWN_SESSION).equals(RpcException.codeOf(e))) {
            state.setCurrent(null); // deleted meanwhile: nothing to seal
            return null;
          }
          throw new CompletionException(e);
        });
    return sealing.thenApply(sealed -> {
      NewChat event = new NewChat(sealed);
      newChatListeners.forEach(l -> l.accept(event));
      if (sealed != null && sealed.titleSource() != Protocol.TitleSource.NONE && !state.savedNoticeShown()) {
        state.setSavedNoticeShown();
        ui.notify(Ui.Kind.INFO, Strings.NewChat.SAVED_ONCE, List.of(Strings.NewChat.OPEN_HISTORY)).thenAccept(pick -> {
          if (Strings.NewChat.OPEN_HISTORY.equals(pick)) showHistoryListeners.forEach(Runnable::run);
        });
      }
      return event;
    });
  }

  // ---- Resume ----

  /** Resume from the History, with every question a user is asked. Null when nothing was resumed. */
  public CompletableFuture<ResumeResult> resume(SessionSummary s, boolean copy) {
    String title = Labels.label(s);
    ResumeOptions first = new ResumeOptions(null, null, copy, false);
    return run(title, s.id(), first)
        .thenCompose(r -> r.needsConfirmation() == null ? CompletableFuture.completedFuture(r) : consent(title, s.id(), first, r))
        .thenCompose(r -> r == null || r.needsSummary() == null ? CompletableFuture.completedFuture(r) : twoStep(title, r, true))
        .thenCompose(r -> r == null ? CompletableFuture.completedFuture(null) : resumed(s, r))
        .exceptionally(e -> failed(e));
  }

  private CompletableFuture<ResumeResult> run(String title, String id, ResumeOptions o) {
    return ui.withProgress(Strings.Resume.progress(title), resumeQuiet(id, o));
  }

  private CompletableFuture<ResumeResult> consent(String title, String id, ResumeOptions o, ResumeResult r) {
    return ui.ask(Ui.Kind.WARNING, Strings.Resume.consent(r.needsConfirmation().inputTokens(), r.needsConfirmation().calls()),
        List.of(Strings.Resume.FROM_SUMMARY, Strings.Resume.START_FRESH)).thenCompose(pick -> {
          if (Strings.Resume.START_FRESH.equals(pick)) return startNewChat().thenApply(n -> (ResumeResult) null);
          if (!Strings.Resume.FROM_SUMMARY.equals(pick)) return CompletableFuture.completedFuture(null);
          return run(title, id, o.withConfirm());
        });
  }

  /**
   * The two-step flow (a sidecar started without the summarize callback), one piece at a time:
   * the model writes the briefing of needsSummary here and session/compact records it, answering
   * the next piece's needsSummary until the last, which answers the resumed context. A failure
   * keeps the pieces recorded before it (the next resume goes on from there). When the session
   * changed meanwhile (-32801), resume once more.
   */
  private CompletableFuture<ResumeResult> twoStep(String title, ResumeResult r, boolean retry) {
    Model m = model;
    if (m == null) {
      return CompletableFuture.failedFuture(new RpcException(Errors.CALLBACK_FAILED, Strings.Model.NONE, null));
    }
    var need = r.needsSummary();
    var piece = need.piece() != null ? need.piece() : new Protocol.Piece(0, 1);
    var ask = new Protocol.SummarizeParams(r.id(), need.messages(), need.instructions(), piece, need.coversThrough(),
        need.inputTokens(), need.maxBriefingTokens(), need.shortened());
    CompletableFuture<ResumeResult> work = m.summarize(ask)
        .thenApply(Chat::nonBlank)
        .thenCompose(b -> sidecar.request(Protocol.COMPACT, new Protocol.CompactParams(r.id(), b, need.coversThrough())));
    return ui.withProgress(Strings.Resume.summarising(title, piece.index(), piece.count()), work)
        .exceptionallyCompose(e -> {
          if (retry && Integer.valueOf(Errors.CONTENT_MODIFIED).equals(RpcException.codeOf(e))) {
            return run(title, r.id(), ResumeOptions.DEFAULT.withConfirm())
                .thenCompose(again -> again.needsSummary() == null ? CompletableFuture.completedFuture(again) : twoStep(title, again, false));
          }
          if (RpcException.codeOf(e) == null) {
            String why = piece.index() > 0 ? Strings.Resume.keptPieces(rootMessage(e), piece.index()) : rootMessage(e);
            return CompletableFuture.failedFuture(new RpcException(Errors.CALLBACK_FAILED, why, null));
          }
          return CompletableFuture.failedFuture(e);
        })
        .thenCompose(next -> next.needsSummary() == null ? adopt(next) : twoStep(title, next, retry));
  }

  private CompletableFuture<ResumeResult> resumed(SessionSummary s, ResumeResult r) {
    String title = Labels.label(s);
    Resumed event = new Resumed(r, title);
    resumedListeners.forEach(l -> l.accept(event));
    if (r.readOnly()) {
      ui.notify(Ui.Kind.WARNING, Strings.Resume.readOnly(title), List.of(Strings.Resume.OPEN_COPY)).thenAccept(pick -> {
        if (Strings.Resume.OPEN_COPY.equals(pick)) resume(s, true);
      });
      return CompletableFuture.completedFuture(r);
    }
    ui.notify(Ui.Kind.INFO, Strings.Resume.resumed(title, r.tier(), r.note()), List.of());
    return CompletableFuture.completedFuture(r);
  }

  private ResumeResult failed(Throwable e) {
    Integer code = RpcException.codeOf(e);
    if (isCancel(e) || Integer.valueOf(Errors.REQUEST_CANCELLED).equals(code)) return null;
    if (Integer.valueOf(Errors.CALLBACK_FAILED).equals(code) || Integer.valueOf(Errors.FEATURE_UNAVAILABLE).equals(code)) {
      ui.notify(Ui.Kind.ERROR, Strings.Resume.failed(messageOf(e)) + " " + Strings.Resume.NO_MODEL, List.of(Strings.Resume.START_FRESH))
          .thenAccept(pick -> {
            if (Strings.Resume.START_FRESH.equals(pick)) startNewChat();
          });
      return null;
    }
    ui.notify(Ui.Kind.ERROR, Strings.Resume.failed(messageOf(e)), List.of());
    return null;
  }

  /** Resumes the newest chat of the project; says so when there is none. */
  public CompletableFuture<ResumeResult> resumeLast() {
    return history.newestInHistory().thenCompose(s -> {
      if (s == null) {
        ui.notify(Ui.Kind.INFO, Strings.Resume.NOTHING, List.of());
        return CompletableFuture.completedFuture(null);
      }
      return resume(s, false);
    });
  }

  // ---- the other actions ----

  public CompletableFuture<Void> openTranscript(SessionSummary s) {
    return exportMarkdown(s.id()).thenAccept(md -> ui.openMarkdown(Labels.label(s), md)).exceptionally(e -> {
      ui.notify(Ui.Kind.ERROR, Strings.Transcript.failed(messageOf(e)), List.of());
      return null;
    });
  }

  /** Asks for a title and renames; the new title, or null when cancelled or refused. */
  public CompletableFuture<String> rename(SessionSummary s) {
    return ui.input(Strings.Rename.PROMPT, Labels.label(s), Chat::titleProblem).thenCompose(t -> {
      if (t == null) return CompletableFuture.completedFuture(null);
      return sidecar.request(Protocol.RENAME, new Protocol.RenameParams(s.id(), t.trim())).thenApply(r -> {
        ui.notify(Ui.Kind.INFO, Strings.Rename.done(r.title()), List.of());
        history.refresh();
        return r.title();
      });
    }).exceptionally(e -> {
      ui.notify(Ui.Kind.ERROR, messageOf(e), List.of());
      return null;
    });
  }

  /** The input's check of a new title (the sidecar's rule: 1 to 500 characters after trimming). */
  public static String titleProblem(String t) {
    String v = t == null ? "" : t.trim();
    if (v.isEmpty()) return Strings.Rename.EMPTY;
    if (v.length() > 500) return Strings.Rename.TOO_LONG;
    return null;
  }

  /** Hides the chat, offers Undo for the grace period, then moves the file to the trash. */
  public CompletableFuture<PendingDeletes.Outcome> delete(SessionSummary s) {
    String title = Labels.label(s);
    CompletableFuture<PendingDeletes.Outcome> done = deletes.schedule(s.id());
    ui.notify(Ui.Kind.INFO, Strings.Delete.done(title), List.of(Strings.Delete.UNDO)).thenAccept(pick -> {
      if (!Strings.Delete.UNDO.equals(pick)) return;
      switch (deletes.undo(s.id())) {
        case UNDONE -> ui.notify(Ui.Kind.INFO, Strings.Delete.undone(title), List.of());
        case ALREADY_DELETED -> ui.notify(Ui.Kind.WARNING, Strings.Delete.tooLate(title), List.of());
        case UNKNOWN -> { }
      }
    });
    return done.thenApply(o -> {
      if (o == PendingDeletes.Outcome.DELETED && s.id().equals(state.current())) state.setCurrent(null);
      return o;
    });
  }

  /** A chat left the store (moved to the trash): it is no longer the current one. */
  void forget(String id) {
    if (id.equals(state.current())) state.setCurrent(null);
  }

  /** What PendingDeletes calls when the grace period ends. */
  public static CompletableFuture<?> deleteNow(Sidecar sidecar, String id) {
    return sidecar.request(Protocol.DELETE, new Protocol.IdParams(id));
  }

  /** Said when a deferred deletion failed (the chat shows again). */
  public void deleteFailed(String id, Throwable e) {
    SessionSummary s = history.find(id);
    ui.notify(Ui.Kind.ERROR, Strings.Delete.failed(s == null ? id : Labels.label(s), messageOf(e)), List.of());
    history.refresh();
  }

  public CompletableFuture<Void> copyMarkdown(SessionSummary s) {
    return exportMarkdown(s.id()).thenAccept(md -> {
      ui.copyToClipboard(md);
      ui.notify(Ui.Kind.INFO, Strings.Export.copied(Labels.label(s)), List.of());
    }).exceptionally(e -> {
      ui.notify(Ui.Kind.ERROR, Strings.Export.failed(messageOf(e)), List.of());
      return null;
    });
  }

  /** Asks where, writes the Markdown there; the file written, or null. */
  public CompletableFuture<Path> exportToFile(SessionSummary s) {
    return ui.saveFile(Strings.Actions.EXPORT, Labels.exportFileName(s)).thenCompose(path -> {
      if (path == null) return CompletableFuture.completedFuture((Path) null);
      return exportMarkdown(s.id()).thenApply(md -> {
        try {
          Files.writeString(path, md, StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        ui.notify(Ui.Kind.INFO, Strings.Export.done(path.toString()), List.of());
        return path;
      });
    }).exceptionally(e -> {
      ui.notify(Ui.Kind.ERROR, Strings.Export.failed(messageOf(e)), List.of());
      return null;
    });
  }

  // ---- errors as the user reads them ----

  public static String messageOf(Throwable e) {
    Integer code = RpcException.codeOf(e);
    if (Integer.valueOf(Errors.UNKNOWN_SESSION).equals(code)) return Strings.Errors.UNKNOWN_SESSION;
    if (Integer.valueOf(Errors.SESSION_LOCKED).equals(code)) return Strings.Errors.LOCKED;
    return rootMessage(e);
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException
        || t instanceof UncheckedIOException) && t.getCause() != null) t = t.getCause();
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  private static boolean isCancel(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof java.util.concurrent.CancellationException) return true;
    return false;
  }
}
