// Every user-visible string the extension shows at run time, in one place (the manifest's
// command titles and setting descriptions are in package.nls.json, VS Code's own place for them).
// Plain data and small formatting functions: no `vscode` import, so the pure modules and their
// unit tests can use it too.

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const S = {
  history: {
    untitled: 'Untitled session',
    turns: (n: number) => plural(n, 'turn', 'turns'),
    separator: ' · ',
    tooltipUpdated: (s: string) => `Last used ${s}`,
    tooltipCreated: (s: string) => `Started ${s}`,
    tooltipId: (id: string) => `Session ${id}`,
    tooltipProject: (path: string) => `Project ${path}`,
    tooltipSource: (tool: string) => `Imported from ${tool}`,
    tooltipDevice: (device: string) => `Device ${device}`,
    loading: 'Loading History…',
    sidecarDown: 'The History service is not running.',
    problems: (n: number) => plural(n, 'file could not be read (see the log)', 'files could not be read (see the log)'),
  },
  pick: {
    placeholder: 'Search chats by title or first message',
    resumePlaceholder: 'Choose a chat to resume',
    renamePlaceholder: 'Choose a chat to rename',
    deletePlaceholder: 'Choose a chat to delete',
    pinPlaceholder: 'Choose a chat to pin or unpin',
    archivePlaceholder: 'Choose a chat to archive',
    unarchivePlaceholder: 'Choose an archived chat to bring back',
    forkPlaceholder: 'Choose a chat to fork',
    exportPlaceholder: 'Choose a chat to export',
    copyPlaceholder: 'Choose a chat to copy',
    transcriptPlaceholder: 'Choose a chat to open',
    empty: 'No chats in History yet.',
    fullTextMatch: 'matches in the transcript',
    openTranscript: 'Open Transcript',
    resume: 'Resume',
  },
  rename: {
    prompt: 'New title for this chat',
    empty: 'A title cannot be empty.',
    tooLong: 'A title can have at most 500 characters.',
    done: (title: string) => `Renamed to “${title}”.`,
  },
  delete: {
    done: (title: string) => `“${title}” will be moved to the trash.`,
    undo: 'Undo',
    undone: (title: string) => `“${title}” was kept.`,
    tooLate: (title: string) => `“${title}” is already in the trash; restore it from the system trash.`,
    failed: (title: string, why: string) => `Could not delete “${title}”: ${why}`,
    // Where the sidecar can restore from the trash: deleted at once, Undo restores.
    trashed: (title: string) => `“${title}” was moved to the trash.`,
    restored: (title: string) => `“${title}” is back in History.`,
    restoreFailed: (title: string, why: string) => `Could not restore “${title}” from the trash: ${why}`,
  },
  copy: {
    done: (title: string) => `Copied “${title}” as Markdown.`,
  },
  lifecycle: {
    pinned: (title: string) => `Pinned “${title}”.`,
    unpinned: (title: string) => `Unpinned “${title}”.`,
    archived: (title: string) => `Archived “${title}”: out of History, still found by Chat History's search.`,
    undo: 'Undo',
    unarchived: (title: string) => `“${title}” is back in History.`,
    noArchived: 'No archived chats.',
  },
  state: {
    pinned: 'pinned',
    archived: 'archived',
    interrupted: 'interrupted',
    heldBy: 'open in another window',
    forkedFrom: (title: string | undefined, turn: number) => `forked from ${title ? `“${title}”` : 'another chat'} at turn ${turn}`,
    continuedOn: (device: string, turn: number) => `continued on ${device} after turn ${turn}`,
    movedFrom: (folder: string) => `moved from ${folder}`,
    heldByTooltip: (pid?: number, host?: string) =>
      `Open in another window${pid !== undefined || host ? ` (${[pid !== undefined ? `pid ${pid}` : '', host ? `on ${host}` : ''].filter(Boolean).join(' ')})` : ''}: resuming it here shows it read-only.`,
    interruptedTooltip: 'Interrupted: its last run stopped part way. Resume continues it.',
    pinnedTooltip: 'Pinned: listed first, never archived by retention.',
    archivedTooltip: 'Archived: out of History until unarchived or continued.',
    forkedTooltip: (title: string | undefined, id: string, turn: number) =>
      `Forked from ${title ? `“${title}” (${id})` : id} at turn ${turn}`,
    continuedTooltip: (device: string, title: string | undefined, id: string, turn: number) =>
      `Continued on ${device}: ${title ? `“${title}” (${id})` : id} went on there from turn ${turn} while the devices were apart (a sync conflict, kept whole)`,
    movedTooltip: (folder: string) => `Moved from ${folder}`,
  },
  fork: {
    title: (title: string) => `Fork “${title}” from Turn`,
    placeholder: 'Pick a turn: the new chat holds the conversation up to it',
    turn: (n: number) => `Turn ${n}`,
    noText: '(no text)',
    noTurns: (title: string) => `“${title}” has no turns to fork from.`,
    progress: (title: string) => `Forking “${title}”…`,
    done: (title: string, turn: number) => `Forked “${title}” at turn ${turn}.`,
    unavailable: 'This version of the sessions service cannot fork at a turn.',
  },
  retention: {
    title: 'Apply Retention',
    progress: 'Checking what falls out under the retention settings…',
    nothingOff: 'No retention rule is on: set levelcodeSessions.autoArchiveDays, retentionKeep or retentionMaxAgeDays.',
    nothing: 'Nothing falls out under the retention settings: every chat stays in History.',
    checklist: (n: number) => `${plural(n, 'chat falls', 'chats fall')} out under the retention settings: uncheck any to keep`,
    idle: (days: number) => `idle ${plural(days, 'day', 'days')}`,
    maxAge: (days: number) => `older than ${plural(days, 'day', 'days')}`,
    keep: (n: number) => `beyond the newest ${n} of its project`,
    skippedNote: (n: number) => `${plural(n, 'more is', 'more are')} left alone (open in a window, or written by a newer version).`,
    actionPlaceholder: (n: number) => `What to do with ${plural(n, 'chat', 'chats')}?`,
    archive: (n: number) => `Archive ${plural(n, 'Chat', 'Chats')}`,
    archiveDetail: 'Out of History, still found by search; Unarchive brings each back. (Default.)',
    trash: (n: number) => `Move ${plural(n, 'Chat', 'Chats')} to the Trash`,
    trashDetail: 'Their files go to the OS trash.',
    confirmTrash: (n: number) => `Move ${plural(n, 'chat', 'chats')} to the trash?`,
    confirmTrashDetail: 'Their files go to the OS trash, from where they can be restored like any file.',
    archived: (n: number) => `Archived ${plural(n, 'chat', 'chats')}.`,
    trashed: (n: number) => `Moved ${plural(n, 'chat', 'chats')} to the trash.`,
    failed: (n: number, why: string) => `${plural(n, 'chat', 'chats')} could not be changed: ${why}`,
  },
  relink: {
    openLabel: 'Relink Chats from This Folder',
    dialogTitle: 'The folder the chats were recorded under (the old place of this project)',
    pickTarget: 'Which folder of this window gets the chats?',
    none: (from: string) => `No chats were recorded under ${from}.`,
    confirm: (n: number, from: string, to: string) => `Relink ${plural(n, 'chat', 'chats')} from ${from} to ${to}?`,
    confirmDetail: 'Their files move in the store, unchanged; History lists them “moved from …”.',
    apply: (n: number) => `Relink ${plural(n, 'Chat', 'Chats')}`,
    done: (n: number, from: string) => `Relinked ${plural(n, 'chat', 'chats')} from ${from}.`,
    unavailable: 'This version of the sessions service cannot relink folders.',
  },
  export: {
    saveLabel: 'Export',
    filterName: 'Markdown',
    done: (path: string) => `Exported to ${path}.`,
    open: 'Open',
  },
  newChat: {
    savedOnce: 'Previous chat saved to History.',
    openHistory: 'Show History',
  },
  resume: {
    progress: (title: string) => `Resuming “${title}”…`,
    /**
     * Plain words, no tiers: the whole chat came back, or a summary stands in for its earlier
     * part. The sidecar's own line for the latter ("Resumed from summary — …") is not repeated.
     */
    resumed: (title: string, tier: 1 | 2 | 3, note?: string) => {
      const rest = (note ?? '').replace(/^Resumed from (an earlier )?summary — full transcript in History\.\s*/, '').trim();
      const head = tier === 1 ? `Resumed “${title}”.` : `Resumed “${title}” from a summary — the full chat is in History.`;
      return rest ? `${head} ${rest}` : head;
    },
    readOnly: (title: string) => `“${title}” is open in another window; it is shown read-only.`,
    openCopy: 'Open a Copy',
    consent: (tokens: number, calls = 1) =>
      `Resuming this chat needs a summary of about ${tokens.toLocaleString('en-US')} tokens of earlier conversation by the language model${calls > 1 ? `, in ${calls} requests` : ''}. Continue?`,
    fromSummary: 'Resume from summary',
    startFresh: 'Start fresh instead',
    noModel:
      'Resuming this chat needs a summary, and no language model is available: install and sign in to an extension that provides one to VS Code (GitHub Copilot Chat, or any other language model provider), or pick one in the setting levelcodeSessions.modelFamily.',
    failed: (why: string) => `Could not resume: ${why}`,
    nothingToResume: 'There is no chat to resume in this folder yet.',
  },
  importChats: {
    scanning: 'Looking for chats of other AI tools on this machine…',
    unavailable: 'This version of the LevelCode Sessions service cannot import chats.',
    noneFound:
      'No chats of other AI tools were found on this machine. LevelCode imports Claude Code, Codex, Gemini CLI, VS Code chat, Cursor, opencode, pi, Qwen Code and more from the folders they keep them in.',
    allThere: (tools: string) => `Every chat found is already in History: ${tools}.`,
    pickTitle: 'Import Chats from Other AI Tools',
    pickPlaceholder: 'Tools found on this machine: choose whose chats to import',
    newChats: (n: number) => plural(n, 'new chat', 'new chats'),
    grown: (n: number) => `${n} with new messages`,
    already: (n: number) => `${n} already in History`,
    nothingIn: (files: number) => `${plural(files, 'file', 'files')}, no chats in them`,
    progressTitle: 'Importing chats',
    step: (tool: string, i: number, n: number) => (n > 1 ? `${tool} (${i} of ${n})` : tool),
    updated: (n: number) => `${n} updated`,
    nothingNew: 'nothing new',
    problems: (n: number) => `${plural(n, 'file', 'files')} could not be read (see the log)`,
    stopped: (tool: string) => `${tool}: stopped (what was imported stays)`,
    failed: (tool: string, why: string) => `${tool}: failed (${why})`,
    doneHead: (imported: number, updated: number) =>
      imported || updated ? `Imported ${plural(imported, 'chat', 'chats')}${updated ? `, updated ${updated}` : ''}:` : 'Import finished:',
    cancelledHead: (imported: number) => `Import cancelled after ${plural(imported, 'new chat', 'new chats')}:`,
    elsewhere: (n: number) =>
      `${plural(n, 'chat belongs', 'chats belong')} to other project folders: open one of those folders to see them.`,
    showHistory: 'Show History',
    showLog: 'Show Log',
  },
  continueIn: {
    notAvailable: (title: string) => `“${title}” was not imported from a tool that can continue it.`,
    notOnPath: (tool: string, cmd: string) =>
      `Cannot continue in ${tool}: “${cmd}” is not on PATH. Install ${tool}, or add the folder that holds ${cmd} to PATH, and try again.`,
    folderGone: (tool: string, folder: string) => `Cannot continue in ${tool}: the project folder it recorded is gone (${folder}).`,
    terminalName: (tool: string, title: string) => `${tool}: ${title}`,
    failed: (tool: string, why: string) => `Could not start ${tool}: ${why}`,
  },
  handoff: {
    pickTitle: (title: string) => `Continue “${title}” in`,
    /** `install`: what to install, "Claude Code (npm …) or Codex (npm …)" (continueIn.ts installLine); '' when the sidecar names none. */
    none: (install: string) =>
      install
        ? `No agent CLI on PATH to continue in: install ${install}.`
        : 'No agent CLI to continue in: the LevelCode sidecar names none.',
    progress: (tool: string) => `Writing a ${tool} session…`,
    failed: (tool: string, why: string) => `Could not continue in ${tool}: ${why}`,
    note: (tool: string, note: string) => `${tool}: ${note}`,
  },
  transcript: {
    loading: 'Loading transcript…',
    failed: (why: string) => `Could not load the transcript: ${why}`,
  },
  sidecar: {
    outputName: 'LevelCode Sessions',
    clientName: 'LevelCode Sessions sidecar',
    restarting: 'The LevelCode Sessions service stopped unexpectedly and was restarted.',
    gaveUp: 'The LevelCode Sessions service keeps stopping; History is unavailable. See the log for the reason.',
    restart: 'Restart',
    showLog: 'Show Log',
    notFound: (path: string) => `The sidecar set in levelcodeSessions.sidecarPath was not found: ${path}`,
    startFailed: (why: string) => `Could not start the LevelCode Sessions service: ${why}`,
    tooOld: (v: number, want: number) => `The LevelCode Sessions service speaks protocol ${v}; this extension needs ${want}.`,
  },
  chat: {
    resumedCommand: 'resumed',
    justification: 'LevelCode Sessions continues a saved chat with your language model.',
    continuing: (title: string) => `Continuing “${title}”`,
    forked: '(a copy: the original stays as its tool wrote it)',
    user: 'You',
    assistant: 'Assistant',
    openTranscript: 'Open transcript',
    nothingLoaded: 'No chat is loaded: resume one from the History, or just type to start a new one.',
    noModel:
      'No language model is available in VS Code, so this chat cannot be continued here. Install and sign in to an extension that provides one (GitHub Copilot Chat, or any other language model provider).',
    orCli: (tool: string) => `Or continue it in ${tool}, which is installed here.`,
    getModel: 'Find a Language Model',
    continueInCli: (tool: string) => `Continue in ${tool}`,
    notSaved: (why: string) => `This turn was not saved to the chat's file: ${why}.`,
    elsewhere: (title: string) =>
      `This chat is continuing in another window: “${title}” moved on there, so this turn was not added to it. Open a copy to go on from here.`,
    elsewhereShort:
      'This chat is continuing in another window; this turn was not saved to it. Choose “Open a Copy” to go on here in a copy.',
    inCopy: (title: string) => `Continuing in a copy of “${title}”; the original goes on in the other window.`,
  },
  chooser: {
    title: (title: string) => `Continue “${title}” in…`,
    placeholder: 'Which one continues this chat? (asked each time)',
    participant: "VS Code's Chat (@history)",
    participantDetail: 'Continues the chat with your language model in the Chat view',
    extensionDetail: 'A chat extension that saves to LevelCode Sessions',
    anotherExtension: 'Another chat extension',
  },
  lm: {
    summarizeJustification: 'LevelCode Sessions summarises the earlier part of a long chat so that it can be resumed.',
    titleJustification: 'LevelCode Sessions names a chat for its History.',
    noModel: 'no language model is available',
    emptyAnswer: 'the language model gave an empty answer',
  },
  errors: {
    noFolder: 'Open a folder first: chats are kept per project folder.',
    unknownSession: 'the chat is no longer in History',
    locked: 'another window is using this chat',
    generic: (message: string) => message,
  },
} as const;
