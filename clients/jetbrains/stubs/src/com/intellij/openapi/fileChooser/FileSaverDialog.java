// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.fileChooser;

import com.intellij.openapi.vfs.VirtualFileWrapper;

public interface FileSaverDialog {
  VirtualFileWrapper save(String filename);
}
