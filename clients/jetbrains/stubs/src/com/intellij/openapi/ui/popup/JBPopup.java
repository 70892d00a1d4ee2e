// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui.popup;

import com.intellij.openapi.project.Project;

public interface JBPopup {
  void showCenteredInCurrentWindow(Project project);
}
