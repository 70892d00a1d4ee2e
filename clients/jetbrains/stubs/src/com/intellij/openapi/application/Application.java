// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.application;

import java.util.concurrent.Future;

public interface Application {
  void invokeLater(Runnable runnable);

  Future<?> executeOnPooledThread(Runnable action);

  <T> T getService(Class<T> serviceClass);
}
