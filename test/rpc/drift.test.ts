// Doc drift fails the build (rust-analyzer's tidy test on lsp-extensions.md): protocol.schema.json
// must equal what the zod schemas generate today, protocol.md must record that file's hash
// (so a schema change forces someone to reread the prose), and every method, error code,
// feature and callback must be documented in protocol.md.
// To fix a failure: `npx tsc -p . && npm run schema`, review protocol.md's sidecar part, then
// put the printed hash in its `<!-- protocol.schema.json sha256: ... -->` line.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSchema, schemaHash } from '../../server/rpc/gen-schema.js';
import { ALL_MESSAGES, CALLBACKS, FEATURES, REQUESTS } from '../../server/rpc/protocol.js';
import { ERROR_CODES } from '../../server/rpc/errors.js';
import { ROUTES } from '../../server/rpc/handlers.js';
import { REPO } from '../helpers/sidecar.js';

const md = readFileSync(join(REPO, 'protocol.md'), 'utf8');
const sidecarPart = md.slice(md.indexOf('<!-- sidecar protocol -->'));

describe('protocol drift', () => {
  it('protocol.schema.json is what the zod schemas generate (run npm run schema)', () => {
    expect(readFileSync(join(REPO, 'protocol.schema.json'), 'utf8')).toBe(renderSchema());
  });

  it("protocol.md records the schema file's hash (reread the prose, then update the line)", () => {
    const line = `<!-- protocol.schema.json sha256: ${schemaHash()} -->`;
    expect(md.includes(line), `protocol.md must contain ${line}`).toBe(true);
  });

  it('protocol.md documents every method under its own heading', () => {
    expect(md.indexOf('<!-- sidecar protocol -->')).toBeGreaterThan(0);
    for (const m of ALL_MESSAGES) expect(sidecarPart, m.method).toContain(`#### \`${m.method}\``);
  });

  it('protocol.md lists every error code with its meaning', () => {
    for (const e of ERROR_CODES) expect(sidecarPart).toContain(`| ${e.code} | ${e.name} | ${e.meaning} |`);
  });

  it('protocol.md explains every feature and callback', () => {
    for (const f of FEATURES) expect(sidecarPart).toContain(`| \`${f}\` |`);
    for (const c of CALLBACKS) expect(sidecarPart).toContain(`\`${c}\``);
  });

  it('every client-to-server request has a handler and every handler a descriptor', () => {
    const clientToServer = REQUESTS.filter((r) => r.direction === 'clientToServer')
      .map((r) => r.method)
      .sort();
    expect([...ROUTES.keys()].sort()).toEqual(clientToServer);
  });
});
