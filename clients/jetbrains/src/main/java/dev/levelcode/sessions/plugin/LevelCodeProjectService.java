// The project service: owns the core of one project window (sidecar, History, chat), built from
// the settings with the plugin's bundled sidecar, and disposed with the project (pending
// deletions carried out, then shutdown and exit). A settings change rebuilds it; the tool window
// hears of it (onRebuilt) and shows a panel on the new core.
package dev.levelcode.sessions.plugin;

import com.intellij.ide.plugins.PluginManagerCore;
import com.intellij.ide.util.PropertiesComponent;
import com.intellij.openapi.Disposable;
import com.intellij.openapi.application.ApplicationManager;
import com.intellij.openapi.components.Service;
import com.intellij.openapi.diagnostic.Logger;
import com.intellij.openapi.extensions.PluginId;
import com.intellij.openapi.project.Project;
import com.intellij.openapi.wm.ToolWindowManager;
import dev.levelcode.sessions.core.Chat;
import dev.levelcode.sessions.core.LevelCode;
import dev.levelcode.sessions.core.Log;
import dev.levelcode.sessions.core.ui.HistoryPanel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

@Service(Service.Level.PROJECT)
public final class LevelCodeProjectService implements Disposable {
  public static final String TOOL_WINDOW_ID = "LevelCode History";
  private static final Logger LOG = Logger.getInstance(LevelCodeProjectService.class);
  static final Log IDE_LOG = (level, m) -> {
    switch (level) {
      case DEBUG -> LOG.debug(m);
      case INFO -> LOG.info(m);
      case WARN -> LOG.warn(m);
      case ERROR -> LOG.warn(m); // LOG.error would show the IDE's "internal error" balloon
    }
  };

  private final Project project;
  private final List<Runnable> rebuilt = new CopyOnWriteArrayList<>();
  private LevelCode core;
  private HistoryPanel panel;

  public LevelCodeProjectService(Project project) {
    this.project = project;
  }

  public static LevelCodeProjectService getInstance(Project project) {
    return project.getService(LevelCodeProjectService.class);
  }

  /** The core, built and started on first use. */
  public synchronized LevelCode core() {
    if (core == null) {
      LevelCodeSettings settings = LevelCodeSettings.getInstance();
      core = LevelCode.create(settings.settings(), bundledSidecar(), project.getBasePath(), new IdeUi(project),
          state(), settings::settings, IDE_LOG);
      core.chat.onShowHistory(this::showHistory);
      LevelCodeSessionsService.getInstance().attach(project, core);
      core.start();
    }
    return core;
  }

  /** The panel the tool window shows (null until it was opened). */
  public synchronized HistoryPanel panel() { return panel; }

  synchronized void setPanel(HistoryPanel p) { panel = p; }

  public void onRebuilt(Runnable r) { rebuilt.add(r); }

  /** The settings changed: a new core (a new sidecar) replaces the old one. */
  public void restart() {
    LevelCode old;
    synchronized (this) {
      old = core;
      core = null;
    }
    if (old != null) ApplicationManager.getApplication().executeOnPooledThread(old::close);
    rebuilt.forEach(Runnable::run);
  }

  public void showHistory() {
    ApplicationManager.getApplication().invokeLater(() -> {
      var tw = ToolWindowManager.getInstance(project).getToolWindow(TOOL_WINDOW_ID);
      if (tw != null) tw.activate(null);
    });
  }

  /** The sidecar inside the plugin's folder (build.gradle.kts: prepareSandbox), if it is there. */
  private static Path bundledSidecar() {
    var plugin = PluginManagerCore.getPlugin(PluginId.getId("dev.levelcode.sessions"));
    return plugin == null ? null : plugin.getPluginPath().resolve("sidecar/cli/main.js");
  }

  /** The current chat per project, the once-only notice per installation. */
  private Chat.State state() {
    PropertiesComponent mine = PropertiesComponent.getInstance(project);
    PropertiesComponent app = PropertiesComponent.getInstance();
    return new Chat.State() {
      public String current() { return mine.getValue("levelcodeSessions.currentSession"); }
      public void setCurrent(String id) { mine.setValue("levelcodeSessions.currentSession", id); }
      public boolean savedNoticeShown() { return app.getBoolean("levelcodeSessions.newChatNoticeShown", false); }
      public void setSavedNoticeShown() { app.setValue("levelcodeSessions.newChatNoticeShown", true); }
    };
  }

  @Override
  public void dispose() {
    LevelCode c;
    synchronized (this) {
      c = core;
      core = null;
    }
    if (c != null) {
      LevelCodeSessionsService.getInstance().detach(project);
      c.close();
    }
  }
}
