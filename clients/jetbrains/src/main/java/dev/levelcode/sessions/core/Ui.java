// What the core asks of the IDE: questions, notifications, a title input, a list to choose from,
// a checklist dialog, a save dialog, an editor tab for Markdown, the clipboard and a progress
// indicator. The plugin answers with
// IntelliJ's Messages, Notifications, FileChooser and FileEditorManager; the tests answer as a
// user would. Every method returns at once (futures), so no caller blocks the UI thread.
package dev.levelcode.sessions.core;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

public interface Ui {
  enum Kind { INFO, WARNING, ERROR }

  /** A modal question; the option chosen, or null when dismissed. */
  CompletableFuture<String> ask(Kind kind, String message, List<String> options);

  /** A balloon with action links; the action chosen, or null when it expires unanswered. */
  CompletableFuture<String> notify(Kind kind, String message, List<String> actions);

  /** A one-line input; `validate` answers an error text or null. The text, or null when cancelled. */
  CompletableFuture<String> input(String prompt, String initial, Function<String, String> validate);

  /** A list to pick one item from (a popup list in the IDE); its index, or null when dismissed. */
  CompletableFuture<Integer> choose(String title, List<String> items);

  /** One line of a checklist: its text, whether it starts checked, and whether the user may change it. */
  record Check(String text, boolean checked, boolean enabled) {}

  /** The button the user pressed and the indexes of the lines left checked. */
  record Checked(String action, List<Integer> checked) {}

  /**
   * A dialog of `message` above `items` with check boxes, and `actions` as its buttons (the first
   * the default) beside Cancel. The answer, or null when cancelled.
   */
  CompletableFuture<Checked> checklist(String title, String message, List<Check> items, List<String> actions);

  /** A save dialog; the file, or null when cancelled. */
  CompletableFuture<Path> saveFile(String title, String suggestedName);

  /** Opens `markdown` read-only in an editor tab named `title`. */
  void openMarkdown(String title, String markdown);

  void copyToClipboard(String text);

  /** Shows `title` while `task` runs; the user's Cancel cancels `task`. Answers `task`. */
  default <T> CompletableFuture<T> withProgress(String title, CompletableFuture<T> task) {
    return withProgress(title, null, task);
  }

  /**
   * The same, with the sidecar's reports for the task (null: none): their text under the title,
   * and a determinate bar once they carry a percentage.
   */
  <T> CompletableFuture<T> withProgress(String title, WorkProgress work, CompletableFuture<T> task);
}
