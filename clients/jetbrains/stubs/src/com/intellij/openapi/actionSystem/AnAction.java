// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

public abstract class AnAction {
  public ActionUpdateThread getActionUpdateThread() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void update(AnActionEvent e) {}

  public abstract void actionPerformed(AnActionEvent e);
}
