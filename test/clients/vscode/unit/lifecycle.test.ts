// Unit tests of the pure lifecycle parts (clients/vscode/src/history/lifecycle.ts): the
// initializationOptions and session/retention params made of the settings, the turns Fork from
// Turn… offers (counted as the sidecar counts them), and the words of the retention checklist.

import { describe, expect, it } from 'vitest';
import {
  anyRetentionRule,
  firstLine,
  lifecycleInitOptions,
  retentionParams,
  retentionReason,
  userTurns,
} from '../../../../clients/vscode/src/history/lifecycle.js';

describe('settings to the sidecar', () => {
  it('always sends autoArchiveDays (0 included, so the sidecar does not fall back to 30) and both retention rules', () => {
    expect(lifecycleInitOptions({ autoArchiveDays: 30, retentionKeep: 0, retentionMaxAgeDays: 0 })).toEqual({
      autoArchiveDays: 30,
      retention: { keep: 0, maxAgeDays: 0 },
    });
    expect(lifecycleInitOptions({ autoArchiveDays: 0, retentionKeep: 20, retentionMaxAgeDays: 90 })).toEqual({
      autoArchiveDays: 0,
      retention: { keep: 20, maxAgeDays: 90 },
    });
    expect(retentionParams({ autoArchiveDays: 0, retentionKeep: 20, retentionMaxAgeDays: 90 })).toEqual({
      autoArchiveDays: 0,
      keep: 20,
      maxAgeDays: 90,
    });
  });

  it('knows when no rule is on', () => {
    expect(anyRetentionRule({ autoArchiveDays: 0, retentionKeep: 0, retentionMaxAgeDays: 0 })).toBe(false);
    expect(anyRetentionRule({ autoArchiveDays: 0, retentionKeep: 1, retentionMaxAgeDays: 0 })).toBe(true);
    expect(anyRetentionRule({ autoArchiveDays: 30, retentionKeep: 0, retentionMaxAgeDays: 0 })).toBe(true);
  });
});

describe('userTurns', () => {
  const ev = (kind: string, content?: unknown) => ({ event: { kind, content } });

  it('counts user lines, not those holding only tool results, and shows the first line of each', () => {
    const turns = userTurns([
      ev('user', '\n  Plan the migration\nwith details'),
      ev('assistant', [{ type: 'tool_use', id: 't1' }]),
      ev('user', [{ type: 'tool_result', tool_use_id: 't1' }]),
      ev('event'),
      ev('user', [{ type: 'text', text: 'Now the rollback' }, { type: 'tool_result' }]),
      ev('user', [{ type: 'function_call_output' }]),
      ev('agent', [{ role: 'user', content: 'not a turn' }]),
      ev('user', [{ type: 'image' }]),
    ]);
    expect(turns).toEqual([
      { turn: 1, firstLine: 'Plan the migration' },
      { turn: 2, firstLine: 'Now the rollback' },
      { turn: 3, firstLine: '(no text)' },
    ]);
  });

  it('cuts long first lines with an ellipsis', () => {
    expect(firstLine('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(firstLine('short', 10)).toBe('short');
    expect(userTurns([ev('user', 'y'.repeat(90))])[0]!.firstLine).toHaveLength(80);
  });
});

describe('retentionReason', () => {
  const now = new Date('2026-07-29T12:00:00Z');
  const item = { title: 't', project: '/p', action: 'archive' as const, lastActive: '2026-06-13T12:00:00Z' };
  const rules = { idleDays: 30, keep: 20, maxAgeDays: 90 };
  it('says why each chat falls out', () => {
    expect(retentionReason({ ...item, reason: 'idle' }, rules, now)).toBe('idle 46 days');
    expect(retentionReason({ ...item, reason: 'max-age' }, rules, now)).toBe('older than 90 days');
    expect(retentionReason({ ...item, reason: 'keep' }, rules, now)).toBe('beyond the newest 20 of its project');
    expect(retentionReason({ ...item, reason: 'idle', lastActive: '2026-07-28T11:00:00Z' }, rules, now)).toBe('idle 1 day');
  });
});
