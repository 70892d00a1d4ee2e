// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileChooser;

import com.intellij.openapi.project.Project;

public abstract class FileChooserFactory {
  public static FileChooserFactory getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract FileSaverDialog createSaveFileDialog(FileSaverDescriptor descriptor, Project project);
}
