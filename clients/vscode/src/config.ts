// The extension's settings, all under one prefix (`levelcodeSessions.*`), read in one place with
// their defaults. The names and defaults here must match package.json's contributes.configuration
// (a unit test checks that they do).

import * as vscode from 'vscode';

export const SECTION = 'levelcodeSessions';

export interface Settings {
  /** The store folder (`--dir`); empty: the sidecar's default ($LEVELCODE_SESSIONS_DIR or ~/.levelcode/sessions). */
  storeFolder: string;
  /** Share of the model's context window a resume may spend. */
  budgetRatio: number;
  /** Tier-3 summaries of more input tokens than this ask the user first. */
  consentThreshold: number;
  /** vscode.lm model family for titles and resume summaries; empty: the first model available. */
  modelFamily: string;
  /** Context window assumed when no language model says its own. */
  contextWindow: number;
  /** A sidecar of the user's own build (a .js file run with Node, or an executable); empty: the bundled one. */
  sidecarPath: string;
  /** Seconds during which a deletion can be undone (where the sidecar cannot restore from the trash). */
  undoSeconds: number;
  /** Archive chats idle this many days, at each start of the sidecar; 0: off. */
  autoArchiveDays: number;
  /** Retention: the most chats kept per project (the rest archived); 0: no limit. */
  retentionKeep: number;
  /** Retention: the oldest age kept, in days (older ones archived); 0: no limit. */
  retentionMaxAgeDays: number;
}

export const DEFAULTS: Settings = {
  storeFolder: '',
  budgetRatio: 0.4,
  consentThreshold: 50_000,
  modelFamily: '',
  contextWindow: 128_000,
  sidecarPath: '',
  undoSeconds: 8,
  autoArchiveDays: 30,
  retentionKeep: 0,
  retentionMaxAgeDays: 0,
};

/** Settings whose change needs a new sidecar process. */
export const RESTART_KEYS: readonly (keyof Settings)[] = [
  'storeFolder',
  'sidecarPath',
  'consentThreshold',
  'autoArchiveDays',
  'retentionKeep',
  'retentionMaxAgeDays',
];

/**
 * Settings only the user's own settings may set: a workspace's `.vscode/settings.json` must not
 * choose the program the extension runs or the folder it writes to. Their manifest scope is
 * `window` so that code-server lists them under User (a `machine` scope shows only under Remote);
 * workspace values are ignored here instead.
 */
export const USER_ONLY: readonly (keyof Settings)[] = ['storeFolder', 'sidecarPath'];

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const userValue = (k: keyof Settings) => c.inspect<string>(k)?.globalValue;
  const str = (k: keyof Settings) => ((USER_ONLY.includes(k) ? userValue(k) : c.get<string>(k)) ?? (DEFAULTS[k] as string)).trim();
  const num = (k: keyof Settings, min: number, max: number) => {
    const v = c.get<number>(k);
    return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : (DEFAULTS[k] as number);
  };
  return {
    storeFolder: expandHome(str('storeFolder')),
    budgetRatio: num('budgetRatio', 0.01, 1),
    consentThreshold: Math.round(num('consentThreshold', 1, 10_000_000)),
    modelFamily: str('modelFamily'),
    contextWindow: Math.round(num('contextWindow', 1000, 10_000_000)),
    sidecarPath: expandHome(str('sidecarPath')),
    undoSeconds: num('undoSeconds', 1, 600),
    // Unset (null in settings.json) or out of range: the default (0 for the retention rules: off).
    autoArchiveDays: Math.round(num('autoArchiveDays', 0, 100_000)),
    retentionKeep: Math.round(num('retentionKeep', 0, 1_000_000)),
    retentionMaxAgeDays: Math.round(num('retentionMaxAgeDays', 0, 100_000)),
  };
}

export function affectsRestart(e: vscode.ConfigurationChangeEvent): boolean {
  return RESTART_KEYS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`));
}

function expandHome(p: string): string {
  if (p === '~' || p.startsWith('~/')) {
    const home = process.env.HOME ?? process.env.USERPROFILE ?? '';
    return home + p.slice(1);
  }
  return p;
}
