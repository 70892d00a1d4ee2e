// `levelcode-sessions import [TOOL|all] [--from PATH] [--dry-run] [--json]`: makes the sessions
// other AI tools keep (Claude Code, Codex, ...) sessions of ours, and brings those imported
// before up to date. A thin door onto server/import/engine.ts.

import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { EXIT, UsageError, parse } from './args.js';
import { TOOLS } from '../import/tools.js';

/** The import help: the options, then every tool with its default folders (import/tools.ts). */
function usage(): string {
  const width = Math.max(...TOOLS.map((t) => t.id.length));
  const tools = TOOLS.map((t) => `  ${t.id.padEnd(width)}  ${t.label}: ${t.folders}`).join('\n');
  return `Usage: levelcode-sessions import [TOOL|all] [--from PATH] [--dry-run] [--verbose] [--json]

Copies the sessions of other AI tools into History, and on later runs only what is new.
Nothing is ever removed from History, even when the tool deletes its own copy; a session you
deleted from History stays deleted (restore brings it back).

  TOOL        one of the tools below; without one (or with all), every tool found
  --from PATH the tool's data folder as the tool lays it out, or one session file
              (default: the tool's own folder, e.g. ~/.claude, $CODEX_HOME or ~/.codex)
  --dry-run   say what would be imported; write nothing
  --verbose   list every source file skipped, and why (default: the first few)
  --json      print {imported, updated, unchanged, skipped, problems, sessions, tools,
              skippedFiles, unknownKinds, unreadable, failed}

Prints one line per tool: found (source files), imported, updated, unchanged, skipped,
problems. Exit status: 0 when every session that could be read was written (problems inside
files are warnings), 1 when a data folder could not be read or a session could not be written,
2 for a usage error.

Tools (TOOL  name: default folders):
${tools}
`;
}

/** How many skipped files are named without --verbose. */
const SKIPPED_SHOWN = 5;

export async function cmdImport(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    from: { type: 'string' },
    'dry-run': { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
  });
  if (values.help) {
    process.stdout.write(usage());
    return EXIT.ok;
  }
  const { jobsFor } = await import('../import/registry.js');
  if (positionals.length > 1) throw new UsageError(`import takes at most one tool name (got ${positionals.join(' ')})`);
  const name = positionals[0] ?? 'all';
  const from = values.from as string | undefined;
  const { existsSync } = await import('node:fs');
  let jobs;
  try {
    jobs = await jobsFor(name, from === undefined ? undefined : resolve(from), process.env, homedir(), existsSync);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const chosen = jobs.map((j) => j.importer);
  // Opened when the run first writes: a run with nothing new loads no schema (engine.ts StoreRef).
  const { resolveStoreRoot } = await import('../store/files.js');
  const root = resolveStoreRoot(values.dir as string | undefined);
  let opened: import('../store/store.js').SessionStore | undefined;
  const store = {
    root,
    open: async () => (opened ??= new (await import('../store/store.js')).SessionStore({ root, agent: 'import' })),
  };
  const { runImport } = await import('../import/engine.js');
  const tty = process.stderr.isTTY && !values.json;
  const progress = tty ? (await import('./format.js')).progressLine((s) => process.stderr.write(s), 'importing', { bar: 30 }) : undefined;
  let report;
  try {
    report = await runImport(store, jobs, { dryRun: !!values['dry-run'], onProgress: progress?.update });
  } finally {
    progress?.end();
    await opened?.releaseAll();
  }
  const { printable, printableText } = await import('../format/printable.js'); // printing is a boundary
  if (values.json) process.stdout.write(printableText(JSON.stringify(report, null, 2)) + '\n');
  else {
    const { importLines } = await import('./format.js');
    for (const p of report.problems)
      process.stderr.write(`levelcode-sessions: ${p.fatal ? 'error' : 'warning'}: ${printable(p.path)}: ${printable(p.message)}\n`);
    const labels = new Map(chosen.map((i) => [i.tool, i.label]));
    const looked = jobs.filter((j) => j.roots.length);
    process.stdout.write(
      looked.length === 0
        ? `No AI tool's sessions found (looked for ${chosen.map((i) => i.label).join(', ')} in their default folders; name one with --from).\n`
        : importLines(report, {
            labels,
            dryRun: !!values['dry-run'],
            shown: values.verbose ? Number.POSITIVE_INFINITY : SKIPPED_SHOWN,
          }).join('\n') + '\n',
    );
  }
  // A folder that could not be read, or a session that could not be written, is a failure;
  // problems inside readable files are warnings.
  return report.unreadable.length > 0 || report.failed > 0 ? EXIT.failure : EXIT.ok;
}
