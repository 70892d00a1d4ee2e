// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.util;

import com.intellij.openapi.Disposable;

public final class Disposer {
  private Disposer() {}

  public static void register(Disposable parent, Disposable child) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
