// The History tool window: the core's HistoryPanel under the IDE's own toolbar (the actions of
// the LevelCodeSessions.ToolWindowToolbar group), with the IDE's context menu (the
// LevelCodeSessions.HistoryPopup group) and gear menu (Apply Retention…, Relink…), in the IDE's
// colours. Wiring only.
package dev.levelcode.sessions.plugin;

import com.intellij.openapi.actionSystem.ActionGroup;
import com.intellij.openapi.actionSystem.ActionManager;
import com.intellij.openapi.actionSystem.ActionPopupMenu;
import com.intellij.openapi.actionSystem.ActionToolbar;
import com.intellij.openapi.project.DumbAware;
import com.intellij.openapi.project.Project;
import com.intellij.openapi.ui.SimpleToolWindowPanel;
import com.intellij.openapi.wm.ToolWindow;
import com.intellij.openapi.wm.ToolWindowFactory;
import com.intellij.openapi.wm.ex.ToolWindowEx;
import com.intellij.ui.content.Content;
import com.intellij.ui.content.ContentFactory;
import dev.levelcode.sessions.core.LevelCode;
import dev.levelcode.sessions.core.ui.HistoryPanel;
import dev.levelcode.sessions.core.ui.Theme;

public final class HistoryToolWindowFactory implements ToolWindowFactory, DumbAware {
  @Override
  public void createToolWindowContent(Project project, ToolWindow toolWindow) {
    LevelCodeProjectService service = LevelCodeProjectService.getInstance(project);
    show(project, toolWindow, service);
    service.onRebuilt(() -> com.intellij.openapi.application.ApplicationManager.getApplication()
        .invokeLater(() -> show(project, toolWindow, service)));
  }

  private static void show(Project project, ToolWindow toolWindow, LevelCodeProjectService service) {
    Theme.current = IdeTheme.current();
    LevelCode core = service.core();
    HistoryPanel panel = new HistoryPanel(core.history, core.chat, core.lifecycle, core.importer);
    panel.setToolbarVisible(false); // the IDE's toolbar below stands in for the core's
    ActionManager actions = ActionManager.getInstance();
    panel.setPopupHandler((component, point) -> {
      ActionPopupMenu popup = actions.createActionPopupMenu("LevelCodeHistoryPopup",
          (ActionGroup) actions.getAction("LevelCodeSessions.HistoryPopup"));
      popup.setTargetComponent(panel);
      popup.getComponent().show(component, point.x, point.y);
    });
    if (toolWindow instanceof ToolWindowEx ex) {
      ex.setAdditionalGearActions((ActionGroup) actions.getAction("LevelCodeSessions.ToolWindowGear"));
    }
    service.setPanel(panel);
    SimpleToolWindowPanel holder = new SimpleToolWindowPanel(true, true);
    ActionToolbar toolbar = ActionManager.getInstance().createActionToolbar("LevelCodeHistory",
        (ActionGroup) ActionManager.getInstance().getAction("LevelCodeSessions.ToolWindowToolbar"), true);
    toolbar.setTargetComponent(panel);
    holder.setToolbar(toolbar.getComponent());
    holder.setContent(panel);
    Content content = ContentFactory.getInstance().createContent(holder, "", false);
    toolWindow.getContentManager().removeAllContents(true);
    toolWindow.getContentManager().addContent(content);
  }
}
