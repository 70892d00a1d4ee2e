// The History as the panel shows it: the project's sessions (every page of session/list; with
// Show Archived, the archived ones instead), less those awaiting deletion, in the sidecar's order
// and groups (each row's `view`: a header whenever the group changes, with the sidecar's heading,
// the same in every editor), then its entries, whose grey line and tooltip say their state
// (Labels). The search field searches every message of every chat through session/search, as
// the other editors do: the matching chats, best first, under one header, each with its best
// snippet. It refreshes on session/didChange (from any process) and when the sidecar is ready
// again, coalescing a burst of changes into one session/list; listeners hear each new snapshot.
// No Swing here: the panel renders the rows.
package dev.levelcode.sessions.core.history;

import dev.levelcode.sessions.core.Sidecar;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.Strings;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import dev.levelcode.sessions.core.rpc.RpcException;
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

  /** A group's header: the sidecar's group key ("today") and heading ("Today"), and how many rows follow. */
  public record Header(String group, String label, int count) implements Row {}

  /** A chat: its title, its grey line (whole in `secondary`, fitted to a width with `line`), tooltip and accessible text. */
  public record Entry(SessionSummary session, String label, Labels.Line line, String secondary, String tooltip, String accessible)
      implements Row {}

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
  /** The answer to the search field's text (null while none is shown), and the query it answers. */
  private volatile Protocol.SearchResult found;
  private volatile String foundFor;
  /** Every chat a search may find that the listing does not hold (the archived ones), by id. */
  private final java.util.Map<String, SessionSummary> extra = new java.util.concurrent.ConcurrentHashMap<>();
  private long searchGeneration;
  private volatile String searchError;
  private volatile List<SessionSummary> sessions = List.of();
  private volatile int problems;
  private volatile String error;
  private volatile Snapshot snapshot = new Snapshot(List.of(), List.of(), Strings.History.LOADING, 0, null, 0);
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

  /**
   * The search field's text: session/search over every message of the chats this view lists
   * (archived ones included, as in the other editors), its answer shown when it arrives (a newer
   * text wins). An empty text shows History again at once. The future gives the snapshot that
   * shows this text's answer.
   */
  public CompletableFuture<Snapshot> search(String text) {
    String q = text == null ? "" : text.trim();
    long gen;
    synchronized (this) {
      query = q;
      gen = ++searchGeneration;
    }
    if (q.isEmpty()) {
      found = null;
      foundFor = null;
      return CompletableFuture.completedFuture(publish());
    }
    boolean everyProject = all || project == null;
    Protocol.SearchParams p = new Protocol.SearchParams(q, everyProject ? null : project, everyProject ? true : null, null, null, 100, 1, null, null);
    CompletableFuture<Protocol.SearchResult> answer = sidecar.request(Protocol.SEARCH, p, Sidecar.LONG_TIMEOUT);
    return answer.thenCompose(r -> archivedTitles(everyProject, r).thenApply(x -> r)).handle((r, e) -> {
      synchronized (this) {
        if (gen != searchGeneration) return snapshot;
        if (e != null) {
          found = new Protocol.SearchResult(List.of(), List.of(), 0, 0, null, true, List.of());
          searchError = Strings.History.searchFailed(RpcException.unwrap(e) != null ? RpcException.unwrap(e).getMessage() : String.valueOf(e.getMessage()));
        } else {
          found = r;
          searchError = null;
        }
        foundFor = q;
      }
      return publish();
    });
  }

  /** Lists the archived chats too when a search found one the listing does not hold. */
  private CompletableFuture<Void> archivedTitles(boolean everyProject, Protocol.SearchResult r) {
    boolean missing = r.sessions().stream().anyMatch(x -> find(x.sessionId()) == null && !extra.containsKey(x.sessionId()));
    if (!missing) return CompletableFuture.completedFuture(null);
    return listAll(everyProject, !archived, null, new ArrayList<>(), 0, false).thenAccept(list -> {
      for (SessionSummary s : list) extra.put(s.id(), s);
    });
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
    listAll(all, view, null, new ArrayList<>(), 0, true).whenComplete((r, e) -> finished(r, view, e, done));
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
    if (!query.isEmpty()) search(query); // the chats changed: so may the matches
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
    return listAll(everyProject, false, null, new ArrayList<>(), 0, false);
  }

  private CompletableFuture<List<SessionSummary>> listAll(boolean everyProject, boolean archivedOnes, String cursor,
      List<SessionSummary> acc, int problemCount, boolean countProblems) {
    Boolean view = archivedOnes ? Boolean.TRUE : null;
    Protocol.ListParams p = everyProject || project == null
        ? new Protocol.ListParams(null, true, 1000, cursor, view)
        : new Protocol.ListParams(project, null, 1000, cursor, view);
    return sidecar.request(Protocol.LIST, p).thenCompose(r -> {
      acc.addAll(r.sessions());
      for (SessionSummary s : r.sessions()) titles.put(s.id(), Labels.label(s));
      int n = problemCount + (r.problems() == null ? 0 : r.problems().size());
      if (r.nextCursor() != null) return listAll(everyProject, archivedOnes, r.nextCursor(), acc, n, countProblems);
      if (countProblems) problems = n;
      return CompletableFuture.completedFuture(acc);
    });
  }

  private synchronized Snapshot publish() {
    ZonedDateTime now = ZonedDateTime.now(clock);
    Set<String> hidden = deletes.hidden();
    List<Row> rows = new ArrayList<>();
    List<SessionSummary> visible = new ArrayList<>();
    Protocol.SearchResult results = found;
    boolean searching = !query.isEmpty();
    if (searching && results != null) {
      // The chats session/search found, best first, each with its best snippet as its grey line.
      java.util.Map<String, SessionSummary> byId = new java.util.HashMap<>(extra);
      for (SessionSummary s : sessions) byId.put(s.id(), s);
      List<Entry> entries = new ArrayList<>();
      for (Protocol.SearchSession r : results.sessions()) {
        SessionSummary s = byId.get(r.sessionId());
        if (s == null || hidden.contains(s.id())) continue;
        String snippet = r.hits() == null || r.hits().isEmpty() ? "" : Labels.printable(r.hits().get(0).snippet().replaceAll("\\s+", " ").trim());
        Labels.Line line = new Labels.Line(null, null, null, null, snippet.isEmpty() ? List.of() : List.of(snippet));
        List<String> tip = new ArrayList<>(Labels.tooltip(s, now, titles::get));
        if (!snippet.isEmpty()) tip.add(1, "“" + snippet + "”");
        entries.add(new Entry(s, Labels.label(s), line, snippet, String.join("\n", tip), Labels.label(s) + ", " + snippet));
        visible.add(s);
      }
      if (!entries.isEmpty()) rows.add(new Header("results", Strings.History.RESULTS, entries.size()));
      rows.addAll(entries);
    } else if (!searching) {
      String group = null;
      List<Entry> run = new ArrayList<>();
      Header header = null;
      for (SessionSummary s : sessions) {
        if (hidden.contains(s.id())) continue;
        String g = s.view() == null ? "" : s.view().group();
        if (header == null || !g.equals(group)) {
          flush(rows, header, run);
          group = g;
          header = s.view() == null ? null : new Header(g, s.view().groupLabel(), 0);
          run = new ArrayList<>();
        }
        Labels.Line line = Labels.line(s, titles::get);
        run.add(new Entry(s, Labels.label(s), line, line.full(), String.join("\n", Labels.tooltip(s, now, titles::get)),
            Labels.accessible(s, titles::get)));
        visible.add(s);
      }
      flush(rows, header, run);
    }
    String empty = searching && searchError != null ? searchError
        : error != null ? error
        : searching && results == null ? Strings.History.SEARCHING
        : searching ? Strings.History.NO_MATCH
        : sessions.stream().anyMatch(s -> !hidden.contains(s.id())) ? Strings.History.NO_MATCH
        : archived ? Strings.History.ARCHIVED_EMPTY
        : Strings.History.EMPTY;
    Snapshot s = new Snapshot(List.copyOf(rows), List.copyOf(visible), empty, problems, error, ++generation);
    snapshot = s;
    for (Consumer<Snapshot> l : listeners) l.accept(s);
    return s;
  }

  /** Adds a group's header (with its count) and its entries. */
  private static void flush(List<Row> rows, Header header, List<Entry> run) {
    if (run.isEmpty()) return;
    if (header != null) rows.add(new Header(header.group(), header.label(), run.size()));
    rows.addAll(run);
  }

  /** Whether the History is empty of chats (not merely of matches): the panel then offers Import. */
  public boolean emptyOfChats() {
    Set<String> hidden = deletes.hidden();
    return error == null && !archived && sessions.stream().allMatch(s -> hidden.contains(s.id()));
  }

  /** The query the shown search results answer (null when none are shown). */
  public String searchedFor() { return foundFor; }
}
