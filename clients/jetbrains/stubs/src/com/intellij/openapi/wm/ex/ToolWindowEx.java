// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.wm.ex;

import com.intellij.openapi.actionSystem.ActionGroup;
import com.intellij.openapi.wm.ToolWindow;

public interface ToolWindowEx extends ToolWindow {
  void setAdditionalGearActions(ActionGroup additionalGearActions);
}
