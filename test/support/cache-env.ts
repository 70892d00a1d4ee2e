// The environment of every test and of every process a test starts, set before any test runs:
// - the caches (cache-dir.ts) go to a temp folder of the run's own, never the user's ~/.cache;
// - NODE_EXTRA_CA_CERTS is empty, as the clients start the sidecar (protocol.md, "Starting the
//   sidecar"): Node parses that bundle at every start, and the CLI and the sidecar open no
//   connection, so a machine that sets it would otherwise pay for it in every process a test
//   starts. The client suites check that the clients pass it on this way.
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cache = mkdtempSync(join(tmpdir(), 'lcs-cache-'));
process.env.LEVELCODE_SESSIONS_CACHE = cache;
process.env.NODE_EXTRA_CA_CERTS = '';

afterAll(() => rmSync(cache, { recursive: true, force: true }));
