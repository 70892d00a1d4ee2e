// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.notification;

public final class NotificationGroup {
  private NotificationGroup() {}

  public Notification createNotification(String content, NotificationType type) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
