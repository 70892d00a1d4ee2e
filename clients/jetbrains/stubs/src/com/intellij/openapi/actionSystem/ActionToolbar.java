// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

import javax.swing.JComponent;

public interface ActionToolbar {
  JComponent getComponent();

  void setTargetComponent(JComponent component);
}
