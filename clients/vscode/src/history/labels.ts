// What a History entry says: its label (the full title), its description (the sidecar's
// "Claude Code · 14:05 · 3 turns · claude-sonnet-4", then its state: "interrupted", "open in
// another window", "forked from “X” at turn 2", "moved from notes"), its icon and its tooltip.
// The title, times and groups come from session/list's `view` (protocol.md "The History view"),
// computed once by the sidecar for every editor: nothing here reads a clock. Pure: no `vscode`
// import; the words come from strings.ts so that every user-visible string lives there.

import { rowContext, type Continuable } from '../continueIn';
import { S } from '../strings';
import { printable } from '../printable';

export interface SummaryLike {
  id: string;
  title: string;
  titled?: boolean;
  createdAt: string;
  updatedAt: string;
  turns: number;
  model: string | null;
  preview: string;
  project?: string;
  /** An imported session's tool, as people know it ("Claude Code"). */
  sourceLabel?: string;
  pinned?: boolean;
  archived?: boolean;
  /** A fork: the parent and the last turn of it the fork holds; `device` on a sync conflict's fork. */
  forkedFrom?: { id: string; turn: number; device?: string };
  /** The device the chat was created on (protocol.md "Sync conflicts"). */
  device?: string;
  /** Recorded under this folder, which moved here (or was relinked). */
  movedFrom?: string;
  /** Its last run stopped part way. */
  interrupted?: boolean;
  /** Another live process owns it now. */
  heldBy?: { pid?: number; host?: string };
  /** What the row shows, from the sidecar (session/list's `view`). */
  view?: { title: string; description: string; time: string; groupLabel: string };
}

/** Titles of other chats, for "forked from “Title”" (undefined: not in this History). */
export type TitleOf = (id: string) => string | undefined;

/** "2026-07-28 09:12" in local time, for tooltips. */
export function localStamp(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The item's label: the whole title on one line (the sidecar's `view.title`), never empty. */
export function itemLabel(s: SummaryLike): string {
  if (s.view?.title) return s.view.title;
  const one = printable(s.title.replace(/\s+/g, ' ').trim());
  return one || S.history.untitled;
}

/**
 * The item's description: the sidecar's `view.description` (source · time · turns · model)
 * and the row's state (stateWords); `long` adds pinned and archived, for screen readers.
 */
export function itemDescription(s: SummaryLike, titleOf: TitleOf = () => undefined, long = false): string {
  const base = s.view?.description ?? S.history.turns(s.turns);
  return [base, ...stateWords(s, titleOf, long)].join(S.history.separator);
}

/**
 * What is special about a chat, in a few words each: interrupted, open in another window,
 * forked from “Title” at turn N, moved from <folder>; for screen readers also pinned, archived
 * (the view shows those by its groups and icons).
 */
export function stateWords(s: SummaryLike, titleOf: TitleOf = () => undefined, long = false): string[] {
  const w: string[] = [];
  if (long && s.pinned) w.push(S.state.pinned);
  if (long && s.archived) w.push(S.state.archived);
  if (s.interrupted) w.push(S.state.interrupted);
  if (s.heldBy) w.push(S.state.heldBy);
  if (s.forkedFrom)
    w.push(
      s.forkedFrom.device
        ? S.state.continuedOn(printable(s.forkedFrom.device), s.forkedFrom.turn)
        : S.state.forkedFrom(parentTitle(s.forkedFrom.id, titleOf), s.forkedFrom.turn),
    );
  if (s.movedFrom) w.push(S.state.movedFrom(printable(folderName(s.movedFrom))));
  return w;
}

function parentTitle(id: string, titleOf: TitleOf): string | undefined {
  const t = titleOf(id)?.replace(/\s+/g, ' ').trim();
  return t ? (t.length > 40 ? `${t.slice(0, 39).trimEnd()}…` : t) : undefined;
}

/** The last segment of a folder path ("notes" for /home/ada/notes). */
export function folderName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/**
 * The row's contextValue, "levelcodeSession pinned|unpinned listed|archived[ continue:<tool>]":
 * the menus offer Pin or Unpin, Archive or Unarchive, and Continue in <tool> by it.
 */
export function rowContextValue(s: SummaryLike & Continuable): string {
  return rowContext(`levelcodeSession ${s.pinned ? 'pinned' : 'unpinned'} ${s.archived ? 'archived' : 'listed'}`, s);
}

/**
 * The row's codicon: what most needs seeing first (another window has it, it was interrupted),
 * then pinned, archived, a fork, a moved chat; else a plain chat.
 */
export function rowIcon(s: SummaryLike): string {
  if (s.heldBy) return 'window';
  if (s.interrupted) return 'debug-pause';
  if (s.pinned) return 'pinned';
  if (s.archived) return 'archive';
  if (s.forkedFrom) return 'repo-forked';
  if (s.movedFrom) return 'arrow-swap';
  return 'comment-discussion';
}

/** Tooltip lines (plain text; the view renders them as Markdown with the title in bold). */
export function tooltipLines(s: SummaryLike, titleOf: TitleOf = () => undefined): { title: string; preview: string; facts: string[] } {
  const facts = [
    ...stateTooltip(s, titleOf),
    S.history.tooltipUpdated(localStamp(s.updatedAt)),
    S.history.tooltipCreated(localStamp(s.createdAt)),
    S.history.turns(s.turns) + (s.model ? `${S.history.separator}${printable(s.model)}` : ''),
    ...(s.project ? [S.history.tooltipProject(printable(s.project))] : []),
    S.history.tooltipId(s.id),
    ...(s.sourceLabel ? [S.history.tooltipSource(s.sourceLabel)] : []),
    ...(s.device ? [S.history.tooltipDevice(s.device)] : []),
  ];
  return { title: itemLabel(s), preview: s.preview.trim().split('\n').map(printable).join('\n'), facts };
}

/** The state in whole sentences, first in the tooltip (who holds it, where it came from). */
export function stateTooltip(s: SummaryLike, titleOf: TitleOf = () => undefined): string[] {
  const t: string[] = [];
  if (s.heldBy) t.push(S.state.heldByTooltip(s.heldBy.pid, s.heldBy.host));
  if (s.interrupted) t.push(S.state.interruptedTooltip);
  if (s.pinned) t.push(S.state.pinnedTooltip);
  if (s.archived) t.push(S.state.archivedTooltip);
  if (s.forkedFrom)
    t.push(
      s.forkedFrom.device
        ? S.state.continuedTooltip(
            printable(s.forkedFrom.device),
            parentTitle(s.forkedFrom.id, titleOf),
            s.forkedFrom.id,
            s.forkedFrom.turn,
          )
        : S.state.forkedTooltip(parentTitle(s.forkedFrom.id, titleOf), s.forkedFrom.id, s.forkedFrom.turn),
    );
  if (s.movedFrom) t.push(S.state.movedTooltip(printable(s.movedFrom)));
  return t;
}

/** A line for screen readers: the label and the description in one sentence. */
export function accessibilityLabel(s: SummaryLike, titleOf: TitleOf = () => undefined): string {
  return `${itemLabel(s)}, ${itemDescription(s, titleOf, true)}`;
}

/** A file name for "Export as Markdown": the title made safe for any file system. */
export function exportFileName(s: Pick<SummaryLike, 'title' | 'id'>): string {
  const base = s.title
    .normalize('NFKC')
    .replace(/[\u0000-\u001f<>:"/\\|?*\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[. ]+$/, '')
    .slice(0, 80)
    .trim();
  return `${base || s.id}.md`;
}
