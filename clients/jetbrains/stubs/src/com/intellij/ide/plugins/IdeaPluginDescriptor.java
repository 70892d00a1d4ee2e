// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ide.plugins;

import java.nio.file.Path;

public interface IdeaPluginDescriptor {
  Path getPluginPath();
}
