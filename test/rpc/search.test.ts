// session/search in the real sidecar over stdio: the search cache built in the background at
// start when it is missing (reported with $/progress), answers ranked once it is built, an
// appended turn found by the next search, and a query that does not read refused as InvalidParams.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, sessionWith, startSidecar, workspace } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });

describe('session/search', () => {
  it('builds a missing search cache in the background with $/progress, then answers ranked; an append is found at once', async () => {
    const { root, project, base } = workspace();
    const env = { LEVELCODE_SESSIONS_CACHE: join(base, 'cache') };
    const first = await startSidecar({ root, env });
    const a = await sessionWith(first, project, [USER('the refund flow needs an idempotency key')]);
    await sessionWith(first, project, [USER('unrelated chatter about lunch')]);
    await first.stop();
    rmSync(join(base, 'cache'), { recursive: true, force: true });

    const s = await startSidecar({ root, env, workDoneProgress: true });
    await s.call(P.sessionList, {}); // the core (and the build) starts after initialize
    const begin = await s.editor.progress.waitFor((p) => p.value.kind === 'begin' && p.value.title === 'Indexing sessions for search');
    await s.editor.progress.waitFor((p) => p.token === begin.token && p.value.kind === 'end');
    const r = await s.call(P.sessionSearch, { query: 'idempotency' });
    expect(r.ranked).toBe(true);
    expect(r.sessions.map((x) => x.sessionId)).toEqual([a]);
    expect(r.hits[0]!.cite).toBe(`${a}#0`);

    await s.call(P.sessionAppend, { id: a, events: [USER('and a zeppelin') as never] });
    const again = await s.call(P.sessionSearch, { query: 'zeppelin' });
    expect(again.hits.map((h) => h.cite)).toEqual([`${a}#1`]);

    expect((await s.error('session/search', { query: 'x role:robot' })).code).toBe(RpcErrorCodes.InvalidParams);
    await s.stop();
  });
});
