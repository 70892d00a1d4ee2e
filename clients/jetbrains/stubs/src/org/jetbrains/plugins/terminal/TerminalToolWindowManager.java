// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package org.jetbrains.plugins.terminal;

import com.intellij.openapi.project.Project;

public final class TerminalToolWindowManager {
  private TerminalToolWindowManager() {}

  public static TerminalToolWindowManager getInstance(Project project) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public ShellTerminalWidget createLocalShellWidget(String workingDirectory, String tabName) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
