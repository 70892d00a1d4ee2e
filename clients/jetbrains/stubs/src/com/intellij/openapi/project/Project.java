// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.project;

public interface Project {
  String getBasePath();

  <T> T getService(Class<T> serviceClass);
}
