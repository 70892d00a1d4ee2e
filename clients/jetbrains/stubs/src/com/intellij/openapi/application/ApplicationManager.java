// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.application;

public class ApplicationManager {
  protected ApplicationManager() {}

  public static Application getApplication() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
