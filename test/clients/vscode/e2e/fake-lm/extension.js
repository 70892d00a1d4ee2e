// Test fixture for the VS Code end-to-end suite: registers a chat model (vendor levelcode-fake,
// family "fake", a small context window) that answers every request with fixed text: a briefing
// when asked to summarise a transcript, a title otherwise. Never shipped.
const vscode = require('vscode');

exports.activate = function activate(context) {
  const info = {
    id: 'fake-1',
    name: 'Fake',
    family: 'fake',
    version: '1',
    maxInputTokens: 2000,
    maxOutputTokens: 500,
    capabilities: {},
  };
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('levelcode-fake', {
      provideLanguageModelChatInformation: async () => [info],
      provideLanguageModelChatResponse: async (_model, messages, _options, progress) => {
        const text = messages
          .flatMap((m) => m.content)
          .map((p) => (p && typeof p.value === 'string' ? p.value : ''))
          .join('\n');
        const answer = text.includes('<transcript>') ? 'FAKE BRIEFING: the user is planning a long migration.' : 'Fake Model Title';
        progress.report(new vscode.LanguageModelTextPart(answer));
      },
      provideTokenCount: async (_model, text) => Math.ceil(String(typeof text === 'string' ? text : JSON.stringify(text)).length / 4),
    }),
  );
};

exports.deactivate = function deactivate() {};
