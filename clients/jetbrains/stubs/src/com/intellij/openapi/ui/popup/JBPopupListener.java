// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui.popup;

public interface JBPopupListener {
  default void onClosed(LightweightWindowEvent event) {}
}
