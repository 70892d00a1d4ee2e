// Unit test of the sidecar stderr parser (clients/vscode/src/logLines.ts): each line keeps its
// level in the extension's log channel.

import { describe, expect, it } from 'vitest';
import { parseSidecarLine } from '../../../../clients/vscode/src/logLines.js';

describe('parseSidecarLine', () => {
  it.each([
    ['[levelcode-sessions 4199] info: serving /tmp/store', 'info', 'serving /tmp/store'],
    ['[levelcode-sessions 1] warn: lost the lock of x: gone', 'warn', 'lost the lock of x: gone'],
    ['[levelcode-sessions 1] error: session/list: boom', 'error', 'session/list: boom'],
    ['[levelcode-sessions 1] debug: ignored notification $/x', 'debug', 'ignored notification $/x'],
    ['TypeError: something at server.js:1', 'error', 'TypeError: something at server.js:1'],
    ['[levelcode-sessions x] info: not a pid', 'error', '[levelcode-sessions x] info: not a pid'],
  ])('%s', (line, level, message) => {
    expect(parseSidecarLine(line)).toEqual({ level, message });
  });
});
