// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package org.jetbrains.plugins.terminal;

import java.io.IOException;

public class ShellTerminalWidget {
  protected ShellTerminalWidget() {}

  public void executeCommand(String shellCommand) throws IOException { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
