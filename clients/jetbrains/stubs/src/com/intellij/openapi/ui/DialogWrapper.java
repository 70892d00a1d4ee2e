// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui;

import com.intellij.openapi.project.Project;
import java.awt.event.ActionEvent;
import javax.swing.AbstractAction;
import javax.swing.Action;
import javax.swing.JComponent;

public abstract class DialogWrapper {
  public static final int OK_EXIT_CODE = 0;
  public static final String DEFAULT_ACTION = "DefaultAction";

  protected DialogWrapper(Project project, boolean canBeParent) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void setTitle(String title) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  protected void init() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  protected abstract JComponent createCenterPanel();

  protected Action[] createActions() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  protected Action getCancelAction() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public boolean showAndGet() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public void close(int exitCode) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  protected abstract class DialogWrapperAction extends AbstractAction {
    private static final long serialVersionUID = 1L;

    protected DialogWrapperAction(String name) { super(name); }

    @Override
    public void actionPerformed(ActionEvent e) { doAction(e); }

    protected abstract void doAction(ActionEvent e);
  }
}
