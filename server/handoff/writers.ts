// The native session files of the agent CLIs a session can be handed off to: Claude Code's
// project JSONL and Codex's rollout, written from the neutral conversation rendered for the
// API each tool speaks (resume/targets.ts: anthropic for Claude Code, openai-responses for
// Codex), in the shapes their own files have (server/import/README.md and the real files in
// test/fixtures/import/claude-code/real-*, codex/real-*). Each writer returns the file's
// path and text and the command that continues it; nothing here touches the disk.
// Pure functions over plain data: no fs, no clock (the caller passes `now` and ids).

import { join } from 'node:path';
import type { Conversation } from '../format/conversation.js';
import { render } from '../resume/targets.js';

export interface NativeSession {
  /** The tool's own id of the new session. */
  id: string;
  /** The one file to create (never an existing one). */
  path: string;
  text: string;
  /** The command that continues it, run in `cwd`. */
  argv: string[];
  cwd: string;
  /** Messages written, and what the target rendering left out or repaired. */
  messages: number;
  note: string | null;
}

export interface WriteInput {
  conv: Conversation;
  project: string;
  title: string | null;
  /** The tool's data folder: ~/.claude ($CLAUDE_CONFIG_DIR), $CODEX_HOME or ~/.codex. */
  home: string;
  /** The tool version the lines say they were written by (the installed one). */
  version: string;
  id: string;
  /** Fresh ids for the lines (uuids), one a call. */
  uuid: () => string;
  now: Date;
}

/** Claude Code names a project's folder after its path, every character but [a-zA-Z0-9] a '-'. */
export function claudeSlug(project: string): string {
  return project.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * Claude Code: ~/.claude/projects/<slug>/<uuid>.jsonl, one line a message, each pointing at
 * the one before by parentUuid (the chain `claude --resume` walks back from the last line).
 * Assistant lines carry the fields Claude Code's own have (an id, model, stop_reason, usage);
 * the request it sends is made from `message.role` and `message.content` only.
 */
export function claudeCodeSession(w: WriteInput): NativeSession {
  const r = render(w.conv, 'anthropic');
  const lines: string[] = [];
  let parent: string | null = null;
  const t = w.now.getTime();
  const common = { isSidechain: false, userType: 'external', cwd: w.project, sessionId: w.id, version: w.version, gitBranch: '' };
  (r.messages as { role: string; content: unknown[] }[]).forEach((m, i) => {
    const uuid = w.uuid();
    const timestamp = new Date(t + i).toISOString();
    const message =
      m.role === 'assistant'
        ? {
            id: `msg_lcs${uuid.replace(/-/g, '').slice(0, 20)}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: m.content,
            stop_reason: m.content.some((b) => (b as { type?: string }).type === 'tool_use') ? 'tool_use' : 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0 },
          }
        : { role: 'user', content: m.content };
    lines.push(JSON.stringify({ parentUuid: parent, ...common, type: m.role, message, uuid, timestamp }));
    parent = uuid;
  });
  if (w.title) lines.push(JSON.stringify({ type: 'custom-title', customTitle: w.title, sessionId: w.id }));
  return {
    id: w.id,
    path: join(w.home, 'projects', claudeSlug(w.project), `${w.id}.jsonl`),
    text: lines.map((l) => `${l}\n`).join(''),
    argv: ['claude', '--resume', w.id],
    cwd: w.project,
    messages: r.messages.length,
    note: r.note,
  };
}

/**
 * Codex: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl: a session_meta line,
 * then one response_item line a Responses input item (Codex rebuilds the model's history from
 * these), with an event_msg user_message beside each prompt (what its own listing shows).
 */
export function codexSession(w: WriteInput): NativeSession {
  const r = render(w.conv, 'openai-responses');
  const ts = (i: number) => new Date(w.now.getTime() + i).toISOString();
  const lines: unknown[] = [
    {
      timestamp: ts(0),
      type: 'session_meta',
      payload: {
        id: w.id,
        timestamp: ts(0),
        cwd: w.project,
        originator: 'codex_cli_rs',
        cli_version: w.version,
        source: 'cli',
      },
    },
  ];
  (r.messages as Record<string, unknown>[]).forEach((item, i) => {
    const payload =
      item.type === 'message' && item.role === 'assistant' ? { ...item, content: [{ type: 'output_text', text: item.content }] } : item;
    lines.push({ timestamp: ts(i + 1), type: 'response_item', payload });
    if (item.type === 'message' && item.role === 'user') {
      const text = (item.content as { type: string; text?: string }[])
        .filter((c) => c.type === 'input_text')
        .map((c) => c.text)
        .join('\n\n');
      lines.push({ timestamp: ts(i + 1), type: 'event_msg', payload: { type: 'user_message', message: text, images: [] } });
    }
  });
  const d = w.now.toISOString();
  const stamp = d.slice(0, 19).replace(/:/g, '-');
  return {
    id: w.id,
    path: join(w.home, 'sessions', d.slice(0, 4), d.slice(5, 7), d.slice(8, 10), `rollout-${stamp}-${w.id}.jsonl`),
    text: lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
    argv: ['codex', 'resume', w.id],
    cwd: w.project,
    messages: r.messages.length,
    note: r.note,
  };
}
