// Checks that the extension's manifest (clients/vscode/package.json) and its code agree: every
// setting read in config.ts is contributed with the same default, under the one prefix; every
// command is registered and carries the "LevelCode" category; every %key% has a string in
// package.nls.json; and no command or setting is declared twice.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { at } from '../../../helpers/items.js';

const dir = join(__dirname, '../../../../clients/vscode');
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(join(dir, 'package.nls.json'), 'utf8')) as Record<string, string>;
const config = readFileSync(join(dir, 'src/config.ts'), 'utf8');
const commands = readFileSync(join(dir, 'src/commands/index.ts'), 'utf8');

describe('manifest', () => {
  it('contributes every setting under levelcodeSessions.* with the defaults the code uses', () => {
    const props = manifest.contributes.configuration.properties as Record<string, { default: unknown }>;
    const defaults = at(/export const DEFAULTS: Settings = \{([\s\S]*?)\};/.exec(config) ?? [], 1, 'DEFAULTS in config.ts');
    const inCode = Object.fromEntries(
      [...defaults.matchAll(/(\w+): ([^,\n]+),/g)].map((m) => [m[1], JSON.parse(at(m, 2).replace(/_/g, '').replace(/'/g, '"'))]),
    );
    expect(Object.keys(props).sort()).toEqual(
      Object.keys(inCode)
        .map((k) => `levelcodeSessions.${k}`)
        .sort(),
    );
    for (const [k, v] of Object.entries(inCode)) expect(props[`levelcodeSessions.${k}`]?.default, k).toEqual(v);
  });

  it('registers every contributed command, all in the LevelCode category', () => {
    const declared = (manifest.contributes.commands as { command: string; category: string }[]).map((c) => c.command);
    expect(new Set(declared).size).toBe(declared.length);
    const registered = [...commands.matchAll(/r\('(levelcodeSessions\.\w+)'/g)].map((m) => m[1]);
    // Continue in <tool>: one command a tool, generated into the manifest and registered from it.
    expect(commands).toContain(".filter((c) => c.command.startsWith('levelcodeSessions.continueIn'))");
    const generated = declared.filter((c) => c.startsWith('levelcodeSessions.continueIn'));
    expect(generated.length).toBeGreaterThan(0);
    expect([...registered, ...generated].sort()).toEqual([...declared].sort());
    for (const c of manifest.contributes.commands) expect(nls[c.category.slice(1, -1)]).toBe('LevelCode');
    for (const wanted of [
      'New Chat',
      'Chat History',
      'Resume Last Chat',
      'Export Chat as Markdown…',
      'Rename Chat…',
      'Delete Chat',
      'Import Chats from Other AI Tools…',
    ]) {
      expect(manifest.contributes.commands.map((c: { title: string }) => nls[c.title.slice(1, -1)])).toContain(wanted);
    }
  });

  it('has a string for every %key%', () => {
    const keys = [...JSON.stringify(manifest).matchAll(/"%([\w.]+)%"/g)].map((m) => at(m, 1));
    expect(keys.length).toBeGreaterThan(10);
    for (const k of keys) expect(nls[k], k).toBeTypeOf('string');
  });

  it('pins exact versions and the vscode engine its types allow', () => {
    for (const [name, v] of Object.entries(manifest.devDependencies as Record<string, string>)) expect(v, name).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.engines.vscode).toBe(`^${manifest.devDependencies['@types/vscode']}`);
  });
});

describe('row menus', () => {
  const entries = manifest.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[];
  /** Whether `command` is in the menu of a row with this contextValue (its viewItem regex, all features on). */
  const offered = (command: string, viewItem: string) =>
    entries
      .filter((e) => e.command === `levelcodeSessions.${command}`)
      .some((e) => {
        const m = /viewItem =~ \/(.+)\/$/.exec(e.when);
        return m ? new RegExp(m[1]!).test(viewItem) : false;
      });

  it('offers Archive on listed rows, Unarchive on archived ones, Pin or Unpin by the pin state', () => {
    expect(offered('archive', 'levelcodeSession unpinned listed')).toBe(true);
    expect(offered('archive', 'levelcodeSession pinned archived')).toBe(false);
    expect(offered('unarchive', 'levelcodeSession unpinned archived continue:codex')).toBe(true);
    expect(offered('unarchive', 'levelcodeSession pinned listed')).toBe(false);
    expect(offered('pin', 'levelcodeSession unpinned archived')).toBe(true);
    expect(offered('unpin', 'levelcodeSession pinned listed')).toBe(true);
    expect(offered('forkFromTurn', 'levelcodeSession unpinned listed')).toBe(true);
    expect(offered('resume', 'levelcodeSession unpinned archived')).toBe(true);
  });

  it('shows the Archived toggle on the title bar by the context key', () => {
    const title = manifest.contributes.menus['view/title'] as { command: string; when: string }[];
    expect(title.find((e) => e.command === 'levelcodeSessions.showArchived')?.when).toMatch(/!levelcodeSessions\.showArchived/);
    expect(title.find((e) => e.command === 'levelcodeSessions.hideArchived')?.when).toMatch(/ levelcodeSessions\.showArchived$/);
  });
});
