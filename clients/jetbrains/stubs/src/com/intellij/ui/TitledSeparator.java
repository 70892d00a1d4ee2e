// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui;

import javax.swing.JPanel;

public class TitledSeparator extends JPanel {
  private static final long serialVersionUID = 1L;

  public TitledSeparator(String text) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
