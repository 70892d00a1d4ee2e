// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui.popup;

import java.util.List;

public abstract class JBPopupFactory {
  public static JBPopupFactory getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract <T> IPopupChooserBuilder<T> createPopupChooserBuilder(List<? extends T> list);
}
