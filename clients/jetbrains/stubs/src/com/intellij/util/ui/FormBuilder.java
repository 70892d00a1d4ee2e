// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.util.ui;

import javax.swing.JComponent;
import javax.swing.JPanel;

public class FormBuilder {
  protected FormBuilder() {}

  public static FormBuilder createFormBuilder() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public FormBuilder addLabeledComponent(String labelText, JComponent component) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public FormBuilder addComponent(JComponent component) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public FormBuilder addComponentFillVertically(JComponent component, int topInset) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public JPanel getPanel() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
