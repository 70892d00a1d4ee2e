// The relevance set: queries over the relevance store (relevance-store.ts), each with the
// sessions a person asking it would expect first and why. A session is named by its key:
// `<tool>:<the tool's own session id>` for an imported one (a prefix is enough; `*` stands
// for any part of an id, as aider's hold a hash of the file's path), `title:<title>`
// for one of our own. Scored as precision at 5 (expected sessions found in the first five, over the
// fewer of five and the number expected, so a query with one right answer can score 1) and
// reciprocal rank (1 / the rank of the first expected session), averaged over the set.

import { readFileSync } from 'node:fs';

export interface Judged {
  query: string;
  expect: string[];
  why: string;
}

export const RELEVANCE: Judged[] = [
  {
    query: 'docstring util.py',
    expect: ['title:Add a docstring to util.py'],
    why: 'the session that added docstrings to util.py; others list util.py or document another file',
  },
  {
    query: 'No such file or directory',
    expect: ['title:Deploy script fails on CI'],
    why: 'the error is quoted there; "or" inside "forked" is not a match',
  },
  { query: 'webhook retry', expect: ['aider:*-L2'], why: 'aider chat "add a retry to the webhook"' },
  { query: 'timeout configurable', expect: ['aider:*-L18'], why: 'aider chat "make the timeout configurable"' },
  {
    query: 'spinner',
    expect: ['aider:*-L103', 'aider:*-L1'],
    why: 'the chat asking to use the Spinner, then the lint run over the spinner code',
  },
  { query: 'greet function', expect: ['cline:1767603600000'], why: 'cline task "Add a greet() function to src/app.ts"' },
  { query: 'update_entry_fields', expect: ['vscode:export_mcp_tool_error_cyrillic'], why: 'the Copilot chat calling that MCP method' },
  {
    query: 'React component TypeScript',
    expect: ['vscode:test-session-001'],
    why: 'Copilot chat "How do I create a React component with TypeScript?"',
  },
  { query: 'fibonacci', expect: ['vscode:test-session-002'], why: 'Copilot chat asking for a fibonacci function' },
  { query: 'notes.txt', expect: ['gemini:f5e51530', 'gemini:38e1a30c'], why: 'the Gemini sessions that created notes.txt' },
  { query: 'login bug', expect: ['pi:pi-test-session-uuid'], why: 'pi session "Fix the login bug"' },
  { query: 'hello.py', expect: ['pi:019e19b4'], why: 'pi session reading hello.py' },
  { query: 'rename foo bar', expect: ['cursor:c1b2c3d4-0003'], why: 'Cursor chat "Rename foo to bar"' },
  { query: 'subagent repo search', expect: ['claude-code:0a1b2c3d'], why: 'Claude Code session delegating a repo search to a subagent' },
  { query: 'markdown formatting', expect: ['claude-code:ccl_edge_cases'], why: 'the session testing markdown formatting edge cases' },
  { query: 'review the parser', expect: ['claude-code:polylogue_normalization_main'], why: 'Claude Code session "Review the parser."' },
  { query: 'capability matrix', expect: ['gemini:origin-matrix-gemini-cli'], why: 'its title is "Origin capability matrix"' },
  { query: 'planning doc', expect: ['gemini:sess-uuid-tool-results'], why: 'Gemini session "Read the planning doc"' },
  { query: 'synthetic files', expect: ['codex:11111111'], why: 'Codex session "List the synthetic files."' },
  { query: 'malformed input', expect: ['codex:66666666'], why: 'Codex session "Safe line before malformed input."' },
  {
    query: 'question in a fork',
    expect: [
      'codex:01a23813-e4d6',
      'claude-code:7745c106',
      'claude-code:5ff30d82',
      'claude-code:fd32eead',
      'opencode:ses_db162049',
      'qwen:c6be2011',
      'pi:01a24e01',
    ],
    why: 'the forks the real Codex, Claude Code, opencode, Qwen Code and pi wrote, each asked that question',
  },
  { query: 'latest build issue', expect: ['cursor-agent:9a8b7c6d'], why: 'cursor-agent session explaining the latest build issue' },
  { query: 'repomap lint', expect: ['aider:*-L1'], why: 'aider lint run over aider/repomap.py' },
  { query: 'who are you', expect: ['vscode:827d91ce'], why: 'Copilot chat "@fixture Hello, who are you?"' },
  { query: 'снежных барсах', expect: ['vscode:export_in_progress_tool'], why: 'the Russian chat about snow leopards' },
  { query: 'explain main', expect: ['cursor:b1b2c3d4-0002', 'zed:5f2b9d2e'], why: 'Cursor and Zed chats "Explain what main does"' },
  {
    query: 'flaky refund redis',
    expect: ['title:Flaky refund test'],
    why: 'the flaky refund test with redis; the other redis session is about eviction',
  },
  { query: 'redis eviction', expect: ['title:Redis cache eviction'], why: 'the session choosing an eviction policy' },
  {
    query: 'print a word terminal',
    expect: ['continue:c5cd0d43', 'continue:dd471311'],
    why: 'the Continue sessions printing a word in the terminal',
  },
  { query: 'tool:aider timeout', expect: ['aider:*-L18'], why: 'the only aider session about a timeout' },
  {
    query: 'project:payments redis',
    expect: ['title:Flaky refund test', 'title:Redis cache eviction'],
    why: 'both payments sessions talk of redis',
  },
  { query: '"file walker"', expect: ['title:Speed up the file walker'], why: 'the phrase is its title' },
  {
    query: 'docstring* -util.py',
    expect: ['title:Docs for the HTTP client'],
    why: 'docstrings (a prefix, for the plural), but not the sessions that name util.py',
  },
  {
    query: 'second attempt after compaction',
    expect: ['claude-code:ccl_dag_compact_after_rewind'],
    why: 'the Claude Code session with a second attempt, then a compaction',
  },
];

/** The key of the session in `file` (see above). */
export function sessionKey(file: string): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  const meta = JSON.parse(lines[0]!) as { source?: { tool: string; id: string; variant?: string } };
  if (meta.source) return `${meta.source.tool}:${meta.source.id}`;
  let title = '';
  for (const l of lines.slice(1)) if (l.startsWith('{"kind":"title"')) title = (JSON.parse(l) as { title: string }).title;
  return `title:${title}`;
}

export interface Scores {
  p5: number;
  mrr: number;
  rows: { query: string; p5: number; rr: number; top: string[] }[];
}

/** Scores a search: `rank` gives the session files of a query, best first. */
export async function score(rank: (query: string) => Promise<string[]>): Promise<Scores> {
  const rows: Scores['rows'] = [];
  for (const j of RELEVANCE) {
    const keys = (await rank(j.query)).map(sessionKey);
    const res = j.expect.map((e) => new RegExp(`^${e.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^:]*')}`));
    const hit = (k: string) => res.some((re) => re.test(k));
    const top5 = keys.slice(0, 5);
    const p5 = res.filter((re) => top5.some((k) => re.test(k))).length / Math.min(5, res.length);
    const first = keys.findIndex(hit);
    rows.push({ query: j.query, p5, rr: first < 0 ? 0 : 1 / (first + 1), top: keys.slice(0, 3) });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { p5: mean(rows.map((r) => r.p5)), mrr: mean(rows.map((r) => r.rr)), rows };
}
