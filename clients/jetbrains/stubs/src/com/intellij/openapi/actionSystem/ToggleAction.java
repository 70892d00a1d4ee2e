// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

public abstract class ToggleAction extends AnAction {
  public abstract boolean isSelected(AnActionEvent e);

  public abstract void setSelected(AnActionEvent e, boolean state);

  @Override
  public void actionPerformed(AnActionEvent e) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
