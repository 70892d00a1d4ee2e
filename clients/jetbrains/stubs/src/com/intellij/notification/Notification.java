// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.notification;

import com.intellij.openapi.actionSystem.AnAction;
import com.intellij.openapi.project.Project;

public class Notification {
  protected Notification() {}

  public Notification addAction(AnAction action) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public Notification whenExpired(Runnable whenExpired) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void notify(Project project) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
