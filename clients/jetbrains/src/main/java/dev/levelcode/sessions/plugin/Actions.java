// The actions of the Tools menu and of the History's toolbar: each calls one method of the
// core's Chat or HistoryModel for the project it is invoked in. Wiring only.
package dev.levelcode.sessions.plugin;

import com.intellij.openapi.actionSystem.ActionUpdateThread;
import com.intellij.openapi.actionSystem.AnAction;
import com.intellij.openapi.actionSystem.AnActionEvent;
import com.intellij.openapi.actionSystem.ToggleAction;
import com.intellij.openapi.project.DumbAware;
import com.intellij.openapi.project.Project;
import dev.levelcode.sessions.core.LevelCode;

public final class Actions {
  private Actions() {}

  /** An action that needs a project. */
  abstract static class ProjectAction extends AnAction implements DumbAware {
    @Override public ActionUpdateThread getActionUpdateThread() { return ActionUpdateThread.BGT; }

    @Override public void update(AnActionEvent e) { e.getPresentation().setEnabled(e.getProject() != null); }

    @Override
    public void actionPerformed(AnActionEvent e) {
      Project p = e.getProject();
      if (p != null) run(LevelCodeProjectService.getInstance(p), LevelCodeProjectService.getInstance(p).core());
    }

    abstract void run(LevelCodeProjectService service, LevelCode core);
  }

  public static final class NewChat extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { core.chat.startNewChat(); }
  }

  public static final class ShowHistory extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { s.showHistory(); }
  }

  public static final class ResumeLast extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { core.chat.resumeLast(); }
  }

  public static final class ExportMarkdown extends ProjectAction {
    @Override
    void run(LevelCodeProjectService s, LevelCode core) {
      var panel = s.panel();
      var target = core.history.target(panel == null ? null : panel.selected(), core.chat.current());
      if (target != null) core.chat.exportToFile(target);
    }
  }

  public static final class Refresh extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { core.history.refresh(); }
  }

  public static final class ShowAllProjects extends ToggleAction implements DumbAware {
    @Override public ActionUpdateThread getActionUpdateThread() { return ActionUpdateThread.BGT; }

    @Override
    public boolean isSelected(AnActionEvent e) {
      return e.getProject() != null && LevelCodeProjectService.getInstance(e.getProject()).core().history.showsAll();
    }

    @Override
    public void setSelected(AnActionEvent e, boolean state) {
      if (e.getProject() != null) LevelCodeProjectService.getInstance(e.getProject()).core().history.showAll(state);
    }
  }
}
