// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileChooser;

public final class FileChooserDescriptorFactory {
  private FileChooserDescriptorFactory() {}

  public static FileChooserDescriptor createSingleFolderDescriptor() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static FileChooserDescriptor createSingleFileDescriptor() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
