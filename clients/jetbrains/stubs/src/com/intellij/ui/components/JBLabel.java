// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui.components;

import javax.swing.JLabel;

public class JBLabel extends JLabel {
  private static final long serialVersionUID = 1L;

  public JBLabel(String text) { super(text); }

  public JBLabel setAllowAutoWrapping(boolean allow) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
