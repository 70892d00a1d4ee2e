// Unit tests of what a History entry says (clients/vscode/src/history/labels.ts): relative
// times, the description "time · turns · model", tooltips and export file names.

import { describe, expect, it } from 'vitest';
import {
  accessibilityLabel,
  calendarDaysBetween,
  exportFileName,
  itemDescription,
  itemLabel,
  relativeTime,
  tooltipLines,
} from '../../../../clients/vscode/src/history/labels';

const at = (y: number, mo: number, d: number, h = 12, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s);
const now = at(2026, 7, 29, 15, 30);
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

describe('relativeTime', () => {
  it.each([
    [ago(0), 'now'],
    [ago(59_000), 'now'],
    [ago(-30_000), 'now'],
    [ago(60_000), '1 min'],
    [ago(59 * 60_000), '59 min'],
    [ago(60 * 60_000), '1 h'],
    [at(2026, 7, 29, 0, 5).toISOString(), '15 h'],
    // Under the heading Yesterday: not the word again.
    [at(2026, 7, 28, 23, 50).toISOString(), '1 d'],
    [at(2026, 7, 27, 10).toISOString(), '2 d'],
    [at(2026, 7, 23, 10).toISOString(), '6 d'],
    [at(2026, 7, 22, 10).toISOString(), '1 wk'],
    [at(2026, 6, 29, 10).toISOString(), '4 wk'],
    [at(2026, 6, 28, 10).toISOString(), '28 Jun'],
    [at(2025, 12, 31, 10).toISOString(), '31 Dec 2025'],
    ['garbage', 'unknown time'],
  ])('%s -> %s', (iso, want) => {
    expect(relativeTime(iso, now)).toBe(want);
    expect(relativeTime(iso, now)).not.toMatch(/yesterday/i);
  });

  it('spells the times out for screen readers', () => {
    expect(relativeTime(ago(0), now, true)).toBe('just now');
    expect(relativeTime(ago(60_000), now, true)).toBe('1 minute ago');
    expect(relativeTime(ago(5 * 3600_000), now, true)).toBe('5 hours ago');
    expect(relativeTime(at(2026, 7, 27, 10).toISOString(), now, true)).toBe('2 days ago');
    expect(relativeTime(at(2026, 7, 15, 10).toISOString(), now, true)).toBe('2 weeks ago');
  });

  it('counts calendar days, not 24-hour spans', () => {
    expect(calendarDaysBetween(at(2026, 7, 28, 23, 59), at(2026, 7, 29, 0, 1))).toBe(1);
    expect(calendarDaysBetween(at(2026, 7, 29, 0, 1), at(2026, 7, 29, 23, 59))).toBe(0);
    expect(calendarDaysBetween(at(2026, 2, 28), at(2026, 3, 2))).toBe(2);
  });
});

describe('item text', () => {
  const s = {
    id: '2026-07-29T13-00-00-abcd',
    title: 'Idempotent refunds\nvia Redis',
    titled: true,
    createdAt: ago(3 * 3600_000),
    updatedAt: ago(5 * 60_000),
    turns: 3,
    model: 'claude-sonnet-4',
    preview: '  and the tests?  ',
  };

  it('labels with the title on one line, and a fallback when empty', () => {
    expect(itemLabel(s)).toBe('Idempotent refunds via Redis');
    expect(itemLabel({ ...s, title: '  ' })).toBe('Untitled chat');
  });

  it('describes with relative time, turns and model', () => {
    expect(itemDescription(s, now)).toBe('5 min · 3 turns · claude-sonnet-4');
    expect(itemDescription({ ...s, turns: 1, model: null }, now)).toBe('5 min · 1 turn');
    expect(itemDescription({ ...s, turns: 0 }, now)).toBe('5 min · 0 turns · claude-sonnet-4');
    expect(itemDescription({ ...s, sourceLabel: 'Claude Code' }, now)).toBe('5 min · 3 turns · claude-sonnet-4 · Claude Code');
    expect(itemDescription({ ...s, model: null, sourceLabel: 'Codex' }, now)).toBe('5 min · 3 turns · Codex');
  });

  it('gives screen readers the same words', () => {
    expect(accessibilityLabel(s, now)).toBe('Idempotent refunds via Redis, 5 minutes ago · 3 turns · claude-sonnet-4');
  });

  it('puts the preview and the facts in the tooltip', () => {
    const t = tooltipLines(s);
    expect(t.title).toBe('Idempotent refunds via Redis');
    expect(t.preview).toBe('and the tests?');
    expect(t.facts).toHaveLength(4);
    expect(t.facts[0]).toMatch(/^Last used 2026-07-29 15:25$/);
    expect(t.facts[2]).toBe('3 turns · claude-sonnet-4');
    expect(t.facts[3]).toBe('Session 2026-07-29T13-00-00-abcd');
    expect(tooltipLines({ ...s, sourceLabel: 'Claude Code' }).facts).toEqual([...t.facts, 'Imported from Claude Code']);
  });
});

describe('exportFileName', () => {
  it.each([
    ['Idempotent refunds', 'Idempotent refunds.md'],
    ['a/b\\c:d*e?f"g<h>i|j', 'a b c d e f g h i j.md'],
    ['trailing dots...', 'trailing dots.md'],
    ['   ', '2026-07-29T13-00-00-abcd.md'],
    ['x'.repeat(200), `${'x'.repeat(80)}.md`],
  ])('%s -> %s', (title, want) => {
    expect(exportFileName({ title, id: '2026-07-29T13-00-00-abcd' })).toBe(want);
  });
});
