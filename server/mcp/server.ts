// `levelcode-sessions mcp`: the Model Context Protocol server over stdio, on the official SDK
// (@modelcontextprotocol/sdk). A thin door, as server/rpc and server/cli are: it registers the
// tools of tools.ts and a resource per session (levelcode-session://<id>), and hands every call
// to them. stdout carries MCP messages only; anything else goes to stderr. Read-only: no tool
// writes a session. The process ends when its client closes stdin.
// Depends on the SDK, tools.ts, sessions.ts and render.ts.

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { resolveStoreRoot } from '../store/files.js';
import { runTool, TOOLS, type ToolContext, type ToolDef } from './tools.js';
import { Sessions } from './sessions.js';
import { windowText, MAX_CHARS } from './render.js';
import type { z } from 'zod';

export interface McpOptions {
  /** The store (--dir); default $LEVELCODE_SESSIONS_DIR or ~/.levelcode/sessions. */
  dir?: string;
  /** The project a call without `project` covers (--project); default all. */
  project?: string;
  version: string;
}

/** The URI scheme of a session resource: levelcode-session://<id>. */
export const SCHEME = 'levelcode-session';

const INSTRUCTIONS =
  'Every past chat session on this machine, verbatim (LevelCode Sessions, and the sessions of other tools the user imported). ' +
  'To answer "what did we decide / do / find about X": call recall(query), or search_sessions(query) then read_session(session_id, around_turn). ' +
  'list_sessions shows what was worked on recently. Cite what you use as <session id>#<turn>. ' +
  'Pass your own session id as current_session to leave it out. Read-only.';

/** Builds the server (tests and the stdio entry point). */
export function createServer(o: McpOptions): { server: McpServer; ctx: ToolContext } {
  const sessions = new Sessions(resolveStoreRoot(o.dir));
  const ctx: ToolContext = { sessions, defaultProject: o.project, currentSession: process.env.LEVELCODE_CURRENT_SESSION || undefined };
  const server = new McpServer(
    { name: 'levelcode-sessions', version: o.version },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  for (const t of TOOLS) register(server, t as unknown as ToolDef<Record<string, z.ZodType>>, ctx);
  server.registerResource(
    'session',
    new ResourceTemplate(`${SCHEME}://{id}`, {
      list: async () => {
        if (!(await sessions.exists())) return { resources: [] };
        const project = ctx.defaultProject && (await sessions.project(ctx.defaultProject));
        const { rows } = await sessions.list({ project, exclude: ctx.currentSession }, 0, 100); // never the calling agent's own
        return {
          resources: rows.map((r) => ({
            uri: `${SCHEME}://${r.id}`,
            name: r.title,
            description: `${r.project} · last active ${r.updatedAt} · ${r.turns} user messages · ${r.origin.tool}`,
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    {
      title: 'Past session',
      description: 'A past session as Markdown (its first turns; read_session reads any range).',
      mimeType: 'text/markdown',
    },
    async (uri, vars) => {
      const id = String(vars.id);
      const w = await sessions.window(id, 0, 2000);
      const r = windowText(w, { maxChars: MAX_CHARS, toolChars: 2000, header: true, args: { session_id: id } });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: r.text }] };
    },
  );
  return { server, ctx };
}

function register(server: McpServer, t: ToolDef<Record<string, z.ZodType>>, ctx: ToolContext): void {
  server.registerTool(
    t.name,
    { title: t.title, description: t.description, inputSchema: t.shape, annotations: { readOnlyHint: true, openWorldHint: false } },
    (args: unknown) => runTool(t, args as never, ctx),
  );
}

/** The largest frame read (the SDK's ReadBuffer default): a line longer than this is refused. */
export const MAX_FRAME_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Serves MCP on stdin/stdout until the client closes stdin. Resolves with the exit code: 0, or
 * 1 after a frame over MAX_FRAME_BYTES with no newline (the transport gives up on it and closes):
 * the client is first sent a JSON-RPC error answer (id null, -32700) saying so, and stderr too.
 */
export async function serveMcp(o: McpOptions): Promise<number> {
  const { server } = createServer(o);
  const transport = new StdioServerTransport();
  let overflow: Error | undefined;
  transport.onerror = (e) => {
    if (/exceeded maximum size/i.test(e.message)) overflow = e;
  };
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => void server.close().then(resolve, resolve));
  });
  await server.connect(transport);
  await closed;
  if (!overflow) return 0;
  const message = `a message over ${MAX_FRAME_BYTES} bytes with no newline: not read; closing`;
  const answer = { jsonrpc: '2.0', id: null, error: { code: -32700, message } };
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(answer)}\n`, () => resolve()));
  process.stderr.write(`levelcode-sessions mcp: ${message}\n`);
  return 1;
}
