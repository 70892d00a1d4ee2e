// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.actionSystem;

public abstract class ActionManager {
  public static ActionManager getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract ActionPopupMenu createActionPopupMenu(String place, ActionGroup group);

  public abstract ActionToolbar createActionToolbar(String place, ActionGroup group, boolean horizontal);

  public abstract AnAction getAction(String actionId);
}
