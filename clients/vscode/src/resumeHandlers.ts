// The chat extensions that listen for Resume through the API (`onDidResume`, api.d.ts), known by
// extension, so that Resume can ask which one continues a session when @history could too, and
// then tell only the one chosen. The API's shape is unchanged: a listener is told who it is by
// nothing, so its extension is found from where `onDidResume` was called (the extension host
// runs each extension from its own folder). A listener whose folder is not found still counts,
// under a generic name.

import { sep } from 'node:path';
import * as vscode from 'vscode';
import type * as Api from '../api';
import { S } from './strings';

/** An extension with at least one live `onDidResume` listener. */
export interface ResumeHandler {
  /** The extension's id (publisher.name), or '' when it could not be told. */
  id: string;
  /** Its display name, as the Extensions view shows it. */
  name: string;
}

type Listener = { owner: ResumeHandler; call: (e: Api.ResumedEvent) => unknown };

export class ResumeHandlers implements vscode.Disposable {
  private readonly listeners = new Set<Listener>();

  /** @param ownId this extension's id: its own frames are skipped when looking for the caller. */
  constructor(private readonly ownId: string) {}

  /** The API's `onDidResume`: an Event that records which extension subscribed. */
  readonly event: vscode.Event<Api.ResumedEvent> = (listener, thisArgs, disposables) => {
    const entry: Listener = { owner: this.caller(), call: (e) => listener.call(thisArgs, e) };
    this.listeners.add(entry);
    const d = new vscode.Disposable(() => this.listeners.delete(entry));
    if (Array.isArray(disposables)) disposables.push(d);
    return d;
  };

  /** The extensions listening now, each once, in the order they first subscribed. */
  handlers(): ResumeHandler[] {
    const seen = new Map<string, ResumeHandler>();
    for (const l of this.listeners) if (!seen.has(l.owner.id)) seen.set(l.owner.id, l.owner);
    return [...seen.values()];
  }

  /** Tells the listeners of one extension (by id), or of every one when `to` is undefined. */
  fire(event: Api.ResumedEvent, to?: string): void {
    for (const l of [...this.listeners]) {
      if (to !== undefined && l.owner.id !== to) continue;
      try {
        l.call(event);
      } catch {
        /* a listener's failure is its own, as with vscode.EventEmitter */
      }
    }
  }

  /** The extension whose code called `onDidResume`: the first frame in another extension's folder. */
  private caller(): ResumeHandler {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 50;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    const others = vscode.extensions.all
      .filter((x) => x.id.toLowerCase() !== this.ownId.toLowerCase())
      .map((x) => ({ x, dir: x.extensionUri.fsPath.replace(/[\\/]+$/, '') + sep }));
    for (const frame of stack.split('\n').slice(1)) {
      const path = frame.replace('file://', '');
      const hit = others.find((o) => path.includes(o.dir));
      if (hit) {
        const pj = hit.x.packageJSON as { displayName?: string; name?: string };
        return { id: hit.x.id, name: pj.displayName || pj.name || hit.x.id };
      }
    }
    return { id: '', name: S.chooser.anotherExtension };
  }

  dispose(): void {
    this.listeners.clear();
  }
}
