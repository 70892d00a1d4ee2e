// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.notification;

public enum NotificationType { INFORMATION, WARNING, ERROR }
