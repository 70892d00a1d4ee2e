// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

public final class Presentation {
  private Presentation() {}

  public void setEnabled(boolean enabled) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setEnabledAndVisible(boolean enabled) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setText(String text) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
