// End to end in real VS Code: the @history chat participant continues saved sessions with the
// editor's model. fake-lm/ provides the model (2,000-token window) and logs every request it is
// sent; chat turns get "FAKE REPLY <n>.". A short session resumes verbatim; a long one is
// summarised after consent and its head's fact reaches the model; each turn is appended to the
// session file, and between two turns the session is not held (the CLI appends to it); a session
// imported from Claude Code is continued as a fork, its copy untouched.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { S } from '../../../../clients/vscode/src/strings.js';
import { at } from '../../../helpers/items.js';
import { VsCode, missingPrerequisites, REPO, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

type LmCall = { kind: string; roles?: string[]; text?: string; tokens: number };

describe('VS Code @history participant (code-server)', () => {
  let vs: VsCode;
  let lmLog = '';
  let shortId = '';
  let longId = '';
  const SHORT = 'Rename the billing module to invoicing';
  const LONG = 'Plan the migration of the ledger to Postgres';
  const FACT = 'FACT: the ledger cut-over is on Sunday at 02:00 UTC';
  const chats = (): LmCall[] =>
    readFileSync(lmLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LmCall)
      .filter((c) => c.kind === 'chat');

  beforeAll(async () => {
    vs = await VsCode.create();
    shortId = await vs.seed({ at: new Date(Date.now() - 3 * 3600_000), turns: 2, first: SHORT, title: SHORT });
    longId = await vs.newSession('fake-1');
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      const t = new Date(Date.now() - (40 - i) * 60_000).toISOString();
      events.push({
        kind: 'user',
        t,
        content: `${i === 0 ? `${LONG}\n${FACT}\n` : `Step ${i}`} TURN-${i}: ${'the tables, the data and the plan '.repeat(12)}`,
      });
      events.push({
        kind: 'assistant',
        t,
        content: [{ type: 'text', text: `Answer ${i}: ${'we copy in batches and compare checksums '.repeat(12)}` }],
      });
    }
    events.push({ kind: 'title', t: new Date(Date.now() - 600_000).toISOString(), title: LONG, source: 'user' });
    await vs.append(longId, events);
    // A Claude Code session in this project, imported as the CLI does it.
    const claude = join(vs.root, 'claude.jsonl');
    const base = {
      isSidechain: false,
      userType: 'external',
      cwd: vs.project,
      sessionId: '5c0d1a2b-0000-4000-8000-000000000001',
      version: '2.0.77',
      gitBranch: '',
    };
    const t0 = Date.now() - 3600_000;
    writeFileSync(
      claude,
      [
        {
          ...base,
          parentUuid: null,
          type: 'user',
          message: { role: 'user', content: 'Imported question: which port does the API use?' },
          uuid: 'u1',
          timestamp: new Date(t0).toISOString(),
        },
        {
          ...base,
          parentUuid: 'u1',
          type: 'assistant',
          message: {
            id: 'm1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [{ type: 'text', text: 'Imported answer: port 8443.' }],
          },
          uuid: 'a1',
          timestamp: new Date(t0 + 1000).toISOString(),
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    await vs.cli(['import', 'claude-code', '--from', claude]);
    const fake = await vs.packageFixture(join(REPO, 'test/clients/vscode/e2e/fake-lm'));
    lmLog = join(vs.root, 'fake-lm.jsonl');
    writeFileSync(lmLog, '');
    await vs.start(
      {
        'chat.disableAIFeatures': false,
        'levelcodeSessions.modelFamily': 'fake',
        'levelcodeSessions.consentThreshold': 100,
        'levelcodeFakeLm.log': lmLog,
      },
      [fake],
    );
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'participant'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  const chatView = () => vs.page.locator('.interactive-session').filter({ visible: true }).first();

  /** Waits for the Chat view to show `text` (the participant's answers). */
  async function chatShows(text: string): Promise<string> {
    let seen = '';
    await vs.until(async () => {
      seen = await chatView()
        .innerText()
        .catch(() => '');
      return seen.includes(text);
    }, `the Chat view to show ${text}`);
    return seen;
  }

  /** VS Code asks once whether this extension may use the model: allow it, if it asks. */
  async function allowModelOnce(until: () => Promise<unknown>): Promise<void> {
    const allow = vs.page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Allow' }).filter({ visible: true }).first();
    await Promise.race([allow.waitFor({ timeout: 60_000 }).then(() => allow.click()), until()]);
    await until();
  }

  /** Types a prompt into the Chat view's input (the participant is sticky) and sends it. */
  async function say(prompt: string): Promise<void> {
    const input = chatView().locator('.interactive-input-part .monaco-editor').first();
    await input.click();
    await vs.page.keyboard.type(prompt);
    await vs.page.keyboard.press('Enter');
  }

  async function resumeRow(rowStart: string): Promise<void> {
    await vs.openHistory();
    await vs.waitForRows((r) => r.some((x) => x.startsWith(rowStart)), rowStart);
    await vs.contextAction(rowStart, 'Resume Chat');
  }

  it('resumes a short chat into the Chat view and sends its turns verbatim with the next prompt', async () => {
    await resumeRow(SHORT.slice(0, 18));
    const shown = await chatShows(`Answer 2 to: follow-up 1`);
    expect(shown).toContain(SHORT);
    await vs.screenshot('chat-01-resumed');
    await say('And the tests?');
    await allowModelOnce(() => chatShows('FAKE REPLY 1.'));
    const sent = at(chats(), 0);
    expect(sent.roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent.text).toContain(`${SHORT}\nAnswer 1 to: ${SHORT}\nfollow-up 1\nAnswer 2 to: follow-up 1\nAnd the tests?`);
    await vs.screenshot('chat-02-turn');
  });

  it('appends each completed turn to the session file', async () => {
    await vs.until(
      async () => (await vs.events(shortId)).some((e) => e.kind === 'user' && e.content === 'And the tests?'),
      'the new turn in the file',
    );
    const tail = (await vs.events(shortId)).filter((e) => e.kind === 'user' || e.kind === 'assistant').slice(-2);
    expect(tail).toMatchObject([
      { kind: 'user', content: 'And the tests?' },
      { kind: 'assistant', content: [{ type: 'text', text: 'FAKE REPLY 1.' }] },
    ]);
  });

  it('holds the chat only while it writes: the CLI writes between two turns, and the next turn lands after it', async () => {
    const lock = `${await vs.sessionFile(shortId)}.lock`;
    await vs.until(() => !existsSync(lock), 'the lock given back after the turn');
    // A marker, not a turn: no second conversation, so no conflict (two-tabs-one-chat.test.ts has that).
    await vs.append(shortId, [{ kind: 'event', type: 'checkpoint' }]); // rejects when locked
    const n = chats().length;
    await say('One more thing');
    await chatShows(`FAKE REPLY ${n + 1}.`);
    await vs.until(async () => (await vs.events(shortId)).some((e) => e.content === 'One more thing'), 'the next turn in the file');
    const tail = (await vs.events(shortId)).slice(-3).map((e) => (e.kind === 'event' ? e.type : e.kind === 'user' ? e.content : e.kind));
    expect(tail).toEqual(['checkpoint', 'One more thing', 'assistant']);
    await vs.until(() => !existsSync(lock), 'the lock given back after the next turn');
  });

  it('New Chat seals the resumed chat, says so once, and the next turn starts a fresh session', async () => {
    await vs.command('LevelCode: New Chat');
    await vs.waitForToast(S.newChat.savedOnce);
    await vs.until(async () => (await vs.events(shortId)).some((e) => e.kind === 'event' && e.type === 'sealed'), 'the sealed event');
    const n = chats().length;
    await say('@history A fresh start');
    await chatShows(`FAKE REPLY ${n + 1}.`);
    // Nothing of the sealed chat went with it, and a new session holds the turn.
    expect(at(chats(), n).roles).toEqual(['user']);
    await vs.until(
      async () => (await vs.cli(['list', '--project', vs.project])).includes('A fresh start'),
      'the fresh session in the History',
    );
  });

  it('resumes a long chat from a summary after consent; the head-only fact reaches the model', async () => {
    await resumeRow(LONG.slice(0, 18));
    const dialog = vs.page.locator('.monaco-dialog-box').filter({ visible: true }).first();
    await dialog.waitFor({ timeout: 60_000 });
    expect(await dialog.innerText()).toContain('needs a summary');
    await dialog.locator('.monaco-button', { hasText: S.resume.fromSummary }).click();
    const shown = await chatShows('Resumed from summary');
    expect(shown).toContain('FAKE BRIEFING');
    await vs.screenshot('chat-03-from-summary');
    const before = chats().length;
    await say('Where were we?');
    await chatShows(`FAKE REPLY ${before + 1}.`);
    const sent = at(chats(), before);
    expect(sent.text).toContain(FACT);
    expect(sent.text).toContain('TURN-29');
    expect(sent.text).not.toContain('TURN-0:');
    expect(sent.tokens).toBeLessThanOrEqual(2000);
  });

  it('continues an imported session as a fork that records its parent, the import untouched', async () => {
    const all = (JSON.parse(await vs.cli(['list', '--all', '--json'])) as { sessions: { id: string; source?: unknown }[] }).sessions;
    const imported = all.find((s) => s.source);
    expect(imported).toBeDefined();
    const before = readFileSync((await vs.sessionFile(imported!.id))!, 'utf8');
    await resumeRow('Imported question');
    await chatShows('Imported answer: port 8443.');
    const n = chats().length;
    await say('And in staging?');
    await chatShows(`FAKE REPLY ${n + 1}.`);
    expect(at(chats(), n).text).toContain('Imported answer: port 8443.');
    expect(readFileSync((await vs.sessionFile(imported!.id))!, 'utf8')).toBe(before);
    let fork: Record<string, unknown>[] = [];
    await vs.until(async () => {
      const now = (JSON.parse(await vs.cli(['list', '--all', '--json'])) as { sessions: { id: string }[] }).sessions;
      for (const s of now) {
        if (s.id === imported!.id) continue;
        const ev = await vs.events(s.id);
        if (
          ev.some((e) => e.kind === 'event' && e.type === 'forked' && e.from === imported!.id) &&
          ev.some((e) => e.content === 'And in staging?')
        )
          fork = ev;
      }
      return fork.length > 0;
    }, 'the fork with the new turn');
    await vs.screenshot('chat-04-fork');
  });
  it('sends a resumed tool call and its result as vscode.lm tool parts, not text', async () => {
    const id = await vs.newSession('fake-1');
    const t = (k: number) => new Date(Date.now() - (20 - k) * 60_000).toISOString();
    await vs.append(id, [
      { kind: 'user', t: t(0), content: 'TOOLS-CHAT: list the files' },
      { kind: 'assistant', t: t(1), content: [{ type: 'text', text: 'Listing them.' }] },
      {
        kind: 'agent',
        t: t(2),
        messages: [
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_ls1', name: 'Bash', input: { command: 'ls' } }],
            usage: { input_tokens: 3 },
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_ls1', content: 'a.txt\nb.txt' }] },
        ],
      },
      { kind: 'assistant', t: t(3), content: [{ type: 'text', text: 'Two files: a.txt and b.txt.' }] },
      { kind: 'title', t: t(4), title: 'TOOLS-CHAT listing', source: 'user' },
    ]);
    await resumeRow('TOOLS-CHAT listing');
    const shown = await chatShows('Two files: a.txt and b.txt.');
    expect(shown).toContain('TOOLS-CHAT listing');
    expect(shown).toContain('Bash');
    const n = chats().length;
    await say('Which one is newer?');
    await chatShows(`FAKE REPLY ${n + 1}.`);
    const sent = chats()[n] as LmCall & { parts: { kind: string; callId?: string; name?: string; input?: unknown; text?: string }[][] };
    expect(sent.roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent.parts[1]).toEqual([{ kind: 'text' }, { kind: 'toolCall', callId: 'toolu_ls1', name: 'Bash', input: { command: 'ls' } }]);
    expect(sent.parts[2]).toEqual([{ kind: 'toolResult', callId: 'toolu_ls1', text: 'a.txt\nb.txt' }]);
    expect(sent.text).not.toContain('[tool call');
  });
});
