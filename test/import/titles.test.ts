// Titles of imported sessions: what cleanTitle takes off a tool's title (server/import/titles.ts).
import { describe, expect, it } from 'vitest';
import { cleanTitle } from '../../server/import/titles.js';

describe('imported titles', () => {
  it('unwraps a compaction summary and drops command tags, keeping their text', () => {
    expect(cleanTitle('<summary>The user asked for a listing.</summary>')).toBe('The user asked for a listing.');
    expect(cleanTitle('<command-name>/compact</command-name>\n<command-args></command-args>')).toBe('/compact');
    expect(cleanTitle('<system-reminder>x</system-reminder> Fix the build')).toBe('x Fix the build');
  });

  it('takes Markdown escapes off and keeps one line', () => {
    expect(cleanTitle('\\[\\[bash\\]\\] output\n  explained')).toBe('[[bash]] output explained');
  });

  it('leaves a plain title, and a tag that is part of it, alone', () => {
    expect(cleanTitle('Fix the <div> alignment')).toBe('Fix the <div> alignment');
    expect(cleanTitle('Rename foo to bar')).toBe('Rename foo to bar');
    expect(cleanTitle('<summary></summary>')).toBe('');
  });
});
