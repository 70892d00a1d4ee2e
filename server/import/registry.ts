// The importers this build knows, by the name the CLI and `source.tool` use: each tool's module
// (loaded from its descriptor in tools.ts) with the descriptor's id and label. The resume command
// is the descriptor's (tools.ts resumeArgv).
// Adding a tool is one entry in tools.ts; this file does not change.

import type { Importer, ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';
import { confinedTo, keepConfined, rawBytesOf, unreadableFolders } from './jsonl.js';
import { TOOLS, type ToolDescriptor } from './tools.js';

/**
 * An importer that reads nothing outside the folder it is given (jsonl.ts confinedTo): discover
 * runs confined to its root and stamps each file with it; read runs confined to that root.
 */
function confined(i: ImporterModule, tool: ToolDescriptor): Importer {
  return {
    ...i,
    tool: tool.id,
    label: tool.label,
    discover: (root) =>
      confinedTo(root, async () => {
        const files: SourceFile[] = (await i.discover(root)).map((f) => ({ ...f, root }));
        // A folder that could not be read is a source that fails with its error: reported by the
        // engine as a problem of its own, while the rest of the folder is imported.
        for (const u of unreadableFolders()) files.push({ path: u.path, size: 0, mtimeNs: 0n, root, unreadable: u.message });
        return files;
      }),
    read: (file) => {
      if (file.unreadable !== undefined) return Promise.reject(new Error(file.unreadable));
      return file.root === undefined ? i.read(file) : confinedTo(file.root, async () => withRawBytes(await i.read(file)));
    },
  };
}

/**
 * Every event made from a line that was not valid UTF-8 gets that line's bytes as `rawBase64`
 * (jsonl.ts); a streamed session's too, as its events are made, in the read's confinement.
 */
function withRawBytes(sessions: MappedSession[]): MappedSession[] {
  for (const s of sessions) {
    for (const e of s.events) withBytes(e);
    const streamed = s.streamed;
    if (streamed)
      s.streamed = {
        count: streamed.count,
        events: keepConfined(async function* () {
          for await (const e of streamed.events()) yield withBytes(e);
        }),
      };
  }
  return sessions;
}

function withBytes(e: MappedEvent): MappedEvent {
  const b = e.raw === undefined ? undefined : rawBytesOf(e.raw);
  if (b !== undefined) e.rawBase64 = b;
  return e;
}

export const IMPORTERS: readonly Importer[] = await Promise.all(
  (TOOLS as readonly ToolDescriptor[]).map(async (t) => confined(await t.importer(), t)),
);

export function importerOf(tool: string): Importer | undefined {
  return IMPORTERS.find((i) => i.tool === tool);
}

/** The default data folders of every importer (or the one named), that exist or not. */
export async function defaultJobs(
  importers: readonly Importer[],
  env: NodeJS.ProcessEnv,
  home: string,
): Promise<{ importer: Importer; roots: string[] }[]> {
  return Promise.all(importers.map(async (importer) => ({ importer, roots: await importer.defaultRoots(env, home) })));
}

/**
 * The jobs of one import request (the CLI's `import [TOOL|all] [--from PATH]`, the sidecar's
 * session/import): a tool name or all, and optionally one folder or file of that tool. Without
 * `from`, `all` takes only the default folders that exist; a named tool takes its defaults
 * that exist, or all of them when none does (each missing one is then reported by the engine).
 * Throws an Error in words for the user.
 */
export async function jobsFor(
  name: string,
  from: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
  exists: (p: string) => boolean,
): Promise<{ importer: Importer; roots: string[] }[]> {
  const tools = IMPORTERS.map((i) => i.tool);
  const chosen = name === 'all' ? IMPORTERS : IMPORTERS.filter((i) => i.tool === name);
  if (chosen.length === 0) throw new Error(`unknown tool ${JSON.stringify(name)}; known tools: ${tools.join(', ')}, all`);
  if (from !== undefined && name === 'all')
    throw new Error(`a folder to import from names one tool's folder: say which tool (${tools.join(', ')})`);
  return Promise.all(
    chosen.map(async (importer) => ({
      importer,
      roots: from !== undefined ? [from] : await defaultsOf(importer, name === 'all', env, home, exists),
    })),
  );
}

/**
 * A tool's default folders for one request: those that exist; for a tool named on its own with
 * none there, all of them, so the engine says each is missing (the user asked for that tool).
 * A tool with several places (cline: one folder an editor) is not a failure for the editors
 * the user does not have.
 */
async function defaultsOf(
  importer: Importer,
  all: boolean,
  env: NodeJS.ProcessEnv,
  home: string,
  exists: (p: string) => boolean,
): Promise<string[]> {
  const roots = await importer.defaultRoots(env, home);
  const there = roots.filter((r) => exists(r));
  return all || there.length ? there : roots;
}
