// The words of "Import Chats from Other AI Tools…" (commands/import.ts): what a dry run found per
// tool, and what each tool's import did, in one report. Pure: no `vscode` import, so it is
// unit-tested; the words come from strings.ts.

import type { ImportResult, ImportToolCounts } from '../protocol';
import { S } from '../strings';

/** The tools a dry run found on this machine (a source file or more), new chats first. */
export function foundTools(dry: Pick<ImportResult, 'tools'>): ImportToolCounts[] {
  return dry.tools.filter((t) => t.found > 0).sort((a, b) => waiting(b) - waiting(a) || nameOf(a).localeCompare(nameOf(b)));
}

/** Chats the import would create or grow. */
export function waiting(t: ImportToolCounts): number {
  return t.imported + t.updated;
}

export function nameOf(t: Pick<ImportToolCounts, 'tool' | 'label'>): string {
  return t.label ?? t.tool;
}

/** A dry run's counts for one tool: "3 new · 1 with new messages · 8 already in History". */
export function foundWords(t: ImportToolCounts): string {
  const parts: string[] = [];
  if (t.imported) parts.push(S.importChats.newChats(t.imported));
  if (t.updated) parts.push(S.importChats.grown(t.updated));
  if (t.unchanged) parts.push(S.importChats.already(t.unchanged));
  if (!parts.length) parts.push(S.importChats.nothingIn(t.found));
  return parts.join(S.history.separator);
}

/** How one tool's import ended. */
export type ToolOutcome =
  | { tool: string; label: string; result: ImportResult }
  | { tool: string; label: string; cancelled: true }
  | { tool: string; label: string; error: string };

/** What each tool's import did, one phrase a tool: "Claude Code: 3 new, 1 updated". */
export function outcomeWords(o: ToolOutcome): string {
  if ('cancelled' in o) return S.importChats.stopped(o.label);
  if ('error' in o) return S.importChats.failed(o.label, o.error);
  const r = o.result;
  const parts: string[] = [];
  if (r.imported) parts.push(S.importChats.newChats(r.imported));
  if (r.updated) parts.push(S.importChats.updated(r.updated));
  if (!parts.length) parts.push(S.importChats.nothingNew);
  const problems = r.problems.length + r.unreadable.length + r.failed;
  if (problems) parts.push(S.importChats.problems(problems));
  return `${o.label}: ${parts.join(', ')}`;
}

/** The closing report: the totals, then each tool's phrase; `elsewhere` chats are in other folders. */
export function reportWords(outcomes: readonly ToolOutcome[], elsewhere: number): { text: string; trouble: boolean } {
  let imported = 0;
  let updated = 0;
  let trouble = false;
  for (const o of outcomes) {
    if ('result' in o) {
      imported += o.result.imported;
      updated += o.result.updated;
      trouble ||= o.result.problems.length + o.result.unreadable.length + o.result.failed > 0;
    } else trouble ||= 'error' in o;
  }
  const head = outcomes.some((o) => 'cancelled' in o) ? S.importChats.cancelledHead(imported) : S.importChats.doneHead(imported, updated);
  const tail = elsewhere ? ` ${S.importChats.elsewhere(elsewhere)}` : '';
  return { text: `${head} ${outcomes.map(outcomeWords).join('; ')}.${tail}`, trouble };
}
