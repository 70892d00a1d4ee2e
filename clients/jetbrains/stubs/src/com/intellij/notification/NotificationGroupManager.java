// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.notification;

public interface NotificationGroupManager {
  static NotificationGroupManager getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  NotificationGroup getNotificationGroup(String groupId);
}
