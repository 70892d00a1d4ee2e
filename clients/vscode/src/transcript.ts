// Open Transcript: a session as Markdown in a read-only editor, through a virtual document
// (TextDocumentContentProvider) under the scheme `levelcode-session:`. The text is the sidecar's
// own Markdown export, so it matches Copy/Export as Markdown. A large session opens at its end
// (the latest turns are what one comes back for); an open transcript follows appends live.
// A click on a History row opens it rendered instead (openTranscriptPreview).
//
// URIs: levelcode-session:/<session id>/<title>.md (the file name gives the tab its title and
// the `.md` the Markdown language).

import * as vscode from 'vscode';
import { exportFileName } from './history/labels';
import type { Sidecar } from './sidecar';
import { S } from './strings';

export const SCHEME = 'levelcode-session';
/** Transcripts longer than this many lines open scrolled to their end. */
export const LARGE_LINES = 200;

export function transcriptUri(s: { id: string; title: string }): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/${s.id}/${exportFileName(s)}` });
}

export function sessionIdOf(uri: vscode.Uri): string | undefined {
  return uri.path.split('/').filter(Boolean)[0];
}

export class TranscriptProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly sidecar: Sidecar) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const id = sessionIdOf(uri);
    if (!id) return '';
    try {
      const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: S.transcript.loading }, () =>
        this.sidecar.request('session/export', { id, format: 'markdown' }, token),
      );
      return r.content;
    } catch (e) {
      return `<!-- ${S.transcript.failed(e instanceof Error ? e.message : String(e))} -->\n`;
    }
  }

  /** An open transcript of `id` reloads (after appends, renames). */
  changed(id: string): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === SCHEME && sessionIdOf(doc.uri) === id) this.emitter.fire(doc.uri);
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** Opens the transcript; a large one at its end. */
export async function openTranscript(s: { id: string; title: string }, preview = true): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(transcriptUri(s));
  if (doc.languageId !== 'markdown') await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  const editor = await vscode.window.showTextDocument(doc, { preview });
  if (doc.lineCount > LARGE_LINES) {
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    editor.selection = new vscode.Selection(end, end);
    editor.revealRange(new vscode.Range(end, end), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
  return editor;
}

/** Opens the transcript rendered, in VS Code's Markdown preview (a click on a History row). */
export async function openTranscriptPreview(s: { id: string; title: string }): Promise<void> {
  await vscode.commands.executeCommand('markdown.showPreview', transcriptUri(s));
}
