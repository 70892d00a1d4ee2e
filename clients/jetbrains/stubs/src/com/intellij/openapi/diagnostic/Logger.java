// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.diagnostic;

public abstract class Logger {
  public static Logger getInstance(Class<?> cl) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract void debug(String message);

  public abstract void info(String message);

  public abstract void warn(String message);
}
