// Unit tests of the History grouping (clients/vscode/src/history/group.ts): local calendar days,
// the week boundary, DST, odd inputs, and the newest-first order inside groups.

import { describe, expect, it } from 'vitest';
import { addDays, groupOf, groupSessions, newestFirst } from '../../../../clients/vscode/src/history/group';

/** A local time, so the tests mean the same in any TZ. */
const at = (y: number, mo: number, d: number, h = 12, mi = 0) => new Date(y, mo - 1, d, h, mi);
const iso = (d: Date) => d.toISOString();

describe('groupOf', () => {
  // Wednesday 2026-07-29, 09:00 local.
  const now = at(2026, 7, 29, 9);

  it('puts the local calendar day in Today, even minutes after midnight', () => {
    expect(groupOf(iso(at(2026, 7, 29, 0, 1)), now)).toBe('today');
    expect(groupOf(iso(at(2026, 7, 29, 8, 59)), now)).toBe('today');
  });

  it('puts the previous calendar day in Yesterday, not a rolling 24 hours', () => {
    expect(groupOf(iso(at(2026, 7, 28, 23, 59)), now)).toBe('yesterday');
    expect(groupOf(iso(at(2026, 7, 28, 0, 0)), now)).toBe('yesterday');
    expect(groupOf(iso(at(2026, 7, 27, 23, 59)), now)).toBe('thisWeek');
  });

  it('starts the week on Monday by default, on another day when asked', () => {
    expect(groupOf(iso(at(2026, 7, 27, 0, 0)), now)).toBe('thisWeek'); // Monday
    expect(groupOf(iso(at(2026, 7, 26, 23, 59)), now)).toBe('older'); // Sunday
    expect(groupOf(iso(at(2026, 7, 26, 12)), now, { weekStart: 0 })).toBe('thisWeek');
    expect(groupOf(iso(at(2026, 7, 25, 12)), now, { weekStart: 0 })).toBe('older');
  });

  it('has no This week on a Monday or Tuesday beyond Yesterday', () => {
    const monday = at(2026, 7, 27, 9);
    expect(groupOf(iso(at(2026, 7, 26, 12)), monday)).toBe('yesterday');
    expect(groupOf(iso(at(2026, 7, 25, 12)), monday)).toBe('older');
  });

  it('counts a clock ahead as today and an unreadable time as older', () => {
    expect(groupOf(iso(at(2026, 7, 30, 12)), now)).toBe('today');
    expect(groupOf('not a time', now)).toBe('older');
  });

  it('walks calendar days across a DST change', () => {
    // Whatever the zone, adding days lands on local midnight-based dates.
    const d = addDays(at(2026, 3, 30, 0), -2);
    expect([d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours()]).toEqual([2026, 3, 28, 0]);
  });
});

describe('groupSessions', () => {
  const now = at(2026, 7, 29, 9);
  const s = (id: string, d: Date) => ({ id, updatedAt: iso(d) });

  it('returns the non-empty groups in order, newest first inside each', () => {
    const groups = groupSessions(
      [s('a', at(2026, 7, 1)), s('b', at(2026, 7, 29, 8)), s('c', at(2026, 7, 28)), s('d', at(2026, 7, 29, 7)), s('e', at(2025, 1, 1))],
      now,
    );
    expect(groups.map((g) => [g.key, g.items.map((i) => i.id)])).toEqual([
      ['today', ['b', 'd']],
      ['yesterday', ['c']],
      ['older', ['a', 'e']],
    ]);
  });

  it('breaks ties by the larger id, as the sidecar does', () => {
    const t = at(2026, 7, 29, 8);
    expect([s('2026-07-29T06-00-00-aaaa', t), s('2026-07-29T06-00-00-bbbb', t)].sort(newestFirst).map((x) => x.id)).toEqual([
      '2026-07-29T06-00-00-bbbb',
      '2026-07-29T06-00-00-aaaa',
    ]);
  });

  it('gives nothing for nothing', () => {
    expect(groupSessions([], now)).toEqual([]);
  });
});
