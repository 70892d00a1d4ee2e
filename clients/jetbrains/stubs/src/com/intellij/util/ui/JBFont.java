// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.util.ui;

import java.awt.Font;

public class JBFont extends Font {
  private static final long serialVersionUID = 1L;

  private JBFont(Font font) { super(font); }

  public JBFont asBold() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
