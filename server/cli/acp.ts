// `levelcode-sessions acp [--name NAME] [--window TOKENS] -- AGENT [ARGS…]`: the recording ACP
// proxy (server/acp/). A thin door: parse, hand over to server/acp/run.ts.

import { EXIT, UsageError, parse } from './args.js';

export const ACP_HELP = `Usage: levelcode-sessions acp [--name NAME] [--window TOKENS] [--dir DIR] -- AGENT [ARGS…]

Runs the ACP agent AGENT behind a recording proxy: the editor talks ACP to this command as it
would to the agent, every message is relayed unchanged, and each session is saved in History as
it happens (under the project of its cwd, with NAME as its source). The editor is offered
session/list, session/load and session/resume whatever the agent offers: the agent's own where
it has them, else answered from History, so any saved session (another agent's, or one imported
from another tool) can be loaded into this agent.
  --name NAME        the agent's name in History (default: from the command, e.g. gemini)
  --window TOKENS    the agent's model window, for the earlier conversation a resume gives it
                     (default 200000; half of it is used). A conversation larger than that
                     is summarised by the agent in a hidden session, with the editor's consent
                     (asked through session/request_permission when the summary would read more
                     than LEVELCODE_SESSIONS_CONSENT_TOKENS, default 50000)
Examples:
  levelcode-sessions acp -- gemini --experimental-acp
  levelcode-sessions acp --name claude -- npx -y @zed-industries/claude-agent-acp`;

export async function cmdAcp(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { name: { type: 'string' }, window: { type: 'string' } });
  if (values.help) return (process.stdout.write(`${ACP_HELP}\n`), EXIT.ok);
  if (positionals.length === 0) throw new UsageError('acp needs the agent command after --, e.g. acp -- gemini --experimental-acp');
  const w = values.window as string | undefined;
  if (w !== undefined && (!/^\d+$/.test(w) || Number(w) < 1000))
    throw new UsageError(`--window takes a number of tokens (1000 or more), not ${JSON.stringify(w)}`);
  const name = values.name as string | undefined;
  if (name !== undefined && (name.trim() === '' || name.length > 100)) throw new UsageError('--name takes a name of 1 to 100 characters');
  const { runProxy } = await import('../acp/run.js');
  return runProxy({ command: positionals, name, dir: values.dir as string | undefined, window: w === undefined ? undefined : Number(w) });
}
