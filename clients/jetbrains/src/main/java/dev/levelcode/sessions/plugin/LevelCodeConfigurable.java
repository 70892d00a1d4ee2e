// The settings page: store folder, sidecar path, context window, budget and consent threshold,
// and History's lifecycle: auto-archive after N idle days (30; 0 off), retention's most chats per
// project and oldest age kept (both 0, off, by default; Apply Retention… shows what they let go).
// The check of the values is the core's (Settings.problem()); a change restarts every open
// project's sidecar (LevelCodeProjectService.restart), since the sidecar reads them at start.
package dev.levelcode.sessions.plugin;

import com.intellij.openapi.fileChooser.FileChooserDescriptorFactory;
import com.intellij.openapi.options.Configurable;
import com.intellij.openapi.options.ConfigurationException;
import com.intellij.openapi.project.ProjectManager;
import com.intellij.openapi.ui.TextFieldWithBrowseButton;
import com.intellij.ui.TitledSeparator;
import com.intellij.ui.components.JBTextField;
import com.intellij.util.ui.FormBuilder;
import dev.levelcode.sessions.core.Settings;
import javax.swing.JComponent;

public final class LevelCodeConfigurable implements Configurable {
  private final TextFieldWithBrowseButton store = new TextFieldWithBrowseButton();
  private final TextFieldWithBrowseButton sidecar = new TextFieldWithBrowseButton();
  private final JBTextField window = new JBTextField();
  private final JBTextField budget = new JBTextField();
  private final JBTextField consent = new JBTextField();
  private final JBTextField autoArchive = new JBTextField();
  private final JBTextField keep = new JBTextField();
  private final JBTextField maxAge = new JBTextField();

  @Override public String getDisplayName() { return "LevelCode Sessions"; }

  @Override
  public JComponent createComponent() {
    store.addBrowseFolderListener("Store Folder", null, null, FileChooserDescriptorFactory.createSingleFolderDescriptor());
    sidecar.addBrowseFolderListener("Sidecar", null, null, FileChooserDescriptorFactory.createSingleFileDescriptor());
    return FormBuilder.createFormBuilder()
        .addLabeledComponent("Store folder (empty: ~/.levelcode/sessions):", store)
        .addLabeledComponent("Sidecar path (empty: the bundled one, then PATH):", sidecar)
        .addLabeledComponent("Context window when the model does not say (tokens):", window)
        .addLabeledComponent("Share of the window a resume may spend (0–1):", budget)
        .addLabeledComponent("Ask before a summary longer than (tokens):", consent)
        .addComponent(new TitledSeparator("History"))
        .addLabeledComponent("Archive chats idle for more than (days; 0: never):", autoArchive)
        .addLabeledComponent("Retention: keep at most this many chats per project (0: no limit):", keep)
        .addLabeledComponent("Retention: keep no chat older than (days; 0: no limit):", maxAge)
        .addComponent(new com.intellij.ui.components.JBLabel(
            "<html>Archived chats leave History and stay searchable (Show Archived lists them). Tools | LevelCode Sessions |"
            + " Apply Retention… shows what the rules let go before archiving it or moving it to the trash.</html>"))
        .addComponentFillVertically(new javax.swing.JPanel(), 0)
        .getPanel();
  }

  private Settings fromFields() throws ConfigurationException {
    try {
      return new Settings(store.getText().trim(), sidecar.getText().trim(), Integer.parseInt(window.getText().trim()),
          Double.parseDouble(budget.getText().trim()), Integer.parseInt(consent.getText().trim()),
          Integer.parseInt(autoArchive.getText().trim()), Integer.parseInt(keep.getText().trim()), Integer.parseInt(maxAge.getText().trim()));
    } catch (NumberFormatException e) {
      throw new ConfigurationException("Not a number: " + e.getMessage());
    }
  }

  @Override
  public boolean isModified() {
    try {
      return !fromFields().equals(LevelCodeSettings.getInstance().settings());
    } catch (ConfigurationException e) {
      return true;
    }
  }

  @Override
  public void apply() throws ConfigurationException {
    Settings s = fromFields();
    String problem = s.problem();
    if (problem != null) throw new ConfigurationException(problem);
    LevelCodeSettings.getInstance().set(s);
    for (var p : ProjectManager.getInstance().getOpenProjects()) LevelCodeProjectService.getInstance(p).restart();
  }

  @Override
  public void reset() {
    Settings s = LevelCodeSettings.getInstance().settings();
    store.setText(s.storeFolder() == null ? "" : s.storeFolder());
    sidecar.setText(s.sidecarPath() == null ? "" : s.sidecarPath());
    window.setText(Integer.toString(s.contextWindow()));
    budget.setText(Double.toString(s.budgetRatio()));
    consent.setText(Integer.toString(s.consentThreshold()));
    autoArchive.setText(Integer.toString(s.autoArchiveDays()));
    keep.setText(Integer.toString(s.retentionKeep()));
    maxAge.setText(Integer.toString(s.retentionMaxAgeDays()));
  }
}
