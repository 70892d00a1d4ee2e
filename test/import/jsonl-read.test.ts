// readJsonl on lines that cross its read chunks (1 MiB), CRLF endings, a blank-padded line, a
// line that is not JSON and a torn last one: every record as JSON.parse gives it, and each
// record's source line (sourceLineOf) exactly the bytes of its line, without the line's end.
import { expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonl, sourceLineOf } from '../../server/import/jsonl.js';

it('reads records across chunk boundaries and remembers each one its own line', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'lcs-jsonl-read-'));
  try {
    const pad = (n: number) => 'x'.repeat(n);
    const lines = [
      JSON.stringify({ n: 0, s: pad(1_048_000) }), // ends just before the first chunk's end
      JSON.stringify({ n: 1, s: pad(3000) }), // crosses it
      `  ${JSON.stringify({ n: 2, s: 'café ☕' })} `,
      JSON.stringify({ n: 3, s: pad(2_500_000) }), // spans three chunks
      'not json',
      JSON.stringify([4, { n: 4 }]),
    ];
    const file = join(tmp, 's.jsonl');
    await writeFile(file, `${lines.join('\r\n')}\r\n{"n":5,"torn`);
    const problems: string[] = [];
    const got = await readJsonl(file, problems);
    expect(got.map((l) => l.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(got[4]).toEqual({ line: 5, value: 'not json', unparsed: true });
    expect(problems).toHaveLength(2); // the line that is not JSON, the torn last line
    for (const [i, l] of got.entries()) {
      if (l.unparsed) continue;
      expect(l.value).toEqual(JSON.parse(lines[i]!));
      expect(sourceLineOf(l.value)?.toString('utf8')).toBe(lines[i]!.trim());
    }
    expect(sourceLineOf('not json')).toBeUndefined();
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});
