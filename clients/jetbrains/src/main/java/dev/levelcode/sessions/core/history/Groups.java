// Groups History entries: the pinned ones first (protocol.md, "Pins and archive"), then by when
// they were last used: Today, Yesterday, This week, Older, in the user's local calendar (not
// rolling 24-hour windows), as clients/vscode/src/history/group.ts does. Pure: callers pass `now`
// and the zone.
package dev.levelcode.sessions.core.history;

import dev.levelcode.sessions.core.Strings;
import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

public final class Groups {
  private Groups() {}

  public enum Key {
    PINNED(Strings.Groups.PINNED), TODAY(Strings.Groups.TODAY), YESTERDAY(Strings.Groups.YESTERDAY), THIS_WEEK(Strings.Groups.THIS_WEEK), OLDER(Strings.Groups.OLDER);

    public final String label;

    Key(String label) { this.label = label; }
  }

  public record Group(Key key, List<SessionSummary> items) {}

  /** The instant of an ISO time, or null when it does not parse. */
  public static Instant parse(String iso) {
    try {
      return iso == null ? null : Instant.parse(iso);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** Which group a time belongs to, seen at `now` (weeks start on Monday). Unparsable: older. */
  public static Key groupOf(String updatedAt, ZonedDateTime now) {
    return groupOf(updatedAt, now, DayOfWeek.MONDAY);
  }

  public static Key groupOf(String updatedAt, ZonedDateTime now, DayOfWeek weekStart) {
    Instant t = parse(updatedAt);
    if (t == null) return Key.OLDER;
    ZoneId zone = now.getZone();
    LocalDate today = now.toLocalDate();
    if (!t.isBefore(today.atStartOfDay(zone).toInstant())) return Key.TODAY;
    if (!t.isBefore(today.minusDays(1).atStartOfDay(zone).toInstant())) return Key.YESTERDAY;
    int back = (today.getDayOfWeek().getValue() - weekStart.getValue() + 7) % 7;
    if (!t.isBefore(today.minusDays(back).atStartOfDay(zone).toInstant())) return Key.THIS_WEEK;
    return Key.OLDER;
  }

  /** Newest first: later updatedAt first, then the larger id (ids start with their birth time). */
  public static final Comparator<SessionSummary> NEWEST_FIRST = (a, b) -> {
    Instant ta = parse(a.updatedAt());
    Instant tb = parse(b.updatedAt());
    long na = ta == null ? Long.MIN_VALUE : ta.toEpochMilli();
    long nb = tb == null ? Long.MIN_VALUE : tb.toEpochMilli();
    if (na != nb) return Long.compare(nb, na);
    return b.id().compareTo(a.id());
  };

  /** Sorts newest first and splits into the non-empty groups, in display order (Pinned first). */
  public static List<Group> group(List<SessionSummary> items, ZonedDateTime now) {
    List<SessionSummary> sorted = new ArrayList<>(items);
    sorted.sort(NEWEST_FIRST);
    Map<Key, List<SessionSummary>> by = new EnumMap<>(Key.class);
    for (SessionSummary s : sorted) {
      by.computeIfAbsent(s.pinned() ? Key.PINNED : groupOf(s.updatedAt(), now), k -> new ArrayList<>()).add(s);
    }
    List<Group> out = new ArrayList<>();
    for (Key k : Key.values()) if (by.containsKey(k)) out.add(new Group(k, List.copyOf(by.get(k))));
    return out;
  }
}
