// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileEditor;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.vfs.VirtualFile;

public abstract class FileEditorManager {
  public static FileEditorManager getInstance(Project project) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  /** The real method answers the editors it opened (FileEditor[]); plugin/ ignores them. */
  public abstract void openFile(VirtualFile file, boolean focusEditor);
}
