// Unit tests of the words of "Import Chats from Other AI Tools…" (clients/vscode/src/history/
// importReport.ts): what a dry run found per tool, and the report per tool after the import.

import { describe, expect, it } from 'vitest';
import { foundTools, foundWords, outcomeWords, reportWords } from '../../../../clients/vscode/src/history/importReport.js';
import { at } from '../../../helpers/items.js';

const counts = (tool: string, label: string, found: number, imported: number, updated = 0, unchanged = 0) => ({
  tool,
  label,
  found,
  imported,
  updated,
  unchanged,
  skipped: 0,
  problems: 0,
});
const result = (imported: number, updated: number, o: { problems?: number; unreadable?: string[] } = {}) => ({
  imported,
  updated,
  unchanged: 0,
  skipped: 0,
  problems: Array.from({ length: o.problems ?? 0 }, (_, i) => ({ path: `/p${i}`, message: 'torn last line' })),
  sessions: [],
  tools: [],
  skippedFiles: [],
  unknownKinds: [],
  unreadable: o.unreadable ?? [],
  failed: 0,
});

describe('the dry run', () => {
  it('lists the tools found on this machine, those with new chats first, by their names', () => {
    const found = foundTools({
      tools: [counts('zed', 'Zed', 0, 0), counts('codex', 'Codex', 3, 0, 0, 3), counts('claude-code', 'Claude Code', 12, 4, 1, 7)],
    });
    expect(found.map((t) => t.label)).toEqual(['Claude Code', 'Codex']);
    expect(foundWords(at(found, 0))).toBe('4 new chats · 1 with new messages · 7 already in History');
    expect(foundWords(at(found, 1))).toBe('3 already in History');
    expect(foundWords(counts('pi', 'pi', 2, 0))).toBe('2 files, no chats in them');
  });
});

describe('the report', () => {
  it('says what each tool gave, and the totals', () => {
    const r = reportWords(
      [
        { tool: 'claude-code', label: 'Claude Code', result: result(3, 1) },
        { tool: 'codex', label: 'Codex', result: result(0, 0) },
      ],
      0,
    );
    expect(r).toEqual({ text: 'Imported 3 chats, updated 1: Claude Code: 3 new chats, 1 updated; Codex: nothing new.', trouble: false });
  });

  it('names problems, failures, a cancel and chats of other folders', () => {
    expect(outcomeWords({ tool: 'codex', label: 'Codex', result: result(1, 0, { problems: 2 }) })).toBe(
      'Codex: 1 new chat, 2 files could not be read (see the log)',
    );
    const r = reportWords(
      [
        { tool: 'claude-code', label: 'Claude Code', result: result(2, 0) },
        { tool: 'gemini', label: 'Gemini CLI', error: 'disk full' },
        { tool: 'codex', label: 'Codex', cancelled: true },
      ],
      2,
    );
    expect(r.trouble).toBe(true);
    expect(r.text).toBe(
      'Import cancelled after 2 new chats: Claude Code: 2 new chats; Gemini CLI: failed (disk full); Codex: stopped (what was imported stays). 2 chats belong to other project folders: open one of those folders to see them.',
    );
  });
});
