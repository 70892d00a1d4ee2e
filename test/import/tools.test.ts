// The tool descriptors (server/import/tools.ts): one entry a tool, from which the registry, the
// hand-off list, the capability and the VS Code manifest are made. Each entry must be whole.

import { describe, expect, it } from 'vitest';
import { HANDOFF_IDS, TOOLS, labelOf, resumeArgv, toolOf, toolsCapability, type ToolDescriptor } from '../../server/import/tools.js';
import { IMPORTERS } from '../../server/import/registry.js';
import { TOOLS as HANDOFF_INFO } from '../../server/handoff/handoff.js';

const all = TOOLS as readonly ToolDescriptor[];

describe('tool descriptors', () => {
  it('have unique ids and labels, and a VS Code command exactly when they resume', () => {
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
    expect(new Set(all.map((t) => t.label)).size).toBe(all.length);
    expect(new Set(all.map((t) => t.vscodeCommand).filter(Boolean)).size).toBe(all.filter((t) => t.resume).length);
    for (const t of all) {
      expect(t.id, t.id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(t.folders.length, t.id).toBeGreaterThan(0);
      expect(t.vscodeCommand !== undefined, t.id).toBe(t.resume !== undefined);
      if (t.vscodeCommand) expect(t.vscodeCommand).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      if (t.resume) expect(t.resume.join(' '), t.id).toMatch(/\{(id|path)\}/);
    }
  });

  it('make the registry: one importer each, in order, named by its descriptor', async () => {
    expect(IMPORTERS.map((i) => [i.tool, i.label])).toEqual(all.map((t) => [t.id, t.label]));
    for (const t of all) {
      const mod = await t.importer();
      expect(typeof mod.discover, t.id).toBe('function');
      expect(resumeArgv(t, { id: 'S', path: '/s' }) !== undefined, t.id).toBe(t.resume !== undefined);
    }
  });

  it('fill the resume argv from the source', () => {
    const src = { id: 'S1', path: '/p/s.jsonl' };
    expect(resumeArgv(toolOf('claude-code')!, src)).toEqual(['claude', '--resume', 'S1']);
    expect(resumeArgv(toolOf('copilot-cli')!, src)).toEqual(['copilot', '--resume=S1']);
    expect(resumeArgv(toolOf('pi')!, src)).toEqual(['pi', '--session', '/p/s.jsonl']);
    expect(resumeArgv(toolOf('zed')!, src)).toBeUndefined();
    expect(resumeArgv(toolOf('codex')!, { id: 'X', path: '/x' })).toEqual(['codex', 'resume', 'X']);
  });

  it('give the hand-off tools, labels and the capability', async () => {
    expect([...HANDOFF_IDS]).toEqual(all.filter((t) => t.handoff).map((t) => t.id));
    expect(Object.keys(HANDOFF_INFO)).toEqual([...HANDOFF_IDS]);
    for (const id of HANDOFF_IDS) {
      expect(HANDOFF_INFO[id].label).toBe(labelOf(id));
      expect(typeof (await HANDOFF_INFO[id].writer())).toBe('function');
    }
    expect(labelOf('windsurf')).toBe('windsurf');
    const cap = toolsCapability();
    expect(cap.map((t) => t.id)).toEqual(all.map((t) => t.id));
    expect(cap.find((t) => t.id === 'codex')).toEqual({
      id: 'codex',
      label: 'Codex',
      continueIn: true,
      handoff: { bin: 'codex', install: 'npm install -g @openai/codex' },
    });
    expect(cap.find((t) => t.id === 'zed')).toEqual({ id: 'zed', label: 'Zed', continueIn: false });
  });
});
