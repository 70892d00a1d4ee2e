// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

import com.intellij.openapi.project.Project;

public class AnActionEvent {
  protected AnActionEvent() {}

  public Project getProject() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public Presentation getPresentation() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
