// The History tool window's content, in Swing (what IntelliJ's own tool windows are made of): a
// toolbar (New Chat, Resume Last Chat, Export Chat as Markdown, Import Chats from Other AI Tools,
// Refresh, Show All Projects, Show Archived, More: Apply Retention…, Relink Chats from Another
// Folder…), a search field (full text, through session/search), and the grouped list (the
// sidecar's groups and headings; each chat's full title, cut at the panel's edge, then its tool,
// time, turns, model and state in grey: a narrow panel drops the model first, then the turns,
// keeping the tool and the time), an empty state that offers Import, and a context menu (Resume, Open Transcript, Fork from Turn…, Rename…,
// Pin/Unpin, Archive/Unarchive, Copy as Markdown, Export…, Delete). Double-click or Enter
// resumes, Delete deletes. It renders the HistoryModel's snapshots and calls Chat and Lifecycle
// for every action: no logic of its own beyond which row is selected.
package dev.levelcode.sessions.core.ui;

import dev.levelcode.sessions.core.Chat;
import dev.levelcode.sessions.core.Lifecycle;
import dev.levelcode.sessions.core.Strings;
import dev.levelcode.sessions.core.history.HistoryModel;
import dev.levelcode.sessions.core.history.HistoryModel.Entry;
import dev.levelcode.sessions.core.history.HistoryModel.Header;
import dev.levelcode.sessions.core.history.HistoryModel.Row;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.awt.BorderLayout;
import java.awt.Component;
import java.awt.Dimension;
import java.awt.FontMetrics;
import java.awt.Graphics;
import java.awt.Graphics2D;
import java.awt.Insets;
import java.awt.RenderingHints;
import java.awt.event.ActionEvent;
import java.awt.event.KeyEvent;
import java.awt.event.MouseAdapter;
import java.awt.event.MouseEvent;
import java.util.function.Consumer;
import javax.swing.AbstractAction;
import javax.swing.Action;
import javax.swing.BorderFactory;
import javax.swing.DefaultListModel;
import javax.swing.Icon;
import javax.swing.JButton;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JList;
import javax.swing.JMenuItem;
import javax.swing.JPanel;
import javax.swing.JPopupMenu;
import javax.swing.JScrollPane;
import javax.swing.JTextField;
import javax.swing.JToggleButton;
import javax.swing.JToolBar;
import javax.swing.KeyStroke;
import javax.swing.ListCellRenderer;
import javax.swing.ListSelectionModel;
import javax.swing.SwingUtilities;
import javax.swing.border.AbstractBorder;
import javax.swing.event.DocumentEvent;
import javax.swing.event.DocumentListener;

public final class HistoryPanel extends JPanel {
  private final HistoryModel model;
  private final Chat chat;
  private final Lifecycle lifecycle;
  private final dev.levelcode.sessions.core.Importer importer;
  private final java.awt.CardLayout cards = new java.awt.CardLayout();
  private final JPanel center = new JPanel(cards);
  private final JButton emptyImport = new JButton(Strings.Import.ACTION);
  private final javax.swing.Timer searchDelay = new javax.swing.Timer(200, e -> searchNow());
  private final Theme theme = Theme.current;
  private final DefaultListModel<Row> rows = new DefaultListModel<>();
  private final JList<Row> list = new JList<>(rows);
  private final JTextField search = new JTextField();
  private final JToolBar toolbar = new JToolBar();
  private final JLabel status = new JLabel();
  private final JPopupMenu menu = new JPopupMenu();
  private final JPopupMenu more = new JPopupMenu();
  private volatile java.util.function.BiConsumer<Component, java.awt.Point> popupHandler;
  private JMenuItem pinItem;
  private JMenuItem archiveItem;
  private volatile HistoryModel.Snapshot shown;
  private volatile boolean emptyShown;
  private final java.util.List<Consumer<HistoryModel.Snapshot>> renderedListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  public HistoryPanel(HistoryModel model, Chat chat, Lifecycle lifecycle) { this(model, chat, lifecycle, null); }

  /** With an Importer: the toolbar and the empty History offer "Import Chats from Other AI Tools…". */
  public HistoryPanel(HistoryModel model, Chat chat, Lifecycle lifecycle, dev.levelcode.sessions.core.Importer importer) {
    super(new BorderLayout());
    this.model = model;
    this.chat = chat;
    this.lifecycle = lifecycle;
    this.importer = importer;
    setName("levelcode.history");
    setBackground(theme.background());
    add(top(), BorderLayout.NORTH);
    center.add(listPane(), "list");
    center.add(emptyPane(), "empty");
    add(center, BorderLayout.CENTER);
    add(statusBar(), BorderLayout.SOUTH);
    buildMenu();
    model.onSnapshot(s -> SwingUtilities.invokeLater(() -> render(s)));
    render(model.snapshot());
  }

  // ---- layout ----

  private JComponent top() {
    toolbar.setFloatable(false);
    toolbar.setBorder(BorderFactory.createEmptyBorder(4, 6, 4, 6));
    toolbar.setBackground(theme.background());
    toolbar.add(button("levelcode.newChat", Icons.NEW_CHAT, Strings.Actions.NEW_CHAT, chat::startNewChat));
    toolbar.add(button("levelcode.resumeLast", Icons.RESUME_LAST, Strings.Actions.RESUME_LAST, chat::resumeLast));
    toolbar.add(button("levelcode.export", Icons.EXPORT, Strings.Actions.EXPORT, () -> withSelected(chat::exportToFile)));
    if (importer != null) toolbar.add(button("levelcode.import", Icons.IMPORT, Strings.Import.ACTION, this::importChats));
    toolbar.add(button("levelcode.refresh", Icons.REFRESH, Strings.Actions.REFRESH, model::refresh));
    toolbar.addSeparator(new Dimension(9, 16));
    JToggleButton all = new JToggleButton(Icons.ALL_PROJECTS);
    style(all, "levelcode.showAll", Strings.Actions.SHOW_ALL);
    all.addActionListener(e -> model.showAll(all.isSelected()));
    toolbar.add(all);
    JToggleButton archived = new JToggleButton(Icons.ARCHIVE);
    style(archived, "levelcode.showArchived", Strings.Actions.SHOW_ARCHIVED);
    archived.addActionListener(e -> model.showArchived(archived.isSelected()));
    toolbar.add(archived);
    more.setName("levelcode.more.menu");
    moreItem("levelcode.more.retention", Strings.Actions.RETENTION, lifecycle::applyRetention);
    moreItem("levelcode.more.relink", Strings.Actions.RELINK, lifecycle::relink);
    JButton dots = new JButton(Icons.MORE);
    style(dots, "levelcode.more", Strings.Actions.MORE);
    dots.addActionListener(e -> more.show(dots, 0, dots.getHeight()));
    toolbar.add(dots);

    search.setName("levelcode.search");
    search.setFont(theme.font());
    search.setBackground(theme.fieldBackground());
    search.setBorder(new SearchBorder());
    search.getAccessibleContext().setAccessibleName(Strings.History.SEARCH_PLACEHOLDER);
    // Full-text search through the sidecar, once typing pauses (an empty field shows History at once).
    searchDelay.setRepeats(false);
    search.getDocument().addDocumentListener(new DocumentListener() {
      public void insertUpdate(DocumentEvent e) { searchLater(); }
      public void removeUpdate(DocumentEvent e) { searchLater(); }
      public void changedUpdate(DocumentEvent e) { searchLater(); }
    });
    JPanel searchRow = new JPanel(new BorderLayout());
    searchRow.setBackground(theme.background());
    searchRow.setBorder(BorderFactory.createEmptyBorder(2, 8, 6, 8));
    searchRow.add(search);

    JPanel top = new JPanel(new BorderLayout());
    top.setBackground(theme.background());
    top.add(toolbar, BorderLayout.NORTH);
    top.add(searchRow, BorderLayout.SOUTH);
    return top;
  }

  private void searchLater() {
    if (search.getText().isBlank()) {
      searchDelay.stop();
      searchNow();
    } else {
      searchDelay.restart();
    }
  }

  private void searchNow() { model.search(search.getText()); }

  /** Runs "Import Chats from Other AI Tools…". */
  public void importChats() {
    if (importer != null) importer.run();
  }

  /** The empty History: what it is, and the Import link. */
  private JComponent emptyPane() {
    JPanel p = new JPanel(new java.awt.GridBagLayout());
    p.setName("levelcode.empty");
    p.setBackground(theme.listBackground());
    JPanel col = new JPanel();
    col.setOpaque(false);
    col.setLayout(new javax.swing.BoxLayout(col, javax.swing.BoxLayout.Y_AXIS));
    JLabel title = new JLabel(Strings.History.EMPTY);
    title.setFont(theme.font());
    title.setForeground(theme.secondary());
    JLabel hint = new JLabel("<html><div style='text-align:center;width:220px'>" + Strings.History.EMPTY_IMPORT + "</div></html>");
    hint.setFont(theme.small());
    hint.setForeground(theme.secondary());
    emptyImport.setName("levelcode.empty.import");
    emptyImport.setFont(theme.font());
    emptyImport.setForeground(theme.accent());
    emptyImport.setBorderPainted(false);
    emptyImport.setContentAreaFilled(false);
    emptyImport.setFocusPainted(false);
    emptyImport.setCursor(java.awt.Cursor.getPredefinedCursor(java.awt.Cursor.HAND_CURSOR));
    emptyImport.addActionListener(e -> importChats());
    for (JComponent c : new JComponent[] {title, hint, emptyImport}) {
      c.setAlignmentX(Component.CENTER_ALIGNMENT);
      col.add(c);
      col.add(javax.swing.Box.createVerticalStrut(6));
    }
    p.add(col);
    return p;
  }

  private JButton button(String name, Icon icon, String tip, Runnable run) {
    JButton b = new JButton(icon);
    style(b, name, tip);
    b.addActionListener(e -> run.run());
    return b;
  }

  private void style(javax.swing.AbstractButton b, String name, String tip) {
    b.setName(name);
    b.setToolTipText(tip);
    b.getAccessibleContext().setAccessibleName(tip);
    b.setFocusable(false);
    b.setContentAreaFilled(false);
    b.setBorderPainted(false);
    b.setRolloverEnabled(true);
    b.setMargin(new Insets(4, 4, 4, 4));
    b.setPreferredSize(new Dimension(26, 26));
    b.setUI(new javax.swing.plaf.basic.BasicButtonUI() {
      @Override
      public void paint(Graphics g0, JComponent c) {
        javax.swing.AbstractButton ab = (javax.swing.AbstractButton) c;
        if (ab.getModel().isRollover() || ab.getModel().isPressed() || ab.isSelected()) {
          Graphics2D g = (Graphics2D) g0.create();
          g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
          g.setColor(theme.hover());
          g.fillRoundRect(1, 1, c.getWidth() - 2, c.getHeight() - 2, 8, 8);
          g.dispose();
        }
        super.paint(g0, c);
      }
    });
  }

  private JComponent listPane() {
    list.setName("levelcode.list");
    list.setBackground(theme.listBackground());
    list.setSelectionMode(ListSelectionModel.SINGLE_SELECTION);
    list.setCellRenderer(new Renderer());
    list.setFixedCellHeight(-1);
    list.setSelectionModel(new javax.swing.DefaultListSelectionModel() {
      @Override
      public void setSelectionInterval(int a, int b) {
        if (b >= 0 && b < rows.size() && rows.get(b) instanceof Header) return; // headers are not selectable
        super.setSelectionInterval(a, b);
      }
    });
    list.addMouseListener(new MouseAdapter() {
      @Override
      public void mouseClicked(MouseEvent e) {
        if (e.getClickCount() == 2 && SwingUtilities.isLeftMouseButton(e)) resumeSelected();
      }
      @Override public void mousePressed(MouseEvent e) { popup(e); }
      @Override public void mouseReleased(MouseEvent e) { popup(e); }
    });
    bind("ENTER", "resume", this::resumeSelected);
    bind("DELETE", "delete", () -> withSelected(lifecycle::delete));
    bind("F2", "rename", () -> withSelected(chat::rename));
    JScrollPane pane = new JScrollPane(list);
    pane.setBorder(BorderFactory.createMatteBorder(1, 0, 0, 0, theme.separator()));
    pane.getViewport().setBackground(theme.listBackground());
    return pane;
  }

  private void bind(String key, String name, Runnable run) {
    list.getInputMap(JComponent.WHEN_FOCUSED).put(KeyStroke.getKeyStroke(key), name);
    list.getActionMap().put(name, new AbstractAction() {
      @Override public void actionPerformed(ActionEvent e) { run.run(); }
    });
  }

  private JComponent statusBar() {
    status.setName("levelcode.status");
    status.setFont(theme.small());
    status.setForeground(theme.secondary());
    status.setBorder(BorderFactory.createCompoundBorder(BorderFactory.createMatteBorder(1, 0, 0, 0, theme.separator()),
        BorderFactory.createEmptyBorder(3, 10, 3, 10)));
    return status;
  }

  private void buildMenu() {
    menu.setName("levelcode.menu");
    item("levelcode.menu.resume", Strings.Actions.RESUME, this::resumeSelected);
    item("levelcode.menu.transcript", Strings.Actions.OPEN_TRANSCRIPT, () -> withSelected(chat::openTranscript));
    item("levelcode.menu.fork", Strings.Actions.FORK, () -> withSelected(lifecycle::forkFromTurn));
    menu.addSeparator();
    item("levelcode.menu.rename", Strings.Actions.RENAME, () -> withSelected(chat::rename));
    pinItem = item("levelcode.menu.pin", Strings.Actions.PIN, () -> withSelected(s -> lifecycle.setPinned(s, !s.pinned())));
    archiveItem = item("levelcode.menu.archive", Strings.Actions.ARCHIVE, () -> withSelected(s -> lifecycle.setArchived(s, !s.archived())));
    item("levelcode.menu.copy", Strings.Actions.COPY, () -> withSelected(chat::copyMarkdown));
    item("levelcode.menu.export", Strings.Actions.EXPORT, () -> withSelected(chat::exportToFile));
    menu.addSeparator();
    item("levelcode.menu.delete", Strings.Actions.DELETE, () -> withSelected(lifecycle::delete));
  }

  private JMenuItem item(String name, String text, Runnable run) {
    JMenuItem i = new JMenuItem(text);
    i.setName(name);
    i.addActionListener(e -> run.run());
    menu.add(i);
    return i;
  }

  private void moreItem(String name, String text, Runnable run) {
    JMenuItem i = new JMenuItem(text);
    i.setName(name);
    i.addActionListener(e -> run.run());
    more.add(i);
  }

  /** The context menu's items as they read for the selected chat (Pin or Unpin, Archive or Unarchive). */
  public void updateMenu() {
    SessionSummary s = selected();
    pinItem.setText(s != null && s.pinned() ? Strings.Actions.UNPIN : Strings.Actions.PIN);
    archiveItem.setText(s != null && s.archived() ? Strings.Actions.UNARCHIVE : Strings.Actions.ARCHIVE);
  }

  private void popup(MouseEvent e) {
    if (!e.isPopupTrigger()) return;
    int i = list.locationToIndex(e.getPoint());
    if (i >= 0 && rows.get(i) instanceof Entry) list.setSelectedIndex(i);
    if (selected() == null) return;
    var h = popupHandler;
    if (h != null) {
      h.accept(list, e.getPoint());
      return;
    }
    updateMenu();
    menu.show(list, e.getX(), e.getY());
  }

  // ---- state ----

  private void render(HistoryModel.Snapshot s) {
    String keep = selected() == null ? null : selected().id();
    rows.clear();
    for (Row r : s.rows()) rows.addElement(r);
    int index = -1;
    for (int i = 0; i < rows.size(); i++) {
      if (rows.get(i) instanceof Entry e && e.session().id().equals(keep)) index = i;
    }
    if (index >= 0) list.setSelectedIndex(index);
    updateMenu();
    int n = s.sessions().size();
    String where = model.showsAll() ? "all projects" : shortProject(model.project());
    status.setText((model.showsArchived() ? Strings.History.archivedCount(n) : Strings.History.count(n)) + (where == null ? "" : Strings.History.SEPARATOR + where)
        + (s.problems() > 0 ? Strings.History.SEPARATOR + Strings.History.problems(s.problems()) : ""));
    shown = s;
    // The empty History (no chat at all, no search): the Import link instead of the list.
    boolean offerImport = importer != null && s.rows().isEmpty() && model.query().isEmpty() && model.emptyOfChats()
        && s.error() == null && !Strings.History.LOADING.equals(s.emptyText());
    emptyShown = offerImport;
    cards.show(center, offerImport ? "empty" : "list");
    list.repaint();
    for (Consumer<HistoryModel.Snapshot> l : renderedListeners) l.accept(s);
  }

  private static String shortProject(String p) {
    if (p == null) return null;
    int i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
    return i >= 0 && i < p.length() - 1 ? p.substring(i + 1) : p;
  }

  /** Told on the event thread after each snapshot is on screen (tests wait on it). */
  public void onRendered(Consumer<HistoryModel.Snapshot> l) { renderedListeners.add(l); }

  public HistoryModel.Snapshot shown() { return shown; }

  /** The selected chat, or null. */
  public SessionSummary selected() {
    Row r = list.getSelectedValue();
    return r instanceof Entry e ? e.session() : null;
  }

  /** Selects the chat of `id` if it is listed; true when it is. */
  public boolean select(String id) {
    for (int i = 0; i < rows.size(); i++) {
      if (rows.get(i) instanceof Entry e && e.session().id().equals(id)) {
        list.setSelectedIndex(i);
        list.ensureIndexIsVisible(i);
        return true;
      }
    }
    return false;
  }

  private void resumeSelected() { withSelected(s -> chat.resume(s, false)); }

  private void withSelected(Consumer<SessionSummary> f) {
    SessionSummary s = selected();
    if (s != null) f.accept(s);
  }

  public JList<Row> listComponent() { return list; }
  public JTextField searchField() { return search; }
  public JToolBar toolbar() { return toolbar; }
  public JPopupMenu menu() { return menu; }
  public JPopupMenu moreMenu() { return more; }
  public JLabel status() { return status; }
  /** The empty History's Import link (shown only when there is no chat at all). */
  public JButton emptyImportLink() { return emptyImport; }
  /** Whether the empty History with its Import link is showing instead of the list. */
  public boolean showsEmptyImport() { return emptyShown; }

  /** Shows another context menu (the plugin's ActionPopupMenu) at a point of `list` instead of the core's. */
  public void setPopupHandler(java.util.function.BiConsumer<Component, java.awt.Point> h) { popupHandler = h; }

  /** Hides the core's toolbar where the IDE draws its own (the plugin's ActionToolbar). */
  public void setToolbarVisible(boolean on) { toolbar.setVisible(on); }

  // ---- painting ----

  /** The list's rows: a group header (grey, bold, small), or a chat (icon, title, grey secondary line). */
  private final class Renderer extends JPanel implements ListCellRenderer<Row> {
    private Row row;
    private boolean selected;
    private boolean focused;

    Renderer() { setOpaque(false); }

    @Override
    public Component getListCellRendererComponent(JList<? extends Row> l, Row value, int index, boolean isSelected, boolean hasFocus) {
      row = value;
      selected = isSelected;
      focused = l.hasFocus();
      if (value instanceof Entry e) {
        setToolTipText(e.tooltip());
        getAccessibleContext().setAccessibleName(e.accessible());
      } else if (value instanceof Header h) {
        setToolTipText(null);
        getAccessibleContext().setAccessibleName(h.label());
      }
      return this;
    }

    @Override
    public Dimension getPreferredSize() {
      return new Dimension(200, row instanceof Header ? 28 : 44);
    }

    @Override
    protected void paintComponent(Graphics g0) {
      Graphics2D g = (Graphics2D) g0.create();
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_LCD_HRGB);
      int w = getWidth();
      if (row instanceof Header h) {
        g.setFont(theme.headerFont());
        g.setColor(theme.header());
        FontMetrics fm = g.getFontMetrics();
        int y = getHeight() - 8;
        g.drawString(h.label(), 12, y);
        int x = 12 + fm.stringWidth(h.label()) + 8;
        g.setColor(theme.separator());
        g.drawLine(x, y - fm.getAscent() / 2 + 1, w - 12, y - fm.getAscent() / 2 + 1);
      } else if (row instanceof Entry e) {
        if (selected) {
          g.setColor(focused ? theme.selection() : theme.selectionInactive());
          g.fillRoundRect(6, 1, w - 12, getHeight() - 2, 8, 8);
        }
        boolean current = e.session().id().equals(chat.current());
        (current ? Icons.CHAT_CURRENT : e.session().archived() ? Icons.ARCHIVE : Icons.CHAT).paintIcon(this, g, 14, 7);
        int x = 38;
        int right = 12;
        if (e.session().pinned()) {
          Icons.PIN.paintIcon(this, g, w - 12 - 16, 6);
          right += 20;
        }
        g.setFont(theme.font());
        g.setColor(theme.foreground());
        drawClipped(g, e.label(), x, 19, w - x - right);
        g.setFont(theme.small());
        g.setColor(theme.secondary());
        g.drawString(greyLine(e, w, g.getFontMetrics()), x, 36);
      }
      g.dispose();
    }

    private void drawClipped(Graphics2D g, String s, int x, int y, int max) {
      FontMetrics fm = g.getFontMetrics();
      if (fm.stringWidth(s) <= max) {
        g.drawString(s, x, y);
        return;
      }
      String dots = "…";
      int end = s.length();
      while (end > 0 && fm.stringWidth(s.substring(0, end) + dots) > max) end--;
      g.drawString(s.substring(0, end) + dots, x, y);
    }
  }

  @Override
  public void paint(Graphics g) {
    super.paint(g);
    if (rows.isEmpty() && shown != null && !emptyShown) {
      // The empty text, centred in the list as IntelliJ's StatusText is.
      Graphics2D g2 = (Graphics2D) g.create();
      g2.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g2.setFont(theme.font());
      g2.setColor(theme.secondary());
      java.awt.Rectangle r = SwingUtilities.convertRectangle(list.getParent(), list.getParent().getBounds(), this);
      String text = shown.emptyText();
      int tw = g2.getFontMetrics().stringWidth(text);
      g2.drawString(text, r.x + Math.max(8, (r.width - tw) / 2), r.y + 40);
      g2.dispose();
    }
  }

  /** The search field's look: a rounded field with a magnifier and the placeholder. */
  private final class SearchBorder extends AbstractBorder {
    @Override
    public void paintBorder(Component c, Graphics g0, int x, int y, int w, int h) {
      Graphics2D g = (Graphics2D) g0.create();
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setColor(c.hasFocus() ? theme.accent() : theme.border());
      g.drawRoundRect(x, y, w - 1, h - 1, 8, 8);
      Icons.SEARCH.paintIcon(c, g, x + 7, y + (h - 16) / 2);
      JTextField f = (JTextField) c;
      if (f.getText().isEmpty()) {
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setFont(theme.font());
        g.setColor(theme.placeholder());
        g.drawString(Strings.History.SEARCH_PLACEHOLDER, x + 29, y + (h + g.getFontMetrics().getAscent()) / 2 - 2);
      }
      g.dispose();
    }

    @Override
    public Insets getBorderInsets(Component c) { return new Insets(5, 29, 5, 8); }
  }

  /** The grey line of a row `w` pixels wide, as `fm` measures it: see Labels.Line.fit. */
  private static String greyLine(Entry e, int w, FontMetrics fm) {
    return e.line().fit(w - 38 - 12, fm::stringWidth);
  }

  /** The grey line the list draws for chat `id` at its present width (null when not listed). */
  public String shownGreyLine(String id) {
    FontMetrics fm = list.getFontMetrics(theme.small());
    for (int i = 0; i < rows.size(); i++) {
      if (rows.get(i) instanceof Entry e && e.session().id().equals(id)) return greyLine(e, list.getWidth(), fm);
    }
    return null;
  }

  /** An Action for the plugin's keymap or menus that runs `f` on the selected chat. */
  public Action onSelected(String name, Consumer<SessionSummary> f) {
    return new AbstractAction(name) {
      @Override public void actionPerformed(ActionEvent e) { withSelected(f); }
    };
  }
}
