// Crash leftovers of locks are cleaned by the next writer (issue 43): a writer killed while it
// removed a lock leaves `<lock>.gone-<pid>-<r>`, one killed while it made one leaves
// `<lock>.new-<pid>-<r>` (and `index.lock.new-*` for the listing's index lock). The next append to
// the folder and the next listing that rewrites the index remove them; `doctor` then finds nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cli, filesUnder, sandbox } from './door.js';

const s = sandbox('lcs-leftover-');
afterAll(() => rmSync(s.dir, { recursive: true, force: true }));

function plant(path: string, old: boolean): void {
  mkdirSync(path);
  writeFileSync(join(path, 'owner.json'), '{"pid":99999,"host":"gone"}\n');
  if (old) {
    const t = new Date(Date.now() - 10 * 60_000);
    utimesSync(path, t, t);
  }
}

describe('lock leftovers', () => {
  it('are removed by the next writer, not only by doctor --fix', async () => {
    const project = join(s.dir, 'project');
    mkdirSync(project);
    const made = await cli(['new', '--project', project, '--json'], s.env);
    const id = JSON.parse(made.stdout).id as string;
    const user = (text: string) => `${JSON.stringify({ kind: 'user', t: '2026-01-01T00:00:00.000Z', content: text })}\n`;
    expect((await cli(['append', id], s.env, { input: user('one') })).code).toBe(0);
    expect((await cli(['list', '--project', project], s.env)).code).toBe(0);
    const file = filesUnder(s.store).find((f) => f.path.endsWith(`${id}.jsonl`))!.path;
    const planted = [
      `${file}.lock.gone-99999-a1b2c3d4`,
      `${file}.lock.new-99999-e5f6a7b8`,
      `${file}.lock.takeover.new-99999-c9d0e1f2`,
      join(dirname(file), 'index.lock.gone-99999-a1b2c3d4'), // the listing's index lock lives beside the sessions
      join(dirname(file), 'index.lock.new-99999-e5f6a7b8'),
    ];
    for (const p of planted) plant(p, true);
    const fresh = `${file}.lock.new-${process.pid}-f0f0f0f0`; // a lock being made right now: kept
    plant(fresh, false);
    expect((await cli(['append', id], s.env, { input: user('two') })).code).toBe(0);
    expect((await cli(['list', '--project', project], s.env)).code).toBe(0);
    for (const p of planted) expect(existsSync(p), p).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    rmSync(fresh, { recursive: true });
    const doctor = await cli(['doctor', '--json'], s.env);
    expect(JSON.parse(doctor.stdout).findings.filter((f: { kind: string }) => /leftover/.test(f.kind + JSON.stringify(f)))).toEqual([]);
    expect(readdirSync(dirname(file)).filter((n) => n.includes('.lock'))).toEqual([]);
  });
});
