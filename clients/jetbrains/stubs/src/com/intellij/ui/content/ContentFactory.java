// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui.content;

import javax.swing.JComponent;

public interface ContentFactory {
  static ContentFactory getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  Content createContent(JComponent component, String displayName, boolean isLockable);
}
