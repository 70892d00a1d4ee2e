// Every user-visible string the extension shows at run time, in one place (the manifest's
// command titles and setting descriptions are in package.nls.json, VS Code's own place for them).
// Plain data and small formatting functions: no `vscode` import, so the pure modules and their
// unit tests can use it too.

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const S = {
  time: {
    // Short, as VS Code's chat list has them, so the description fits beside the title.
    justNow: 'now',
    minutesAgo: (n: number) => `${n} min`,
    hoursAgo: (n: number) => `${n} h`,
    daysAgo: (n: number) => `${n} d`,
    weeksAgo: (n: number) => `${n} wk`,
    unknown: 'unknown time',
    // The long forms, for screen readers.
    long: {
      justNow: 'just now',
      minutesAgo: (n: number) => plural(n, 'minute ago', 'minutes ago'),
      hoursAgo: (n: number) => plural(n, 'hour ago', 'hours ago'),
      daysAgo: (n: number) => plural(n, 'day ago', 'days ago'),
      weeksAgo: (n: number) => plural(n, 'week ago', 'weeks ago'),
    },
    months: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const,
  },
  groups: {
    pinned: 'Pinned',
    today: 'Today',
    yesterday: 'Yesterday',
    last7: 'Previous 7 days',
    last30: 'Previous 30 days',
    unknown: 'Unknown date',
    months: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const,
  },
  history: {
    untitled: 'Untitled chat',
    turns: (n: number) => plural(n, 'turn', 'turns'),
    separator: ' · ',
    tooltipUpdated: (s: string) => `Last used ${s}`,
    tooltipCreated: (s: string) => `Started ${s}`,
    tooltipId: (id: string) => `Session ${id}`,
    tooltipProject: (path: string) => `Project ${path}`,
    tooltipSource: (tool: string) => `Imported from ${tool}`,
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
    tier: (tier: 1 | 2 | 3) => (tier === 1 ? 'verbatim' : tier === 2 ? 'earlier work folded' : 'from a summary'),
    resumed: (title: string, tier: 1 | 2 | 3, note?: string) =>
      `Resumed “${title}” (tier ${tier}: ${S.resume.tier(tier)}).${note ? ` ${note}` : ''}`,
    readOnly: (title: string) => `“${title}” is open in another window; it is shown read-only.`,
    openCopy: 'Open a Copy',
    consent: (tokens: number, calls = 1) =>
      `Resuming this chat needs a summary of about ${tokens.toLocaleString('en-US')} tokens of earlier conversation by the language model${calls > 1 ? `, in ${calls} requests` : ''}. Continue?`,
    fromSummary: 'Resume from summary',
    startFresh: 'Start fresh instead',
    noModel: 'Resuming this chat needs a summary, and no language model is available (install or sign in to a chat model, or pick one in the setting levelcodeSessions.modelFamily).',
    failed: (why: string) => `Could not resume: ${why}`,
    nothingToResume: 'There is no chat to resume in this folder yet.',
  },
  continueIn: {
    notAvailable: (title: string) => `“${title}” was not imported from a tool that can continue it.`,
    notOnPath: (tool: string, cmd: string) =>
      `Cannot continue in ${tool}: “${cmd}” is not on PATH. Install ${tool}, or add the folder that holds ${cmd} to PATH, and try again.`,
    folderGone: (tool: string, folder: string) => `Cannot continue in ${tool}: the project folder it recorded is gone (${folder}).`,
    terminalName: (tool: string, title: string) => `${tool}: ${title}`,
    failed: (tool: string, why: string) => `Could not start ${tool}: ${why}`,
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
    noModel: 'No language model is available, so this chat cannot be continued here.',
    notSaved: (why: string) => `This turn was not saved to the chat's file: ${why}.`,
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

