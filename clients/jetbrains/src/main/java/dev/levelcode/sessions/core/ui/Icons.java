// The toolbar's and list's icons, drawn as 16x16 vector shapes in the style of IntelliJ's
// expressive UI icons (one-colour strokes), so the core needs no image files and no IDE.
package dev.levelcode.sessions.core.ui;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Component;
import java.awt.Graphics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Arc2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.RoundRectangle2D;
import java.awt.geom.Ellipse2D;
import java.util.function.Consumer;
import javax.swing.Icon;

public final class Icons {
  private Icons() {}

  private static Icon icon(Consumer<Graphics2D> draw) {
    return new Icon() {
      @Override
      public void paintIcon(Component c, Graphics g0, int x, int y) {
        Graphics2D g = (Graphics2D) g0.create();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        g.translate(x, y);
        Color col = c != null && !c.isEnabled() ? new Color(0xC9CCD6) : Theme.current.icon();
        g.setColor(col);
        g.setStroke(new BasicStroke(1.2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        draw.accept(g);
        g.dispose();
      }

      @Override public int getIconWidth() { return 16; }
      @Override public int getIconHeight() { return 16; }
    };
  }

  /** A speech bubble with a plus: New Chat. */
  public static final Icon NEW_CHAT = icon(g -> {
    g.draw(bubble());
    g.draw(new Line2D.Double(8, 4.5, 8, 9.5));
    g.draw(new Line2D.Double(5.5, 7, 10.5, 7));
  });

  /** A clock with an arrow: Resume Last Chat. */
  public static final Icon RESUME_LAST = icon(g -> {
    g.draw(new Arc2D.Double(2.5, 2.5, 11, 11, 120, 300, Arc2D.OPEN));
    Path2D head = new Path2D.Double();
    head.moveTo(2.2, 3.2);
    head.lineTo(2.6, 6.4);
    head.lineTo(5.6, 5.6);
    g.draw(head);
    g.draw(new Line2D.Double(8, 5, 8, 8));
    g.draw(new Line2D.Double(8, 8, 10.2, 9.5));
  });

  /** A page with an arrow out: Export. */
  public static final Icon EXPORT = icon(g -> {
    Path2D p = new Path2D.Double();
    p.moveTo(6.5, 2.5);
    p.lineTo(3.5, 2.5);
    p.lineTo(3.5, 13.5);
    p.lineTo(12.5, 13.5);
    p.lineTo(12.5, 9.5);
    g.draw(p);
    g.draw(new Line2D.Double(8, 8, 13, 3));
    Path2D h = new Path2D.Double();
    h.moveTo(9.5, 2.8);
    h.lineTo(13.2, 2.8);
    h.lineTo(13.2, 6.5);
    g.draw(h);
  });

  /** A tray with an arrow in: Import Chats from Other AI Tools. */
  public static final Icon IMPORT = icon(g -> {
    Path2D tray = new Path2D.Double();
    tray.moveTo(2.5, 9.5);
    tray.lineTo(2.5, 13.5);
    tray.lineTo(13.5, 13.5);
    tray.lineTo(13.5, 9.5);
    g.draw(tray);
    g.draw(new Line2D.Double(8, 2.5, 8, 10));
    Path2D h = new Path2D.Double();
    h.moveTo(5, 7.2);
    h.lineTo(8, 10.2);
    h.lineTo(11, 7.2);
    g.draw(h);
  });

  /** A circular arrow: Refresh. */
  public static final Icon REFRESH = icon(g -> {
    g.draw(new Arc2D.Double(2.5, 2.5, 11, 11, 60, 290, Arc2D.OPEN));
    Path2D h = new Path2D.Double();
    h.moveTo(10.2, 1.8);
    h.lineTo(11.2, 3.4);
    h.lineTo(9.2, 4.8);
    g.draw(h);
  });

  /** Stacked folders: Show All Projects. */
  public static final Icon ALL_PROJECTS = icon(g -> {
    Path2D p = new Path2D.Double();
    p.moveTo(2.5, 12.5);
    p.lineTo(2.5, 4.5);
    p.lineTo(6, 4.5);
    p.lineTo(7.5, 6);
    p.lineTo(13.5, 6);
    p.lineTo(13.5, 12.5);
    p.closePath();
    g.draw(p);
    g.draw(new Line2D.Double(2.5, 8, 13.5, 8));
  });

  /** A box with a lid: Show Archived, and an archived chat in the list. */
  public static final Icon ARCHIVE = icon(g -> {
    g.draw(new RoundRectangle2D.Double(2, 3, 12, 3, 1.5, 1.5));
    Path2D p = new Path2D.Double();
    p.moveTo(3, 6);
    p.lineTo(3, 13);
    p.lineTo(13, 13);
    p.lineTo(13, 6);
    g.draw(p);
    g.draw(new Line2D.Double(6.5, 8.5, 9.5, 8.5));
  });

  /** A push pin: a pinned chat. */
  public static final Icon PIN = icon(g -> {
    Path2D head = new Path2D.Double();
    head.moveTo(6, 2.5);
    head.lineTo(10, 2.5);
    head.lineTo(9.5, 6.5);
    head.lineTo(11.5, 9);
    head.lineTo(4.5, 9);
    head.lineTo(6.5, 6.5);
    head.closePath();
    g.draw(head);
    g.draw(new Line2D.Double(8, 9, 8, 14));
  });

  /** Three dots: More (Apply Retention…, Relink…). */
  public static final Icon MORE = icon(g -> {
    for (int i = 0; i < 3; i++) g.fill(new Ellipse2D.Double(7, 2.5 + 4.5 * i, 2, 2));
  });

  /** A magnifier: the search field. */
  public static final Icon SEARCH = icon(g -> {
    g.draw(new Ellipse2D.Double(2.5, 2.5, 8, 8));
    g.draw(new Line2D.Double(9.5, 9.5, 13.5, 13.5));
  });

  /** A speech bubble: a chat in the list. */
  public static final Icon CHAT = icon(g -> g.draw(bubble()));

  /** The chat a window owns right now (the current chat): a filled bubble in the accent colour. */
  public static final Icon CHAT_CURRENT = icon(g -> {
    g.setColor(Theme.current.accent());
    g.fill(bubble());
  });

  private static Path2D bubble() {
    Path2D p = new Path2D.Double();
    p.append(new RoundRectangle2D.Double(1.5, 2, 13, 9.5, 4, 4), false);
    Path2D tail = new Path2D.Double();
    tail.moveTo(4.5, 11.5);
    tail.lineTo(4.5, 14.3);
    tail.lineTo(7.8, 11.5);
    p.append(tail, false);
    return p;
  }
}
