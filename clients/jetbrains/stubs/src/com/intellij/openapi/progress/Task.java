// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.progress;

import com.intellij.openapi.project.Project;

public abstract class Task {
  private Task() {}

  public abstract void run(ProgressIndicator indicator);

  public abstract static class Backgroundable extends Task {
    public Backgroundable(Project project, String title, boolean canBeCancelled) { throw new UnsupportedOperationException("IntelliJ API stub"); }
  }
}
