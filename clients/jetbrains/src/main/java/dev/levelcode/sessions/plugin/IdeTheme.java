// The core panel's Theme from the IDE's live colours and fonts (JBColor follows the IDE theme,
// light or dark). Wiring only.
package dev.levelcode.sessions.plugin;

import com.intellij.ui.JBColor;
import com.intellij.util.ui.JBUI;
import com.intellij.util.ui.UIUtil;
import dev.levelcode.sessions.core.ui.Theme;

final class IdeTheme {
  private IdeTheme() {}

  static Theme current() {
    return new Theme(
        UIUtil.getPanelBackground(), UIUtil.getListBackground(), UIUtil.getListForeground(),
        JBColor.namedColor("Component.infoForeground", JBColor.GRAY), JBColor.namedColor("Group.separatorColor", JBColor.GRAY),
        JBColor.border(), JBUI.CurrentTheme.List.Selection.background(true), JBUI.CurrentTheme.List.Selection.background(false),
        JBUI.CurrentTheme.ActionButton.hoverBackground(), JBColor.border(),
        JBColor.namedColor("Tree.foreground", JBColor.GRAY), JBUI.CurrentTheme.Link.Foreground.ENABLED,
        UIUtil.getTextFieldBackground(), JBColor.namedColor("TextField.inactiveForeground", JBColor.GRAY),
        JBUI.Fonts.label(), JBUI.Fonts.smallFont(), JBUI.Fonts.label().asBold());
  }
}
