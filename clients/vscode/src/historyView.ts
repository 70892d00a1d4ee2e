// The History view: a TreeView of the open folder's sessions in the groups the sidecar gives
// (session/list's `view`: Pinned, Today, Yesterday, Previous 7 days, Previous 30 days, Older),
// each item labelled with its whole title (VS Code cuts it at the edge of the side bar, as its own
// chat list does), described "Claude Code · 14:05 · 3 turns · model" (with the project when no
// folder is open) and with a tooltip of the whole title and preview (labels.ts).
// A click opens the transcript rendered (Markdown preview). Each row shows its state (labels.ts:
// interrupted, open in another window, forked from, moved from) by its icon, description and
// tooltip. With "Show Archived Chats" (a context key for the title bar's toggle) the archived
// chats follow in an Archived group. It reloads on session/didChange (debounced), after the
// sidecar (re)starts, and on request; chats awaiting deletion (pendingDeletes.ts) are hidden.
//
// Owns no data: the sidecar's session/list is the truth, this keeps only the last answer.

import * as vscode from 'vscode';
import { basename } from 'node:path';
import { accessibilityLabel, itemDescription, itemLabel, rowContextValue, rowIcon, tooltipLines, type TitleOf } from './history/labels';
import type { SessionSummary } from './protocol';
import type { Sidecar } from './sidecar';
import { S } from './strings';
import { printable } from './printable';

export const VIEW_ID = 'levelcodeSessions.history';
export const ITEM_CONTEXT = 'levelcodeSession';
/** Context key, true once the first listing answered: the empty state waits for it. */
export const LOADED_CONTEXT = 'levelcodeSessions.historyLoaded';
/** Context key, true while the Archived group is shown (the title bar offers Hide, else Show). */
export const ARCHIVED_CONTEXT = 'levelcodeSessions.showArchived';

/** A group key of session/list's `view` ("today", "pinned", ...). */
export type GroupKey = string;
export type HistoryNode =
  | { kind: 'group'; key: GroupKey; label: string; items: SessionSummary[] }
  | { kind: 'session'; session: SessionSummary };

const REFRESH_DEBOUNCE_MS = 150;
/** How often a visible view checks whether the day changed (the groups then move: reload). */
const TICK_MS = 60_000;
const MAX_SESSIONS = 5000;

export class HistoryProvider implements vscode.TreeDataProvider<HistoryNode>, vscode.Disposable {
  private sessions: SessionSummary[] = [];
  private archived: SessionSummary[] = [];
  private showArchived = false;
  private loaded = false;
  private error: string | undefined;
  private problems = 0;
  private groups = new Map<GroupKey, HistoryNode & { kind: 'group' }>();
  /** The local day of the last listing: the sidecar's groups are for that day. */
  private listedOn = '';
  private readonly emitter = new vscode.EventEmitter<HistoryNode | undefined>();
  private readonly loadedEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Fired after each completed reload (tests and the API wait on it). */
  readonly onDidLoad = this.loadedEmitter.event;
  private timer: NodeJS.Timeout | undefined;
  private reloading: Promise<void> | undefined;
  private again = false;
  view: vscode.TreeView<HistoryNode> | undefined;

  constructor(
    private readonly sidecar: Sidecar,
    /** The projects of this window: its workspace folders (none: every project). */
    private readonly projects: () => string[],
    /** Ids to hide (awaiting deletion). */
    private readonly hidden: () => ReadonlySet<string>,
  ) {}

  /** The sessions shown, newest first (after hiding), archived ones not included. */
  visibleSessions(): SessionSummary[] {
    const hide = this.hidden();
    return this.sessions.filter((s) => !hide.has(s.id));
  }

  /** The archived sessions shown in the Archived group (none while it is hidden). */
  archivedSessions(): SessionSummary[] {
    const hide = this.hidden();
    return this.showArchived ? this.archived.filter((s) => !hide.has(s.id)) : [];
  }

  find(id: string): SessionSummary | undefined {
    return this.sessions.find((s) => s.id === id) ?? this.archived.find((s) => s.id === id);
  }

  /** A chat's title by id, for "forked from “Title”". */
  readonly titleOf: TitleOf = (id) => {
    const s = this.find(id);
    return s ? itemLabel(s) : undefined;
  };

  get archivedShown(): boolean {
    return this.showArchived;
  }

  /** Shows or hides the Archived group (the title bar's toggle), then reloads. */
  async setShowArchived(show: boolean): Promise<void> {
    this.showArchived = show;
    await vscode.commands.executeCommand('setContext', ARCHIVED_CONTEXT, show);
    if (!show) this.archived = [];
    await this.reload();
  }

  /** Redraws from the last answer (hiding changed, or the clock moved). */
  redraw(): void {
    this.emitter.fire(undefined);
    this.updateMessage();
  }

  /** Reloads soon; many calls in a burst make one reload. */
  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.reload();
    }, REFRESH_DEBOUNCE_MS);
  }

  /** Reloads now; a call during a reload makes one more afterwards. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.again = false;
          await this.load();
        } while (this.again);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private async load(): Promise<void> {
    try {
      const main = await this.list(false);
      const archived = this.showArchived && this.sidecar.has('lifecycle') ? await this.list(true) : { sessions: [], problems: 0 };
      this.sessions = main.sessions;
      this.archived = archived.sessions;
      this.listedOn = new Date().toDateString();
      this.problems = main.problems;
      this.error = undefined;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      this.sidecar.log.warn(`History: ${this.error}`);
    }
    if (!this.loaded) void vscode.commands.executeCommand('setContext', LOADED_CONTEXT, true);
    this.loaded = true;
    this.redraw();
    this.loadedEmitter.fire();
  }

  /** Every page of session/list for this window's projects (`archived`: the archived ones only). */
  private async list(archived: boolean): Promise<{ sessions: SessionSummary[]; problems: number }> {
    const projects = this.projects();
    const all: SessionSummary[] = [];
    let problems = 0;
    const scopes = projects.length ? projects.map((project) => ({ project })) : [{ all: true as const }];
    for (const scope of scopes) {
      let cursor: string | undefined;
      do {
        const page = await this.sidecar.request('session/list', {
          ...scope,
          limit: 1000,
          ...(archived ? { archived: true } : {}),
          ...(cursor ? { cursor } : {}),
        });
        all.push(...page.sessions);
        problems += page.problems.length;
        if (!archived)
          for (const p of page.problems) this.sidecar.log.warn(`History: ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`);
        cursor = page.nextCursor;
      } while (cursor && all.length < MAX_SESSIONS);
    }
    const seen = new Set<string>();
    const sessions = all.filter((s) => !seen.has(s.id) && (seen.add(s.id), true));
    // Several folders: their listings merged in the sidecar's order (pinned, then newest first).
    if (scopes.length > 1) sessions.sort(historyOrder);
    return { sessions, problems };
  }

  private updateMessage(): void {
    if (!this.view) return;
    if (!this.loaded) this.view.message = S.history.loading;
    else if (this.error) this.view.message = `${S.history.sidecarDown} ${this.error}`;
    else if (this.problems) this.view.message = S.history.problems(this.problems);
    else if (this.showArchived && this.archivedSessions().length === 0) this.view.message = S.lifecycle.noArchived;
    else this.view.message = undefined;
  }

  /** Lists again when the day changed while visible (Today's chats become Yesterday's). */
  attach(view: vscode.TreeView<HistoryNode>): vscode.Disposable {
    this.view = view;
    this.updateMessage();
    const tick = setInterval(() => {
      if (view.visible && this.loaded && new Date().toDateString() !== this.listedOn) this.refresh();
    }, TICK_MS);
    const vis = view.onDidChangeVisibility((e) => {
      if (e.visible) this.refresh();
    });
    return new vscode.Disposable(() => {
      clearInterval(tick);
      vis.dispose();
    });
  }

  getChildren(node?: HistoryNode): HistoryNode[] {
    if (!node) {
      if (!this.loaded) {
        void this.reload();
        return [];
      }
      this.groups = groupRows([...this.visibleSessions(), ...this.archivedSessions()]);
      return [...this.groups.values()];
    }
    if (node.kind === 'group') return node.items.map((session) => ({ kind: 'session' as const, session }));
    return [];
  }

  getParent(node: HistoryNode): HistoryNode | undefined {
    if (node.kind === 'group') return undefined;
    for (const g of this.groups.values()) if (g.items.some((s) => s.id === node.session.id)) return g;
    return undefined;
  }

  getTreeItem(node: HistoryNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${node.key}`;
      item.contextValue = 'levelcodeGroup';
      return item;
    }
    const s = node.session;
    // The whole title: VS Code cuts it at the edge of the side bar, the description after it.
    const item = new vscode.TreeItem(itemLabel(s), vscode.TreeItemCollapsibleState.None);
    item.id = s.id;
    const everyProject = this.projects().length === 0;
    item.description = itemDescription(s, this.titleOf) + (everyProject ? `${S.history.separator}${printable(basename(s.project))}` : '');
    item.tooltip = tooltip(s, this.titleOf);
    item.contextValue = rowContextValue(s);
    item.iconPath = new vscode.ThemeIcon(rowIcon(s));
    item.accessibilityInformation = { label: accessibilityLabel(s, this.titleOf) };
    item.command = { command: 'levelcodeSessions.openTranscriptPreview', title: S.pick.openTranscript, arguments: [node] };
    return item;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.emitter.dispose();
    this.loadedEmitter.dispose();
  }
}

/**
 * The rows in the sidecar's groups, in their order: a group for each `view.group`, headed by its
 * `view.groupLabel` (the archived rows, listed apart, come last in theirs).
 */
export function groupRows(rows: readonly SessionSummary[]): Map<GroupKey, HistoryNode & { kind: 'group' }> {
  const groups = new Map<GroupKey, HistoryNode & { kind: 'group' }>();
  for (const s of rows) {
    let g = groups.get(s.view.group);
    if (!g) groups.set(s.view.group, (g = { kind: 'group', key: s.view.group, label: s.view.groupLabel, items: [] }));
    g.items.push(s);
  }
  return groups;
}

/** The sidecar's order: pinned first, then the latest message first, then the larger id. */
function historyOrder(a: SessionSummary, b: SessionSummary): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  const ta = Date.parse(a.updatedAt) || 0;
  const tb = Date.parse(b.updatedAt) || 0;
  if (ta !== tb) return tb - ta;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Markdown-escapes text. Not MarkdownString.appendText: it turns every space into &nbsp;, so a
 * tooltip could only wrap inside words.
 */
function escapeMd(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, '\\$&').replace(/\s+/g, ' ');
}

function tooltip(s: SessionSummary, titleOf: TitleOf): vscode.MarkdownString {
  const t = tooltipLines(s, titleOf);
  const parts = [`**${escapeMd(t.title)}**`];
  if (t.preview) parts.push(`> ${escapeMd(t.preview)}`);
  parts.push(t.facts.map(escapeMd).join('  \n'));
  return new vscode.MarkdownString(parts.join('\n\n'));
}
