// Stub of the IntelliJ Platform API: only what plugin/ uses (clients/jetbrains/stubs/README.md).
package com.intellij.util.ui;

import java.awt.Color;
import java.awt.Dimension;

public class JBUI {
  protected JBUI() {}

  public static int scale(int i) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  /** The real method answers a JBDimension (a Dimension that scales); plugin/ uses it as a Dimension. */
  public static Dimension size(int width, int height) { throw new UnsupportedOperationException("IntelliJ API stub"); }

  public static final class Fonts {
    private Fonts() {}

    public static JBFont label() { throw new UnsupportedOperationException("IntelliJ API stub"); }

    public static JBFont smallFont() { throw new UnsupportedOperationException("IntelliJ API stub"); }
  }

  public static final class CurrentTheme {
    private CurrentTheme() {}

    public static final class ActionButton {
      private ActionButton() {}

      public static Color hoverBackground() { throw new UnsupportedOperationException("IntelliJ API stub"); }
    }

    public static final class Link {
      private Link() {}

      public static final class Foreground {
        private Foreground() {}

        public static final Color ENABLED = Color.BLUE;
      }
    }

    public static final class List {
      private List() {}

      public static final class Selection {
        private Selection() {}

        public static Color background(boolean focused) { throw new UnsupportedOperationException("IntelliJ API stub"); }
      }
    }
  }
}
