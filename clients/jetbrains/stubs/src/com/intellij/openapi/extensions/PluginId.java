// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.extensions;

public final class PluginId {
  private PluginId() {}

  public static PluginId getId(String idString) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
