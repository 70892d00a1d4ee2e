// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.util.ui;

import java.awt.Color;

public final class UIUtil {
  private UIUtil() {}

  public static Color getPanelBackground() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Color getListBackground() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Color getListForeground() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Color getTextFieldBackground() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
