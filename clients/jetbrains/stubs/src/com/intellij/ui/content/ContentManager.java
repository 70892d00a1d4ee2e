// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui.content;

public interface ContentManager {
  void addContent(Content content);

  boolean removeAllContents(boolean dispose);
}
