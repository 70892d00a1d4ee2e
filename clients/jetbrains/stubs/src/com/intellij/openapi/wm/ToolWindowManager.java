// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.wm;

import com.intellij.openapi.project.Project;

public abstract class ToolWindowManager {
  public static ToolWindowManager getInstance(Project project) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract ToolWindow getToolWindow(String id);
}
