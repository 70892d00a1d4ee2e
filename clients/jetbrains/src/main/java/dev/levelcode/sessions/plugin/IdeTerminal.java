// Runs a hand-off's command (core/Handoff.java) in the IDE's Terminal tool window: a new local
// shell tab in the project folder, named after the tool and the chat, running `cd CWD && ARGV`.
// The one place the plugin touches the bundled Terminal plugin (plugin.xml depends on it).
package dev.levelcode.sessions.plugin;

import com.intellij.notification.NotificationGroupManager;
import com.intellij.notification.NotificationType;
import com.intellij.openapi.project.Project;
import dev.levelcode.sessions.core.Handoff;
import org.jetbrains.plugins.terminal.TerminalToolWindowManager;

final class IdeTerminal {
  private IdeTerminal() {}

  static void run(Project project, Handoff.Command c) {
    try {
      TerminalToolWindowManager.getInstance(project).createLocalShellWidget(c.cwd(), c.title()).executeCommand(c.shellLine());
    } catch (Exception e) {
      NotificationGroupManager.getInstance().getNotificationGroup("LevelCode Sessions")
          .createNotification("Could not open a terminal: " + e.getMessage() + ". Run it yourself: " + c.shellLine(), NotificationType.ERROR)
          .notify(project);
    }
  }
}
