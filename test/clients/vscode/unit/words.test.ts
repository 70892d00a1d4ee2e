// The extension's words for people (clients/vscode/src/strings.ts): resume says what happened in
// plain words, never a "tier"; the no-model messages say how to get a model.

import { describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings.js';

/** Every string S holds, and what its functions say for sample arguments. */
function allWords(o: unknown): string[] {
  if (typeof o === 'string') return [o];
  if (typeof o === 'function') return [String((o as (...a: unknown[]) => unknown)('X', 3, 'note'))];
  if (o && typeof o === 'object') return Object.values(o).flatMap(allWords);
  return [];
}

describe('plain words', () => {
  it('says resumed, or resumed from a summary with the full chat in History, never a tier', () => {
    expect(S.resume.resumed('Refunds', 1)).toBe('Resumed “Refunds”.');
    expect(S.resume.resumed('Refunds', 3, 'Resumed from summary — full transcript in History.')).toBe(
      'Resumed “Refunds” from a summary — the full chat is in History.',
    );
    expect(S.resume.resumed('Refunds', 2, 'Resumed from an earlier summary — full transcript in History. 2 tool results shortened.')).toBe(
      'Resumed “Refunds” from a summary — the full chat is in History. 2 tool results shortened.',
    );
    for (const w of allWords(S)) expect(w).not.toMatch(/\btier\b/i);
  });

  it('names how to get a language model, Copilot Chat among the extensions that provide one', () => {
    for (const w of [S.chat.noModel, S.resume.noModel]) {
      expect(w).toContain('GitHub Copilot Chat');
      expect(w).toMatch(/extension that provides one/);
    }
    expect(S.chat.orCli('Claude Code')).toBe('Or continue it in Claude Code, which is installed here.');
  });
});
