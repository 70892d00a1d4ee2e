// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui;

import com.intellij.openapi.fileChooser.FileChooserDescriptor;
import com.intellij.openapi.project.Project;
import javax.swing.JPanel;

public class TextFieldWithBrowseButton extends JPanel {
  private static final long serialVersionUID = 1L;

  public TextFieldWithBrowseButton() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void addBrowseFolderListener(String title, String description, Project project, FileChooserDescriptor fileChooserDescriptor) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public String getText() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setText(String text) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
