// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.openapi.wm;

import com.intellij.ui.content.ContentManager;

public interface ToolWindow {
  ContentManager getContentManager();

  void activate(Runnable runnable);
}
