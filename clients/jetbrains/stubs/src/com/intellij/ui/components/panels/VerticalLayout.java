// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.ui.components.panels;

import java.awt.Component;
import java.awt.Container;
import java.awt.Dimension;
import java.awt.LayoutManager;

public class VerticalLayout implements LayoutManager {
  public VerticalLayout(int gap) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  @Override public void addLayoutComponent(String name, Component comp) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  @Override public void removeLayoutComponent(Component comp) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  @Override public Dimension preferredLayoutSize(Container parent) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  @Override public Dimension minimumLayoutSize(Container parent) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  @Override public void layoutContainer(Container parent) { throw new UnsupportedOperationException("IntelliJ API stub"); }
}
