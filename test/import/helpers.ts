// Shared by the Gemini CLI and VS Code importers' own tests: counts over mapped events the way
// History counts them, and running discover()+read() over a folder.

import type { Importer, ImporterModule, MappedEvent, MappedSession } from '../../server/import/types.js';

export async function readAll(importer: ImporterModule, root: string): Promise<MappedSession[]> {
  const out: MappedSession[] = [];
  for (const f of await importer.discover(root)) out.push(...(await importer.read(f)));
  return out;
}

export function turns(events: MappedEvent[]): number {
  return events.filter((e) => e.kind === 'user').length;
}

export function userTexts(events: MappedEvent[]): string[] {
  return events
    .filter((e) => e.kind === 'user')
    .map((e) => {
      const c = e.content;
      if (typeof c === 'string') return c;
      if (Array.isArray(c)) return c.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
      return '';
    });
}

/** tool_use blocks answered by a tool_result of the same id, in agent events. */
export function toolPairs(events: MappedEvent[]): number {
  const uses = new Set<string>();
  const results = new Set<string>();
  for (const e of events) {
    if (e.kind !== 'agent') continue;
    for (const m of e.messages as { content?: unknown }[]) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content as Record<string, unknown>[]) {
        if (b.type === 'tool_use') uses.add(String(b.id));
        if (b.type === 'tool_result') results.add(String(b.tool_use_id));
      }
    }
  }
  return [...uses].filter((id) => results.has(id)).length;
}

export function title(events: MappedEvent[]): string | null {
  const t = events.filter((e) => e.kind === 'title').pop();
  return t ? String(t.title) : null;
}

export function compactions(events: MappedEvent[]): number {
  return events.filter((e) => e.kind === 'compact').length;
}

/** Events without `raw`, for comparing mappings. */
export function bare(events: MappedEvent[]): string[] {
  return events.map((e) => JSON.stringify(e));
}

/** A contract case's counts, checked against what the importer read from its setup. */
export async function checkCase(
  importer: Importer,
  c: import('./case.js').ContractCase,
  dir: string,
  expect: typeof import('vitest').expect,
): Promise<MappedSession[]> {
  // A session read with no events is not imported (the engine skips it): not a session here either.
  const sessions = (await readAll(importer, await c.setup(dir))).filter((s) => s.events.length > 0);
  expect(sessions.map((s) => s.source.id).sort()).toEqual(c.sessions.map((s) => s.id).sort());
  for (const want of c.sessions) {
    const s = sessions.find((x) => x.source.id === want.id)!;
    expect(s.source.tool).toBe(importer.tool);
    if (want.project) expect(s.source.project).toBe(want.project);
    expect(turns(s.events)).toBe(want.turns);
    if (want.title !== undefined) expect(title(s.events)).toBe(want.title);
    if (want.compactions !== undefined) expect(compactions(s.events)).toBe(want.compactions);
    if (want.toolPairs !== undefined) expect(toolPairs(s.events)).toBe(want.toolPairs);
    const texts = userTexts(s.events);
    let at = -1;
    for (const t of want.userTexts ?? []) {
      const i = texts.indexOf(t, at + 1);
      expect(i, `"${t}" after position ${at}`).toBeGreaterThan(at);
      at = i;
    }
    // Every event carries the record it came from, or is a marker of ours that names it.
    for (const e of s.events) expect(e.raw !== undefined || e.type === 'source-record').toBe(true);
  }
  return sessions;
}
