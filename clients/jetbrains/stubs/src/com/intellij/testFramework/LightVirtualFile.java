// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.testFramework;

import com.intellij.openapi.fileTypes.FileType;
import com.intellij.openapi.vfs.VirtualFile;

public class LightVirtualFile extends VirtualFile {
  public LightVirtualFile(String name, FileType fileType, CharSequence text) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setWritable(boolean writable) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
