// Test fixture for the VS Code end-to-end suite: a chat extension of someone else's, as the API
// (clients/vscode/api.d.ts) expects one: it activates the LevelCode Sessions extension, listens
// for Resume with `onDidResume`, and writes each event it is handed as one JSON line
// ({id, title, turns, readOnly}) to the file named by the setting levelcodeFakeChat.log.
// Never shipped.
const vscode = require('vscode');
const fs = require('fs');

exports.activate = async function activate(context) {
  const ext = vscode.extensions.getExtension('levelcode.levelcode-sessions');
  const sessions = await ext.activate();
  context.subscriptions.push(
    sessions.onDidResume(({ result, title }) => {
      const log = vscode.workspace.getConfiguration('levelcodeFakeChat').get('log');
      if (!log) return;
      const entry = { id: result.id, title, turns: result.conversation.length, readOnly: result.readOnly };
      fs.appendFileSync(log, JSON.stringify(entry) + '\n');
    }),
  );
};

exports.deactivate = function deactivate() {};
