// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui;

import com.intellij.openapi.project.Project;
import javax.swing.Icon;

public class Messages {
  protected Messages() {}

  public static int showDialog(Project project, String message, String title, String[] options, int defaultOptionIndex, Icon icon) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static String showInputDialog(Project project, String message, String title, Icon icon, String initialValue, InputValidator validator) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Icon getErrorIcon() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Icon getWarningIcon() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static Icon getInformationIcon() { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
