// The user, in tests: answers questions, notifications, lists and checklists with scripted
// choices, records what was said (a list or checklist as its title and items), and keeps the
// Markdown tabs and the clipboard. A notification without a scripted answer
// stays unanswered (as a balloon the user ignores).
package dev.levelcode.sessions.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

final class ScriptedUi implements Ui {
  record Said(Kind kind, String message, List<String> options) {}

  /** Answers by the first option/action text a message offers. */
  final Map<String, String> answers = new ConcurrentHashMap<>();
  final LinkedBlockingQueue<Said> said = new LinkedBlockingQueue<>();
  final List<String[]> opened = new ArrayList<>();
  volatile String clipboard;
  volatile String nextInput;
  volatile String lastInputProblem;
  volatile Path nextSave;
  /** Picks from a list by its items (null: dismissed). */
  volatile Function<List<String>, Integer> chooser = items -> null;
  /** Answers a checklist by its lines (null: cancelled). */
  volatile Function<List<Check>, Checked> checker = items -> null;
  private final Map<String, CompletableFuture<String>> parked = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<String> ask(Kind kind, String message, List<String> options) {
    said.add(new Said(kind, message, options));
    return CompletableFuture.completedFuture(options.stream().filter(o -> o.equals(answers.get(options.get(0)))).findFirst().orElse(null));
  }

  @Override
  public CompletableFuture<String> notify(Kind kind, String message, List<String> actions) {
    // Parked before it is said: a test that reads what was said may click at once.
    CompletableFuture<String> f = null;
    String a = actions.isEmpty() ? null : answers.get(actions.get(0));
    if (!actions.isEmpty() && a == null) parked.put(message, f = new CompletableFuture<>());
    said.add(new Said(kind, message, actions));
    if (actions.isEmpty()) return CompletableFuture.completedFuture(null);
    return f != null ? f : CompletableFuture.completedFuture(a);
  }

  /** Clicks `action` on the balloon that said `message` (a user acting later). */
  void click(String message, String action) {
    parked.remove(message).complete(action);
  }

  @Override
  public CompletableFuture<String> input(String prompt, String initial, Function<String, String> validate) {
    String v = nextInput;
    lastInputProblem = v == null ? null : validate.apply(v);
    return CompletableFuture.completedFuture(v == null || lastInputProblem != null ? null : v);
  }

  @Override
  public CompletableFuture<Integer> choose(String title, List<String> items) {
    said.add(new Said(Kind.INFO, title, List.copyOf(items)));
    return CompletableFuture.completedFuture(chooser.apply(items));
  }

  @Override
  public CompletableFuture<Checked> checklist(String title, String message, List<Check> items, List<String> actions) {
    said.add(new Said(Kind.INFO, title + ": " + message, items.stream().map(c -> (c.enabled() ? c.checked() ? "[x] " : "[ ] " : "[-] ")
        + c.text()).toList()));
    return CompletableFuture.completedFuture(checker.apply(items));
  }

  @Override
  public CompletableFuture<Path> saveFile(String title, String suggestedName) {
    return CompletableFuture.completedFuture(nextSave == null ? null : nextSave.resolve(suggestedName));
  }

  @Override
  public synchronized void openMarkdown(String title, String markdown) {
    opened.add(new String[] {title, markdown});
    notifyAll();
  }

  @Override
  public void copyToClipboard(String text) { clipboard = text; }

  /** Every progress shown: its title, and the sidecar's reports for it as they came. */
  final List<String> progressTitles = new CopyOnWriteArrayList<>();
  final List<WorkProgress.Step> steps = new CopyOnWriteArrayList<>();

  @Override
  public <T> CompletableFuture<T> withProgress(String title, WorkProgress work, CompletableFuture<T> task) {
    progressTitles.add(title);
    if (work != null) work.onStep(steps::add);
    return task;
  }

  /** The next message said (waits at most Fixture.WAIT_S). */
  Said next() throws InterruptedException {
    Said s = said.poll(Fixture.WAIT_S, TimeUnit.SECONDS);
    if (s == null) throw new AssertionError("nothing was said");
    return s;
  }

  /** Waits for a message containing `part`, skipping others; fails when none comes. */
  Said await(String part) throws InterruptedException {
    while (true) {
      Said s = next();
      if (s.message().contains(part)) return s;
    }
  }
}
