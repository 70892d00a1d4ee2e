// The AI tools this build knows, one descriptor each: where a tool registers. Its id (the CLI's
// name and `source.tool`), label, default folders in words, the lazy loader of its importer
// module, the argv that continues one of its sessions in the tool, its VS Code command name and,
// for the agent CLIs a session can be handed off to, what the hand-off needs. The importer
// registry, the hand-off's tool list, the protocol's enum, CLI help, the sidecar's labels and
// `tools` capability, and the VS Code manifest (tools/vscode-manifest.mjs) are made from it.
// Plain data and lazy loaders: `initialize`, the listing and the VS Code build load no importer.
// Adding a tool: one entry here, server/import/<tool>.ts and server/import/<tool>.md (ARCHITECTURE.md).

import { join } from 'node:path';
import type { NativeSession, WriteInput } from '../handoff/writers.js';
import type { ImporterModule, SourceRef } from './types.js';

/** What a hand-off to an agent CLI needs (server/handoff/handoff.ts). */
export interface HandoffInfo {
  /** The command on PATH. */
  bin: string;
  /** How to install it, said when it is not on PATH. */
  install: string;
  /** The model window the hand-off must fit (tokens). */
  window: number;
  /** The newest version whose format we write; used when the tool is not installed. */
  newest: string;
  /** Whether we know the format this version writes. */
  known(v: readonly [number, number, number]): boolean;
  /** The tool's data folder, where the new session is written. */
  home(env: NodeJS.ProcessEnv, home: string): string;
  /** The writer of a new native session (server/handoff/writers.ts), loaded when used. */
  writer(): Promise<(w: WriteInput) => NativeSession>;
}

export interface ToolDescriptor {
  /** 'claude-code': `source.tool`, the CLI's TOOL, VS Code's `continue:<id>` row context. */
  id: string;
  /** 'Claude Code': the name people know. */
  label: string;
  /** The default folders in words, for help and docs: '~/.claude ($CLAUDE_CONFIG_DIR)'. */
  folders: string;
  /** The importer module (server/import/<tool>.ts), loaded when used. */
  importer(): Promise<ImporterModule>;
  /** The argv that continues a session in the tool: '{id}' is its source id, '{path}' its file. */
  resume?: readonly string[];
  /** With `resume`: VS Code's command is `levelcodeSessions.continueIn<vscodeCommand>`. */
  vscodeCommand?: string;
  handoff?: HandoffInfo;
}

export const TOOLS = [
  {
    id: 'claude-code',
    label: 'Claude Code',
    folders: '~/.claude ($CLAUDE_CONFIG_DIR)',
    importer: () => import('./claude-code.js').then((m) => m.claudeCode),
    resume: ['claude', '--resume', '{id}'],
    vscodeCommand: 'ClaudeCode',
    handoff: {
      bin: 'claude',
      install: 'npm install -g @anthropic-ai/claude-code',
      window: 200_000,
      newest: '2.1.332',
      // 1.0.x and 2.x write the same message lines (server/import/claude-code.md).
      known: ([maj]) => maj === 1 || maj === 2,
      home: (env, home) => env.CLAUDE_CONFIG_DIR || join(home, '.claude'),
      writer: () => import('../handoff/writers.js').then((m) => m.claudeCodeSession),
    },
  },
  {
    id: 'codex',
    label: 'Codex',
    folders: '~/.codex ($CODEX_HOME)',
    importer: () => import('./codex.js').then((m) => m.codex),
    resume: ['codex', 'resume', '{id}'],
    vscodeCommand: 'Codex',
    handoff: {
      bin: 'codex',
      install: 'npm install -g @openai/codex',
      window: 272_000,
      newest: '0.171.0',
      // Rollouts with session_meta and response_item lines: 0.58 to 0.171 read here.
      known: ([maj, min]) => maj === 0 && min >= 58,
      home: (env, home) => env.CODEX_HOME || join(home, '.codex'),
      writer: () => import('../handoff/writers.js').then((m) => m.codexSession),
    },
  },
  {
    id: 'gemini',
    label: 'Gemini CLI',
    folders: '~/.gemini ($GEMINI_CLI_HOME/.gemini)',
    importer: () => import('./gemini.js').then((m) => m.gemini),
    resume: ['gemini', '--resume', '{id}'],
    vscodeCommand: 'Gemini',
  },
  {
    id: 'vscode',
    label: 'VS Code chat',
    folders: '~/.config/Code (Insiders, VSCodium, code-server too)',
    importer: () => import('./vscode-chat.js').then((m) => m.vscodeChat),
  },
  {
    id: 'cline',
    label: 'Cline',
    folders: "VS Code-family editors' globalStorage; ~/.cline/data ($CLINE_DIR)",
    importer: () => import('./cline.js').then((m) => m.cline),
  },
  {
    id: 'roo-code',
    label: 'Roo Code',
    folders: "VS Code-family editors' globalStorage",
    importer: () => import('./cline.js').then((m) => m.rooCode),
  },
  {
    id: 'aider',
    label: 'Aider',
    folders: '.aider.chat.history.md in the project folders other tools recorded',
    importer: () => import('./aider.js').then((m) => m.aider),
  },
  {
    id: 'pi',
    label: 'pi',
    folders: '~/.pi/agent ($PI_CODING_AGENT_DIR)',
    importer: () => import('./pi.js').then((m) => m.pi),
    resume: ['pi', '--session', '{path}'],
    vscodeCommand: 'Pi',
  },
  {
    id: 'qwen',
    label: 'Qwen Code',
    folders: '~/.qwen ($QWEN_RUNTIME_DIR, $QWEN_HOME)',
    importer: () => import('./qwen.js').then((m) => m.qwen),
    resume: ['qwen', '--resume', '{id}'],
    vscodeCommand: 'Qwen',
  },
  {
    id: 'continue',
    label: 'Continue',
    folders: '~/.continue ($CONTINUE_GLOBAL_DIR)',
    importer: () => import('./continue.js').then((m) => m.continueDev),
    resume: ['cn', '--fork', '{id}'],
    vscodeCommand: 'Continue',
  },
  {
    id: 'copilot-cli',
    label: 'Copilot CLI',
    folders: '~/.copilot ($COPILOT_HOME)',
    importer: () => import('./copilot-cli.js').then((m) => m.copilotCli),
    resume: ['copilot', '--resume={id}'],
    vscodeCommand: 'CopilotCli',
  },
  {
    id: 'opencode',
    label: 'opencode',
    folders: '~/.local/share/opencode ($XDG_DATA_HOME)',
    importer: () => import('./opencode.js').then((m) => m.opencode),
    resume: ['opencode', '--session', '{id}'],
    vscodeCommand: 'Opencode',
  },
  {
    id: 'zed',
    label: 'Zed',
    folders: '~/.local/share/zed ($XDG_DATA_HOME)',
    importer: () => import('./zed.js').then((m) => m.zed),
  },
  {
    id: 'cursor-agent',
    label: 'Cursor CLI',
    folders: '~/.cursor',
    importer: () => import('./cursor-agent.js').then((m) => m.cursorAgent),
    resume: ['cursor-agent', '--resume', '{id}'],
    vscodeCommand: 'CursorAgent',
  },
  {
    id: 'cursor',
    label: 'Cursor',
    folders: '~/.config/Cursor ($XDG_CONFIG_HOME)',
    importer: () => import('./cursor.js').then((m) => m.cursor),
  },
] as const satisfies readonly ToolDescriptor[];

/** The id of a tool a session can be handed off to. */
export type HandoffTool = Extract<(typeof TOOLS)[number], { handoff: object }>['id'];

/** The tools a session can be handed off to, in TOOLS order: the protocol's enum, CLI help. */
export const HANDOFF_IDS = TOOLS.filter((t) => 'handoff' in t).map((t) => t.id) as unknown as readonly [HandoffTool, ...HandoffTool[]];

export function toolOf(id: string): ToolDescriptor | undefined {
  return (TOOLS as readonly ToolDescriptor[]).find((t) => t.id === id);
}

/** The label of a tool by id, or the id itself for a tool this build does not know. */
export function labelOf(id: string): string {
  return toolOf(id)?.label ?? id;
}

/** The argv that continues a session in its tool (its descriptor's `resume`), or undefined. */
export function resumeArgv(tool: ToolDescriptor, source: Pick<SourceRef, 'id' | 'path'>): string[] | undefined {
  return tool.resume?.map((a) => a.replaceAll('{id}', source.id).replaceAll('{path}', source.path));
}

/** What the sidecar tells clients about the tools (capability `levelcodeSessions.tools`). */
export function toolsCapability(): { id: string; label: string; continueIn: boolean; handoff?: { bin: string; install: string } }[] {
  return (TOOLS as readonly ToolDescriptor[]).map((t) => ({
    id: t.id,
    label: t.label,
    continueIn: t.resume !== undefined,
    ...(t.handoff ? { handoff: { bin: t.handoff.bin, install: t.handoff.install } } : {}),
  }));
}
