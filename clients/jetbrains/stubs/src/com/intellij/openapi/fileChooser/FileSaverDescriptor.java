// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileChooser;

public class FileSaverDescriptor extends FileChooserDescriptor {
  public FileSaverDescriptor(String title, String description, String... extensions) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
