// The real ACP agents the proxy is judged with: each installed from npm by .ci/acp-agents.sh into
// the git-ignored .tools/acp/<name>/, each pointed at the fake vendor API on 127.0.0.1
// (tools/fixtures/fake-api.mjs), with a temp HOME and its settings written there.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const ACP_TOOLS = process.env.LEVELCODE_ACP_AGENTS ?? join(REPO, '.tools', 'acp');

export interface AgentSpec {
  /** The name the proxy records it under (--name). */
  name: string;
  /** The command that starts it in ACP mode. */
  command: string[];
  /** The fake API path its model requests go to. */
  apiPath: RegExp;
  /** Its environment: a temp HOME with its settings, the fake API's address. */
  env(home: string, port: number): NodeJS.ProcessEnv;
  /** Whether a model request is one of the chat's (not a title or a check the agent makes). */
  isTurn(body: Record<string, unknown>): boolean;
}

const bin = (dir: string, name: string) => join(ACP_TOOLS, dir, 'node_modules', '.bin', name);
const base = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, NO_COLOR: '1', TERM: 'dumb' });

export const AGENTS: Record<string, AgentSpec> = {
  claude: {
    name: 'claude',
    command: [bin('claude-agent-acp', 'claude-agent-acp')],
    apiPath: /\/v1\/messages$/,
    env: (home, port) => ({
      ...base(home),
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // The adapter starts Claude Code with --allow-dangerously-skip-permissions, which Claude
      // Code refuses as root outside a sandbox (CI runs as root in a throwaway container).
      IS_SANDBOX: '1',
    }),
    isTurn: (b) => Array.isArray(b.tools) && (b.tools as unknown[]).length > 0,
  },
  gemini: {
    name: 'gemini',
    command: [bin('gemini', 'gemini'), '--experimental-acp'],
    apiPath: /:streamGenerateContent/,
    env: (home, port) => {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          general: {
            sessionRetention: { enabled: false },
            disableAutoUpdate: true,
            disableUpdateNag: true,
            checkpointing: { enabled: false },
          },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
        }),
      );
      return {
        ...base(home),
        GEMINI_API_KEY: 'fake-key',
        GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
        GEMINI_CLI_NO_RELAUNCH: 'true',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      };
    },
    isTurn: (b) => Array.isArray(b.tools) && (b.tools as unknown[]).length > 0,
  },
  qwen: {
    name: 'qwen',
    command: [bin('qwen', 'qwen'), '--acp', '--auth-type', 'openai'],
    apiPath: /\/chat\/completions$/,
    env: (home, port) => {
      mkdirSync(join(home, '.qwen'), { recursive: true });
      writeFileSync(
        join(home, '.qwen', 'settings.json'),
        JSON.stringify({
          memory: { enableManagedAutoMemory: false },
          telemetry: { enabled: false },
          usageStatisticsEnabled: false,
          general: { disableAutoUpdate: true, disableUpdateNag: true },
        }),
      );
      return {
        ...base(home),
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_MODEL: 'fixture-model',
      };
    },
    isTurn: (b) => Array.isArray(b.tools) && (b.tools as unknown[]).length > 0,
  },
};
