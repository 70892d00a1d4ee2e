// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.progress;

public abstract class ProgressManager {
  public static ProgressManager getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract void run(Task task);
}
