// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.components;

public interface PersistentStateComponent<T> {
  T getState();

  void loadState(T state);
}
