// Opening a chat: New Chat, Resume (a row, an id, or one picked), Resume Last Chat (the most
// recent one other than the chat open now), Open Transcript (the JSONL as a read-only document)
// and the preview a click on a row opens (the transcript rendered). Resume itself, and the
// choice of who continues, is Chat's (chat.ts).

import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { itemLabel } from '../history/labels';
import { S } from '../strings';
import { openTranscript, openTranscriptPreview } from '../transcript';
import { type CommandDeps, listAll, type Target, target } from './target';

export async function newChat({ chat, history }: CommandDeps): Promise<void> {
  try {
    await chat.startNewChat();
    history.refresh();
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
  }
}

export async function resume(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.resumePlaceholder);
  if (s) await deps.chat.resumeInteractive({ id: s.id, title: itemLabel(s), source: s.source });
}

export async function resumeLast({ chat, history }: CommandDeps): Promise<void> {
  const sessions = await listAll(history);
  const last = sessions.find((s) => s.id !== chat.current) ?? sessions[0];
  if (!last) {
    void vscode.window.showInformationMessage(S.resume.nothingToResume);
    return;
  }
  await chat.resumeInteractive({ id: last.id, title: itemLabel(last), source: last.source });
}

export async function transcript(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.transcriptPlaceholder);
  if (s) await openTranscript(s);
}

/** A click on a row: the transcript rendered. */
export async function transcriptPreview(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.transcriptPlaceholder);
  if (s) await openTranscriptPreview(s);
}
