// Unit tests of the History grouping (clients/vscode/src/history/group.ts): local calendar days,
// Previous 7 and 30 days, months, DST, odd inputs, and the newest-first order inside groups.

import { describe, expect, it } from 'vitest';
import { addDays, groupLabel, groupOf, groupSessions, newestFirst } from '../../../../clients/vscode/src/history/group';

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
    expect(groupOf(iso(at(2026, 7, 27, 23, 59)), now)).toBe('last7');
  });

  it('has Previous 7 days, Previous 30 days, then calendar months, as VS Code chat list', () => {
    expect(groupOf(iso(at(2026, 7, 22, 0, 0)), now)).toBe('last7');
    expect(groupOf(iso(at(2026, 7, 21, 23, 59)), now)).toBe('last30');
    expect(groupOf(iso(at(2026, 6, 29, 0, 0)), now)).toBe('last30');
    expect(groupOf(iso(at(2026, 6, 28, 23, 59)), now)).toBe('month:2026-06');
    expect(groupOf(iso(at(2026, 1, 3)), now)).toBe('month:2026-01');
    expect(groupOf(iso(at(2025, 12, 31)), now)).toBe('month:2025-12');
  });

  it('names the groups, a month of another year with its year', () => {
    expect(['today', 'yesterday', 'last7', 'last30'].map((k) => groupLabel(k, now))).toEqual([
      'Today',
      'Yesterday',
      'Previous 7 days',
      'Previous 30 days',
    ]);
    expect(groupLabel('month:2026-06', now)).toBe('June');
    expect(groupLabel('month:2025-12', now)).toBe('December 2025');
  });

  it('counts a clock ahead as today and an unreadable time as unknown', () => {
    expect(groupOf(iso(at(2026, 7, 30, 12)), now)).toBe('today');
    expect(groupOf('not a time', now)).toBe('unknown');
    expect(groupLabel('unknown', now)).toBe('Unknown date');
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
      [
        s('a', at(2026, 7, 1)),
        s('b', at(2026, 7, 29, 8)),
        s('c', at(2026, 7, 28)),
        s('d', at(2026, 7, 29, 7)),
        s('e', at(2025, 1, 1)),
        s('f', at(2026, 7, 25)),
        s('g', at(2026, 6, 3)),
        s('h', at(2026, 6, 20)),
        { id: 'z', updatedAt: 'bad' },
      ],
      now,
    );
    expect(groups.map((g) => [g.key, g.items.map((i) => i.id)])).toEqual([
      ['today', ['b', 'd']],
      ['yesterday', ['c']],
      ['last7', ['f']],
      ['last30', ['a']],
      ['month:2026-06', ['h', 'g']],
      ['month:2025-01', ['e']],
      ['unknown', ['z']],
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

describe('pinned chats', () => {
  const now = at(2026, 7, 29, 9);
  it('come first, in a Pinned group of their own whatever their age, newest first inside it', () => {
    const items = [
      { id: 'a', updatedAt: iso(at(2026, 7, 29, 8)) },
      { id: 'b', updatedAt: iso(at(2025, 3, 2)), pinned: true },
      { id: 'c', updatedAt: iso(at(2026, 7, 28, 8)), pinned: true },
      { id: 'd', updatedAt: iso(at(2026, 7, 28, 9)) },
    ];
    const groups = groupSessions(items, now);
    expect(groups.map((g) => [g.key, g.items.map((i) => i.id)])).toEqual([
      ['pinned', ['c', 'b']],
      ['today', ['a']],
      ['yesterday', ['d']],
    ]);
    expect(groupLabel('pinned', now)).toBe('Pinned');
    expect(
      groupSessions(
        items.filter((i) => !i.pinned),
        now,
      ).map((g) => g.key),
    ).toEqual(['today', 'yesterday']);
  });
});

describe('archived chats', () => {
  const now = at(2026, 7, 29, 9);
  it('come last, in one Archived group newest first, whatever their age; none: no group', () => {
    const items = [
      { id: 'a', updatedAt: iso(at(2026, 7, 29, 8)) },
      { id: 'p', updatedAt: iso(at(2026, 1, 2)), pinned: true },
    ];
    const archived = [
      { id: 'x', updatedAt: iso(at(2024, 3, 2)) },
      { id: 'y', updatedAt: iso(at(2026, 7, 29, 7)) },
    ];
    expect(groupSessions(items, now, archived).map((g) => [g.key, g.items.map((i) => i.id)])).toEqual([
      ['pinned', ['p']],
      ['today', ['a']],
      ['archived', ['y', 'x']],
    ]);
    expect(groupLabel('archived', now)).toBe('Archived');
    expect(groupSessions(items, now, []).map((g) => g.key)).toEqual(['pinned', 'today']);
  });
});
