// The core's checklist (Apply Retention…) as an IDE dialog: the text above a scrolling list of
// check boxes (greyed lines cannot be changed: what is left alone), and one button per action,
// the first the default, beside Cancel. Wiring only: the lines and what the answer does are the
// core's (Lifecycle.applyRetention).
package dev.levelcode.sessions.plugin;

import com.intellij.openapi.project.Project;
import com.intellij.openapi.ui.DialogWrapper;
import com.intellij.ui.ScrollPaneFactory;
import com.intellij.ui.components.JBCheckBox;
import com.intellij.ui.components.JBLabel;
import com.intellij.ui.components.panels.VerticalLayout;
import com.intellij.util.ui.JBUI;
import dev.levelcode.sessions.core.Ui;
import java.awt.BorderLayout;
import java.awt.event.ActionEvent;
import java.util.ArrayList;
import java.util.List;
import javax.swing.Action;
import javax.swing.JComponent;
import javax.swing.JPanel;

final class ChecklistDialog extends DialogWrapper {
  private final String message;
  private final List<Ui.Check> items;
  private final List<String> actions;
  private final List<JBCheckBox> boxes = new ArrayList<>();
  private String chosen;

  ChecklistDialog(Project project, String title, String message, List<Ui.Check> items, List<String> actions) {
    super(project, true);
    this.message = message;
    this.items = items;
    this.actions = actions;
    setTitle(title);
    init();
  }

  @Override
  protected JComponent createCenterPanel() {
    JPanel list = new JPanel(new VerticalLayout(JBUI.scale(4)));
    for (Ui.Check c : items) {
      JBCheckBox b = new JBCheckBox(c.text(), c.checked());
      b.setEnabled(c.enabled());
      boxes.add(b);
      list.add(b);
    }
    JPanel panel = new JPanel(new BorderLayout(0, JBUI.scale(8)));
    JBLabel intro = new JBLabel("<html>" + escape(message) + "</html>");
    intro.setAllowAutoWrapping(true);
    panel.add(intro, BorderLayout.NORTH);
    panel.add(ScrollPaneFactory.createScrollPane(list, true), BorderLayout.CENTER);
    panel.setPreferredSize(JBUI.size(560, 320));
    return panel;
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  @Override
  protected Action[] createActions() {
    List<Action> out = new ArrayList<>();
    for (int i = 0; i < actions.size(); i++) {
      String name = actions.get(i);
      Action a = new DialogWrapperAction(name) {
        @Override
        protected void doAction(ActionEvent e) {
          chosen = name;
          close(OK_EXIT_CODE);
        }
      };
      if (i == 0) a.putValue(DEFAULT_ACTION, Boolean.TRUE);
      out.add(a);
    }
    out.add(getCancelAction());
    return out.toArray(Action[]::new);
  }

  /** The button pressed and the lines left checked (after showAndGet() answered true). */
  Ui.Checked answer() {
    List<Integer> checked = new ArrayList<>();
    for (int i = 0; i < boxes.size(); i++) if (boxes.get(i).isSelected() && items.get(i).enabled()) checked.add(i);
    return new Ui.Checked(chosen == null ? actions.get(0) : chosen, checked);
  }
}
