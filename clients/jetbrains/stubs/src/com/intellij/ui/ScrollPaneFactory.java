// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui;

import java.awt.Component;
import javax.swing.JScrollPane;

public final class ScrollPaneFactory {
  private ScrollPaneFactory() {}

  public static JScrollPane createScrollPane(Component view, boolean withoutBorder) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
