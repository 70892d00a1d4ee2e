// `levelcode-sessions handoff ID --to TOOL [--dry-run] [--json]`: continues a saved
// session in an agent CLI by writing a new session of that tool (server/handoff/handoff.ts), and
// prints the command that resumes it. A thin door: parse, call the core, print.

import { EXIT, UsageError, parse } from './args.js';
import { HANDOFF_IDS } from '../import/tools.js';

export const HANDOFF_HELP = `Usage: levelcode-sessions handoff ID --to ${HANDOFF_IDS.join('|')} [--dry-run] [--json]

Continues session ID in an agent CLI: writes a NEW session of that tool, in its own folder and
format (Claude Code: ~/.claude/projects/<project>/<uuid>.jsonl; Codex:
$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl), holding the whole conversation (or its last
summary and what follows, when the whole does not fit the tool's model), and prints the command
that continues it, e.g. cd /work/app && claude --resume 5f0c...
No file of the tool's is changed. A tool installed in a version whose format is not known here
is refused.
  --to TOOL    ${HANDOFF_IDS.join(' or ')}
  --dry-run    say where it would be written and what it holds; write nothing
  --json       {tool, installed, id, path, argv, cwd, command, messages, tier, note, dryRun}`;

/** Text from a session or another tool, safe to print to a terminal: controls and bidi shown as escapes. */
function safe(s: string): string {
  return s.replace(
    /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export async function cmdHandoff(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { to: { type: 'string' }, 'dry-run': { type: 'boolean' } });
  if (values.help) return (process.stdout.write(`${HANDOFF_HELP}\n`), EXIT.ok);
  const { HandoffError, TOOLS, handOff } = await import('../handoff/handoff.js');
  if (positionals.length !== 1) throw new UsageError('handoff takes one session id');
  const to = values.to as string | undefined;
  if (to === undefined || !(HANDOFF_IDS as readonly string[]).includes(to))
    throw new UsageError(`handoff needs --to ${HANDOFF_IDS.join('|')}${to === undefined ? '' : ` (not ${JSON.stringify(to)})`}`);
  const [{ SessionStore }, { resolveStoreRoot }] = await Promise.all([import('../store/store.js'), import('../store/files.js')]);
  const store = new SessionStore({ root: resolveStoreRoot(values.dir as string | undefined), agent: 'cli' });
  try {
    const r = await handOff(store, positionals[0]!, { to: to as (typeof HANDOFF_IDS)[number], dryRun: !!values['dry-run'] });
    if (values.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    else {
      const tool = TOOLS[r.tool];
      const lines = [
        `${r.dryRun ? 'Would write' : 'Wrote'} a ${tool.label} session (${r.messages} messages${r.tier === 2 ? ', from the last summary on' : ''}): ${safe(r.path)}`,
      ];
      if (r.note) lines.push(`Note: ${safe(r.note)}`);
      if (r.installed === null)
        lines.push(`${tool.bin} is not on PATH (${tool.install}); the file is in the format of ${tool.label} ${tool.newest}.`);
      lines.push(`Continue it with:\n  ${safe(r.command)}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return EXIT.ok;
  } catch (e) {
    if (e instanceof HandoffError) {
      process.stderr.write(`levelcode-sessions: ${safe(e.message)}\n`);
      return EXIT.failure;
    }
    throw e;
  } finally {
    await store.releaseAll();
  }
}
