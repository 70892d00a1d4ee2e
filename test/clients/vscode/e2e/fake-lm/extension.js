// Test fixture for the VS Code end-to-end suite: registers a chat model (vendor levelcode-fake,
// family "fake", a small context window) that answers with fixed text: a briefing when asked to
// summarise a transcript (carrying over every "FACT:" line it was sent), a title otherwise. Like
// every real provider it refuses a request larger than its maxInputTokens (counted with its own
// provideTokenCount). Settings read at each request: levelcodeFakeLm.log (a file that gets one
// JSON line per request: its tokens, whether it was a summary, the TURN-n markers it held) and
// levelcodeFakeLm.failAt (the summary request of that number, counted from 1, fails once, as a
// rate-limited model would). Any other request (a chat turn, e.g. from the @history participant)
// is answered "FAKE REPLY <n>." in two streamed chunks, and logged with its messages' roles and
// text and parts (kind "chat": a tool call or result is logged as such, with its id). Never shipped.
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
    capabilities: { toolCalling: true },
    // Offered in the Chat view's model picker: VS Code sends a chat turn to a participant only with a model chosen there.
    isUserSelectable: true,
  };
  let summaries = 0;
  let failed = false;
  let chatCount = 0;
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
        const title = !summary && text.startsWith('Write a title for this chat session');
        if (summary) summaries++;
        const chat = !summary && !title;
        const chats = chat ? ++chatCount : chatCount;
        const settings = vscode.workspace.getConfiguration('levelcodeFakeLm');
        const log = settings.get('log');
        if (log) {
          const turns = [...text.matchAll(/TURN-(\d+)/g)].map((m) => Number(m[1]));
          const entry = { tokens, summary, turns, n: summaries, kind: summary ? 'summary' : title ? 'title' : 'chat' };
          if (chat)
            Object.assign(entry, {
              roles: messages.map((m) => (m.role === 2 ? 'assistant' : 'user')),
              text,
              // Each message's parts by class: a resumed tool call must arrive as a tool-call part, its result as a tool-result part.
              parts: messages.map((m) =>
                (Array.isArray(m.content) ? m.content : [m.content]).map((p) =>
                  vscode.LanguageModelToolCallPart && p instanceof vscode.LanguageModelToolCallPart
                    ? { kind: 'toolCall', callId: p.callId, name: p.name, input: p.input }
                    : vscode.LanguageModelToolResultPart && p instanceof vscode.LanguageModelToolResultPart
                      ? { kind: 'toolResult', callId: p.callId, text: p.content.map((c) => (c && typeof c.value === 'string' ? c.value : '')).join('') }
                      : { kind: 'text' },
                ),
              ),
            });
          fs.appendFileSync(log, JSON.stringify(entry) + '\n');
        }
        if (tokens > MAX_INPUT) throw new Error(`input of ${tokens} tokens exceeds maxInputTokens (${MAX_INPUT})`);
        if (summary && !failed && settings.get('failAt') === summaries) {
          failed = true;
          throw new Error('rate limited');
        }
        if (chat) {
          progress.report(new vscode.LanguageModelTextPart('FAKE REPLY '));
          progress.report(new vscode.LanguageModelTextPart(`${chats}.`));
          return;
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
