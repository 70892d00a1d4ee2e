// Test fixture for the VS Code end-to-end suite: registers a chat model (vendor levelcode-fake,
// family "fake", a small context window) that answers with fixed text: a briefing when asked to
// summarise a transcript (carrying over every "FACT:" line it was sent), a title otherwise. Like
// every real provider it refuses a request larger than its maxInputTokens (counted with its own
// provideTokenCount). Settings read at each request: levelcodeFakeLm.log (a file that gets one
// JSON line per request: its tokens, whether it was a summary, the TURN-n markers it held) and
// levelcodeFakeLm.failAt (the summary request of that number, counted from 1, fails once, as a
// rate-limited model would). Never shipped.
const vscode = require('vscode');
const fs = require('fs');

const MAX_INPUT = 2000;
const count = (text) => Math.ceil(String(typeof text === 'string' ? text : JSON.stringify(text)).length / 4);

exports.activate = function activate(context) {
  const info = {
    id: 'fake-1',
    name: 'Fake',
    family: 'fake',
    version: '1',
    maxInputTokens: MAX_INPUT,
    maxOutputTokens: 500,
    capabilities: {},
  };
  let summaries = 0;
  let failed = false;
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('levelcode-fake', {
      provideLanguageModelChatInformation: async () => [info],
      provideLanguageModelChatResponse: async (_model, messages, _options, progress) => {
        const text = messages
          .flatMap((m) => m.content)
          .map((p) => (p && typeof p.value === 'string' ? p.value : ''))
          .join('\n');
        const tokens = count(text);
        const summary = text.includes('<transcript>');
        if (summary) summaries++;
        const settings = vscode.workspace.getConfiguration('levelcodeFakeLm');
        const log = settings.get('log');
        if (log) {
          const turns = [...text.matchAll(/TURN-(\d+)/g)].map((m) => Number(m[1]));
          fs.appendFileSync(log, JSON.stringify({ tokens, summary, turns, n: summaries }) + '\n');
        }
        if (tokens > MAX_INPUT) throw new Error(`input of ${tokens} tokens exceeds maxInputTokens (${MAX_INPUT})`);
        if (summary && !failed && settings.get('failAt') === summaries) {
          failed = true;
          throw new Error('rate limited');
        }
        const facts = [...new Set(text.split('\n').filter((l) => l.includes('FACT:')).map((l) => l.slice(l.indexOf('FACT:')).trim()))];
        const answer = summary ? [...facts, 'FAKE BRIEFING: the user is planning a long migration.'].join('\n') : 'Fake Model Title';
        progress.report(new vscode.LanguageModelTextPart(answer));
      },
      provideTokenCount: async (_model, text) => count(text),
    }),
  );
};

exports.deactivate = function deactivate() {};
