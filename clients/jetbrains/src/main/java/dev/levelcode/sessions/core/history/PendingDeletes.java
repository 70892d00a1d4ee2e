// Delete with an honest Undo, as the VS Code client does it: choosing Delete hides the chat at
// once and starts a grace period; only when it ends is session/delete sent (the file goes to the
// OS trash). Undo within the period cancels it and nothing was ever touched; after it, we say the
// chat is in the system trash rather than pretend. flush() carries out what is pending (the IDE
// closing), because the user asked for it. The clock is injected (Timers), so tests need no sleep.
package dev.levelcode.sessions.core.history;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

public final class PendingDeletes {
  /** Runs a task later; cancel() of the handle stops it. */
  public interface Timers {
    Runnable schedule(Runnable task, Duration delay);

    static Timers real() {
      ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "levelcode-pending-deletes");
        t.setDaemon(true);
        return t;
      });
      return (task, delay) -> {
        ScheduledFuture<?> f = s.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
      };
    }
  }

  public enum Outcome { DELETED, FAILED, UNDONE }

  public enum UndoResult { UNDONE, ALREADY_DELETED, UNKNOWN }

  private record Pending(Runnable cancelTimer, CompletableFuture<Outcome> done) {}

  private final Function<String, CompletableFuture<?>> remove;
  private final Duration grace;
  private final Timers timers;
  private final BiConsumer<String, Throwable> onFailed;
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private final Set<String> finished = new HashSet<>();
  private final List<Runnable> changeListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  public PendingDeletes(Function<String, CompletableFuture<?>> remove, Duration grace, Timers timers, BiConsumer<String, Throwable> onFailed) {
    this.remove = remove;
    this.grace = grace;
    this.timers = timers;
    this.onFailed = onFailed;
  }

  /** Told when the set of hidden ids changes. */
  public void onChange(Runnable l) { changeListeners.add(l); }

  public synchronized Set<String> hidden() { return Set.copyOf(pending.keySet()); }

  public synchronized boolean isPending(String id) { return pending.containsKey(id); }

  /** Starts the grace period for `id`; a second call for the same id shares the first. */
  public CompletableFuture<Outcome> schedule(String id) {
    CompletableFuture<Outcome> done;
    synchronized (this) {
      Pending p = pending.get(id);
      if (p != null) return p.done;
      finished.remove(id);
      done = new CompletableFuture<>();
      CompletableFuture<Outcome> mine = done;
      Runnable cancel = timers.schedule(() -> run(id, mine), grace);
      pending.put(id, new Pending(cancel, done));
    }
    changed();
    return done;
  }

  private void run(String id, CompletableFuture<Outcome> mine) {
    synchronized (this) {
      Pending p = pending.get(id);
      if (p == null || p.done != mine) return;
      pending.remove(id);
    }
    CompletableFuture<?> f;
    try {
      f = remove.apply(id);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((v, e) -> {
      if (e == null) {
        synchronized (this) {
          finished.add(id);
        }
        mine.complete(Outcome.DELETED);
      } else {
        onFailed.accept(id, e);
        mine.complete(Outcome.FAILED);
        changed();
      }
    });
    changed();
  }

  /** Cancels a pending deletion; says honestly when it is too late. */
  public UndoResult undo(String id) {
    Pending p;
    synchronized (this) {
      p = pending.remove(id);
      if (p == null) return finished.contains(id) ? UndoResult.ALREADY_DELETED : UndoResult.UNKNOWN;
    }
    p.cancelTimer.run();
    p.done.complete(Outcome.UNDONE);
    changed();
    return UndoResult.UNDONE;
  }

  /** Carries out every pending deletion now; resolves when all are done. */
  public CompletableFuture<Void> flush() {
    Map<String, Pending> all;
    synchronized (this) {
      all = new LinkedHashMap<>(pending);
    }
    for (var e : all.entrySet()) {
      e.getValue().cancelTimer.run();
      run(e.getKey(), e.getValue().done);
    }
    return CompletableFuture.allOf(all.values().stream().map(Pending::done).toArray(CompletableFuture[]::new));
  }

  private void changed() {
    for (Runnable l : changeListeners) l.run();
  }
}
