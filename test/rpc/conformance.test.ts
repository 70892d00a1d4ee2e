// protocol.md against the real sidecar (issue 27): the error table is the one server/rpc/errors.ts
// sends; the features the table lists are the ones `initialize` advertises, and each advertised
// method exists; a frame that is not JSON, or JSON that is not a request, is answered as the
// error table says; a bad session id has one code; every example is a message the schemas accept;
// an unknown or corrupt session answers a code its method lists, with data.reason.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../server/rpc/errors.js';
import { ALL_MESSAGES } from '../../server/rpc/protocol.js';
import { REPO, Sidecar, cleanup, startSidecar, workspace } from '../helpers/sidecar.js';
import { at } from '../helpers/items.js';

const doc = readFileSync(join(REPO, 'protocol.md'), 'utf8');
const section = (title: string) => {
  const at = doc.indexOf(`\n### ${title}\n`);
  expect(at, title).toBeGreaterThan(0);
  const end = doc.indexOf('\n### ', at + 5);
  return doc.slice(at, end < 0 ? undefined : end);
};
/** The rows of the first Markdown table in `text` that starts with `head`. */
const rows = (text: string, head: string) =>
  text
    .slice(text.indexOf(head))
    .split('\n')
    .slice(2)
    .filter((l, i, all) => l.startsWith('|') && all.slice(0, i).every((x) => x.startsWith('|')))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );

/** The codes a method's section names on its "- Errors:" line (and the lines that continue it). */
const errorsListed = (text: string) =>
  new Set([...(/\n- Errors: ([^\n]*(?:\n {2}[^\n]*)*)/.exec(text)?.[1] ?? '').matchAll(/-3\d{4}/g)].map((m) => Number(m[0])));

afterAll(cleanup);

/** A sidecar written to by hand: frames in, frames out, parsed. */
async function rawSidecar() {
  const { root } = workspace();
  const s = new Sidecar({ root });
  s.conn.dispose();
  const frames: any[] = [];
  let buf = Buffer.alloc(0);
  let onFrame = () => {};
  s.child.stdout!.removeAllListeners('data');
  s.child.stdout!.on('data', (b: Buffer) => {
    buf = Buffer.concat([buf, b]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      const m = end < 0 ? null : /Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString('ascii'));
      if (!m || buf.length < end + 4 + Number(m[1])) break;
      frames.push(JSON.parse(buf.subarray(end + 4, end + 4 + Number(m[1])).toString('utf8')));
      buf = buf.subarray(end + 4 + Number(m[1]));
      onFrame();
    }
  });
  const send = (body: string) =>
    s.child.stdin!.write(
      Buffer.concat([Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`, 'ascii'), Buffer.from(body, 'utf8')]),
    );
  const answer = (id: number) =>
    new Promise<any>((resolve) => {
      onFrame = () => {
        const f = frames.find((x) => x.id === id);
        if (f) resolve(f);
      };
      onFrame();
    });
  return { s, frames, send, answer };
}

describe('protocol.md tells the truth', () => {
  it('its error table is the one the sidecar sends (codes and names, every one)', () => {
    const table = rows(section('Errors'), '| code | name |').map(([code, name]) => ({ code: Number(code), name }));
    expect(table).toEqual(ERROR_CODES.map((e) => ({ code: e.code, name: e.name })));
  });

  it('its feature table is what initialize advertises, and every advertised method answers', async () => {
    const table = rows(doc.slice(doc.indexOf('| feature | meaning |')), '| feature | meaning |').map((r) => at(r, 0).replace(/`/g, ''));
    const { root } = workspace();
    const s = await startSidecar({ root });
    const features: string[] = s.initializeResult.capabilities.experimental.levelcodeSessions.features;
    expect([...features].sort()).toEqual([...table].sort());
    const example = at(/"features": (\[[^\]]*\])/.exec(section('Lifecycle')) ?? [], 1, 'the features example');
    expect([...JSON.parse(example)].sort()).toEqual([...features].sort());
    // reindex is advertised because it exists.
    expect(await s.conn.sendRequest('session/reindex', {})).toBeDefined();
  });

  it('a frame that is not JSON, and JSON that is not a request, are skipped as the error table says, and serving goes on', async () => {
    const { s, send, answer, frames } = await rawSidecar();
    send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } }));
    await answer(1);
    send(JSON.stringify({ jsonrpc: '2.0', method: 'initialized', params: {} }));
    send('{this is not json');
    send(JSON.stringify({ jsonrpc: '2.0', id: 7, nothing: 'no method' }));
    send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} }));
    expect((await answer(2)).result).toEqual({ sessions: [], problems: [] });
    expect(frames.filter((f) => f.error)).toEqual([]);
    expect(frames.filter((f) => f.method === 'window/logMessage').map((f) => f.params.message)).toEqual([
      expect.stringContaining('"nothing": "no method"'),
    ]);
    const table = section('Errors');
    expect(table).toContain('| -32700 | ParseError | Never sent: a frame body that is not JSON is skipped');
    expect(table).toContain('JSON that is not a request is skipped (logged with `window/logMessage`), never answered. |');
    s.child.kill();
  });

  it('a bad session id has one code, whatever the method', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    const codes = new Set<number>();
    for (const method of [
      'session/read',
      'session/resume',
      'session/export',
      'session/rename',
      'session/delete',
      'session/fork',
      'session/seal',
      'session/append',
    ])
      for (const id of ['nope', '../../etc/passwd', '2026-07-28T09-12-33-8f3k/..']) {
        const e = await s.error(method, { id, title: 'x', events: [{ kind: 'user', content: 'x' }], format: 'markdown' });
        codes.add(e.code);
      }
    expect([...codes]).toEqual([-32602]);
    expect(section('Conventions')).toContain('anything else is -32602');
    expect(section('Errors')).toContain('| -33002 | BadSessionId | Never sent over JSON-RPC');
  });

  it("its examples are messages the schemas accept, and each error an example shows is in its method's list", () => {
    const part2 = doc.slice(doc.indexOf('\n## Part 2'));
    const byMethod = new Map(ALL_MESSAGES.map((d) => [d.method, d]));
    /** Each method's section ("#### `session/x`" up to the next heading of that level or above). */
    const sections = [...part2.matchAll(/\n#### `([^`]+)`\n([\s\S]*?)(?=\n#{2,4} )/g)].map((m) => ({ method: m[1]!, text: m[2]! }));
    const table = new Set(ERROR_CODES.map((e) => e.code));
    const checked = { requests: 0, results: 0, errors: 0 };
    for (const { method, text } of sections) {
      const listed = errorsListed(text);
      for (const code of listed) expect(table.has(code), `${method} lists ${code}, which is not in the error table`).toBe(true);
      for (const block of text.matchAll(/```json\n([\s\S]*?)```/g)) {
        const body = block[1]!.trim();
        // One message a line; a block that is one object over many lines is a part of one (shown alone).
        const lines = body.startsWith('{\n') ? [] : body.split('\n').map((l) => JSON.parse(l) as Record<string, any>);
        const requests = new Map(lines.filter((l) => 'method' in l && 'id' in l).map((l) => [l.id, l]));
        for (const l of lines) {
          const req = 'method' in l ? l : requests.get(l.id);
          const d = req && byMethod.get(req.method);
          if (d?.kind !== 'request') continue; // LSP's own methods, or an entry shown alone
          const where = `${method} example ${JSON.stringify(l).slice(0, 80)}`;
          if (l === req) {
            const answer = lines.find((x) => x.id === l.id && !('method' in x));
            if (answer?.error?.code === -32602) continue; // shown to be refused
            expect(d.params.safeParse(l.params).error?.issues, where).toBeUndefined();
            checked.requests++;
          } else if ('result' in l) {
            expect(d.result.safeParse(l.result).error?.issues, where).toBeUndefined();
            checked.results++;
          } else {
            const code = l.error.code as number;
            expect(table.has(code), where).toBe(true);
            if (code !== -32602) expect(listed.has(code), `${where}: ${code} is not in ${method}'s Errors`).toBe(true);
            checked.errors++;
          }
        }
      }
    }
    expect(checked.requests).toBeGreaterThan(15);
    expect(checked.results).toBeGreaterThan(15);
    expect(checked.errors).toBeGreaterThan(0);
  });

  it('an unknown session and a corrupt one answer codes their methods list, with data.reason', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    const errorsOf = (method: string) => {
      const at = doc.indexOf(`\n#### \`${method}\`\n`);
      const text = doc.slice(at, doc.indexOf('\n#### ', at + 5));
      return errorsListed(text);
    };
    const corrupt = '2026-07-28T09-12-33-zzzz';
    mkdirSync(join(root, '-p'), { recursive: true });
    writeFileSync(join(root, '-p', `${corrupt}.jsonl`), 'not a meta line\n');
    const params = { title: 'x', events: [{ kind: 'user', content: 'x' }], format: 'markdown', contextWindow: 200_000 };
    const seen: string[] = [];
    const unlisted: string[] = [];
    for (const method of [
      'session/read',
      'session/resume',
      'session/export',
      'session/rename',
      'session/fork',
      'session/append',
      'session/seal',
    ])
      for (const [id, reason] of [
        ['2026-07-28T09-12-33-none', 'unknown-session'],
        [corrupt, 'corrupt-session'],
      ] as const) {
        const e = await s.error(method, { id, ...params });
        seen.push(`${method} ${e.code} ${e.data?.reason}`);
        if (!errorsOf(method).has(e.code)) unlisted.push(`${method} answered ${e.code} for ${reason}, not in its Errors`);
        expect(e.data?.reason, `${method} ${id}: ${e.message}`).toBe(reason);
      }
    expect(unlisted).toEqual([]);
    expect(seen.length).toBe(14);
  });
});
