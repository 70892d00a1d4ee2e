// The MCP server through the MCP SDK's own client over stdio, spawning the real binary
// (`node bin/levelcode-sessions.js mcp --dir D`) against stores in temp dirs: every tool, its
// answers (citations, speakers, dates, fences, "more:" lines), its errors (bad params, unknown
// session, an empty store, a store that is not a folder), its limits, the resources, and a store
// of 2,700 sessions shaped like the bench corpus (bench/corpus.mjs, small files).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectSlug } from '../../server/store/slug.js';
import { REPO, callText, connect, session, type Connected } from './harness.js';

let tmp: string;
let store: string;
let payments: string;
let site: string;
let mcp: Connected;
let decided: string; // the refund decision (ours)
let fences: string; // a session with code and a long tool output
let imported: string; // a session imported from Claude Code
const CLAUDE_ID = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';

const t = (i: number) => `2026-07-${String(i).padStart(2, '0')}T10:00:00.000Z`;
const CODE = '```ts\nexport function retry(key: string) {\n  return pay(key); // same key\n}\n```';
const LONG = Array.from({ length: 400 }, (_, i) => `log line ${i}: refund worker ok`).join('\n');

/** An imported session's file, as the import engine writes one: a meta line with `source`. */
function importedSession(root: string, project: string, id: string): void {
  const dir = join(root, projectSlug(project));
  mkdirSync(dir, { recursive: true });
  const lines = [
    {
      kind: 'meta',
      v: 1,
      id,
      project,
      createdAt: t(20),
      title: null,
      source: { tool: 'claude-code', version: '2.1.332', path: '/home/ada/.claude/projects/x.jsonl', id: CLAUDE_ID, project },
    },
    { kind: 'user', t: t(20), content: 'Claude Code: what about refund idempotency on the webhook?' },
    { kind: 'assistant', t: t(20), content: [{ type: 'text', text: 'The webhook dedupes refund events by idempotency key too.' }] },
  ];
  writeFileSync(join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-mcp-'));
  store = join(tmp, 'store');
  payments = join(tmp, 'payments');
  site = join(tmp, 'site');
  mkdirSync(payments);
  mkdirSync(site);
  payments = realpathSync(payments);
  site = realpathSync(site);
  decided = session(
    store,
    payments,
    [
      { kind: 'user', t: t(1), content: 'Should refund retries reuse the idempotency key?' },
      {
        kind: 'assistant',
        t: t(1),
        model: 'claude-test',
        content: [{ type: 'text', text: "Decision: every retry of a refund reuses the order's idempotency key." }],
      },
      { kind: 'title', t: t(1), title: 'Refund retries' },
    ],
    'claude-test',
  );
  fences = session(store, payments, [
    { kind: 'user', t: t(5), content: 'Show the refund retry code' },
    {
      kind: 'assistant',
      t: t(5),
      content: [
        { type: 'text', text: `Here it is:\n\n${CODE}` },
        { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'tail -n 400 worker.log' } },
      ],
    },
    { kind: 'user', t: t(5), content: [{ type: 'tool_result', tool_use_id: 'tu1', content: LONG }] },
    ...Array.from({ length: 30 }, (_, i) => ({
      kind: 'user',
      t: t(6),
      content: `filler turn ${i} about nothing in particular `.repeat(20),
    })),
  ]);
  session(store, site, [{ kind: 'user', t: t(3), content: 'Rename the logger of the site' }]);
  imported = '2026-07-20T10-00-00-imp1';
  importedSession(store, payments, imported);
  mcp = await connect(store);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('tools/list', () => {
  it('lists the five tools, read-only, each parameter described', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['list_projects', 'list_sessions', 'read_session', 'recall', 'search_sessions']);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.description!.length).toBeGreaterThan(50);
      for (const [k, v] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>))
        expect(v.description, `${tool.name}.${k}`).toBeTruthy();
    }
    const search = tools.find((x) => x.name === 'search_sessions')!;
    expect(search.inputSchema.required).toEqual(['query']);
  });

  it('tells the agent how to use them (instructions)', () => {
    expect(mcp.client.getInstructions()).toMatch(/recall.*search_sessions.*read_session/s);
  });
});

describe('search_sessions', () => {
  it('answers sessions best first, each with its best turns: id#turn, time, speaker and snippet', async () => {
    const r = await callText(mcp.client, 'search_sessions', { query: 'refund idempotency' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^2 matching sessions for "refund idempotency" in all projects, best first/);
    // Both sessions hold both words in a question and its answer; the imported one is newer.
    const order = [...r.text.matchAll(/^\d+\. .* — (\S+)$/gm)].map((m) => m[1]);
    expect(order).toEqual([imported, decided]);
    expect(r.text).toContain(
      `2. Refund retries — ${decided}\n   last active 2026-07-01 10:00 UTC · source levelcode · project ${payments}`,
    );
    expect(r.text).toContain(`   - ${decided}#1 · 2026-07-01 10:00 UTC · the assistant: Decision: every retry`);
    expect(r.text).toContain('source claude-code (its id 0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f)');
    expect(r.text).toMatch(/reuses the order's idempotency key/);
    expect(r.text).toContain(`read: call read_session(session_id="${imported}", around_turn=0)`);
  });

  it('filters by project, source tool and time', async () => {
    const site1 = await callText(mcp.client, 'search_sessions', { query: 'logger', project: site });
    expect(site1.text).toMatch(/^1 matching session for "logger" in project /);
    expect((await callText(mcp.client, 'search_sessions', { query: 'logger', project: payments })).text).toMatch(
      /^No matches for "logger" in project /,
    );
    const claude = await callText(mcp.client, 'search_sessions', { query: 'refund', source: 'claude-code' });
    expect(claude.text).toMatch(/^1 matching session .* from claude-code/);
    expect(claude.text).not.toContain(decided);
    const ours = await callText(mcp.client, 'search_sessions', { query: 'idempotency', source: 'levelcode' });
    expect(ours.text).toContain(decided);
    expect(ours.text).not.toContain(imported);
    const july = await callText(mcp.client, 'search_sessions', { query: 'refund', since: '2026-07-04', until: '2026-07-10' });
    expect(july.text).toContain(fences);
    expect(july.text).not.toContain(decided);
    expect(july.text).not.toContain(imported);
  });

  it('pages with limit and offset, and says which call gives the next page', async () => {
    const p1 = await callText(mcp.client, 'search_sessions', { query: 'refund', limit: 2 });
    expect(p1.text).toMatch(/showing 1-2/);
    expect(p1.text).toContain('more: call search_sessions(query="refund", limit=2, offset=2) for the next sessions.');
    const p2 = await callText(mcp.client, 'search_sessions', { query: 'refund', limit: 2, offset: 2 });
    expect(p2.text).toMatch(/showing 3-3/);
    expect(p2.text).not.toContain('more: call');
    const first = [...p1.text.matchAll(/^\d+\. .* — (\S+)$/gm)].map((m) => m[1]);
    const second = [...p2.text.matchAll(/^\d+\. .* — (\S+)$/gm)].map((m) => m[1]);
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(1);
    expect(first.filter((x) => second.includes(x))).toEqual([]);
    const past = await callText(mcp.client, 'search_sessions', { query: 'refund', offset: 500 });
    expect(past.text).toMatch(/No more matches .* all \d+ sessions were shown/);
  });

  it("leaves out the calling agent's own session, by our id or by the tool's own id", async () => {
    const byOurs = await callText(mcp.client, 'search_sessions', { query: 'idempotency', current_session: decided });
    expect(byOurs.text).not.toContain(decided);
    expect(byOurs.text).toContain(imported);
    const byTheirs = await callText(mcp.client, 'search_sessions', { query: 'idempotency', current_session: CLAUDE_ID });
    expect(byTheirs.text).not.toContain(imported);
    expect(byTheirs.text).toContain(decided);
  });

  it('leaves out LEVELCODE_CURRENT_SESSION when the agent set it', async () => {
    const other = await connect(store, [], { LEVELCODE_CURRENT_SESSION: CLAUDE_ID });
    try {
      const r = await callText(other.client, 'search_sessions', { query: 'idempotency' });
      expect(r.text).toContain(decided);
      expect(r.text).not.toContain(imported);
    } finally {
      await other.close();
    }
  });

  it('covers the project of `mcp --project` by default, and all with project "all"', async () => {
    const scoped = await connect(store, ['--project', site]);
    try {
      expect((await callText(scoped.client, 'search_sessions', { query: 'refund' })).text).toMatch(/^No matches for "refund" in project /);
      expect((await callText(scoped.client, 'search_sessions', { query: 'refund', project: 'all' })).text).toContain(decided);
    } finally {
      await scoped.close();
    }
  });

  it('refuses bad parameters with the reason', async () => {
    for (const [args, reason] of [
      [{}, /query/],
      [{ query: '' }, /query/],
      [{ query: 'x', limit: 0 }, /limit/],
      [{ query: 'x', limit: 51 }, /limit/],
      [{ query: 'x', offset: -1 }, /offset/],
      [{ query: 'x', since: 'last tuesday' }, /since is an ISO date or time/],
      [{ query: 'x', limit: 'ten' }, /limit/],
    ] as const) {
      const r = await callText(mcp.client, 'search_sessions', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.text).toMatch(/Input validation error/);
      expect(r.text).toMatch(reason);
    }
    const rel = await callText(mcp.client, 'search_sessions', { query: 'x', project: 'relative/path' });
    expect(rel.isError).toBe(true);
    expect(rel.text).toMatch(/absolute path/);
  });

  it('an unknown tool is an error', async () => {
    const r = await callText(mcp.client, 'forget_everything', {});
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/forget_everything not found/);
  });
});

describe('read_session', () => {
  it('reads a session with its facts, speakers, dates and turns cited', async () => {
    const r = await callText(mcp.client, 'read_session', { session_id: decided });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('# Refund retries');
    expect(r.text).toContain(`- Session: ${decided} (3 turns, numbered from 0`);
    expect(r.text).toContain(`- Project: ${payments}`);
    expect(r.text).toContain('- Source: levelcode');
    expect(r.text).toContain(`### User · 2026-07-01 10:00 UTC · ${decided}#0`);
    expect(r.text).toContain(`### Assistant (claude-test) · 2026-07-01 10:00 UTC · ${decided}#1`);
    expect(r.text).toContain("Decision: every retry of a refund reuses the order's idempotency key.");
    expect(r.text).not.toMatch(/more: /);
  });

  it('keeps code fences and cuts a long tool output, saying how to see the rest', async () => {
    const r = await callText(mcp.client, 'read_session', { session_id: fences, from_turn: 0, to_turn: 2 });
    expect(r.text).toContain(CODE);
    expect(r.text).toContain('Tool call `Bash`:\n```json\n{\n  "command": "tail -n 400 worker.log"\n}\n```');
    expect(r.text).toContain('Tool result of `Bash`:');
    expect(r.text).toContain('log line 0: refund worker ok');
    expect(r.text).not.toContain('log line 399');
    const m = new RegExp(
      `… \\(\\d+ more characters of this tool text: call read_session\\(session_id="${fences}", from_turn=2, to_turn=2, tool_chars=(\\d+), max_chars=(\\d+)\\)\\)`,
    ).exec(r.text);
    expect(m, r.text).not.toBeNull();
    // The call it names shows the output whole.
    const whole = await callText(mcp.client, 'read_session', {
      session_id: fences,
      from_turn: 2,
      to_turn: 2,
      tool_chars: Number(m![1]),
      max_chars: Number(m![2]),
    });
    expect(whole.text).toContain('log line 399: refund worker ok');
    const none = await callText(mcp.client, 'read_session', { session_id: fences, from_turn: 2, to_turn: 2, tool_chars: 0 });
    expect(none.text).not.toContain('log line 0');
    expect(none.text).toContain('left out: tool_chars=0');
  });

  it('stays within max_chars and names the call that continues', async () => {
    const r = await callText(mcp.client, 'read_session', { session_id: fences, max_chars: 2000 });
    expect(r.text.length).toBeLessThan(2000 + 1200); // the budget, plus the header and the notices
    const more = /more: call read_session\(session_id="([^"]+)", max_chars=2000, from_turn=(\d+)\)/.exec(r.text);
    expect(more, r.text.slice(-500)).not.toBeNull();
    const next = await callText(mcp.client, 'read_session', { session_id: fences, max_chars: 2000, from_turn: Number(more![2]) });
    expect(next.text).toContain(`${fences}#${more![2]}`);
    // Paging on reaches the last turn, every turn shown once.
    const seen = new Set<number>();
    let from = 0;
    for (let i = 0; i < 40; i++) {
      const page = await callText(mcp.client, 'read_session', { session_id: fences, max_chars: 4000, from_turn: from });
      for (const m of page.text.matchAll(new RegExp(`### .* · ${fences}#(\\d+)`, 'g'))) {
        expect(seen.has(Number(m[1]))).toBe(false);
        seen.add(Number(m[1]));
      }
      const m = /more: call read_session\([^)]*from_turn=(\d+)/.exec(page.text);
      if (!m) break;
      from = Number(m[1]);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 33 }, (_, i) => i));
  });

  it('shows the turns around a hit, the hit first when not all fit', async () => {
    const r = await callText(mcp.client, 'read_session', { session_id: fences, around_turn: 10, context: 2 });
    expect(r.text).toContain('- Showing turns 8-12 of 0-32');
    for (const n of [8, 9, 10, 11, 12]) expect(r.text).toContain(`${fences}#${n}`);
    expect(r.text).not.toContain(`${fences}#7`);
    const tight = await callText(mcp.client, 'read_session', { session_id: fences, around_turn: 10, context: 10, max_chars: 1000 });
    expect(tight.text).toContain(`${fences}#10`);
    expect(tight.text).toMatch(/earlier: call read_session\(/);
    expect(tight.text).toMatch(/more: call read_session\(/);
  });

  it('says what is wrong with a read it cannot answer', async () => {
    const unknown = await callText(mcp.client, 'read_session', { session_id: '2026-01-01T00-00-00-none' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/no session 2026-01-01T00-00-00-none in .*search_sessions or list_sessions/);
    const bad = await callText(mcp.client, 'read_session', { session_id: '../../etc/passwd' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/not a session id/);
    const both = await callText(mcp.client, 'read_session', { session_id: decided, around_turn: 1, from_turn: 0 });
    expect(both.isError).toBe(true);
    expect(both.text).toMatch(/around_turn or from_turn\/to_turn, not both/);
    const past = await callText(mcp.client, 'read_session', { session_id: decided, from_turn: 99 });
    expect(past.isError).toBe(true);
    expect(past.text).toMatch(/has 3 turns \(0-2\); turn 99 is past its end/);
    const backwards = await callText(mcp.client, 'read_session', { session_id: decided, from_turn: 2, to_turn: 1 });
    expect(backwards.isError).toBe(true);
    for (const args of [
      { session_id: decided, max_chars: 10 },
      { session_id: decided, max_chars: 50_001 },
      { session_id: decided, tool_chars: -1 },
      { session_id: decided, context: 51 },
    ]) {
      const r = await callText(mcp.client, 'read_session', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.text).toMatch(/Input validation error/);
    }
  });
});

describe('list_sessions, list_projects, recall', () => {
  it("lists a project's sessions, most recently active first, with source and what was last asked", async () => {
    const r = await callText(mcp.client, 'list_sessions', { project: payments });
    expect(r.text).toMatch(/^3 sessions in project .*payments, most recently active first; showing 1-3/);
    const order = [...r.text.matchAll(/^\d+\. .* — (\S+)$/gm)].map((m) => m[1]);
    expect(order).toEqual([imported, fences, decided]);
    expect(r.text).toContain(`3. Refund retries — ${decided}\n   last active 2026-07-01 10:00 UTC · started `);
    expect(r.text).toContain('source claude-code');
    expect(r.text).toContain('last asked: Should refund retries reuse the idempotency key?');
  });

  it('filters and pages like search', async () => {
    const ours = await callText(mcp.client, 'list_sessions', { source: 'levelcode' });
    expect(ours.text).toMatch(/^3 sessions in all projects, from levelcode/);
    expect(ours.text).not.toContain(imported);
    const p1 = await callText(mcp.client, 'list_sessions', { limit: 1 });
    expect(p1.text).toContain('more: call list_sessions(limit=1, offset=1) for older sessions.');
    const mine = await callText(mcp.client, 'list_sessions', { current_session: CLAUDE_ID });
    expect(mine.text).toMatch(/^3 sessions/);
    const older = await callText(mcp.client, 'list_sessions', { until: '2026-07-02' });
    expect(older.text).toMatch(/^1 session in all projects, until 2026-07-02T00:00:00.000Z/);
    expect((await callText(mcp.client, 'list_sessions', { limit: 101 })).isError).toBe(true);
  });

  it('lists the projects with their session counts and tools', async () => {
    const r = await callText(mcp.client, 'list_projects', {});
    expect(r.text).toMatch(/^2 projects with sessions/);
    expect(r.text).toContain(`- ${payments} · 3 sessions · last active 2026-07-20 10:00 UTC · from claude-code, levelcode`);
    expect(r.text).toContain(`- ${site} · 1 session ·`);
  });

  it('recalls what was decided: the conversation around the best match of the best sessions', async () => {
    const r = await callText(mcp.client, 'recall', { query: 'refund idempotency', sessions: 2 });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^2 matching sessions for "refund idempotency" in all projects; the 2 best, around their best match/);
    expect(r.text).toContain(`## Refund retries — ${decided}`);
    expect(r.text).toContain(`### Assistant (claude-test) · 2026-07-01 10:00 UTC · ${decided}#1`);
    expect(r.text).toContain("Decision: every retry of a refund reuses the order's idempotency key.");
    expect(r.text).toContain(`### User · 2026-07-01 10:00 UTC · ${decided}#0`);
    expect(r.text).toContain(`${imported}#1`);
    const none = await callText(mcp.client, 'recall', { query: 'kubernetes' });
    expect(none.text).toMatch(/^No matches for "kubernetes"/);
  });
});

describe('resources', () => {
  it('lists sessions as levelcode-session:// resources and reads one as Markdown', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`levelcode-session://${decided}`);
    expect(resources.find((r) => r.uri === `levelcode-session://${decided}`)!.name).toBe('Refund retries');
    const { contents } = await mcp.client.readResource({ uri: `levelcode-session://${decided}` });
    const page = contents[0]!;
    expect(page.mimeType).toBe('text/markdown');
    expect('text' in page ? page.text : page.blob).toContain(`### Assistant (claude-test) · 2026-07-01 10:00 UTC · ${decided}#1`);
  });

  it('an unknown session resource is an error', async () => {
    await expect(mcp.client.readResource({ uri: 'levelcode-session://2026-01-01T00-00-00-none' })).rejects.toThrow(/no session/);
  });
});

describe('stores with nothing to answer from', () => {
  it('an empty store: every tool says there are no sessions yet', async () => {
    const empty = await connect(join(tmp, 'no-store-here'));
    try {
      for (const [name, args] of [
        ['search_sessions', { query: 'refund' }],
        ['recall', { query: 'refund' }],
        ['list_sessions', {}],
        ['list_projects', {}],
      ] as const) {
        const r = await callText(empty.client, name, args);
        expect(r.isError, name).toBe(false);
        expect(r.text, name).toMatch(/^No sessions yet: the store .*no-store-here does not exist/);
      }
      const read = await callText(empty.client, 'read_session', { session_id: decided });
      expect(read.isError).toBe(true);
      expect(read.text).toMatch(/no session/);
      expect((await empty.client.listResources()).resources).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('a store that is not a folder is an error, never "no sessions"', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'not a store');
    const c = await connect(file);
    try {
      const r = await callText(c.client, 'search_sessions', { query: 'refund' });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/is not a folder/);
    } finally {
      await c.close();
    }
  });
});

describe('a store of 2,700 sessions', () => {
  let big: string;
  let c: Connected;
  beforeAll(async () => {
    big = join(tmp, 'corpus');
    // The bench corpus's shape (projects, tool calls, compactions, titles, unicode) at 40 MB.
    const g = spawnSync(
      process.execPath,
      [join(REPO, 'bench', 'corpus.mjs'), '--out', big, '--sessions', '2700', '--total-mb', '40', '--huge', '', '--projects', '12'],
      { encoding: 'utf8' },
    );
    expect(g.status, g.stderr).toBe(0);
    c = await connect(big);
  }, 120_000);
  afterAll(async () => {
    await c?.close();
  });

  it('lists all of them and their projects', async () => {
    expect(readdirSync(big).length).toBe(12);
    expect((await callText(c.client, 'list_sessions', { limit: 5 })).text).toMatch(/^2700 sessions in all projects/);
    expect((await callText(c.client, 'list_projects', {})).text).toMatch(/^12 projects with sessions/);
  });

  it('searches them (the first search builds the search cache) and reads a hit', async () => {
    const r = await callText(c.client, 'search_sessions', { query: 'idempotency', limit: 50 });
    expect(r.isError).toBe(false);
    const total = Number(/^(\d+) matching sessions/.exec(r.text)![1]);
    expect(total).toBeGreaterThan(100);
    expect([...r.text.matchAll(/^\d+\. .* — (\S+)$/gm)]).toHaveLength(50);
    const hits = [...r.text.matchAll(/^ {3}- (\S+)#(\d+) · /gm)];
    expect(hits.length).toBeGreaterThanOrEqual(50);
    const again = await callText(c.client, 'search_sessions', { query: 'idempotency', limit: 50 });
    expect(again.text).toBe(r.text);
    const read = await callText(c.client, 'read_session', { session_id: hits[0]![1], around_turn: Number(hits[0]![2]) });
    expect(read.isError).toBe(false);
    expect(read.text).toContain(`${hits[0]![1]}#${hits[0]![2]}`);
    expect(read.text.length).toBeLessThan(12_000 + 1500);
  }, 120_000); // the first search builds the search cache of 2,700 sessions

  it('a source filter that passes nothing answers nothing; recall shows the best sessions', async () => {
    const r = await callText(c.client, 'search_sessions', { query: 'idempotency', source: 'codex' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^No matches for "idempotency" in all projects, from codex/);
    const recall = await callText(c.client, 'recall', { query: 'idempotency refund' });
    expect(recall.text).toMatch(/^\d+ matching sessions .* the 3 best, around their best match/);
  }, 60_000);
});
