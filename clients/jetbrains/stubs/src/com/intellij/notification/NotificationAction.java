// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.notification;

import com.intellij.openapi.actionSystem.AnAction;

public abstract class NotificationAction extends AnAction {
  public static NotificationAction createSimpleExpiring(String text, Runnable action) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
