// Conformance: every client-to-server method's happy path and its errors, through the real
// sidecar process. Results are checked against the descriptors' zod result schemas by the
// helper's call().

import { existsSync, readFileSync, readdirSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, cleanup, startSidecar, workspace, type Sidecar, fileOf, sessionWith as newSession } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';

import { SESSION_ID_RE } from '../../server/format/events.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { at, nonEmpty } from '../helpers/items.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });
const ASSISTANT = (text: string) => ({ kind: 'assistant', content: [{ type: 'text', text }] });
const AGENT = (...messages: unknown[]) => ({ kind: 'agent', messages });

const sessionWith = (s: Sidecar, project: string, events: unknown[]) => newSession(s, project, events, { model: 'test-model' });

describe('session/new', () => {
  it('creates a session under the real project path and announces it', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const r = await s.call(P.sessionNew, { project: project + '/.', model: 'm1' });
    expect(r.id).toMatch(SESSION_ID_RE);
    expect(r.project).toBe(project);
    const meta = JSON.parse(at(readFileSync(fileOf(root, r.id), 'utf8').split('\n'), 0));
    expect(meta).toMatchObject({ kind: 'meta', id: r.id, project, model: 'm1', title: null });
    expect(await s.editor.didChange.waitFor((c) => c.id === r.id)).toEqual({ id: r.id, project, change: 'created' });
    await s.stop();
  });

  it('refuses a relative or missing project with InvalidProject, a missing one with InvalidParams', async () => {
    const { root, base } = workspace();
    const s = await startSidecar({ root });
    expect((await s.error('session/new', { project: 'relative/path' })).code).toBe(RpcErrorCodes.InvalidProject);
    expect((await s.error('session/new', { project: join(base, 'nope') })).code).toBe(RpcErrorCodes.InvalidProject);
    expect((await s.error('session/new', { model: 'x' })).code).toBe(RpcErrorCodes.InvalidParams);
    await s.stop();
  });
});

describe('session/append', () => {
  it('appends all events, fsyncs, and answers with their seqs', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, []);
    const r = await s.call(P.sessionAppend, { id, events: [USER('hello'), ASSISTANT('hi')] });
    expect(r).toEqual({ appended: 2, firstSeq: 0, lastSeq: 1 });
    const r2 = await s.call(P.sessionAppend, { id, events: [{ kind: 'event', type: 'checkpoint', n: 1 }] });
    expect(r2).toEqual({ appended: 1, firstSeq: 2, lastSeq: 2 });
    // The reply came after the write: the bytes are in the file now.
    const lines = readFileSync(fileOf(root, id), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(at(lines, 3))).toMatchObject({ kind: 'event', type: 'checkpoint', n: 1 });
    await s.stop();
  });

  it('rejects invalid events with InvalidParams and the issues, writing nothing', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('one')]);
    const before = readFileSync(fileOf(root, id));
    const e = await s.error('session/append', { id, events: [USER('ok'), { kind: 'title' }] });
    expect(e.code).toBe(RpcErrorCodes.InvalidParams);
    expect(e.data.issues.length).toBeGreaterThan(0);
    expect(e.data.issues[0].path.slice(0, 1)).toEqual([1]);
    expect((await s.error('session/append', { id, events: [{ kind: 'nope' }] })).code).toBe(RpcErrorCodes.InvalidParams);
    expect((await s.error('session/append', { id, events: [] })).code).toBe(RpcErrorCodes.InvalidParams);
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    await s.stop();
  });

  it('answers UnknownSession for an id not in the store', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    const e = await s.error('session/append', { id: '2020-01-01T00-00-00-zzzz', events: [USER('x')] });
    expect(e.code).toBe(RpcErrorCodes.UnknownSession);
    expect(e.data.reason).toBe('unknown-session');
    await s.stop();
  });
});

describe('session/list', () => {
  it('previews the latest user message, as protocol.md and the schema say', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('the first question'), ASSISTANT('a'), USER('and the tests?')]);
    expect((await s.call(P.sessionList, { project })).sessions.find((x) => x.id === id)).toMatchObject({ preview: 'and the tests?' });
    const schema = readFileSync(join(REPO, 'protocol.schema.json'), 'utf8');
    expect(schema).toContain('One line of the latest user message.');
    await s.stop();
  });

  it('lists newest first, by project or all, a page at a time', async () => {
    const { root, project, base } = workspace();
    const other = join(base, 'other');
    (await import('node:fs')).mkdirSync(other);
    const s = await startSidecar({ root });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await sessionWith(s, project, [USER(`question ${i}`)]));
    const elsewhere = await sessionWith(s, other, [USER('elsewhere')]);
    // Touch the first one last: it becomes the newest.
    await s.call(P.sessionAppend, { id: ids[0], events: [ASSISTANT('late answer')] });

    const full = await s.call(P.sessionList, { project });
    // `all` wins over `project`, as protocol.md says.
    const both = await s.call(P.sessionList, { project, all: true });
    expect(both.sessions.map((x) => x.id).sort()).toEqual([...ids, elsewhere].sort());
    expect(full.sessions.map((x) => x.id)).toHaveLength(5);
    expect(at(full.sessions, 0).id).toBe(ids[0]);
    expect(full.nextCursor).toBeUndefined();
    const sorted = [...full.sessions].sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1,
    );
    expect(full.sessions).toEqual(sorted);
    expect(full.sessions[0]).toMatchObject({ project, turns: 1, model: 'test-model', preview: 'question 0', titled: false });

    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await s.call(P.sessionList, { project, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      paged.push(...page.sessions.map((x) => x.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(paged).toEqual(full.sessions.map((x) => x.id));

    const all = await s.call(P.sessionList, { all: true });
    expect(all.sessions.map((x) => x.id).sort()).toEqual([...ids, elsewhere].sort());
    expect((await s.call(P.sessionList, {})).sessions).toHaveLength(6);
    const bad = await s.error('session/list', { cursor: 'garbage' });
    expect(bad.code).toBe(RpcErrorCodes.InvalidParams);
    expect(bad.message).toBe('Invalid params for session/list at cursor: not a cursor this server made');
    expect(bad.data).toEqual({ issues: [{ code: 'custom', path: ['cursor'], message: 'not a cursor this server made' }] });
    expect((await s.error('session/list', { limit: 0 })).code).toBe(RpcErrorCodes.InvalidParams);
    await s.stop();
  });
});

describe('session/read', () => {
  it('reads the last N events, or a seq range', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, trace: 'messages' });
    const events = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? USER(`u${i}`) : ASSISTANT(`a${i}`)));
    const id = await sessionWith(s, project, events);
    // The second user turn titled the session in the background (seq 10): wait for it.
    expect(await s.titleSettled(id)).toBe('fallback');
    const tail = await s.call(P.sessionRead, { id, tail: 4 });
    expect(tail.events.map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    expect(tail.totalEvents).toBe(11);
    expect(tail.meta.id).toBe(id);
    expect(at(tail.events, 1).event).toMatchObject({ kind: 'user', content: 'u8' });
    expect(at(tail.events, 3).event).toMatchObject({ kind: 'title', title: 'u0', source: 'fallback' });
    const range = await s.call(P.sessionRead, { id, from: 2, to: 4 });
    expect(range.events.map((e) => e.seq)).toEqual([2, 3, 4]);
    const dflt = await s.call(P.sessionRead, { id });
    expect(dflt.events).toHaveLength(11);
    expect((await s.error('session/read', { id: '2020-01-01T00-00-00-zzzz', tail: 1 })).code).toBe(RpcErrorCodes.UnknownSession);
    expect((await s.error('session/read', { id, from: 5, to: 2 })).code).toBe(RpcErrorCodes.InvalidParams);
    await s.stop();
  });

  it('reports a torn last line as a problem, not an error', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('fine')]);
    appendFileSync(fileOf(root, id), '{"kind":"user","t":"2026-01-01T00:00:00.000Z","cont');
    const r = await s.call(P.sessionRead, { id, tail: 5 });
    expect(r.events.map((e) => e.event.kind)).toEqual(['user']);
    expect(r.problems.length).toBe(1);
    await s.stop();
  });
});

describe('session/resume', () => {
  it('tier 1: rebuilds the conversation and the agent messages verbatim', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const tool = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } }] };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'file body' }] };
    const id = await sessionWith(s, project, [USER('fix it'), AGENT(tool, result), ASSISTANT('done'), USER('thanks')]);
    const r = await s.call(P.sessionResume, { id, contextWindow: 128_000 });
    expect(r.tier).toBe(1);
    expect(r.readOnly).toBe(false);
    expect(r.conversation).toEqual([
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      { role: 'user', content: 'thanks' },
    ]);
    expect(r.agentMessages).toEqual([tool, result]);
    expect(r.note).toBeUndefined();
    expect((await s.error('session/resume', { id })).code).toBe(RpcErrorCodes.InvalidParams); // contextWindow is required
    expect((await s.error('session/resume', { id, contextWindow: 1000, budgetRatio: 2 })).code).toBe(RpcErrorCodes.InvalidParams);
    expect((await s.error('session/resume', { id: '2020-01-01T00-00-00-zzzz', contextWindow: 1000 })).code).toBe(
      RpcErrorCodes.UnknownSession,
    );
    await s.stop();
  });
});

describe('session/export', () => {
  it('renders markdown and json', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('How do refunds work?'), ASSISTANT('With **keys**.')]);
    const md = await s.call(P.sessionExport, { id, format: 'markdown' });
    expect(md.mimeType).toBe('text/markdown');
    expect(md.content).toContain('How do refunds work?');
    const json = await s.call(P.sessionExport, { id, format: 'json' });
    expect(json.mimeType).toBe('application/json');
    const doc = JSON.parse(json.content);
    expect(JSON.stringify(doc)).toContain('How do refunds work?');
    expect((await s.error('session/export', { id, format: 'pdf' })).code).toBe(RpcErrorCodes.InvalidParams);
    expect((await s.error('session/export', { id: '2020-01-01T00-00-00-zzzz', format: 'json' })).code).toBe(RpcErrorCodes.UnknownSession);
    await s.stop();
  });

  it("writes one heading per turn, in the client's time zone (initialize), else in `timeZone`, else UTC", async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, initializationOptions: { timeZone: '+05:30' } });
    const id = await sessionWith(s, project, [
      { kind: 'user', t: '2026-07-28T09:12:00.000Z', content: 'List the files' },
      {
        kind: 'assistant',
        t: '2026-07-28T09:12:05.000Z',
        content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } }],
      },
      { kind: 'user', t: '2026-07-28T09:12:06.000Z', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.ts' }] },
      { kind: 'assistant', t: '2026-07-28T09:12:09.000Z', content: [{ type: 'text', text: 'One file: a.ts.' }] },
    ]);
    const md = (await s.call(P.sessionExport, { id, format: 'markdown' })).content;
    expect(md.match(/^## .*/gm)).toEqual(['## Turn 1 · 2026-07-28 14:42']);
    expect(md).toContain('<summary>Tool call: <code>Bash</code></summary>');
    expect(md).toContain('<summary>Tool result: <code>Bash</code></summary>');
    const berlin = (await s.call(P.sessionExport, { id, format: 'markdown', timeZone: 'Europe/Berlin' })).content;
    expect(berlin).toContain('## Turn 1 · 2026-07-28 11:12\n');
    expect((await s.error('session/export', { id, format: 'markdown', timeZone: 'Nowhere/Atlantis' })).code).toBe(
      RpcErrorCodes.InvalidParams,
    );
    await s.stop();
    const plain = await startSidecar({ root });
    expect((await plain.call(P.sessionExport, { id, format: 'markdown' })).content).toContain('## Turn 1 · 2026-07-28 09:12 UTC\n');
    await plain.stop();
  });
});

describe('session/search', () => {
  it('finds words across sessions, filtered by project', async () => {
    const { root, project, base } = workspace();
    const other = join(base, 'other');
    (await import('node:fs')).mkdirSync(other);
    const s = await startSidecar({ root });
    const a = await sessionWith(s, project, [USER('the idempotency key is refund-42')]);
    await sessionWith(s, project, [USER('unrelated')]);
    const c = await sessionWith(s, other, [USER('another idempotency question')]);
    const all = await s.call(P.sessionSearch, { query: 'idempotency' });
    expect(all.hits.map((h) => h.sessionId).sort()).toEqual([a, c].sort());
    const mine = await s.call(P.sessionSearch, { query: 'idempotency', project });
    expect(mine.hits.map((h) => h.sessionId)).toEqual([a]);
    expect(at(mine.hits, 0).snippet).toContain('idempotency');
    expect((await s.error('session/search', { query: '' })).code).toBe(RpcErrorCodes.InvalidParams);
    await s.stop();
  });
});

describe('session/rename', () => {
  it('appends a title event and announces a rename', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('q')]);
    await s.editor.didChange.waitFor((c) => c.id === id); // created (and appended, if seen apart)
    const r = await s.call(P.sessionRename, { id, title: '  Refunds   via keys ' });
    expect(r).toEqual({ id, title: 'Refunds via keys' });
    expect(await s.editor.didChange.waitFor((c) => c.id === id && c.change === 'renamed')).toMatchObject({ project });
    const [row] = (await s.call(P.sessionList, { project })).sessions;
    expect(row).toMatchObject({ id, title: 'Refunds via keys', titled: true });
    const last = JSON.parse(readFileSync(fileOf(root, id), 'utf8').trimEnd().split('\n').pop()!);
    expect(last).toMatchObject({ kind: 'title', title: 'Refunds via keys', source: 'user' });
    expect((await s.error('session/rename', { id, title: '   ' })).code).toBe(RpcErrorCodes.InvalidParams);
    // The schema's maxLength is the length as sent: 500 characters pass, 501 do not, even if
    // trimming would bring them under (a client checking against protocol.schema.json agrees).
    const schema = JSON.parse(readFileSync(join(REPO, 'protocol.schema.json'), 'utf8'));
    expect(JSON.stringify(schema)).toContain('"maxLength":500');
    expect(await s.call(P.sessionRename, { id, title: 'x'.repeat(500) })).toMatchObject({ title: 'x'.repeat(500) });
    expect((await s.error('session/rename', { id, title: ` ${'x'.repeat(499)} ` })).code).toBe(RpcErrorCodes.InvalidParams);
    await s.stop();
  });
});

describe('session/delete', () => {
  it('moves the file to the trash, drops it from the list and announces it', async () => {
    const { root, project, base } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('bye')]);
    const file = fileOf(root, id);
    await s.editor.didChange.waitFor((c) => c.id === id);
    expect(await s.call(P.sessionDelete, { id })).toEqual({ id });
    expect(existsSync(file)).toBe(false);
    const infoDir = join(base, 'xdg-data', 'Trash', 'info');
    const infos = readdirSync(infoDir).map((f) => readFileSync(join(infoDir, f), 'utf8'));
    expect(infos.some((t) => t.includes(`${id}.jsonl`))).toBe(true);
    expect((await s.call(P.sessionList, { project })).sessions).toEqual([]);
    expect(await s.editor.didChange.waitFor((c) => c.id === id && c.change === 'deleted')).toEqual({ id, project, change: 'deleted' });
    expect((await s.error('session/delete', { id })).code).toBe(RpcErrorCodes.UnknownSession);
    await s.stop();
  });
});

describe('session/seal', () => {
  it('asks a client that answers "title" for one, then seals and lets go', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({
      root,
      callbacks: ['title'],
      editor: { title: (p) => ({ title: `"Fix ${at(p.messages, 0).text} flow."` }) },
    });
    const id = await sessionWith(s, project, [USER('refund'), ASSISTANT('ok')]);
    const r = await s.call(P.sessionSeal, { id });
    expect(r).toEqual({ id, title: 'Fix refund flow', titleSource: 'model' });
    const call = (await s.editor.calls.waitFor((c) => c.method === 'session/title')).params as any;
    expect(call).toMatchObject({
      id,
      messages: [
        { role: 'user', text: 'refund' },
        { role: 'assistant', text: 'ok' },
      ],
      maxTokens: 200,
    });
    const kinds = readFileSync(fileOf(root, id), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(kinds.slice(-2)).toMatchObject([
      { kind: 'title', source: 'model' },
      { kind: 'event', type: 'sealed' },
    ]);
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
    await s.stop();
  });

  it('falls back to the first user message without the callback, or when it fails', async () => {
    const { root, project } = workspace();
    const plain = await startSidecar({ root, editor: { title: () => ({ title: 'never asked' }) } });
    const a = await sessionWith(plain, project, [USER('How do I add idempotency to refunds?\nmore')]);
    expect(await plain.call(P.sessionSeal, { id: a })).toEqual({
      id: a,
      title: 'How do I add idempotency to refunds?',
      titleSource: 'fallback',
    });
    expect(plain.editor.calls.items.filter((c) => c.method === 'session/title')).toEqual([]);
    await plain.stop();

    const failing = await startSidecar({ root, callbacks: ['title'] }); // the fake editor refuses
    const b = await sessionWith(failing, project, [USER('second chat')]);
    expect(await failing.call(P.sessionSeal, { id: b })).toMatchObject({ title: 'second chat', titleSource: 'fallback' });
    const c = await sessionWith(failing, project, [USER('third')]);
    await failing.call(P.sessionRename, { id: c, title: 'Named' });
    expect(await failing.call(P.sessionSeal, { id: c })).toEqual({ id: c, title: 'Named', titleSource: 'existing' });
    const empty = await sessionWith(failing, project, []);
    expect(await failing.call(P.sessionSeal, { id: empty })).toMatchObject({ titleSource: 'none' });
    await failing.stop();
  });
});

describe('session/seal with a title model that never answers', () => {
  it('gives up after the timeout and uses the fallback title', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({
      root,
      callbacks: ['title'],
      env: { LEVELCODE_SESSIONS_TITLE_TIMEOUT_MS: '200' },
      editor: { title: () => new Promise(() => {}) },
    });
    const id = await sessionWith(s, project, [USER('slow model here')]);
    expect(await s.call(P.sessionSeal, { id })).toEqual({ id, title: 'slow model here', titleSource: 'fallback' });
    await s.stop();
  });
});

describe('session/fork', () => {
  it('refuses a session of a newer schema rather than copy it with loss', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('from the future')]);
    const file = fileOf(root, id);
    const [metaLine, ...rest] = nonEmpty(readFileSync(file, 'utf8').split('\n'));
    writeFileSync(file, [JSON.stringify({ ...JSON.parse(metaLine), v: 2, futureField: { kept: true } }), ...rest].join('\n'));
    const before = (await s.call(P.sessionList, { project })).sessions.length;
    const e = await s.error('session/fork', { id });
    expect(e.code).toBe(RpcErrorCodes.SchemaTooNew);
    expect(e.data).toEqual({ reason: 'schema-too-new', v: 2, supported: 1 });
    expect(e.message).toContain('cannot copy it faithfully');
    expect((await s.call(P.sessionList, { project })).sessions.length).toBe(before);
    await s.stop();
  });

  it('copies every event verbatim into a new session this sidecar owns', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, [USER('a'), ASSISTANT('b'), { kind: 'title', title: 'T' }]);
    const f = await s.call(P.sessionFork, { id });
    expect(f).toMatchObject({ forkedFrom: id, copied: 3, project });
    expect(f.id).not.toBe(id);
    const orig = (await s.call(P.sessionRead, { id })).events;
    const copy = (await s.call(P.sessionRead, { id: f.id })).events;
    expect(copy.slice(0, 3)).toEqual(orig);
    expect(at(copy, 3).event).toMatchObject({ kind: 'event', type: 'forked', from: id, throughSeq: 2 });
    expect(existsSync(fileOf(root, f.id) + '.lock')).toBe(true);
    expect((await s.error('session/fork', { id: '2020-01-01T00-00-00-zzzz' })).code).toBe(RpcErrorCodes.UnknownSession);
    await s.stop();
  });
});

describe('session/reindex', () => {
  it('rebuilds a wrong index from the files, for one project or all, touching no session', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const a = await sessionWith(s, project, [USER('alpha one'), ASSISTANT('hi')]);
    const b = await sessionWith(s, project, [USER('beta')]);
    const dir = join(fileOf(root, a), '..');
    const before = [readFileSync(fileOf(root, a)), readFileSync(fileOf(root, b))];
    // A cache that lies while still matching the files' sizes and mtimes: only a rebuild sees it.
    const idx = JSON.parse(readFileSync(projectCache(dir, 'index.json'), 'utf8'));
    for (const e of idx.entries) {
      e.turns = 42;
      e.title = 'WRONG';
    }
    writeFileSync(projectCache(dir, 'index.json'), JSON.stringify(idx));
    const r = await s.call(P.sessionReindex, { project });
    expect(r).toMatchObject({ projects: 1, sessions: 2, written: 1, problems: [] });
    const fixed = JSON.parse(readFileSync(projectCache(dir, 'index.json'), 'utf8'));
    const byId = Object.fromEntries(fixed.entries.map((e: { id: string }) => [e.id, e]));
    expect(byId[a]).toMatchObject({ turns: 1, title: null, firstUser: 'alpha one' });
    expect(byId[b]).toMatchObject({ turns: 1, title: null, firstUser: 'beta' });
    expect([readFileSync(fileOf(root, a)), readFileSync(fileOf(root, b))]).toEqual(before);
    const all = await s.call(P.sessionReindex, {});
    expect(all).toMatchObject({ projects: 1, sessions: 2, written: 1 });
    const bad = await s.error('session/reindex', { project: 'relative/path' });
    expect(bad.code).toBe(RpcErrorCodes.InvalidProject);
    await s.stop();
  });
});
