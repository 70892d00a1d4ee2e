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
  rowContextValue,
  rowIcon,
  stateWords,
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

describe('row state', () => {
  const s = {
    id: '2026-07-29T13-00-00-abcd',
    title: 'Idempotent refunds',
    createdAt: ago(3 * 3600_000),
    updatedAt: ago(5 * 60_000),
    turns: 3,
    model: null,
    preview: '',
  };
  const titles: Record<string, string> = { parent: 'Plan the\nmigration' };
  const titleOf = (id: string) => titles[id];

  it('says forked from “Title” at turn N, and another chat when the parent is not listed', () => {
    const fork = { ...s, forkedFrom: { id: 'parent', turn: 2 } };
    expect(itemDescription(fork, now, false, titleOf)).toBe('5 min · 3 turns · forked from “Plan the migration” at turn 2');
    expect(itemDescription({ ...fork, forkedFrom: { id: 'gone', turn: 1 } }, now, false, titleOf)).toBe(
      '5 min · 3 turns · forked from another chat at turn 1',
    );
    expect(tooltipLines(fork, titleOf).facts[0]).toBe('Forked from “Plan the migration” (parent) at turn 2');
  });

  it('says a sync conflict’s fork was continued on its device, and names the device in the tooltip', () => {
    const fork = { ...s, forkedFrom: { id: 'parent', turn: 2, device: 'desktop' }, device: 'desktop' };
    expect(itemDescription(fork, now, false, titleOf)).toBe('5 min · 3 turns · continued on desktop after turn 2');
    const t = tooltipLines(fork, titleOf).facts;
    expect(t[0]).toBe(
      'Continued on desktop: “Plan the migration” (parent) went on there from turn 2 while the devices were apart (a sync conflict, kept whole)',
    );
    expect(t.at(-1)).toBe('Device desktop');
  });

  it('says moved from the old folder, whole in the tooltip', () => {
    const moved = { ...s, movedFrom: '/home/ada/notes-old' };
    expect(itemDescription(moved, now)).toBe('5 min · 3 turns · moved from notes-old');
    expect(tooltipLines(moved).facts[0]).toBe('Moved from /home/ada/notes-old');
  });

  it('says interrupted and open in another window, naming the pid and host in the tooltip', () => {
    expect(stateWords({ ...s, interrupted: true, heldBy: { pid: 4242, host: 'ada-laptop' } })).toEqual([
      'interrupted',
      'open in another window',
    ]);
    expect(tooltipLines({ ...s, heldBy: { pid: 4242, host: 'ada-laptop' } }).facts[0]).toBe(
      'Open in another window (pid 4242 on ada-laptop): resuming it here shows it read-only.',
    );
    expect(tooltipLines({ ...s, heldBy: {} }).facts[0]).toBe('Open in another window: resuming it here shows it read-only.');
    expect(tooltipLines({ ...s, interrupted: true }).facts[0]).toMatch(/^Interrupted: .*Resume continues it\.$/);
  });

  it('names pinned and archived for screen readers only (the groups show them)', () => {
    const both = { ...s, pinned: true, archived: true };
    expect(itemDescription(both, now)).toBe('5 min · 3 turns');
    expect(accessibilityLabel(both, now)).toBe('Idempotent refunds, 5 minutes ago · 3 turns · pinned · archived');
  });

  it('picks the icon by what most needs seeing', () => {
    expect(rowIcon(s)).toBe('comment-discussion');
    expect(rowIcon({ ...s, movedFrom: '/x' })).toBe('arrow-swap');
    expect(rowIcon({ ...s, movedFrom: '/x', forkedFrom: { id: 'p', turn: 1 } })).toBe('repo-forked');
    expect(rowIcon({ ...s, forkedFrom: { id: 'p', turn: 1 }, archived: true })).toBe('archive');
    expect(rowIcon({ ...s, archived: true, pinned: true })).toBe('pinned');
    expect(rowIcon({ ...s, pinned: true, interrupted: true })).toBe('debug-pause');
    expect(rowIcon({ ...s, interrupted: true, heldBy: { pid: 1 } })).toBe('window');
  });

  it('gives the menus pinned|unpinned, listed|archived and continue:<tool>', () => {
    expect(rowContextValue(s)).toBe('levelcodeSession unpinned listed');
    expect(rowContextValue({ ...s, pinned: true, archived: true })).toBe('levelcodeSession pinned archived');
    expect(rowContextValue({ ...s, source: { tool: 'codex' }, continueIn: { argv: ['codex'], cwd: '/' } })).toBe(
      'levelcodeSession unpinned listed continue:codex',
    );
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
