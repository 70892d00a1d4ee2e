// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.wm;

import com.intellij.openapi.project.Project;

public interface ToolWindowFactory {
  void createToolWindowContent(Project project, ToolWindow toolWindow);
}
