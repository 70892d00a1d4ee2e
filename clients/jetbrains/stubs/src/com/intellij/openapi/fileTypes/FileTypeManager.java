// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileTypes;

public abstract class FileTypeManager {
  public static FileTypeManager getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract FileType getFileTypeByExtension(String extension);
}
