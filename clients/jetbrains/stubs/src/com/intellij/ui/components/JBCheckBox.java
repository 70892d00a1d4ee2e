// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui.components;

import javax.swing.JCheckBox;

public class JBCheckBox extends JCheckBox {
  private static final long serialVersionUID = 1L;

  public JBCheckBox(String text, boolean selected) { super(text, selected); }
}
