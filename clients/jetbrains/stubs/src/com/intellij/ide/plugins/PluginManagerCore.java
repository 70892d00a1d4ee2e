// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ide.plugins;

import com.intellij.openapi.extensions.PluginId;

public final class PluginManagerCore {
  private PluginManagerCore() {}

  public static IdeaPluginDescriptor getPlugin(PluginId id) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
