// Hostile input on the wire: every client-to-server method of the sidecar (protocol.ts REQUESTS)
// fuzzed with fast-check, through one long-lived real sidecar process per group of methods.
// Params are generated valid and invalid: [], null, absent, wrong types, huge strings (1 MB),
// deep nesting, unicode, ids and paths that try to leave the store, real ids and projects.
// For every request: the process is still alive, nothing answers -32603 (InternalError), params
// that fail the method's zod schema answer -32602, and every success matches the method's result
// schema. Then raw bytes on stdin: a message nested 100,000 deep, a body that is not JSON, JSON
// that is not a request, a bad Content-Length and binary garbage; what the sidecar does is
// asserted (and documented in PROMISE.md): it keeps serving when the stream stays in step, and
// exits cleanly (code 1, the reason on stderr, locks released, every acknowledged event on disk)
// when the framing is broken.
//
// FC_SEED=<n> replays a run; LCS_FUZZ_RUNS=<n> sets the runs per method (default 300).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sidecar, cleanup, startSidecar, ResponseError } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { projectSlug } from '../../server/store/slug.js';
import { figures, printFigures } from './figures.js';
import { at } from '../helpers/items.js';

const RUNS = Number(process.env.LCS_FUZZ_RUNS ?? 300);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : (Date.now() ^ 0x5eed) >>> 0;
const INTERNAL = -32603;

let base: string;
const perMethod: Record<string, { ok: number; errors: Record<string, number> }> = {};

beforeAll(() => {
  process.stdout.write(`\n[reliability] fuzz: FC_SEED=${SEED} runs per method=${RUNS}\n`);
  base = mkdtempSync(join(tmpdir(), 'lcs-fuzz-'));
});
afterAll(async () => {
  await cleanup();
  printFigures('hostile input on the wire (fuzzed sidecar methods, raw frames)');
  const rows = Object.entries(perMethod).map(
    ([m, r]) =>
      `${m} ok=${r.ok} ${Object.entries(r.errors)
        .map(([c, n]) => `${c}:${n}`)
        .join(' ')}`,
  );
  process.stdout.write(`[reliability] fuzz answers by method: ${rows.join('; ')}\n`);
  rmSync(base, { recursive: true, force: true });
});

const CLIENT_METHODS = P.REQUESTS.filter((d) => d.direction === 'clientToServer');
const GROUPS: string[][] = [
  ['session/new', 'session/append', 'session/list', 'session/read'],
  ['session/resume', 'session/fork', 'session/compact', 'session/export'],
  ['session/search', 'session/rename', 'session/delete', 'session/seal'],
];
// Methods added later land in the last group: every client-to-server method is fuzzed.
for (const d of CLIENT_METHODS) if (!GROUPS.flat().includes(d.method)) at(GROUPS, GROUPS.length - 1).push(d.method);

// ---------------------------------------------------------------------------------------------
// Generators

const EVIL_IDS = [
  '../../etc/passwd',
  '/etc/passwd',
  '2026-07-28T09-12-33-8f3k/../../../etc/passwd',
  '2026-07-28T09-12-33-8f3k\u0000',
  '2026-07-28T09-12-33-8f3k'.repeat(400),
  '2026-07-28T09-12-33-8f3\u0137',
  '２０２６-07-28T09-12-33-8f3k',
  '2026-07-28T09-12-33-8f3k\u200b',
  '..',
  '',
  '2026-07-28T09-12-33-aaaa', // well-formed, unknown
];

function nested(depth: number, leaf: unknown = 'x'): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

const HUGE = 'ü'.repeat(1 << 19); // 1 MB of UTF-8

function hostile(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom<unknown>(
      [],
      null,
      {},
      0,
      -1,
      '',
      'x',
      true,
      [null],
      [[]],
      { __proto__: { polluted: true } },
      { constructor: { prototype: { x: 1 } } },
    ),
    fc.anything({
      maxDepth: 4,
      withBigInt: false,
      withMap: false,
      withSet: false,
      withTypedArray: false,
      withDate: false,
      withSparseArray: false,
    }),
    fc.string({ unit: 'grapheme', maxLength: 50 }),
    fc.integer({ min: 1, max: 2000 }).map((d) => nested(d)),
    fc.constant(HUGE),
  );
}

function fieldValue(field: string, ctx: Ctx): fc.Arbitrary<unknown> {
  const bad = hostile();
  const num = fc.oneof(fc.integer({ min: -5, max: 300 }), fc.constantFrom(0, 1, 1e308, 2 ** 53, 1.5, -1e9, 128000, 2000));
  const bool = fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 0, null));
  switch (field) {
    case 'id':
      return fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...ctx.ids) },
        { weight: 3, arbitrary: fc.constantFrom(...EVIL_IDS) },
        { weight: 1, arbitrary: bad },
      );
    case 'project':
      return fc.oneof(
        { weight: 5, arbitrary: fc.constant(ctx.project) },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            '/nonexistent/x',
            'relative/path',
            '/',
            '/etc',
            `${ctx.project}/../..`,
            'C:\\Users\\ada',
            '\\\\server\\share',
            '/tmp/\u0000x',
            'x'.repeat(5000),
          ),
        },
        { weight: 1, arbitrary: bad },
      );
    case 'events':
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(goodEvent(), { minLength: 1, maxLength: 4 }) },
        {
          weight: 3,
          arbitrary: fc.constantFrom<unknown>(
            [],
            [{ kind: 'meta', v: 1, id: 'x', project: '/', createdAt: 'x', title: null }],
            [{ kind: 'title' }],
            [{ kind: 'user', t: 'not a time', content: 'x' }],
            [{ kind: 'nope' }],
            [{ kind: 'user', content: nested(600) }],
            [{ kind: 'user', content: 'ok' }, 42],
            [{ kind: 'user', content: 'proto', __proto__: { polluted: true } }],
            [{ kind: 'compact', briefing: 'b', coversThrough: -1 }],
          ),
        },
        { weight: 1, arbitrary: fc.array(bad, { maxLength: 3 }) },
        { weight: 1, arbitrary: bad },
      );
    case 'tail':
    case 'from':
    case 'to':
    case 'limit':
    case 'contextWindow':
    case 'keepTurns':
    case 'coversThrough':
    case 'maxToolChars':
      return fc.oneof({ weight: 4, arbitrary: num }, { weight: 1, arbitrary: bad });
    case 'budgetRatio':
      return fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), bad);
    case 'all':
    case 'copy':
    case 'confirm':
    case 'thinking':
    case 'tools':
      return fc.oneof({ weight: 4, arbitrary: bool }, { weight: 1, arbitrary: bad });
    case 'format':
      return fc.oneof(fc.constantFrom('markdown', 'json', 'html', ''), bad);
    case 'cursor':
      return fc.oneof(fc.string(), fc.constantFrom(Buffer.from('["x","y"]').toString('base64url'), 'WyIi', '!!!'), bad);
    case 'since':
    case 'until':
      return fc.oneof(fc.constantFrom('2026-07-28T09:00:00.000Z', '2026-07-28T09:00:00+02:00', 'yesterday', ''), bad);
    case 'query':
    case 'title':
    case 'briefing':
    case 'model':
      return fc.oneof(
        { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 0, maxLength: 80 }) },
        { weight: 1, arbitrary: fc.constantFrom('"unterminated', '   ', 'crowd', '\u0000', '😀'.repeat(300)) },
        { weight: 1, arbitrary: bad },
      );
    case 'workDoneToken':
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), bad);
    default:
      return bad;
  }
}

function goodEvent(): fc.Arbitrary<Record<string, unknown>> {
  const text = fc.oneof(
    { weight: 9, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant(HUGE) },
  );
  return fc.oneof(
    text.map((content) => ({ kind: 'user', content })),
    text.map((text) => ({ kind: 'assistant', content: [{ type: 'text', text }] })),
    text.map((c) => ({ kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: c }] }] })),
    fc.string({ minLength: 1, maxLength: 40 }).map((type) => ({ kind: 'event', type })),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).map((title) => ({ kind: 'title', title, source: 'user' })),
  );
}

/** The fields a method's params may have (from its zod object shape), plus some it does not know. */
function fieldsOf(d: P.RequestDescriptor): string[] {
  let schema: unknown = d.params;
  // Unwrap refinements/pipes to the object (read's params are refined).
  for (let i = 0; i < 5; i++) {
    const s = schema as { shape?: unknown; def?: { in?: unknown; innerType?: unknown; schema?: unknown } };
    if (s.shape) break;
    schema = s.def?.in ?? s.def?.innerType ?? s.def?.schema;
    if (!schema) break;
  }
  const shape = (schema as { shape?: Record<string, unknown> })?.shape;
  return [...Object.keys(shape ?? {}), 'unknownField', '__proto__'];
}

interface Ctx {
  project: string;
  ids: string[];
}

function paramsFor(d: P.RequestDescriptor, ctx: Ctx): fc.Arbitrary<unknown> {
  const fields = fieldsOf(d);
  const record = fc.uniqueArray(fc.constantFrom(...fields), { minLength: 0, maxLength: fields.length }).chain((keys) =>
    fc.tuple(...keys.map((k) => fieldValue(k, ctx))).map((vals) => {
      const o: Record<string, unknown> = {};
      keys.forEach((k, i) => Object.defineProperty(o, k, { value: vals[i], enumerable: true, writable: true, configurable: true }));
      return o;
    }),
  );
  // Valid-leaning params: the fields the schema requires, with good values, and some optional ones.
  const required = fields.filter((f) => REQUIRED.has(f) && !(f === 'project' && d.method !== 'session/new'));
  const optional = fields.filter((f) => !required.includes(f) && Object.hasOwn(GOOD, f));
  const validish = fc
    .subarray(optional)
    .chain((opt) =>
      fc
        .tuple(...[...required, ...opt].map((k) => GOOD[k]!(ctx)))
        .map((vals) => Object.fromEntries([...required, ...opt].map((k, i) => [k, vals[i]]))),
    );
  return fc.oneof(
    { weight: 6, arbitrary: validish },
    { weight: 6, arbitrary: record },
    { weight: 2, arbitrary: hostile() },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const REQUIRED = new Set(['id', 'project', 'events', 'contextWindow', 'briefing', 'coversThrough', 'format', 'query', 'title']);
const GOOD: Record<string, ((ctx: Ctx) => fc.Arbitrary<unknown>) | undefined> = {
  id: (ctx) => fc.constantFrom(...ctx.ids),
  project: (ctx) => fc.constant(ctx.project),
  model: () => fc.constantFrom('claude-sonnet-4', 'gpt-x'),
  events: () => fc.array(goodEvent(), { minLength: 1, maxLength: 4 }),
  tail: () => fc.integer({ min: 0, max: 30 }),
  from: () => fc.integer({ min: 0, max: 10 }),
  to: () => fc.integer({ min: 10, max: 40 }),
  limit: () => fc.integer({ min: 1, max: 50 }),
  all: () => fc.boolean(),
  contextWindow: () => fc.constantFrom(1000, 2000, 8000, 128000, 200000),
  budgetRatio: () => fc.double({ min: 0.05, max: 1, noNaN: true }),
  keepTurns: () => fc.integer({ min: 0, max: 6 }),
  copy: () => fc.boolean(),
  confirm: () => fc.boolean(),
  briefing: () => fc.constantFrom('The user asked about crowds.', 'summary'),
  coversThrough: () => fc.integer({ min: 0, max: 20 }),
  format: () => fc.constantFrom('markdown', 'json'),
  thinking: () => fc.boolean(),
  tools: () => fc.boolean(),
  maxToolChars: () => fc.integer({ min: 1, max: 1000 }),
  query: () => fc.constantFrom('crowd', 'answer', '"crowd question"', 'words more', 'zzz'),
  since: () => fc.constant('2020-01-01T00:00:00.000Z'),
  until: () => fc.constant('2099-01-01T00:00:00Z'),
  title: () => fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((t) => t.trim().length > 0),
};

// ---------------------------------------------------------------------------------------------

function emptyToObject(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (Array.isArray(raw) && raw.length === 0) return {};
  return raw;
}

async function send(
  sc: Sidecar,
  method: string,
  params: unknown,
): Promise<{ ok: true; result: unknown } | { ok: false; error: ResponseError<any> }> {
  const died = sc.exited.then((e) => {
    throw new Error(
      `the sidecar died (${e.code ?? e.signal}) on ${method} ${JSON.stringify(params)?.slice(0, 300)}\n${sc.stderr.slice(-2000)}`,
    );
  });
  try {
    const p = params === undefined ? sc.conn.sendRequest(method) : sc.conn.sendRequest(method, params);
    return { ok: true, result: await Promise.race([p, died]) };
  } catch (e) {
    if (e instanceof ResponseError) return { ok: false, error: e };
    throw e;
  }
}

async function seedStore(sc: Sidecar, project: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const { id } = await sc.call(P.sessionNew, { project });
    const events = [];
    for (let k = 0; k < 6; k++)
      events.push(
        { kind: 'user', content: `crowd question ${i}.${k} ` + 'words '.repeat(40) },
        { kind: 'assistant', content: [{ type: 'text', text: `answer ${k} ` + 'more '.repeat(60) }] },
      );
    await sc.call(P.sessionAppend, { id, events });
    ids.push(id);
  }
  return ids;
}

for (const [g, methods] of GROUPS.entries()) {
  describe(`fuzzed methods, group ${g + 1}: ${methods.join(', ')}`, () => {
    let sc: Sidecar;
    const ctx: Ctx = { project: '', ids: [] };
    beforeAll(async () => {
      const root = join(base, `g${g}`, 'store');
      ctx.project = join(base, `g${g}`, 'project');
      mkdirSync(ctx.project, { recursive: true });
      sc = await startSidecar({ root, env: { LEVELCODE_SESSIONS_LOG: 'error', LEVELCODE_SESSIONS_TITLE_TIMEOUT_MS: '2000' } });
      ctx.ids = await seedStore(sc, ctx.project);
    });
    afterAll(async () => {
      if (sc) expect((await sc.stop()).code).toBe(0);
    });

    for (const method of methods) {
      const d = CLIENT_METHODS.find((x) => x.method === method)!;
      it(`${method}: never an internal error, -32602 for invalid params, results in schema, the process lives`, async () => {
        const stats = (perMethod[method] = { ok: 0, errors: {} as Record<string, number> });
        await fc.assert(
          fc.asyncProperty(paramsFor(d, ctx), async (raw) => {
            // What the server will see: the JSON of it (undefined fields dropped, -0 as 0, ...).
            const params = raw === undefined ? undefined : JSON.parse(JSON.stringify(raw));
            const schemaOk = d.params.safeParse(emptyToObject(params)).success;
            const r = await send(sc, method, params);
            figures.fuzzed++;
            if (r.ok) {
              stats.ok++;
              expect(schemaOk, `${method} accepted params its schema refuses: ${JSON.stringify(params)?.slice(0, 300)}`).toBe(true);
              const res = d.result.safeParse(r.result);
              expect(res.success, `${method} answered outside its schema: ${JSON.stringify(r.result)?.slice(0, 300)}`).toBe(true);
              // Keep the pool of real sessions fresh (forks and news add, deletes remove).
              const newId = (r.result as { id?: unknown })?.id;
              if ((method === 'session/new' || method === 'session/fork') && typeof newId === 'string' && ctx.ids.length < 40)
                ctx.ids.push(newId);
            } else {
              const code = r.error.code;
              stats.errors[code] = (stats.errors[code] ?? 0) + 1;
              expect(
                code,
                `${method} internal error on ${JSON.stringify(params)?.slice(0, 500)}: ${r.error.message}\n${sc.stderr.slice(-1500)}`,
              ).not.toBe(INTERNAL);
              if (!schemaOk) expect(code, `${method}: invalid params answered ${code} ${r.error.message}`).toBe(-32602);
            }
            expect(sc.child.exitCode).toBeNull();
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        // Deleted sessions leave the pool: refill it so later methods still hit real sessions.
        if (method === 'session/delete') {
          const listed = await sc.call(P.sessionList, { project: ctx.project, limit: 1000 });
          ctx.ids.splice(0, ctx.ids.length, ...listed.sessions.map((s) => s.id));
          if (ctx.ids.length === 0) ctx.ids.push(...(await seedStore(sc, ctx.project)));
        }
        // No prototype was polluted in this process by anything echoed back.
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Raw bytes on stdin

function frame(body: string | Buffer): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]);
}

/** Resolves with the JSON text of the answer to raw request `id` (read beside the client's reader). */
function rawAnswer(sc: Sidecar, id: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const needle = `"id":"${id}"`;
    const on = (d: Buffer) => {
      text += d.toString('utf8');
      const at = text.indexOf(needle);
      if (at === -1) {
        if (text.length > 1 << 20) text = text.slice(-4096);
        return;
      }
      sc.child.stdout!.off('data', on);
      resolve(text.slice(Math.max(0, text.lastIndexOf('{"jsonrpc"', at)), at + 2000));
    };
    sc.child.stdout!.on('data', on);
  });
}

describe('raw bytes on the sidecar stdin', () => {
  async function withSession() {
    const root = join(base, `raw-${Math.random().toString(36).slice(2, 8)}`, 'store');
    const project = join(root, '..', 'project');
    mkdirSync(project, { recursive: true });
    const sc = await startSidecar({ root, env: { LEVELCODE_SESSIONS_LOG: 'warn' } });
    const { id } = await sc.call(P.sessionNew, { project });
    const ack = await sc.call(P.sessionAppend, { id, events: [{ kind: 'user', content: 'kept' }] });
    expect(ack.appended).toBe(1);
    return { sc, root, project, id, file: join(root, projectSlug(project), `${id}.jsonl`) };
  }

  async function stillServes(sc: Sidecar, project: string) {
    const l = await sc.call(P.sessionList, { project });
    expect(l.sessions.length).toBe(1);
  }

  it('a message nested 100,000 deep: -32602, and serving goes on', async () => {
    const { sc, project, id } = await withSession();
    const deep = `{"jsonrpc":"2.0","id":"raw-deep","method":"session/append","params":{"id":"${id}","events":[{"kind":"user","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}}`;
    const answer = rawAnswer(sc, 'raw-deep');
    sc.child.stdin!.write(frame(deep));
    const text = await answer;
    expect(text).toMatch(/"code":-32602/);
    figures.fuzzed++;
    // The deep params as params of every method: none crashes it.
    for (const d of CLIENT_METHODS) {
      const a = rawAnswer(sc, `raw-deep-${d.method}`);
      sc.child.stdin!.write(
        frame(`{"jsonrpc":"2.0","id":"raw-deep-${d.method}","method":"${d.method}","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
      );
      expect(await a).not.toMatch(/"code":-32603/);
      figures.fuzzed++;
    }
    await stillServes(sc, project);
    expect((await sc.stop()).code).toBe(0);
  });

  it('a body that is not JSON, or JSON that is not a request: skipped, and serving goes on', async () => {
    const { sc, project } = await withSession();
    for (const body of [
      'this is not json',
      '{"jsonrpc":"2.0","id":',
      '[1,2,3]',
      '{"jsonrpc":"2.0","id":5}',
      '"just a string"',
      '{"jsonrpc":"2.0","id":6,"method":42}',
      Buffer.from([0xff, 0xfe, 0xfd]),
    ]) {
      sc.child.stdin!.write(frame(body));
      figures.fuzzed++;
      await stillServes(sc, project);
    }
    expect((await sc.stop()).code).toBe(0);
  });

  for (const [name, bytes] of [
    ['a Content-Length that is not a number', Buffer.from('Content-Length: abc\r\n\r\n{}')],
    ['a header without Content-Length', Buffer.from('Content-Type: application/json\r\n\r\n{}')],
    ['binary garbage instead of a header', Buffer.from([0, 1, 2, 0xff, 0xfe, 13, 10, 13, 10])],
    ['a Content-Length far beyond what follows', Buffer.from('Content-Length: 999999999\r\n\r\n{}')],
  ] as const) {
    it(`${name}: the sidecar exits cleanly (code 1, locks released, nothing acknowledged lost)`, async () => {
      const { sc, file } = await withSession();
      sc.child.stdin!.write(bytes);
      figures.fuzzed++;
      // An unreadable header ends it at once; a length still to come waits for its bytes: the
      // client closing the stream then ends it. Either way the exit is the clean one.
      sc.child.stdin!.end();
      const exit = await sc.exited;
      expect(exit, sc.stderr).toEqual({ code: 1, signal: null });
      expect(sc.stderr).not.toMatch(/Uncaught|TypeError|RangeError|at .*\.js:\d+/);
      if (!/999999999/.test(bytes.toString('latin1'))) expect(sc.stderr).toMatch(/unreadable frame header|Content-Length/);
      // Everything acknowledged is there, and the lock is released: another window takes it at once.
      expect(readFileSync(file, 'utf8')).toMatch(/"content":"kept"/);
      expect(existsSync(`${file}.lock`)).toBe(false);
      expect(readdirSync(join(file, '..')).filter((n) => n.includes('.lock'))).toEqual([]);
    });
  }
});
