// The Gemini CLI importer on real files in temp dirs: every contract case's counts, then what a
// case cannot say: determinism as a log grows line by line, a whole-file JSON rewritten, a torn
// last line, $rewindTo, hostile keys, raw records kept, and an unreadable folder.

import { spawnSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gemini } from '../../server/import/gemini.js';
import { importerOf } from '../../server/import/registry.js';
import { resumeArgv, toolOf } from '../../server/import/tools.js';
import { cases, firstJson, LOG061 } from './cases/gemini.js';
import { at, nonEmpty } from '../helpers/items.js';
import { bare, checkCase, readAll, title, turns, userTexts } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lcs-gemini-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gemini contract cases', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const sessions = await checkCase(importerOf('gemini')!, c, dir, expect);
      for (const s of sessions) {
        if (c.real) expect(s.problems).toEqual([]);
        expect(resumeArgv(toolOf('gemini')!, s.source)).toEqual(['gemini', '--resume', s.source.id]);
      }
      if (c.earlier) {
        const before = await readAll(gemini, await c.earlier(await mkdtemp(join(dir, 'earlier-'))));
        const full = bare(at(sessions, 0).events);
        const early = bare(at(before, 0).events);
        expect(early.length).toBeLessThan(full.length);
        expect(full.slice(0, early.length)).toEqual(early);
      }
    });
  }
});

describe('gemini JSONL replay', () => {
  async function realLog(): Promise<{ root: string; file: string; text: string }> {
    const root = join(dir, '.gemini');
    await cp('test/fixtures/import/gemini/real/v0.61.0', root, { recursive: true });
    const file = join(root, 'tmp/project/chats', LOG061);
    return { root, file, text: await readFile(file, 'utf8') };
  }

  it('reading the log cut at every line gives the earlier events as a prefix (the last may still be completing)', async () => {
    const { file, text } = await realLog();
    const lines = text.split('\n').filter(Boolean);
    const full = bare(at(await gemini.read(await sourceOf(file)), 0).events);
    for (let n = 1; n < lines.length; n++) {
      await writeFile(file, lines.slice(0, n).join('\n') + '\n');
      const got = await gemini.read(await sourceOf(file));
      const events = got.length ? bare(at(got, 0).events) : [];
      const settled = events.slice(0, -1);
      expect(full.slice(0, settled.length), `after ${n} lines`).toEqual(settled);
    }
  });

  it('a record written twice as it completes is one event, replaced in place; its results one more', async () => {
    const { file } = await realLog();
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    // Each message id maps once: one event, or a call and its results (two events, one record).
    const raws = [...new Set(s.events.map((e) => e.raw).filter((r) => (r as { id?: string })?.id))];
    const ids = raws.map((r) => (r as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    const i = s.events.findIndex((e) => e.kind === 'agent');
    const [call, result] = [at(s.events, i), at(s.events, i + 1)];
    expect((call.raw as { toolCalls?: unknown[] }).toolCalls).toHaveLength(1);
    expect(result.raw).toBe(call.raw);
    expect((call.messages as { role: string }[]).map((m) => m.role)).toEqual(['assistant']);
    expect((result.messages as { role: string; content: { type: string }[] }[]).map((m) => [m.role, m.content[0]?.type])).toEqual([
      ['user', 'tool_result'],
    ]);
  });

  it('the compression becomes a compact event whose briefing is the snapshot, covering the events before it', async () => {
    const { file } = await realLog();
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    const i = s.events.findIndex((e) => e.kind === 'compact');
    expect(at(s.events, i).briefing).toContain('<state_snapshot>');
    expect(at(s.events, i).coversThrough).toBe(i - 1);
    // The turns before it stay: the transcript is never replaced.
    expect(userTexts(s.events.slice(0, i))).toEqual([
      'Create notes.txt containing hello, please.',
      'Now run ls and tell me what is there.',
    ]);
  });

  it('a torn last line is a problem, not a throw, and the events before it stand', async () => {
    const { file, text } = await realLog();
    const before = bare(at(await gemini.read(await sourceOf(file)), 0).events);
    await writeFile(file, text + '{"id":"x","type":"user","content":[{"text":"half');
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    expect(bare(s.events)).toEqual(before);
    expect(s.problems).toHaveLength(1);
    expect(s.problems[0]).toMatch(/torn last line/);
  });

  it('a bad line in the middle is reported and kept as text', async () => {
    const { file, text } = await realLog();
    const lines = text.split('\n');
    lines.splice(3, 0, 'not json at all');
    await writeFile(file, lines.join('\n'));
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    expect(s.problems[0]).toMatch(/Line 4 is not JSON/);
    expect(s.events.some((e) => e.type === 'source-record' && e.unparsed === true && e.raw === 'not json at all')).toBe(true);
  });

  it('$rewindTo takes the message and all after it out, keeping them raw on a rewind marker', async () => {
    const file = await writeLog([
      { sessionId: 's1', projectHash: 'h', startTime: '2026-01-01T10:00:00.000Z', kind: 'main' },
      { id: 'u1', timestamp: '2026-01-01T10:00:01.000Z', type: 'user', content: [{ text: 'first' }] },
      { id: 'g1', timestamp: '2026-01-01T10:00:02.000Z', type: 'gemini', content: 'one', model: 'm' },
      { id: 'u2', timestamp: '2026-01-01T10:00:03.000Z', type: 'user', content: [{ text: 'second' }] },
      { id: 'g2', timestamp: '2026-01-01T10:00:04.000Z', type: 'gemini', content: 'two' },
      { $rewindTo: 'u2' },
      { id: 'u3', timestamp: '2026-01-01T10:00:05.000Z', type: 'user', content: [{ text: 'second, again' }] },
      { $set: { summary: 'A rewound chat' } },
    ]);
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    expect(userTexts(s.events)).toEqual(['first', 'second, again']);
    const rewind = s.events.find((e) => e.type === 'rewind')!;
    expect((rewind.dropped as { id: string }[]).map((d) => d.id)).toEqual(['u2', 'g2']);
    expect(title(s.events)).toBe('A rewound chat');
    expect(s.createdAt).toBe('2026-01-01T10:00:00.000Z');
  });

  it('hostile keys stay data: __proto__ in $set, in a header and in a message never reach a prototype', async () => {
    const file = await writeLog([
      JSON.parse('{"sessionId":"s2","projectHash":"h","__proto__":{"polluted":"header"}}'),
      JSON.parse('{"$set":{"__proto__":{"polluted":"set"},"constructor":{"prototype":{"polluted":"ctor"}}}}'),
      JSON.parse(
        '{"id":"__proto__","timestamp":"2026-01-01T10:00:01.000Z","type":"user","content":[{"text":"hi","__proto__":{"polluted":"msg"}}]}',
      ),
      { id: 'g1', timestamp: '2026-01-01T10:00:02.000Z', type: 'gemini', content: 'hello' },
    ]);
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(s)).toBe(Object.prototype);
    expect(turns(s.events)).toBe(1);
    expect(s.events.some((e) => e.type === 'source-record')).toBe(true); // the unknown $set keys, kept raw
    const user = s.events.find((e) => e.kind === 'user')!;
    expect(Object.getOwnPropertyNames(user.raw)).toContain('id');
    expect(Object.getOwnPropertyNames((user.content as object[])[0])).toContain('__proto__');
  });

  it('an unknown record kind is kept raw', async () => {
    const file = await writeLog([
      { sessionId: 's3', projectHash: 'h' },
      { id: 'u1', timestamp: '2026-01-01T10:00:01.000Z', type: 'user', content: 'hi' },
      { id: 'x1', timestamp: '2026-01-01T10:00:02.000Z', type: 'brand_new_kind', payload: [1, 2] },
      { $future: true },
    ]);
    const [s] = nonEmpty(await gemini.read(await sourceOf(file)));
    const kept = s.events.filter((e) => e.type === 'source-record').map((e) => e.raw);
    expect(kept).toEqual([{ id: 'x1', timestamp: '2026-01-01T10:00:02.000Z', type: 'brand_new_kind', payload: [1, 2] }, { $future: true }]);
  });

  async function writeLog(records: unknown[]): Promise<string> {
    const chats = join(dir, '.gemini/tmp/proj/chats');
    await mkdir(chats, { recursive: true });
    await writeFile(join(dir, '.gemini/tmp/proj/.project_root'), '/work/some-project\n');
    const file = join(chats, 'session-2026-01-01T10-00-s.jsonl');
    await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return file;
  }
});

describe('gemini whole-file JSON and discovery', () => {
  it('a document rewritten in place maps what did not change to the same events', async () => {
    const root = join(dir, '.gemini');
    await cp('test/fixtures/import/gemini/real/v0.20.2', root, { recursive: true });
    const { path, doc } = await firstJson(root);
    const full = bare(at(await gemini.read(await sourceOf(path)), 0).events);
    for (let n = 1; n < doc.messages.length; n++) {
      await writeFile(path, JSON.stringify({ ...doc, messages: doc.messages.slice(0, n) }, null, 2));
      const early = bare(at(await gemini.read(await sourceOf(path)), 0).events);
      expect(full.slice(0, early.length)).toEqual(early);
    }
    // Torn while Gemini CLI writes it: a problem, no events, never a throw.
    await writeFile(path, JSON.stringify(doc, null, 2).slice(0, 300));
    const [torn] = nonEmpty(await gemini.read(await sourceOf(path)));
    expect(torn.source.id).toBe('f5e51530-b864-432f-89d6-cb61a2931028');
    expect(torn.events).toEqual([]);
    expect(torn.problems[0]).toMatch(/not complete JSON/);
  });

  it('the project of a hash-named folder is the folder whose sha256 the session names', async () => {
    const [s] = nonEmpty(await readAll(gemini, await at(cases, 0).setup(dir)));
    expect(s.source.project).toBe('/tmp/levelcode-gemini-fixture/v0.20.2/project');
  });

  it('a migrated hash folder and a .json converted to .jsonl give one session, read from the .jsonl', async () => {
    const files = await gemini.discover(await at(cases, 2).setup(dir));
    expect(files.map((f) => f.path.slice(f.path.lastIndexOf('/tmp/')))).toEqual([
      '/tmp/project/chats/session-2026-12-02T08-04-f5e51530.jsonl',
    ]);
  });

  it('one session file given as --from is read alone; a missing root throws', async () => {
    const root = await at(cases, 1).setup(dir);
    const one = join(root, 'tmp/project/chats', LOG061);
    expect((await gemini.discover(one)).map((f) => f.path)).toEqual([one]);
    await expect(gemini.discover(join(dir, 'nope'))).rejects.toThrow(/ENOENT/);
  });

  it('an unreadable chats folder is an error, not an empty list', async () => {
    const root = await at(cases, 1).setup(dir);
    const chats = join(root, 'tmp/project/chats');
    await chmod(chats, 0o000);
    try {
      if (process.getuid?.() === 0) {
        // root reads everything: ask an unprivileged user, through the built module.
        await chmod(dir, 0o755);
        const r = spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import('${process.cwd()}/dist/import/gemini.js').then((m) => m.gemini.discover(${JSON.stringify(root)})).then(() => process.exit(0), (e) => { console.error(e.code); process.exit(3); })`,
          ],
          { uid: 65534, gid: 65534, encoding: 'utf8' },
        );
        expect(r.stderr.trim()).toBe('EACCES');
        expect(r.status).toBe(3);
      } else {
        await expect(gemini.discover(root)).rejects.toThrow(/EACCES/);
      }
    } finally {
      await chmod(chats, 0o755);
    }
  });

  it('defaultRoots follows GEMINI_CLI_HOME, else the home folder', () => {
    expect(gemini.defaultRoots({}, '/home/u')).toEqual(['/home/u/.gemini']);
    expect(gemini.defaultRoots({ GEMINI_CLI_HOME: '/x' }, '/home/u')).toEqual(['/x/.gemini']);
  });
});

async function sourceOf(path: string) {
  return at(await gemini.discover(path), 0, `discover(${path})`);
}
