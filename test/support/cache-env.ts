// Every test's caches (cache-dir.ts) go to a temp folder of its own, never the user's ~/.cache:
// set before any test runs, so the core in-process and every process a test starts use it.
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cache = mkdtempSync(join(tmpdir(), 'lcs-cache-'));
process.env.LEVELCODE_SESSIONS_CACHE = cache;

afterAll(() => rmSync(cache, { recursive: true, force: true }));
