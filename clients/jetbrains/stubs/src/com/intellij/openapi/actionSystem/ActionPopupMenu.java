// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

import javax.swing.JComponent;
import javax.swing.JPopupMenu;

public interface ActionPopupMenu {
  JPopupMenu getComponent();

  void setTargetComponent(JComponent component);
}
