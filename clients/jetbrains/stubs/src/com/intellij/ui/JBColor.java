// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui;

import java.awt.Color;

public class JBColor extends Color {
  private static final long serialVersionUID = 1L;
  public static final JBColor GRAY = new JBColor(Color.GRAY, Color.GRAY);

  public JBColor(Color regular, Color dark) { super(regular.getRGB(), true); }

  public static JBColor namedColor(String propertyName, Color defaultColor) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Color border() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
