// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileChooser;

public class FileChooserDescriptor {
  protected FileChooserDescriptor() {}
}
