// What a History entry says: its label (the title on one line), its secondary text
// ("5 min ago · 3 turns · claude-sonnet-4", then "· Claude Code" for an imported chat, then its
// state: pinned, archived, forked from “Title” turn N, moved from …, open in another window,
// interrupted), its tooltip, relative times and the export file name; the same rules as
// clients/vscode/src/history/labels.ts. Pure: callers pass `now` and how to find a title by id.
package dev.levelcode.sessions.core.history;

import dev.levelcode.sessions.core.Strings;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.text.Normalizer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

public final class Labels {
  private Labels() {}

  /** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then "12 Mar" (or "12 Mar 2024"). */
  public static String relativeTime(String iso, ZonedDateTime now) {
    Instant t = Groups.parse(iso);
    if (t == null) return Strings.Time.UNKNOWN;
    long diff = Duration.between(t, now.toInstant()).toMillis();
    if (diff < 60_000) return Strings.Time.JUST_NOW;
    if (diff < 3_600_000) return Strings.Time.minutesAgo(diff / 60_000);
    ZonedDateTime then = t.atZone(now.getZone());
    long days = ChronoUnit.DAYS.between(then.toLocalDate(), now.toLocalDate());
    if (days == 0) return Strings.Time.hoursAgo(diff / 3_600_000);
    if (days == 1) return Strings.Time.YESTERDAY;
    if (days < 7) return Strings.Time.daysAgo(days);
    String base = then.getDayOfMonth() + " " + Strings.Time.MONTHS.get(then.getMonthValue() - 1);
    return then.getYear() == now.getYear() ? base : base + " " + then.getYear();
  }

  /** "2026-07-28 09:12" in the zone of `now`, for tooltips. */
  public static String localStamp(String iso, ZonedDateTime now) {
    Instant t = Groups.parse(iso);
    if (t == null) return iso;
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").format(t.atZone(now.getZone()));
  }

  /** The title on one line, never empty, its control and bidi characters escaped (printable). */
  public static String label(SessionSummary s) {
    String one = s.title() == null ? "" : printable(s.title().replaceAll("\\s+", " ").trim());
    return one.isEmpty() ? Strings.History.UNTITLED : one;
  }

  /**
   * Printing is a boundary (STYLE.md 11d; the sidecar's format/printable.ts has the same rule): text
   * from a session (title, model, folder, preview) is shown with its control characters (C0, DEL,
   * C1) and the characters that reorder or hide text (bidi embeddings, overrides, isolates, marks,
   * line and paragraph separators) as visible escapes: \\n, \\e, \\x07, \\u202e.
   */
  public static String printable(String s) {
    if (s == null) return "";
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean unsafe = c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f
          || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
      if (!unsafe) b.append(c);
      else if (c == '\n') b.append("\\n");
      else if (c == '\r') b.append("\\r");
      else if (c == '\t') b.append("\\t");
      else if (c == 0x1b) b.append("\\e");
      else if (c <= 0xff) b.append(String.format("\\x%02x", (int) c));
      else b.append(String.format("\\u%04x", (int) c));
    }
    return b.toString();
  }

  /** Relative time · turns · model (when known) · the tool an imported chat came from · its state. */
  public static String secondary(SessionSummary s, ZonedDateTime now) { return secondary(s, now, id -> null); }

  /** As secondary(s, now); `titleOf` names the chat a fork was made from (null: not known here). */
  public static String secondary(SessionSummary s, ZonedDateTime now, Function<String, String> titleOf) {
    List<String> parts = new ArrayList<>(List.of(relativeTime(s.updatedAt(), now), Strings.History.turns(s.turns())));
    if (s.model() != null && !s.model().isEmpty()) parts.add(printable(s.model()));
    String tool = sourceTool(s);
    if (tool != null) parts.add(tool);
    parts.addAll(states(s, titleOf));
    return String.join(Strings.History.SEPARATOR, parts);
  }

  /** The row's state, short, for the grey line: pinned, archived, forked, moved, held, interrupted. */
  public static List<String> states(SessionSummary s, Function<String, String> titleOf) {
    List<String> out = new ArrayList<>();
    if (s.pinned()) out.add(Strings.State.PINNED);
    if (s.archived()) out.add(Strings.State.ARCHIVED);
    if (s.forkedFrom() != null && s.forkedFrom().device() != null) out.add(Strings.State.continuedOn(printable(s.forkedFrom().device()), s.forkedFrom().turn()));
    else if (s.forkedFrom() != null) out.add(Strings.State.forkedFrom(parentTitle(s, titleOf), s.forkedFrom().turn()));
    if (s.movedFrom() != null) out.add(Strings.State.movedFrom(printable(shortPath(s.movedFrom()))));
    if (s.heldBy() != null) out.add(Strings.State.HELD);
    if (Boolean.TRUE.equals(s.interrupted())) out.add(Strings.State.INTERRUPTED);
    return out;
  }

  /** The same state as sentences, for the tooltip. */
  public static List<String> stateTips(SessionSummary s, Function<String, String> titleOf) {
    List<String> out = new ArrayList<>();
    if (s.pinned()) out.add(Strings.State.PINNED_TIP);
    if (s.archived()) out.add(Strings.State.ARCHIVED_TIP);
    if (s.forkedFrom() != null && s.forkedFrom().device() != null)
      out.add(Strings.State.continuedOnTip(printable(s.forkedFrom().device()), parentTitle(s, titleOf), s.forkedFrom().id(), s.forkedFrom().turn()));
    else if (s.forkedFrom() != null) out.add(Strings.State.forkedFromTip(parentTitle(s, titleOf), s.forkedFrom().id(), s.forkedFrom().turn()));
    if (s.movedFrom() != null) out.add(Strings.State.movedFromTip(printable(s.movedFrom())));
    if (s.heldBy() != null) out.add(Strings.State.heldTip(s.heldBy().pid(), s.heldBy().host()));
    if (Boolean.TRUE.equals(s.interrupted())) out.add(Strings.State.INTERRUPTED_TIP);
    return out;
  }

  private static String parentTitle(SessionSummary s, Function<String, String> titleOf) {
    String t = titleOf.apply(s.forkedFrom().id());
    return t == null ? null : printable(t.replaceAll("\\s+", " ").trim());
  }

  /** A folder as people read it: the home folder as "~". */
  public static String shortPath(String path) {
    String home = System.getProperty("user.home");
    if (home != null && !home.isEmpty() && !home.equals("/") && (path.equals(home) || path.startsWith(home + java.io.File.separator))) {
      return "~" + path.substring(home.length());
    }
    return path;
  }

  /** Tooltip lines: title, preview, then the facts. */
  public static List<String> tooltip(SessionSummary s, ZonedDateTime now) { return tooltip(s, now, id -> null); }

  /** Tooltip lines: title, preview, the facts, then the state (see stateTips). */
  public static List<String> tooltip(SessionSummary s, ZonedDateTime now, Function<String, String> titleOf) {
    List<String> out = new ArrayList<>();
    out.add(label(s));
    if (s.preview() != null && !s.preview().isBlank() && !s.preview().trim().equals(label(s))) out.add(printable(s.preview().trim()));
    out.add(Strings.History.updated(localStamp(s.updatedAt(), now)));
    out.add(Strings.History.created(localStamp(s.createdAt(), now)));
    out.add(Strings.History.turns(s.turns()) + (s.model() != null ? Strings.History.SEPARATOR + printable(s.model()) : ""));
    out.add(Strings.History.sessionId(s.id()));
    if (s.device() != null && !s.device().isBlank()) out.add(Strings.History.device(s.device()));
    if (s.source() != null) {
      out.add(Strings.History.imported(sourceTool(s), s.source().version(), s.source().id()));
      out.add(Strings.History.importedFile(printable(s.source().path())));
    }
    out.addAll(stateTips(s, titleOf));
    return out;
  }

  /** The tool an imported chat came from, as users name it; null for a chat of ours. */
  public static String sourceTool(SessionSummary s) {
    if (s.source() == null || s.source().tool() == null || s.source().tool().isBlank()) return null;
    return Strings.History.tool(s.source().tool());
  }

  /** A line for screen readers. */
  public static String accessible(SessionSummary s, ZonedDateTime now) { return accessible(s, now, id -> null); }

  public static String accessible(SessionSummary s, ZonedDateTime now, Function<String, String> titleOf) {
    return label(s) + ", " + secondary(s, now, titleOf);
  }

  /** "Export as Markdown"'s file name: the title made safe for any file system, else the id. */
  public static String exportFileName(SessionSummary s) {
    String base = Normalizer.normalize(s.title() == null ? "" : s.title(), Normalizer.Form.NFKC)
        .replaceAll("[\\u0000-\\u001f<>:\"/\\\\|?*\\u007f]+", " ")
        .replaceAll("\\s+", " ")
        .trim()
        .replaceAll("[. ]+$", "");
    if (base.length() > 80) base = base.substring(0, 80).trim();
    return (base.isEmpty() ? s.id() : base) + ".md";
  }

  /** Whether `s` matches the search field's text: every word in the title, preview, model or source tool, any case. */
  public static boolean matches(SessionSummary s, String query) {
    if (query == null || query.isBlank()) return true;
    String hay = (label(s) + "\n" + (s.preview() == null ? "" : s.preview()) + "\n" + (s.model() == null ? "" : s.model())
        + "\n" + (sourceTool(s) == null ? "" : sourceTool(s))).toLowerCase();
    for (String w : query.toLowerCase().trim().split("\\s+")) if (!hay.contains(w)) return false;
    return true;
  }
}
