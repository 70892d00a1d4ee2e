// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.ui;

public interface InputValidator {
  boolean checkInput(String inputString);

  boolean canClose(String inputString);
}
