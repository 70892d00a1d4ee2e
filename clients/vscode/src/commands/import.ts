// "Import Chats from Other AI Tools…" (the Command Palette, the History's title bar and its empty
// state): a dry run of session/import lists the tools found on this machine with their counts;
// the user picks which to import; each picked tool is imported in turn under one progress
// notification with Cancel (the sidecar's $/progress reports shown in it; Cancel sends
// $/cancelRequest, and what was imported stays); then one report says what each tool gave.
// The words and counts are in history/importReport.ts.

import * as vscode from 'vscode';
import { codeOf, messageOf } from '../errors';
import { foundTools, foundWords, nameOf, reportWords, waiting, type ToolOutcome } from '../history/importReport';
import type { HistoryProvider } from '../historyView';
import { ErrorCodes, type ImportToolCounts } from '../protocol';
import type { Sidecar } from '../sidecar';
import { S } from '../strings';

export interface ImportDeps {
  sidecar: Sidecar;
  history: HistoryProvider;
  projects: () => string[];
}

export async function importChats({ sidecar, history, projects }: ImportDeps): Promise<void> {
  await sidecar.start();
  if (!sidecar.has('import')) {
    void vscode.window.showInformationMessage(S.importChats.unavailable);
    return;
  }
  let dry;
  try {
    dry = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: S.importChats.scanning }, () =>
      sidecar.request('session/import', { dryRun: true }),
    );
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
    return;
  }
  const found = foundTools(dry);
  if (!found.length) {
    void vscode.window.showInformationMessage(S.importChats.noneFound);
    return;
  }
  if (!found.some((t) => waiting(t) > 0)) {
    void vscode.window.showInformationMessage(S.importChats.allThere(found.map((t) => `${nameOf(t)} (${t.unchanged})`).join(', ')));
    return;
  }
  type Item = vscode.QuickPickItem & { counts: ImportToolCounts };
  const items: Item[] = found.map((t) => ({ label: nameOf(t), description: foundWords(t), picked: waiting(t) > 0, counts: t }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: S.importChats.pickTitle,
    placeHolder: S.importChats.pickPlaceholder,
    ignoreFocusOut: true,
  });
  if (!picked?.length) return;

  const outcomes: ToolOutcome[] = [];
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: S.importChats.progressTitle, cancellable: true },
    async (progress, token) => {
      for (const [i, item] of picked.entries()) {
        const { tool } = item.counts;
        const label = nameOf(item.counts);
        if (token.isCancellationRequested) break;
        const step = S.importChats.step(label, i + 1, picked.length);
        progress.report({ message: step });
        try {
          const result = await sidecar.requestWithProgress(
            'session/import',
            { tool },
            (message) => progress.report({ message: message ? `${step}: ${message}` : step }),
            token,
          );
          outcomes.push({ tool, label, result });
          for (const p of result.problems) sidecar.log.warn(`import ${tool}: ${p.path}: ${p.message}`);
          for (const u of result.unreadable) sidecar.log.warn(`import ${tool}: cannot read ${u}`);
        } catch (e) {
          if (codeOf(e) === ErrorCodes.RequestCancelled || token.isCancellationRequested) {
            outcomes.push({ tool, label, cancelled: true });
            break;
          }
          sidecar.log.warn(`import ${tool}: ${messageOf(e)}`);
          outcomes.push({ tool, label, error: messageOf(e) });
        }
      }
    },
  );
  await history.reload();
  const here = new Set(history.visibleSessions().map((s) => s.id));
  const made = outcomes.flatMap((o) => ('result' in o ? o.result.sessions : []));
  const elsewhere = projects().length ? made.filter((s) => !here.has(s.id)).length : 0;
  const report = reportWords(outcomes, elsewhere);
  const show = report.trouble ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const buttons = report.trouble ? [S.importChats.showHistory, S.importChats.showLog] : [S.importChats.showHistory];
  const choice = await show(report.text, ...buttons);
  if (choice === S.importChats.showHistory) await vscode.commands.executeCommand('levelcodeSessions.history.focus');
  if (choice === S.importChats.showLog) sidecar.log.show(true);
}
