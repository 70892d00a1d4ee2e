// Raw bytes kept exactly (issue 43): a source line that is not valid UTF-8 (a record with a bad
// byte inside a string, a line that is not JSON at all) is imported with its exact bytes beside
// the decoded record (`rawBase64`, protocol.md "The raw-record rule"), so the tool's bytes come
// back from our copy alone; valid lines carry nothing extra.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, FIXTURES, filesUnder, sandbox } from './door.js';

const s = sandbox('lcs-bytes-');
afterAll(() => rmSync(s.dir, { recursive: true, force: true }));

describe('a source line that is not valid UTF-8', () => {
  it('comes back byte for byte from the store', async () => {
    const id = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
    const src = readFileSync(join(FIXTURES, 'claude-code', 'as_subagent_layout', `${id}.jsonl`));
    // A Latin-1 "é" (0xe9) and a lone 0xff inside a string of a user record, and a garbage line.
    const [head, tail] = src.toString('utf8').split('Delegate a repo search');
    const withBytes = Buffer.concat([
      Buffer.from(head!.split('\n').pop()!),
      Buffer.from('caf'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from(' Delegate a repo search'),
      Buffer.from(tail!.split('\n')[0]!),
    ]);
    const garbage = Buffer.from([0x6e, 0x6f, 0x74, 0x20, 0x6a, 0x73, 0x6f, 0x6e, 0x20, 0xc3, 0x28, 0x80]);
    const before = head!.split('\n').slice(0, -1).join('\n') + '\n';
    const after = '\n' + tail!.split('\n').slice(1).join('\n');
    const name = `${id}.jsonl`;
    const out = [Buffer.from(before), withBytes, Buffer.from('\n'), garbage, Buffer.from(after)];
    const folder = join(s.home, '.claude', 'projects', '-tmp-bytes');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, name), Buffer.concat(out));
    const r = await cli(['import', 'claude-code', '--json'], s.env);
    expect(r.code, r.stderr).toBe(0);
    const events = filesUnder(s.store)
      .filter((f) => f.path.endsWith('.jsonl'))
      .flatMap((f) =>
        f.bytes
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
    const kept = events.filter((e) => typeof e.rawBase64 === 'string').map((e) => Buffer.from(e.rawBase64, 'base64'));
    expect(kept.some((b) => b.equals(withBytes))).toBe(true);
    expect(kept.some((b) => b.equals(garbage))).toBe(true);
    expect(kept.every((b) => b.equals(withBytes) || b.equals(garbage))).toBe(true);
  });
});
