// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui.components;

import javax.swing.JTextField;

public class JBTextField extends JTextField {
  private static final long serialVersionUID = 1L;

  public JBTextField() {}
}
