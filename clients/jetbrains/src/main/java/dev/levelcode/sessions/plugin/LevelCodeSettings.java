// The settings (Settings | Tools | LevelCode Sessions), kept by the IDE in levelcode-sessions.xml.
// Wiring only: the core's Settings record is what the rest reads, and validates itself.
package dev.levelcode.sessions.plugin;

import com.intellij.openapi.application.ApplicationManager;
import com.intellij.openapi.components.PersistentStateComponent;
import com.intellij.openapi.components.Service;
import com.intellij.openapi.components.State;
import com.intellij.openapi.components.Storage;
import dev.levelcode.sessions.core.Settings;

@Service(Service.Level.APP)
@State(name = "LevelCodeSessionsSettings", storages = @Storage("levelcode-sessions.xml"))
public final class LevelCodeSettings implements PersistentStateComponent<LevelCodeSettings.Data> {
  /** The stored form (public fields, as the IDE's XML serializer wants). */
  public static final class Data {
    public String storeFolder = "";
    public String sidecarPath = "";
    public int contextWindow = Settings.DEFAULT_CONTEXT_WINDOW;
    public double budgetRatio = Settings.DEFAULT_BUDGET_RATIO;
    public int consentThreshold = Settings.DEFAULT_CONSENT_THRESHOLD;
    public int autoArchiveDays = Settings.DEFAULT_AUTO_ARCHIVE_DAYS;
    public int retentionKeep = 0;
    public int retentionMaxAgeDays = 0;
  }

  private Data data = new Data();

  public static LevelCodeSettings getInstance() {
    return ApplicationManager.getApplication().getService(LevelCodeSettings.class);
  }

  public Settings settings() {
    return new Settings(data.storeFolder, data.sidecarPath, data.contextWindow, data.budgetRatio, data.consentThreshold,
        data.autoArchiveDays, data.retentionKeep, data.retentionMaxAgeDays);
  }

  public void set(Settings s) {
    Data d = new Data();
    d.storeFolder = s.storeFolder() == null ? "" : s.storeFolder();
    d.sidecarPath = s.sidecarPath() == null ? "" : s.sidecarPath();
    d.contextWindow = s.contextWindow();
    d.budgetRatio = s.budgetRatio();
    d.consentThreshold = s.consentThreshold();
    d.autoArchiveDays = s.autoArchiveDays();
    d.retentionKeep = s.retentionKeep();
    d.retentionMaxAgeDays = s.retentionMaxAgeDays();
    data = d;
  }

  @Override public Data getState() { return data; }

  @Override public void loadState(Data state) { data = state; }
}
