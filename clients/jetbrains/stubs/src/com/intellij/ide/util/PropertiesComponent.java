// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ide.util;

import com.intellij.openapi.project.Project;

public abstract class PropertiesComponent {
  public static PropertiesComponent getInstance() { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static PropertiesComponent getInstance(Project project) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public abstract String getValue(String name);

  public abstract void setValue(String name, String value);

  public abstract void setValue(String name, boolean value);

  public abstract boolean getBoolean(String name, boolean defaultValue);
}
