// Lays fixture files out as the tools lay them out, for the contract cases (test/import/cases/).

import { cp, mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/import/', import.meta.url));

/** Claude Code: <dir>/.claude/projects/<slug>/<file>; returns <dir>/.claude. */
export async function claudeLayout(dir: string, files: string[], slug = '-tmp'): Promise<string> {
  const root = join(dir, '.claude');
  const folder = join(root, 'projects', slug);
  await mkdir(folder, { recursive: true });
  for (const f of files) {
    const src = join(FIXTURES, 'claude-code', f);
    await cp(src, join(folder, basename(f)), { recursive: true });
    // A 2.x session's subagents live in a folder named as the session, beside it.
    const sub = src.replace(/\.jsonl$/, '');
    await cp(sub, join(folder, basename(sub)), { recursive: true }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
  return root;
}

/** Codex: <dir>/.codex/sessions/YYYY/MM/DD/<file> (the date from the file's name, else 2026/01/01). */
export async function codexLayout(dir: string, files: { file: string; as?: string }[], archived = false): Promise<string> {
  const root = join(dir, '.codex');
  for (const { file, as } of files) {
    const name = as ?? basename(file);
    const m = /rollout-(\d{4})-(\d{2})-(\d{2})/.exec(name);
    const folder = archived ? join(root, 'archived_sessions') : join(root, 'sessions', ...(m ? m.slice(1, 4) : ['2026', '01', '01']));
    await mkdir(folder, { recursive: true });
    await cp(join(FIXTURES, 'codex', file), join(folder, name));
  }
  await mkdir(join(root, 'sessions'), { recursive: true });
  return root;
}
