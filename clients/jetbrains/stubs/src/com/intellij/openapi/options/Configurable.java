// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.options;

import javax.swing.JComponent;

public interface Configurable {
  String getDisplayName();

  JComponent createComponent();

  boolean isModified();

  void apply() throws ConfigurationException;

  default void reset() {}
}
