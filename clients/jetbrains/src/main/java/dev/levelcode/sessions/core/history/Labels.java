// What a History entry says: its label (the full title on one line), its grey line (the
// sidecar's view: source · time · turns · model, then its state: archived, forked from “Title”
// turn N, moved from …, open in another window, interrupted; a pin has its icon), how that line
// fits a narrow panel (the model goes first, then the turns; the tool and the time stay), its
// tooltip and the export file name. The times and groups come from the sidecar (session/list's
// `view`); the tooltip's exact times are local. Pure: callers pass `now` and how to find a title by id.
package dev.levelcode.sessions.core.history;

import dev.levelcode.sessions.core.Strings;
import dev.levelcode.sessions.core.rpc.Protocol;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.text.Normalizer;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;

public final class Labels {
  private Labels() {}

  /** "2026-07-28 09:12" in the zone of `now`, for tooltips. */
  public static String localStamp(String iso, ZonedDateTime now) {
    Instant t = Groups.parse(iso);
    if (t == null) return iso;
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").format(t.atZone(now.getZone()));
  }

  /** The full title on one line, never empty, its control and bidi characters escaped: the sidecar's `view.title`. */
  public static String label(SessionSummary s) {
    if (s.view() != null && s.view().title() != null && !s.view().title().isBlank()) return s.view().title();
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

  /**
   * The grey line's parts: `source` and `time` always stay; a narrow panel drops `model` first,
   * then `turns`, then cuts the state at its end.
   */
  public record Line(String source, String time, String turns, String model, List<String> states) {
    private String join(boolean withTurns, boolean withModel, boolean withStates) {
      List<String> parts = new ArrayList<>();
      if (source != null && !source.isEmpty()) parts.add(source);
      if (time != null && !time.isEmpty()) parts.add(time);
      if (withTurns && turns != null && !turns.isEmpty()) parts.add(turns);
      if (withModel && model != null && !model.isEmpty()) parts.add(model);
      if (withStates) parts.addAll(states);
      return String.join(Strings.History.SEPARATOR, parts);
    }

    /** Every part. */
    public String full() { return join(true, true, true); }

    /**
     * The line in `max` pixels as `width` measures text: whole, else without the model, else
     * without the turns too, else that cut at its end with "…" (the state goes first, then the
     * time; the tool's name is the last to be cut).
     */
    public String fit(int max, ToIntFunction<String> width) {
      for (String candidate : List.of(full(), join(true, false, true), join(false, false, true))) {
        if (width.applyAsInt(candidate) <= max) return candidate;
      }
      return clip(join(false, false, true), max, width);
    }
  }

  /** `s` cut at its end with "…" to fit `max` as `width` measures text. */
  public static String clip(String s, int max, ToIntFunction<String> width) {
    if (width.applyAsInt(s) <= max) return s;
    int end = s.length();
    while (end > 0 && width.applyAsInt(s.substring(0, end) + "…") > max) end--;
    return s.substring(0, end) + "…";
  }

  /** The grey line of `s` from the sidecar's view (a sidecar without it: turns and model). */
  public static Line line(SessionSummary s, Function<String, String> titleOf) {
    List<String> states = states(s, titleOf);
    states.remove(Strings.State.PINNED); // the pin and archive icons say these
    states.remove(Strings.State.ARCHIVED);
    Protocol.View v = s.view();
    if (v != null) return new Line(v.source(), v.time(), v.turns(), v.model(), states);
    return new Line(sourceTool(s), null, Strings.History.turns(s.turns()), s.model() == null ? null : printable(s.model()), states);
  }

  /** The grey line of `s`, whole. */
  public static String secondary(SessionSummary s, Function<String, String> titleOf) { return line(s, titleOf).full(); }

  public static String secondary(SessionSummary s) { return secondary(s, id -> null); }

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

  /** The tool an imported chat came from, as the sidecar names it (else its id); null for a chat of ours. */
  public static String sourceTool(SessionSummary s) {
    if (s.source() == null || s.source().tool() == null || s.source().tool().isBlank()) return null;
    return s.sourceLabel() != null && !s.sourceLabel().isBlank() ? s.sourceLabel() : s.source().tool();
  }

  /** A line for screen readers: the title, then the whole grey line. */
  public static String accessible(SessionSummary s, Function<String, String> titleOf) {
    return label(s) + ", " + secondary(s, titleOf);
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
}
