// The core's Ui answered with the IDE's own dialogs: Messages for questions and the title input,
// balloons (the "LevelCode Sessions" notification group) with action links (Undo), a popup list
// with speed search for choices (Fork from Turn…, Relink…), a checklist dialog (Apply
// Retention…), the save dialog, a read-only Markdown editor tab, the clipboard, and a
// cancellable background progress (a determinate bar once the sidecar reports percentages). Wiring
// only: what to ask and what to do with the answer is the core's (Chat).
package dev.levelcode.sessions.plugin;

import com.intellij.notification.NotificationAction;
import com.intellij.notification.NotificationGroupManager;
import com.intellij.notification.NotificationType;
import com.intellij.openapi.application.ApplicationManager;
import com.intellij.openapi.fileChooser.FileChooserFactory;
import com.intellij.openapi.fileChooser.FileSaverDescriptor;
import com.intellij.openapi.fileEditor.FileEditorManager;
import com.intellij.openapi.fileTypes.FileTypeManager;
import com.intellij.openapi.ide.CopyPasteManager;
import com.intellij.openapi.progress.ProgressIndicator;
import com.intellij.openapi.progress.ProgressManager;
import com.intellij.openapi.progress.Task;
import com.intellij.openapi.project.Project;
import com.intellij.openapi.ui.InputValidatorEx;
import com.intellij.openapi.ui.Messages;
import com.intellij.openapi.ui.popup.JBPopupFactory;
import com.intellij.openapi.ui.popup.JBPopupListener;
import com.intellij.openapi.ui.popup.LightweightWindowEvent;
import com.intellij.testFramework.LightVirtualFile;
import dev.levelcode.sessions.core.Ui;
import dev.levelcode.sessions.core.WorkProgress;
import java.awt.datatransfer.StringSelection;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

final class IdeUi implements Ui {
  private static final String TITLE = "LevelCode Sessions";
  private final Project project;

  IdeUi(Project project) { this.project = project; }

  private static <T> CompletableFuture<T> onEdt(java.util.function.Supplier<T> f) {
    CompletableFuture<T> out = new CompletableFuture<>();
    ApplicationManager.getApplication().invokeLater(() -> {
      try {
        out.complete(f.get());
      } catch (RuntimeException e) {
        out.completeExceptionally(e);
      }
    });
    return out;
  }

  @Override
  public CompletableFuture<String> ask(Kind kind, String message, List<String> options) {
    return onEdt(() -> {
      int i = Messages.showDialog(project, message, TITLE, options.toArray(String[]::new), 0,
          kind == Kind.ERROR ? Messages.getErrorIcon() : kind == Kind.WARNING ? Messages.getWarningIcon() : Messages.getInformationIcon());
      return i >= 0 && i < options.size() ? options.get(i) : null;
    });
  }

  @Override
  public CompletableFuture<String> notify(Kind kind, String message, List<String> actions) {
    CompletableFuture<String> picked = new CompletableFuture<>();
    NotificationType type = kind == Kind.ERROR ? NotificationType.ERROR : kind == Kind.WARNING ? NotificationType.WARNING : NotificationType.INFORMATION;
    var n = NotificationGroupManager.getInstance().getNotificationGroup(TITLE).createNotification(message, type);
    for (String a : actions) n.addAction(NotificationAction.createSimpleExpiring(a, () -> picked.complete(a)));
    n.whenExpired(() -> picked.complete(null));
    n.notify(project);
    return picked;
  }

  @Override
  public CompletableFuture<String> input(String prompt, String initial, Function<String, String> validate) {
    return onEdt(() -> Messages.showInputDialog(project, prompt, TITLE, null, initial, new InputValidatorEx() {
      @Override public String getErrorText(String s) { return validate.apply(s); }
      @Override public boolean checkInput(String s) { return validate.apply(s) == null; }
      @Override public boolean canClose(String s) { return checkInput(s); }
    }));
  }

  @Override
  public CompletableFuture<Integer> choose(String title, List<String> items) {
    CompletableFuture<Integer> out = new CompletableFuture<>();
    ApplicationManager.getApplication().invokeLater(() -> JBPopupFactory.getInstance().createPopupChooserBuilder(items)
        .setTitle(title)
        .setMovable(true)
        .setNamerForFiltering(item -> item)
        .setItemChosenCallback(item -> out.complete(items.indexOf(item)))
        .addListener(new JBPopupListener() {
          @Override
          public void onClosed(LightweightWindowEvent event) {
            if (!event.isOk()) out.complete(null);
          }
        })
        .createPopup()
        .showCenteredInCurrentWindow(project));
    return out;
  }

  @Override
  public CompletableFuture<Checked> checklist(String title, String message, List<Check> items, List<String> actions) {
    return onEdt(() -> {
      ChecklistDialog d = new ChecklistDialog(project, title, message, items, actions);
      return d.showAndGet() ? d.answer() : null;
    });
  }

  @Override
  public CompletableFuture<Path> saveFile(String title, String suggestedName) {
    return onEdt(() -> {
      var dialog = FileChooserFactory.getInstance().createSaveFileDialog(new FileSaverDescriptor(title, "", "md"), project);
      var chosen = dialog.save(suggestedName);
      return chosen == null ? null : chosen.getFile().toPath();
    });
  }

  @Override
  public void openMarkdown(String title, String markdown) {
    ApplicationManager.getApplication().invokeLater(() -> {
      LightVirtualFile file = new LightVirtualFile(title + ".md", FileTypeManager.getInstance().getFileTypeByExtension("md"), markdown);
      file.setWritable(false);
      FileEditorManager.getInstance(project).openFile(file, true);
    });
  }

  @Override
  public void copyToClipboard(String text) {
    CopyPasteManager.getInstance().setContents(new StringSelection(text));
  }

  @Override
  public <T> CompletableFuture<T> withProgress(String title, WorkProgress work, CompletableFuture<T> task) {
    ApplicationManager.getApplication().invokeLater(() -> ProgressManager.getInstance().run(new Task.Backgroundable(project, title, true) {
      @Override
      public void run(ProgressIndicator indicator) {
        indicator.setIndeterminate(true);
        while (!task.isDone()) {
          if (indicator.isCanceled()) {
            task.cancel(true); // $/cancelRequest to the sidecar
            return;
          }
          if (work != null) show(work, indicator);
          try {
            task.get(100, TimeUnit.MILLISECONDS);
          } catch (Exception ignored) {
            // not done yet, or done with a failure the caller handles
          }
        }
      }
    }));
    return task;
  }

  /** The sidecar's latest report: its text under the title, a determinate bar once it has a percentage. */
  private static void show(WorkProgress work, ProgressIndicator indicator) {
    Integer pct = work.percentage();
    if (pct != null) {
      indicator.setIndeterminate(false);
      indicator.setFraction(pct / 100.0);
    }
    String m = work.message();
    if (m != null) indicator.setText2(m);
  }
}
