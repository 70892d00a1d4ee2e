// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui;

import javax.swing.JComponent;
import javax.swing.JPanel;

public class SimpleToolWindowPanel extends JPanel {
  private static final long serialVersionUID = 1L;

  public SimpleToolWindowPanel(boolean vertical, boolean borderless) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setToolbar(JComponent toolbar) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setContent(JComponent content) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
