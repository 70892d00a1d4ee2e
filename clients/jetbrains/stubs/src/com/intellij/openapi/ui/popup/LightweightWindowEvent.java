// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui.popup;

public class LightweightWindowEvent {
  protected LightweightWindowEvent() {}

  public boolean isOk() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
