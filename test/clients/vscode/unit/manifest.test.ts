// Checks that the extension's manifest (clients/vscode/package.json) and its code agree: every
// setting read in config.ts is contributed with the same default, under the one prefix; every
// command is registered and carries the "LevelCode" category; every %key% has a string in
// package.nls.json; and no command or setting is declared twice.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(__dirname, '../../../../clients/vscode');
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(join(dir, 'package.nls.json'), 'utf8')) as Record<string, string>;
const config = readFileSync(join(dir, 'src/config.ts'), 'utf8');
const commands = readFileSync(join(dir, 'src/commands.ts'), 'utf8');

describe('manifest', () => {
  it('contributes every setting under levelcodeSessions.* with the defaults the code uses', () => {
    const props = manifest.contributes.configuration.properties as Record<string, { default: unknown }>;
    const defaults = /export const DEFAULTS: Settings = \{([\s\S]*?)\};/.exec(config)![1];
    const inCode = Object.fromEntries(
      [...defaults.matchAll(/(\w+): ([^,\n]+),/g)].map((m) => [m[1], JSON.parse(m[2].replace(/_/g, '').replace(/'/g, '"'))]),
    );
    expect(Object.keys(props).sort()).toEqual(
      Object.keys(inCode)
        .map((k) => `levelcodeSessions.${k}`)
        .sort(),
    );
    for (const [k, v] of Object.entries(inCode)) expect(props[`levelcodeSessions.${k}`].default, k).toEqual(v);
  });

  it('registers every contributed command, all in the LevelCode category', () => {
    const declared = (manifest.contributes.commands as { command: string; category: string }[]).map((c) => c.command);
    expect(new Set(declared).size).toBe(declared.length);
    const registered = [...commands.matchAll(/r\('(levelcodeSessions\.\w+)'/g)].map((m) => m[1]);
    expect(registered.sort()).toEqual([...declared].sort());
    for (const c of manifest.contributes.commands) expect(nls[c.category.slice(1, -1)]).toBe('LevelCode');
    for (const wanted of ['New Chat', 'Chat History', 'Resume Last Chat', 'Export Chat as Markdown…', 'Rename Chat…', 'Delete Chat']) {
      expect(manifest.contributes.commands.map((c: { title: string }) => nls[c.title.slice(1, -1)])).toContain(wanted);
    }
  });

  it('has a string for every %key%', () => {
    const keys = [...JSON.stringify(manifest).matchAll(/"%([\w.]+)%"/g)].map((m) => m[1]);
    expect(keys.length).toBeGreaterThan(10);
    for (const k of keys) expect(nls[k], k).toBeTypeOf('string');
  });

  it('pins exact versions and the vscode engine its types allow', () => {
    for (const [name, v] of Object.entries(manifest.devDependencies as Record<string, string>)) expect(v, name).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.engines.vscode).toBe(`^${manifest.devDependencies['@types/vscode']}`);
  });
});
