// The colours, fonts and sizes of IntelliJ's light theme (the New UI's "Light"), so that the
// History panel looks like the IDE's own tool windows. The plugin swaps in the IDE's live colours
// (JBColor) through `Theme.current`; the tests and the screenshot use LIGHT.
package dev.levelcode.sessions.core.ui;

import java.awt.Color;
import java.awt.Font;

public record Theme(Color background, Color listBackground, Color foreground, Color secondary, Color header,
    Color separator, Color selection, Color selectionInactive, Color hover, Color border, Color icon, Color accent,
    Color fieldBackground, Color placeholder, Font font, Font small, Font headerFont) {

  public static final Theme LIGHT = new Theme(
      new Color(0xF7F8FA), new Color(0xF7F8FA), new Color(0x000000), new Color(0x818594), new Color(0x6C707E),
      new Color(0xEBECF0), new Color(0xD4E2FF), new Color(0xDFE1E5), new Color(0xDFE1E5), new Color(0xC9CCD6),
      new Color(0x6C707E), new Color(0x3574F0), new Color(0xFFFFFF), new Color(0x8C8C8C),
      new Font(Font.SANS_SERIF, Font.PLAIN, 13), new Font(Font.SANS_SERIF, Font.PLAIN, 12), new Font(Font.SANS_SERIF, Font.BOLD, 12));

  /** The theme new panels use; the plugin sets the IDE's. */
  public static volatile Theme current = LIGHT;
}
