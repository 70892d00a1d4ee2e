// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.options;

public class ConfigurationException extends Exception {
  private static final long serialVersionUID = 1L;

  public ConfigurationException(String message) { super(message); }
}
