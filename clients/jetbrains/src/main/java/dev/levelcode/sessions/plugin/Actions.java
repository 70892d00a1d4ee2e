// The actions of the Tools menu, of the History's toolbar and gear menu, and of its context menu
// (the LevelCodeSessions.HistoryPopup group, on the chat selected in the panel): each calls one
// method of the core's Chat, Lifecycle or HistoryModel for the project it is invoked in. Wiring
// only.
package dev.levelcode.sessions.plugin;

import com.intellij.openapi.actionSystem.ActionUpdateThread;
import com.intellij.openapi.actionSystem.AnAction;
import com.intellij.openapi.application.ApplicationManager;
import com.intellij.openapi.actionSystem.AnActionEvent;
import com.intellij.openapi.actionSystem.ToggleAction;
import com.intellij.openapi.project.DumbAware;
import com.intellij.openapi.project.Project;
import dev.levelcode.sessions.core.Handoff;
import dev.levelcode.sessions.core.LevelCode;
import dev.levelcode.sessions.core.Strings;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import dev.levelcode.sessions.core.ui.HistoryPanel;

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

  public static final class ShowArchived extends ToggleAction implements DumbAware {
    @Override public ActionUpdateThread getActionUpdateThread() { return ActionUpdateThread.BGT; }

    @Override
    public boolean isSelected(AnActionEvent e) {
      return e.getProject() != null && LevelCodeProjectService.getInstance(e.getProject()).core().history.showsArchived();
    }

    @Override
    public void setSelected(AnActionEvent e, boolean state) {
      if (e.getProject() != null) LevelCodeProjectService.getInstance(e.getProject()).core().history.showArchived(state);
    }
  }

  public static final class ApplyRetention extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { core.lifecycle.applyRetention(); }
  }

  public static final class ImportChats extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { core.importer.run(); }
  }

  public static final class Relink extends ProjectAction {
    @Override void run(LevelCodeProjectService s, LevelCode core) { core.lifecycle.relink(); }
  }

  // ---- the context menu: the chat selected in the History panel ----

  /** An action on the selected chat; hidden when none is selected. Updated on the EDT (it reads the Swing selection). */
  abstract static class SelectedAction extends AnAction implements DumbAware {
    @Override public ActionUpdateThread getActionUpdateThread() { return ActionUpdateThread.EDT; }

    static SessionSummary selected(AnActionEvent e) {
      Project p = e.getProject();
      if (p == null) return null;
      HistoryPanel panel = LevelCodeProjectService.getInstance(p).panel();
      return panel == null ? null : panel.selected();
    }

    @Override
    public void update(AnActionEvent e) {
      SessionSummary s = selected(e);
      e.getPresentation().setEnabledAndVisible(s != null);
      if (s != null) update(e, s);
    }

    void update(AnActionEvent e, SessionSummary s) {}

    @Override
    public void actionPerformed(AnActionEvent e) {
      SessionSummary s = selected(e);
      if (s != null && e.getProject() != null) run(LevelCodeProjectService.getInstance(e.getProject()).core(), s);
    }

    abstract void run(LevelCode core, SessionSummary s);
  }

  public static final class Resume extends SelectedAction {
    @Override void run(LevelCode core, SessionSummary s) { core.chat.resume(s, false); }
  }

  /** Continue in an agent CLI (core/Handoff.java): the tool's resume in the IDE's terminal. */
  public static final class ContinueInAgentCli extends AnAction implements DumbAware {
    @Override public ActionUpdateThread getActionUpdateThread() { return ActionUpdateThread.EDT; }

    @Override
    public void update(AnActionEvent e) { e.getPresentation().setEnabledAndVisible(SelectedAction.selected(e) != null); }

    @Override
    public void actionPerformed(AnActionEvent e) {
      SessionSummary s = SelectedAction.selected(e);
      Project p = e.getProject();
      if (s == null || p == null) return;
      LevelCodeProjectService service = LevelCodeProjectService.getInstance(p);
      String title = s.title() != null ? s.title() : s.id();
      Handoff.continueIn(service.core().sidecar, new IdeUi(p), s.id(), title, System.getenv("PATH"),
          c -> ApplicationManager.getApplication().invokeLater(() -> IdeTerminal.run(p, c)));
    }
  }

  public static final class OpenTranscript extends SelectedAction {
    @Override void run(LevelCode core, SessionSummary s) { core.chat.openTranscript(s); }
  }

  public static final class ForkFromTurn extends SelectedAction {
    @Override void run(LevelCode core, SessionSummary s) { core.lifecycle.forkFromTurn(s); }
  }

  public static final class Rename extends SelectedAction {
    @Override void run(LevelCode core, SessionSummary s) { core.chat.rename(s); }
  }

  /** Pin or Unpin, as the selected chat is. */
  public static final class TogglePin extends SelectedAction {
    @Override void update(AnActionEvent e, SessionSummary s) { e.getPresentation().setText(s.pinned() ? Strings.Actions.UNPIN : Strings.Actions.PIN); }
    @Override void run(LevelCode core, SessionSummary s) { core.lifecycle.setPinned(s, !s.pinned()); }
  }

  /** Archive or Unarchive, as the selected chat is. */
  public static final class ToggleArchive extends SelectedAction {
    @Override
    void update(AnActionEvent e, SessionSummary s) {
      e.getPresentation().setText(s.archived() ? Strings.Actions.UNARCHIVE : Strings.Actions.ARCHIVE);
    }
    @Override void run(LevelCode core, SessionSummary s) { core.lifecycle.setArchived(s, !s.archived()); }
  }

  public static final class CopyMarkdown extends SelectedAction {
    @Override void run(LevelCode core, SessionSummary s) { core.chat.copyMarkdown(s); }
  }

  /** Delete: to the trash at once, with Undo (session/restore) on the balloon. */
  public static final class Delete extends SelectedAction {
    @Override void run(LevelCode core, SessionSummary s) { core.lifecycle.delete(s); }
  }
}
