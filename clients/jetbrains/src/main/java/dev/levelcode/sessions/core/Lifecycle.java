// History's lifecycle actions (issue 24; protocol.md "Pins and archive", "Retention", "Relinked
// folders"), for the panel and the IDE's actions alike: Pin / Unpin, Archive / Unarchive (with
// Undo), Delete to the trash at once with an Undo that calls session/restore (the hide-then-delete
// grace period of PendingDeletes only where the sidecar cannot restore), Apply Retention (a dry
// run shown as a checklist, then archive, or move to the trash after a confirmation naming the
// count), Fork from Turn (a turn chosen from session/read, session/fork atTurn, then resumed as
// Resume does) and Relink Chats from Another Folder (dry run, confirm, apply). The Ui answers the
// questions; every action answers a future that completes once History is listed again.
package dev.levelcode.sessions.core;

import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.Labels;
import dev.levelcode.sessions.core.history.Turns;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.RetentionAction;
import dev.levelcode.sessions.core.rpc.Protocol.RetentionItem;
import dev.levelcode.sessions.core.rpc.Protocol.RetentionResult;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

public final class Lifecycle {
  /** What Apply Retention did: the ids archived, moved to the trash, and left alone. */
  public record RetentionOutcome(List<String> archived, List<String> trashed, List<String> leftAlone) {}

  /** Events read per session/read request when listing the turns. */
  static final int READ_PAGE = 1000;

  private final Sidecar sidecar;
  private final Ui ui;
  private final Supplier<Settings> settings;
  private final String project;
  private final HistoryModel history;
  private final Chat chat;
  private final Log log;

  public Lifecycle(Sidecar sidecar, Ui ui, Supplier<Settings> settings, String project, HistoryModel history, Chat chat, Log log) {
    this.sidecar = sidecar;
    this.ui = ui;
    this.settings = settings;
    this.project = project;
    this.history = history;
    this.chat = chat;
    this.log = log;
  }

  private static <T> CompletableFuture<T> none() { return CompletableFuture.completedFuture(null); }

  private <T> T said(Throwable e, Function<String, String> text) {
    if (!isCancel(e)) ui.notify(Ui.Kind.ERROR, text.apply(Chat.messageOf(e)), List.of());
    return null;
  }

  private static boolean isCancel(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof java.util.concurrent.CancellationException) return true;
    return false;
  }

  // ---- pin and archive ----

  /** Pins (true) or unpins a chat; the row moves to (or out of) the Pinned group. Its new state, or null on failure. */
  public CompletableFuture<Boolean> setPinned(SessionSummary s, boolean on) {
    String title = Labels.label(s);
    return sidecar.request(Protocol.PIN, new Protocol.PinParams(s.id(), on))
        .thenCompose(r -> history.refresh().thenApply(x -> r.pinned()))
        .exceptionally(e -> said(e, why -> Strings.Lifecycle.failed(title, why)));
  }

  /** Archives (true, with an Undo link) or unarchives a chat. Its new state, or null on failure. */
  public CompletableFuture<Boolean> setArchived(SessionSummary s, boolean on) {
    String title = Labels.label(s);
    return sidecar.request(Protocol.ARCHIVE, new Protocol.ArchiveParams(s.id(), on))
        .thenCompose(r -> history.refresh().thenApply(x -> r.archived()))
        .thenApply(state -> {
          String text = on ? Strings.Lifecycle.archived(title) : Strings.Lifecycle.unarchived(title);
          ui.notify(Ui.Kind.INFO, text, on ? List.of(Strings.Lifecycle.UNDO) : List.of()).thenAccept(pick -> {
            if (Strings.Lifecycle.UNDO.equals(pick)) setArchived(s, false);
          });
          return state;
        })
        .exceptionally(e -> said(e, why -> Strings.Lifecycle.failed(title, why)));
  }

  // ---- delete and restore ----

  /**
   * Moves the chat to the OS trash now and offers Undo (session/restore) for as long as the notice
   * shows. A sidecar that cannot search this platform's trash (no `restore` feature) gets the old
   * way: hidden at once, deleted when the grace period ends unless undone (Chat.delete).
   */
  public CompletableFuture<Void> delete(SessionSummary s) {
    return sidecar.start().thenCompose(cap -> {
      if (cap.features() == null || !cap.features().contains(Protocol.Feature.RESTORE)) {
        return chat.delete(s).thenApply(o -> (Void) null);
      }
      return trashNow(s);
    });
  }

  private CompletableFuture<Void> trashNow(SessionSummary s) {
    String title = Labels.label(s);
    return sidecar.request(Protocol.DELETE, new Protocol.IdParams(s.id()))
        .thenCompose(r -> {
          chat.forget(s.id());
          return history.refresh();
        })
        .thenAccept(x -> ui.notify(Ui.Kind.INFO, Strings.Delete.trashed(title), List.of(Strings.Delete.UNDO)).thenAccept(pick -> {
          if (Strings.Delete.UNDO.equals(pick)) restore(s.id(), title);
        }))
        .exceptionally(e -> said(e, why -> Strings.Delete.failed(title, why)));
  }

  /** Brings a trashed chat back (session/restore) and says so; the result, or null on failure. */
  public CompletableFuture<Protocol.RestoreResult> restore(String id, String title) {
    return sidecar.request(Protocol.RESTORE, new Protocol.IdParams(id))
        .thenCompose(r -> history.refresh().thenApply(x -> r))
        .thenApply(r -> {
          ui.notify(Ui.Kind.INFO, Strings.Delete.restored(title), List.of());
          return r;
        })
        .exceptionally(e -> said(e, why -> Strings.Delete.restoreFailed(title, why)));
  }

  // ---- retention ----

  /**
   * Apply Retention…: the dry run of the settings' rules as a checklist (what falls out and why;
   * what is left alone, and why, greyed). Archive (the default) archives the checked chats; Move
   * to Trash asks again, naming the count, then moves them to the OS trash. Null when nothing was
   * done (no rules, nothing falls out, cancelled).
   */
  public CompletableFuture<RetentionOutcome> applyRetention() {
    Settings st = settings.get();
    if (st.autoArchiveDays() <= 0 && st.retentionKeep() <= 0 && st.retentionMaxAgeDays() <= 0) {
      ui.notify(Ui.Kind.INFO, Strings.Retention.NO_RULES, List.of());
      return none();
    }
    String rules = Strings.Retention.rules(st.autoArchiveDays(), st.retentionKeep(), st.retentionMaxAgeDays());
    return plan(st, false).thenCompose(p -> {
      for (RetentionItem i : p.skipped()) log.info("retention leaves " + i.id() + " (" + i.title() + ") alone: " + i.skipped());
      if (p.done().isEmpty()) {
        List<String> why = p.skipped().stream().map(i -> Strings.Retention.skipped(i.title(), i.skipped())).toList();
        ui.notify(Ui.Kind.INFO, Strings.Retention.nothing(rules) + (why.isEmpty() ? "" : " " + String.join("; ", why) + "."), List.of());
        return none();
      }
      List<Ui.Check> checks = new ArrayList<>();
      for (RetentionItem i : p.done()) checks.add(new Ui.Check(itemText(i, st), true, true));
      for (RetentionItem i : p.skipped()) checks.add(new Ui.Check(Strings.Retention.skipped(i.title(), i.skipped()), false, false));
      return ui.checklist(Strings.Retention.TITLE, Strings.Retention.intro(p.done().size(), rules), checks,
          List.of(Strings.Retention.ARCHIVE, Strings.Retention.TRASH)).thenCompose(c -> {
            if (c == null) return none();
            Set<String> chosen = new HashSet<>();
            for (int i : c.checked()) if (i < p.done().size()) chosen.add(p.done().get(i).id());
            if (chosen.isEmpty()) return none();
            if (Strings.Retention.TRASH.equals(c.action())) return trash(st, p, chosen);
            return archive(st, p, chosen);
          });
    }).exceptionally(e -> said(e, Strings.Retention::failed));
  }

  private CompletableFuture<RetentionResult> plan(Settings st, boolean delete) {
    return run(st, true, delete);
  }

  private CompletableFuture<RetentionResult> run(Settings st, boolean dryRun, boolean delete) {
    String scope = history.showsAll() ? null : project;
    return sidecar.request(Protocol.RETENTION, new Protocol.RetentionParams(scope, dryRun ? true : null, delete ? true : null,
        st.autoArchiveDays(), st.retentionKeep(), st.retentionMaxAgeDays()));
  }

  private static String itemText(RetentionItem i, Settings st) {
    String reason = switch (i.reason()) {
      case IDLE -> "idle";
      case MAX_AGE -> "max-age";
      case KEEP -> "keep";
    };
    String why = Strings.Retention.reason(reason, st.autoArchiveDays(), st.retentionKeep(), st.retentionMaxAgeDays());
    String at = Labels.localStamp(i.lastActive(), java.time.ZonedDateTime.now());
    return Strings.Retention.item(i.title(), why, at == null ? "?" : at.substring(0, Math.min(10, at.length())));
  }

  /** Archives the chosen: the whole plan by session/retention itself (auto: true and the rule recorded), a part one by one. */
  private CompletableFuture<RetentionOutcome> archive(Settings st, RetentionResult p, Set<String> chosen) {
    CompletableFuture<RetentionOutcome> work;
    if (chosen.size() == p.done().size()) {
      work = run(st, false, false).thenApply(r -> {
        for (RetentionItem i : r.skipped()) log.info("retention left " + i.id() + " (" + i.title() + ") alone: " + i.skipped());
        return new RetentionOutcome(ids(r.done()), List.of(), ids(r.skipped()));
      });
    } else {
      List<RetentionItem> items = p.done().stream().filter(i -> chosen.contains(i.id())).toList();
      List<String> failed = Collections.synchronizedList(new ArrayList<>());
      work = each(items, i -> sidecar.request(Protocol.ARCHIVE, new Protocol.ArchiveParams(i.id(), true)), failed)
          .thenApply(ok -> new RetentionOutcome(ok, List.of(), List.copyOf(failed)));
    }
    return work.thenCompose(o -> history.refresh().thenApply(x -> o)).thenApply(o -> {
      String text = Strings.Retention.archivedN(o.archived().size())
          + (o.leftAlone().isEmpty() ? "" : Strings.Retention.leftAlone(o.leftAlone().size()));
      ui.notify(Ui.Kind.INFO, text, o.archived().isEmpty() ? List.of() : List.of(Strings.Lifecycle.UNDO)).thenAccept(pick -> {
        if (Strings.Lifecycle.UNDO.equals(pick)) undo(o);
      });
      return o;
    });
  }

  /**
   * Move to Trash: the dry run again with delete (keep then counts archived chats too), less what
   * the user unchecked, confirmed by a question naming the count and the titles; then each chat
   * is moved to the trash (or, for an idle one, archived) one by one: exactly what was confirmed.
   */
  private CompletableFuture<RetentionOutcome> trash(Settings st, RetentionResult first, Set<String> chosen) {
    Set<String> unchecked = new HashSet<>(ids(first.done()));
    unchecked.removeAll(chosen);
    return plan(st, true).thenCompose(p -> {
      List<RetentionItem> items = p.done().stream().filter(i -> !unchecked.contains(i.id())).toList();
      List<RetentionItem> deletes = items.stream().filter(i -> i.action() == RetentionAction.DELETE).toList();
      List<RetentionItem> archives = items.stream().filter(i -> i.action() == RetentionAction.ARCHIVE).toList();
      if (deletes.isEmpty()) return archive(st, first, chosen);
      int n = deletes.size();
      String question = Strings.Retention.confirmTrash(n, deletes.stream().map(RetentionItem::title).toList(), archives.size());
      return ui.ask(Ui.Kind.WARNING, question, List.of(Strings.Retention.trashNow(n), Strings.Retention.CANCEL)).thenCompose(pick -> {
        if (!Strings.Retention.trashNow(n).equals(pick)) return none();
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        return each(deletes, i -> sidecar.request(Protocol.DELETE, new Protocol.IdParams(i.id())), failed).thenCompose(trashed ->
            each(archives, i -> sidecar.request(Protocol.ARCHIVE, new Protocol.ArchiveParams(i.id(), true)), failed)
                .thenApply(archived -> new RetentionOutcome(archived, trashed, List.copyOf(failed))));
      }).thenCompose(o -> o == null ? none() : afterTrash(o));
    });
  }

  private CompletableFuture<RetentionOutcome> afterTrash(RetentionOutcome o) {
    o.trashed().forEach(chat::forget);
    return history.refresh().thenApply(x -> {
      String text = Strings.Retention.trashedN(o.trashed().size(), o.archived().size())
          + (o.leftAlone().isEmpty() ? "" : Strings.Retention.leftAlone(o.leftAlone().size()));
      boolean canUndo = sidecar.has(Protocol.Feature.RESTORE) || o.trashed().isEmpty();
      ui.notify(Ui.Kind.INFO, text, canUndo ? List.of(Strings.Lifecycle.UNDO) : List.of()).thenAccept(pick -> {
        if (Strings.Lifecycle.UNDO.equals(pick)) undo(o);
      });
      return o;
    });
  }

  /** Undo of a retention run: restores what went to the trash, unarchives what was archived. */
  public CompletableFuture<Integer> undo(RetentionOutcome o) {
    List<String> failed = Collections.synchronizedList(new ArrayList<>());
    return each(o.trashed(), id -> sidecar.request(Protocol.RESTORE, new Protocol.IdParams(id)), failed)
        .thenCompose(restored -> each(o.archived(), id -> sidecar.request(Protocol.ARCHIVE, new Protocol.ArchiveParams(id, false)), failed)
            .thenApply(unarchived -> restored.size() + unarchived.size()))
        .thenCompose(n -> history.refresh().thenApply(x -> n))
        .thenApply(n -> {
          ui.notify(failed.isEmpty() ? Ui.Kind.INFO : Ui.Kind.WARNING,
              Strings.Retention.undone(n) + (failed.isEmpty() ? "" : Strings.Retention.leftAlone(failed.size())), List.of());
          return n;
        });
  }

  private static List<String> ids(List<RetentionItem> items) {
    return items == null ? List.of() : items.stream().map(RetentionItem::id).toList();
  }

  /** Runs `f` on each in turn; the ids it succeeded for (failures, with why, go to `failed`). */
  private <T> CompletableFuture<List<String>> each(List<T> items, Function<T, CompletableFuture<?>> f, List<String> failed) {
    List<String> ok = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (T item : items) {
      String id = item instanceof RetentionItem r ? r.id() : String.valueOf(item);
      chain = chain.thenCompose(v -> f.apply(item).handle((r, e) -> {
        if (e == null) ok.add(id);
        else {
          failed.add(id);
          log.warn("left alone " + id + ": " + Chat.messageOf(e));
        }
        return null;
      }));
    }
    return chain.thenApply(v -> List.copyOf(ok));
  }

  // ---- fork at a turn ----

  /** Fork from Turn…: the turns to choose from (number and first line), then session/fork atTurn, then the fork resumed. */
  public CompletableFuture<Protocol.ResumeResult> forkFromTurn(SessionSummary s) {
    String title = Labels.label(s);
    return sidecar.start().thenCompose(cap -> {
      if (cap.features() == null || !cap.features().contains(Protocol.Feature.FORK_AT_TURN)) {
        ui.notify(Ui.Kind.ERROR, Strings.Fork.failed(Strings.Fork.UNSUPPORTED), List.of());
        return none();
      }
      return readAll(s.id(), 0, new ArrayList<>());
    }).thenCompose(events -> {
      if (events == null) return none();
      List<Turns.Turn> turns = Turns.of(events);
      if (turns.isEmpty()) {
        ui.notify(Ui.Kind.INFO, Strings.Fork.noTurns(title), List.of());
        return none();
      }
      List<String> items = turns.stream().map(t -> Strings.Fork.turn(t.number(), t.firstLine())).toList();
      return ui.choose(Strings.Fork.choose(title), items).thenCompose(i -> {
        if (i == null || i < 0 || i >= turns.size()) return none();
        return forkAt(s, turns.get(i).number());
      });
    }).exceptionally(e -> said(e, Strings.Fork::failed));
  }

  /** Forks `s` at turn `atTurn` (in the row's project when it was listed "moved from …") and resumes the fork. */
  public CompletableFuture<Protocol.ResumeResult> forkAt(SessionSummary s, int atTurn) {
    String inProject = s.movedFrom() != null ? s.project() : null;
    return sidecar.request(Protocol.FORK, new Protocol.ForkParams(s.id(), atTurn, inProject))
        .thenCompose(f -> history.refresh().thenCompose(snap -> {
          SessionSummary fork = history.find(f.id());
          if (fork == null) {
            fork = new SessionSummary(f.id(), f.project(), Strings.Fork.title(Labels.label(s), f.turn()), false, f.createdAt(),
                f.createdAt(), f.turn(), s.model(), null, 1, 0, null, null, null);
          }
          return chat.resume(fork, false);
        }));
  }

  private CompletableFuture<List<Protocol.SeqEvent>> readAll(String id, int from, List<Protocol.SeqEvent> acc) {
    return sidecar.request(Protocol.READ, new Protocol.ReadParams(id, null, from, from + READ_PAGE - 1), Sidecar.LONG_TIMEOUT)
        .thenCompose(r -> {
          if (r.events() != null) acc.addAll(r.events());
          int total = r.totalEvents() == null ? 0 : r.totalEvents();
          if (from + READ_PAGE - 1 >= total) return CompletableFuture.completedFuture(acc);
          return readAll(id, from + READ_PAGE, acc);
        });
  }

  // ---- relink ----

  /** The other folders chats were recorded under, folders that are gone first, then by how many chats. */
  public CompletableFuture<List<String>> relinkCandidates() {
    return history.fetch(true).thenApply(all -> {
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (SessionSummary s : all) if (s.project() != null && !s.project().equals(project)) counts.merge(s.project(), 1, Integer::sum);
      List<String> out = new ArrayList<>(counts.keySet());
      out.sort(Comparator.comparing((String p) -> Files.exists(Path.of(p))).thenComparing(p -> -counts.get(p)).thenComparing(p -> p));
      return out;
    });
  }

  /** Relink Chats from Another Folder…: the old folder (a listed one, or typed), then relinkFrom. */
  public CompletableFuture<Protocol.RelinkResult> relink() {
    if (project == null) {
      ui.notify(Ui.Kind.INFO, Strings.Relink.NO_PROJECT, List.of());
      return none();
    }
    return history.fetch(true).thenCompose(all -> relinkCandidates().thenCompose(cands -> {
      List<String> items = new ArrayList<>();
      for (String p : cands) {
        long n = all.stream().filter(s -> p.equals(s.project())).count();
        items.add(Strings.Relink.candidate(Labels.shortPath(p), (int) n, !Files.exists(Path.of(p))));
      }
      items.add(Strings.Relink.OTHER);
      return ui.choose(Strings.Relink.CHOOSE, items).thenCompose(i -> {
        if (i == null || i < 0 || i > cands.size()) return none();
        CompletableFuture<String> from = i < cands.size() ? CompletableFuture.completedFuture(cands.get(i))
            : ui.input(Strings.Relink.PROMPT, "", v -> v == null || v.isBlank() ? Strings.Relink.EMPTY_PATH : null);
        return from.thenCompose(f -> f == null ? none() : relinkFrom(f.trim()));
      });
    })).exceptionally(e -> said(e, Strings.Relink::failed));
  }

  /** The dry run's count, a confirmation, then the relink; null when nothing moved. */
  public CompletableFuture<Protocol.RelinkResult> relinkFrom(String from) {
    return sidecar.request(Protocol.RELINK, new Protocol.RelinkParams(from, project, true)).thenCompose(dry -> {
      int n = dry.sessions() == null ? 0 : dry.sessions().size();
      if (n == 0) {
        ui.notify(Ui.Kind.INFO, Strings.Relink.none(from), List.of());
        return none();
      }
      return ui.ask(Ui.Kind.WARNING, Strings.Relink.confirm(n, dry.from(), dry.to()), List.of(Strings.Relink.relinkNow(n), Strings.Relink.CANCEL))
          .thenCompose(pick -> {
            if (!Strings.Relink.relinkNow(n).equals(pick)) return none();
            return sidecar.request(Protocol.RELINK, new Protocol.RelinkParams(from, project, null))
                .thenCompose(r -> history.refresh().thenApply(x -> {
                  ui.notify(Ui.Kind.INFO, Strings.Relink.done(r.sessions().size(), r.from()), List.of());
                  return r;
                }));
          });
    }).exceptionally(e -> said(e, Strings.Relink::failed));
  }
}
