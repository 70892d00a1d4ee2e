// The History as the panel shows it: the project's sessions (every page of session/list; with
// Show Archived, the archived ones instead), less those awaiting deletion, filtered by the search
// field, grouped (Pinned / Today / Yesterday / This week / Older) into rows: a header per group,
// then its entries, whose grey line and tooltip say their state (Labels). It refreshes on session/didChange (from
// any process) and when the sidecar is ready again, coalescing a burst of changes into one
// session/list; listeners hear each new snapshot. No Swing here: the panel renders the rows.
package dev.levelcode.sessions.core.history;

import dev.levelcode.sessions.core.Sidecar;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

public final class HistoryModel {
  /** One row of the list: a group header, or an entry with its two lines of text. */
  public sealed interface Row permits Header, Entry {}

  public record Header(Groups.Key key, String label, int count) implements Row {}

  public record Entry(SessionSummary session, String label, String secondary, String tooltip, String accessible) implements Row {}

  /** What the panel shows: rows, the empty text (when no rows), how many files could not be read, and a failure. */
  public record Snapshot(List<Row> rows, List<SessionSummary> sessions, String emptyText, int problems, String error, long generation) {}

  private final Sidecar sidecar;
  private final PendingDeletes deletes;
  private final Clock clock;
  private final List<Consumer<Snapshot>> listeners = new CopyOnWriteArrayList<>();
  private volatile String project;
  private volatile boolean all;
  private volatile boolean archived;
  /** Titles by id from every listing seen, to name the chat a fork came from. */
  private final java.util.Map<String, String> titles = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile String query = "";
  private volatile List<SessionSummary> sessions = List.of();
  private volatile int problems;
  private volatile String error;
  private volatile Snapshot snapshot = new Snapshot(List.of(), List.of(), dev.levelcode.sessions.core.Strings.History.LOADING, 0, null, 0);
  private long generation;
  private boolean inFlight;
  private boolean again;
  private CompletableFuture<Snapshot> next;

  public HistoryModel(Sidecar sidecar, PendingDeletes deletes, String project, Clock clock) {
    this.sidecar = sidecar;
    this.deletes = deletes;
    this.project = project;
    this.clock = clock;
    sidecar.onChange(c -> refresh());
    sidecar.onStatus(s -> {
      if (s.status() == Sidecar.Status.READY) refresh();
    });
    deletes.onChange(this::publish);
  }

  public void onSnapshot(Consumer<Snapshot> l) { listeners.add(l); }

  public Snapshot snapshot() { return snapshot; }

  public String project() { return project; }

  /** Every project's chats (true) or this project's only. */
  public void showAll(boolean on) {
    all = on;
    refresh();
  }

  public boolean showsAll() { return all; }

  /** The archived chats (true, session/list with archived: true) or the main History. */
  public CompletableFuture<Snapshot> showArchived(boolean on) {
    archived = on;
    return refresh();
  }

  public boolean showsArchived() { return archived; }

  /** The title of the chat `id` as last listed (either view), or null. */
  public String titleOf(String id) { return titles.get(id); }

  /** The search field's text; filters the rows at once (no request). */
  public void search(String text) {
    query = text == null ? "" : text;
    publish();
  }

  public String query() { return query; }

  /** The session of `id` in the last listing (hidden ones included), or null. */
  public SessionSummary find(String id) {
    for (SessionSummary s : sessions) if (s.id().equals(id)) return s;
    return null;
  }

  /** The newest session of the listing that is not being deleted, or null. */
  public SessionSummary newest() {
    Set<String> hidden = deletes.hidden();
    return sessions.stream().filter(s -> !hidden.contains(s.id())).min(Groups.NEWEST_FIRST).orElse(null);
  }

  /**
   * The newest chat of History's main list, listed afresh (with Show Archived on, the panel's
   * listing is of archived chats, so the main list is fetched instead); null when there is none.
   */
  public CompletableFuture<SessionSummary> newestInHistory() {
    if (!archived) return refresh().thenApply(x -> newest());
    return fetch(all).thenApply(list -> {
      Set<String> hidden = deletes.hidden();
      return list.stream().filter(s -> !hidden.contains(s.id())).min(Groups.NEWEST_FIRST).orElse(null);
    });
  }

  /**
   * The chat an action without a row of its own acts on (Export Chat as Markdown from the Tools
   * menu): the one selected in the panel, else the current chat, else the newest; null when none.
   */
  public SessionSummary target(SessionSummary selected, String currentId) {
    if (selected != null) return selected;
    SessionSummary current = currentId == null ? null : find(currentId);
    return current != null ? current : newest();
  }

  /**
   * Lists again. Calls while a listing is in flight are folded into one more listing after it,
   * whose snapshot the returned future gives.
   */
  public synchronized CompletableFuture<Snapshot> refresh() {
    if (inFlight) {
      again = true;
      if (next == null) next = new CompletableFuture<>();
      return next;
    }
    inFlight = true;
    CompletableFuture<Snapshot> done = next != null ? next : new CompletableFuture<>();
    next = null;
    boolean view = archived;
    listAll(all, view, null, new ArrayList<>(), 0).whenComplete((r, e) -> finished(r, view, e, done));
    return done;
  }

  private void finished(List<SessionSummary> r, boolean view, Throwable e, CompletableFuture<Snapshot> done) {
    if (e == null && view != archived) {
      // The view changed while this listing ran: its answer is of the other view. List again,
      // and answer this call's future with that listing.
      synchronized (this) {
        inFlight = false;
        again = false;
        if (next == null) next = done;
        else next.whenComplete((v, x) -> done.complete(v));
      }
      refresh();
      return;
    }
    if (e == null) {
      sessions = List.copyOf(r);
      error = null;
    } else {
      error = dev.levelcode.sessions.core.rpc.RpcException.unwrap(e) != null
          ? dev.levelcode.sessions.core.rpc.RpcException.unwrap(e).getMessage() : String.valueOf(e.getMessage());
    }
    Snapshot s = publish();
    done.complete(s);
    synchronized (this) {
      inFlight = false;
      if (!again) return;
      again = false;
    }
    refresh();
  }

  /**
   * Every page of this project's (or, with `everyProject`, every project's) sessions, newest
   * first, straight from the sidecar: what the API's list() answers, without touching the panel's
   * state (its search, its project filter).
   */
  public CompletableFuture<List<SessionSummary>> fetch(boolean everyProject) {
    return listAll(everyProject, false, null, new ArrayList<>(), 0);
  }

  private CompletableFuture<List<SessionSummary>> listAll(boolean everyProject, boolean archivedOnes, String cursor,
      List<SessionSummary> acc, int problemCount) {
    Boolean view = archivedOnes ? Boolean.TRUE : null;
    Protocol.ListParams p = everyProject || project == null
        ? new Protocol.ListParams(null, true, 1000, cursor, view)
        : new Protocol.ListParams(project, null, 1000, cursor, view);
    return sidecar.request(Protocol.LIST, p).thenCompose(r -> {
      acc.addAll(r.sessions());
      for (SessionSummary s : r.sessions()) titles.put(s.id(), Labels.label(s));
      int n = problemCount + (r.problems() == null ? 0 : r.problems().size());
      if (r.nextCursor() != null) return listAll(everyProject, archivedOnes, r.nextCursor(), acc, n);
      problems = n;
      return CompletableFuture.completedFuture(acc);
    });
  }

  private synchronized Snapshot publish() {
    ZonedDateTime now = ZonedDateTime.now(clock);
    Set<String> hidden = deletes.hidden();
    List<SessionSummary> visible = sessions.stream()
        .filter(s -> !hidden.contains(s.id()))
        .filter(s -> Labels.matches(s, query))
        .toList();
    List<Row> rows = new ArrayList<>();
    for (Groups.Group g : Groups.group(visible, now)) {
      rows.add(new Header(g.key(), g.key().label, g.items().size()));
      for (SessionSummary s : g.items()) {
        rows.add(new Entry(s, Labels.label(s), Labels.secondary(s, now, titles::get), String.join("\n", Labels.tooltip(s, now, titles::get)),
            Labels.accessible(s, now, titles::get)));
      }
    }
    String empty = error != null ? error
        : sessions.stream().anyMatch(s -> !hidden.contains(s.id())) ? dev.levelcode.sessions.core.Strings.History.NO_MATCH
        : archived ? dev.levelcode.sessions.core.Strings.History.ARCHIVED_EMPTY
        : dev.levelcode.sessions.core.Strings.History.EMPTY;
    Snapshot s = new Snapshot(List.copyOf(rows), visible, empty, problems, error, ++generation);
    snapshot = s;
    for (Consumer<Snapshot> l : listeners) l.accept(s);
    return s;
  }
}
