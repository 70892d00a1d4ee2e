// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.progress;

public interface ProgressIndicator {
  void setIndeterminate(boolean indeterminate);

  void setFraction(double fraction);

  void setText2(String text);

  boolean isCanceled();
}
