// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.project;

public abstract class ProjectManager {
  public static ProjectManager getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract Project[] getOpenProjects();
}
