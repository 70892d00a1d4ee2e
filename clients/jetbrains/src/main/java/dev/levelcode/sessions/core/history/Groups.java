// Times and order of History entries, where the client needs them itself: parsing an ISO time,
// and "newest first" to pick the newest chat (Resume Last Chat). The groups, their headings and
// the row's time label are not computed here: the sidecar sends them with every row
// (session/list's `view`, in the user's time zone; protocol.md "The History view").
package dev.levelcode.sessions.core.history;

import dev.levelcode.sessions.core.rpc.Protocol.SessionSummary;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;

public final class Groups {
  private Groups() {}

  /** The instant of an ISO time, or null when it does not parse. */
  public static Instant parse(String iso) {
    try {
      return iso == null ? null : Instant.parse(iso);
    } catch (DateTimeParseException e) {
      return null;
    }
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
}
