// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.vfs;

import java.io.File;

public final class VirtualFileWrapper {
  private VirtualFileWrapper() {}

  public File getFile() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
