// reader.ts checks every line with events.ts's zod schemas: a refused event line is named by
// the field zod names, and a refused meta line is a corrupt-session error carrying zod's issues.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEventLine, readMeta } from '../../server/store/reader.js';

describe('the reader validates with the zod schemas', () => {
  it('names the field zod names for a refused event line', () => {
    const r = parseEventLine(Buffer.from('{"kind":"compact","t":"2026-07-28T09:12:33Z","briefing":"b","coversThrough":-1}'));
    expect(r).toEqual({ error: expect.stringContaining('not a valid event (coversThrough:') });
    expect(parseEventLine(Buffer.from('{"kind":"user","t":"2026-07-28T09:12:33Z","content":"hi"}'))).toHaveProperty('event.content', 'hi');
  });

  it("refuses a meta line zod refuses, with zod's issues, and keeps JSON.parse's object for one it accepts", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lcs-reader-'));
    try {
      const bad = join(dir, 'bad.jsonl');
      writeFileSync(
        bad,
        JSON.stringify({
          kind: 'meta',
          v: 1,
          id: '2026-07-28T09-12-33-8f3k',
          project: '',
          createdAt: '2026-07-28T09:12:33Z',
          title: null,
        }) + '\n',
      );
      await expect(readMeta(bad)).rejects.toMatchObject({
        code: 'corrupt-session',
        data: { issues: [expect.objectContaining({ path: ['project'] })] },
      });
      const good = join(dir, 'good.jsonl');
      writeFileSync(
        good,
        JSON.stringify({
          kind: 'meta',
          v: 1,
          id: '2026-07-28T09-12-33-8f3k',
          project: '/p',
          createdAt: '2026-07-28T09:12:33Z',
          title: null,
          extra: { x: 1 },
        }) + '\n',
      );
      const { meta } = await readMeta(good);
      expect(meta).toEqual(expect.objectContaining({ project: '/p', extra: { x: 1 } }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
