// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ide;

import java.awt.datatransfer.Transferable;

public abstract class CopyPasteManager {
  public static CopyPasteManager getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract void setContents(Transferable content);
}
