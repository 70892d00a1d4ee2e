// Unit tests of what a History entry says (clients/vscode/src/history/labels.ts): the label and
// description from the sidecar's `view` with the row's state, tooltips and export file names.
// (The groups and times themselves are the sidecar's: test/rpc/history-view.test.ts.)

import { describe, expect, it } from 'vitest';
import {
  accessibilityLabel,
  exportFileName,
  itemDescription,
  itemLabel,
  rowContextValue,
  rowIcon,
  stateWords,
  tooltipLines,
} from '../../../../clients/vscode/src/history/labels.js';

const at = (y: number, mo: number, d: number, h = 12, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s);
const now = at(2026, 7, 29, 15, 30);
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const view = (description: string, title = 'Idempotent refunds') => ({ title, description, time: '15:25', groupLabel: 'Today' });

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
    view: view('Claude Code · 15:25 · 3 turns · claude-sonnet-4', 'Idempotent refunds via Redis, the whole title however long it is'),
  };

  it('labels with the whole title the sidecar gives, never cut', () => {
    expect(itemLabel(s)).toBe('Idempotent refunds via Redis, the whole title however long it is');
    // Without a view (a row not from session/list): the title on one line, and a fallback when empty.
    expect(itemLabel({ ...s, view: undefined })).toBe('Idempotent refunds via Redis');
    expect(itemLabel({ ...s, view: undefined, title: '  ' })).toBe('Untitled session');
  });

  it("describes with the sidecar's description, then the state", () => {
    expect(itemDescription(s)).toBe('Claude Code · 15:25 · 3 turns · claude-sonnet-4');
    expect(itemDescription({ ...s, interrupted: true })).toBe('Claude Code · 15:25 · 3 turns · claude-sonnet-4 · interrupted');
  });

  it('gives screen readers the same words', () => {
    expect(accessibilityLabel(s)).toBe(
      'Idempotent refunds via Redis, the whole title however long it is, Claude Code · 15:25 · 3 turns · claude-sonnet-4',
    );
  });

  it('puts the preview and the facts in the tooltip', () => {
    const t = tooltipLines(s);
    expect(t.title).toBe('Idempotent refunds via Redis, the whole title however long it is');
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
    view: view('15:25 · 3 turns'),
  };
  const titles: Record<string, string> = { parent: 'Plan the\nmigration' };
  const titleOf = (id: string) => titles[id];

  it('says forked from “Title” at turn N, and another chat when the parent is not listed', () => {
    const fork = { ...s, forkedFrom: { id: 'parent', turn: 2 } };
    expect(itemDescription(fork, titleOf)).toBe('15:25 · 3 turns · forked from “Plan the migration” at turn 2');
    expect(itemDescription({ ...fork, forkedFrom: { id: 'gone', turn: 1 } }, titleOf)).toBe(
      '15:25 · 3 turns · forked from another chat at turn 1',
    );
    expect(tooltipLines(fork, titleOf).facts[0]).toBe('Forked from “Plan the migration” (parent) at turn 2');
  });

  it('says a sync conflict’s fork was continued on its device, and names the device in the tooltip', () => {
    const fork = { ...s, forkedFrom: { id: 'parent', turn: 2, device: 'desktop' }, device: 'desktop' };
    expect(itemDescription(fork, titleOf)).toBe('15:25 · 3 turns · continued on desktop after turn 2');
    const t = tooltipLines(fork, titleOf).facts;
    expect(t[0]).toBe(
      'Continued on desktop: “Plan the migration” (parent) went on there from turn 2 while the devices were apart (a sync conflict, kept whole)',
    );
    expect(t.at(-1)).toBe('Device desktop');
  });

  it('says moved from the old folder, whole in the tooltip', () => {
    const moved = { ...s, movedFrom: '/home/ada/notes-old' };
    expect(itemDescription(moved)).toBe('15:25 · 3 turns · moved from notes-old');
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
    expect(itemDescription(both)).toBe('15:25 · 3 turns');
    expect(accessibilityLabel(both)).toBe('Idempotent refunds, 15:25 · 3 turns · pinned · archived');
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
