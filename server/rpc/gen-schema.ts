// Generates protocol.schema.json (beside protocol.md, at the repository root) from the zod
// schemas: every method's params and result (protocol.ts) and the on-disk lines (events.ts),
// with z.toJSONSchema. `npm run schema` writes it; `node dist/rpc/gen-schema.js --check` exits 1
// when the file is stale. test/rpc/drift.test.ts regenerates it in memory and fails on any
// difference, and on a protocol.md whose recorded hash is not this file's.
//
// Depends on zod and the schema modules only: no fs at import time, no JSON-RPC.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { readRegularTextSync } from '../store/files.js';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { MetaLine, SessionEvent, IncomingEvent } from '../format/events.js';
import { ALL_MESSAGES, ClientCapability, InitializationOptions, ServerCapability, PROTOCOL_VERSION } from './protocol.js';
import { ERROR_CODES } from './errors.js';

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

function toSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** "session/didChange" -> "SessionDidChange" */
export function defName(method: string): string {
  return method
    .split(/[/$.]/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

export function buildSchema(): Record<string, unknown> {
  const defs: Record<string, unknown> = {
    MetaLine: toSchema(MetaLine, 'output'),
    SessionEvent: toSchema(SessionEvent, 'output'),
    IncomingEvent: toSchema(IncomingEvent, 'input'),
    ClientCapability: toSchema(ClientCapability, 'input'),
    InitializationOptions: toSchema(InitializationOptions, 'input'),
    ServerCapability: toSchema(ServerCapability, 'output'),
  };
  const methods: Record<string, unknown>[] = [];
  for (const m of ALL_MESSAGES) {
    const name = defName(m.method);
    defs[`${name}Params`] = toSchema(m.params, m.direction === 'clientToServer' ? 'input' : 'output');
    const entry: Record<string, unknown> = {
      method: m.method,
      kind: m.kind,
      direction: m.direction,
      summary: m.summary,
      params: { $ref: `#/$defs/${name}Params` },
    };
    if (m.kind === 'request') {
      defs[`${name}Result`] = toSchema(m.result, m.direction === 'clientToServer' ? 'output' : 'input');
      entry.result = { $ref: `#/$defs/${name}Result` };
      entry.long = m.long;
    }
    methods.push(entry);
  }
  return {
    $schema: DRAFT,
    $id: 'https://levelcode.dev/sessions/protocol.schema.json',
    title: 'LevelCode Sessions protocol',
    description:
      'Generated from server/rpc/protocol.ts and server/format/events.ts by server/rpc/gen-schema.ts. Do not edit: run `npm run schema`.',
    'x-protocolVersion': PROTOCOL_VERSION,
    'x-methods': methods,
    'x-errors': ERROR_CODES.map((e) => ({ code: e.code, name: e.name, reserved: e.reserved, meaning: e.meaning })),
    $defs: defs,
  };
}

export function renderSchema(): string {
  return JSON.stringify(buildSchema(), null, 2) + '\n';
}

/** What protocol.md records in `<!-- protocol.schema.json sha256: ... -->`. */
export function schemaHash(text: string = renderSchema()): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export const SCHEMA_FILE = fileURLToPath(new URL('../../protocol.schema.json', import.meta.url));

function main(argv: string[]): number {
  const text = renderSchema();
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readRegularTextSync(SCHEMA_FILE);
    } catch {
      /* missing counts as stale */
    }
    if (current !== text) {
      process.stderr.write(`protocol.schema.json is stale: run npm run schema\n`);
      return 1;
    }
    return 0;
  }
  writeFileSync(SCHEMA_FILE, text);
  process.stdout.write(
    `wrote ${SCHEMA_FILE}\nsha256 ${schemaHash(text)}: if it changed, review protocol.md's sidecar part and update its "protocol.schema.json sha256" line\n`,
  );
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
