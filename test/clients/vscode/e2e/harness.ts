// Real VS Code for the end-to-end tests: code-server (run with Node 24 from the tools folder)
// with the packaged .vsix installed, driven in headless Chromium by playwright-core, the real
// bundled sidecar against a temp store, and the repo's CLI (bin/levelcode-sessions.js) writing
// into the same store from outside. Everything lives in one temp folder; code-server runs in its
// own process group, which stop() kills whole.
//
// Needs what .ci/clients-vscode.sh installs: $LEVELCODE_TOOLS (default .tools/) with
// node_modules/node (24) and node_modules/code-server, the .vsix at clients/vscode/, Chromium at
// /usr/bin/chromium, and the repo's dist/ (npx tsc -p .) for the CLI.

import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { appendFile, copyFile, mkdtemp, mkdir, writeFile, rm, readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

const execFileP = promisify(execFile);

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const TOOLS = process.env.LEVELCODE_TOOLS ?? join(REPO, '.tools');
export const NODE24 = join(TOOLS, 'node_modules/node/bin/node');
export const CODE_SERVER = join(TOOLS, 'node_modules/code-server/out/node/entry.js');
export const VSIX = process.env.LEVELCODE_VSIX ?? join(REPO, 'clients/vscode/levelcode-sessions.vsix');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(REPO, 'test-artifacts/vscode');
/** The screenshots the extension's README shows (refreshed by npm run screenshots:vscode). */
export const SCREENSHOTS = join(REPO, 'clients/vscode/screenshots');
const CLI = join(REPO, 'bin/levelcode-sessions.js');

/** playwright-core is a dev dependency of clients/vscode, not of the repo root. */
const requireFromClient = createRequire(join(REPO, 'clients/vscode/package.json'));
const { chromium } = requireFromClient('playwright-core') as typeof import('playwright-core');

/** Generous: waiting for a condition, never a timed assertion. */
export const WAIT = 60_000;

export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  for (const [what, p] of [
    ['Node 24 (npm i node@24 in the tools folder)', NODE24],
    ['code-server (in the tools folder)', CODE_SERVER],
    ['the .vsix (npm --prefix clients/vscode run package)', VSIX],
    ['Chromium', CHROMIUM],
    ["the repo's build (npx tsc -p .)", join(REPO, 'dist/cli/main.js')],
  ] as const) {
    if (!existsSync(p)) missing.push(`${what}: ${p}`);
  }
  return missing;
}

/**
 * For afterEach: when the test failed, a screenshot named after it (`<prefix>-failed-<test>`)
 * and the tail of code-server's output and of the extension's logs on stdout.
 */
export async function reportIfFailed(
  vs: VsCode | undefined,
  ctx: { task: { name: string; result?: { state?: string } } },
  prefix: string,
): Promise<void> {
  if (ctx.task.result?.state !== 'fail' || !vs) return;
  await vs.screenshot(`${prefix}-failed-${ctx.task.name.replace(/\W+/g, '-')}`).catch(() => undefined);
  process.stdout.write(`\n--- code-server output\n${vs.log.slice(-4000)}\n${(await vs.extensionLogs()).slice(-12000)}\n`);
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

export interface Session {
  id: string;
}

export class VsCode {
  readonly root: string;
  readonly store: string;
  readonly project: string;
  /** The NODE_EXTRA_CA_CERTS of code-server's environment (an empty bundle). */
  readonly extraCaCerts: string;
  /** More environment for code-server and the CLI (set before start(): TZ, for one). */
  readonly extraEnv: Record<string, string> = {};
  private proc: ChildProcess | undefined;
  private browser: Browser | undefined;
  context!: BrowserContext;
  page!: Page;
  port = 0;
  private output = '';

  private constructor(root: string) {
    this.root = root;
    this.store = join(root, 'store');
    this.project = join(root, 'project');
    this.extraCaCerts = join(root, 'extra-ca.pem');
  }

  /** code-server's pid, once started. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** A fresh temp world: store, project folder, user data, extensions dir. */
  static async create(): Promise<VsCode> {
    const root = await mkdtemp(join(tmpdir(), 'lcs-vscode-e2e-'));
    const vs = new VsCode(root);
    await mkdir(vs.project, { recursive: true });
    await writeFile(join(vs.project, 'README.md'), '# demo project\n');
    await mkdir(vs.store, { recursive: true });
    // A real home: the OS trash (XDG) lives under it. And a temp folder of its own (TMPDIR):
    // code-server's git extension leaves its IPC sockets in os.tmpdir(), which outlived the run.
    for (const d of ['home', 'tmp', 'xdg/config', 'xdg/data', 'xdg/cache', 'xdg/state']) await mkdir(join(root, d), { recursive: true });
    // An editor whose environment names an extra certificate bundle (empty: Node reads it
    // without a warning); the extension starts the sidecar without it.
    await writeFile(vs.extraCaCerts, '');
    return vs;
  }

  private env(): NodeJS.ProcessEnv {
    const r = this.root;
    return {
      ...process.env,
      PATH: `${dirname(NODE24)}:${process.env.PATH ?? ''}`,
      HOME: join(r, 'home'),
      TMPDIR: join(r, 'tmp'),
      XDG_CONFIG_HOME: join(r, 'xdg/config'),
      XDG_DATA_HOME: join(r, 'xdg/data'),
      XDG_CACHE_HOME: join(r, 'xdg/cache'),
      XDG_STATE_HOME: join(r, 'xdg/state'),
      LEVELCODE_SESSIONS_DIR: this.store,
      NODE_EXTRA_CA_CERTS: this.extraCaCerts,
      ...this.extraEnv,
    };
  }

  // -- the CLI, writing from outside VS Code -------------------------------------------------------

  async cli(args: string[], input?: string): Promise<string> {
    const child = execFileP(process.execPath, [CLI, ...args, '--dir', this.store], { env: this.env(), maxBuffer: 16 << 20 });
    if (input !== undefined) {
      child.child.stdin?.end(input);
    }
    const { stdout } = await child;
    return stdout;
  }

  async newSession(model = 'claude-sonnet-4'): Promise<string> {
    const out = await this.cli(['new', '--project', this.project, '--model', model, '--json']);
    return (JSON.parse(out) as Session).id;
  }

  async append(id: string, events: Record<string, unknown>[]): Promise<void> {
    await this.cli(['append', id], events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  }

  /** A session with `turns` user/assistant exchanges, the last one at `at`. */
  async seed(opts: { at: Date; turns?: number; first: string; model?: string; title?: string }): Promise<string> {
    const id = await this.newSession(opts.model);
    const turns = opts.turns ?? 1;
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < turns; i++) {
      const t = new Date(opts.at.getTime() - (turns - i) * 60_000 + 30_000).toISOString();
      events.push({ kind: 'user', t, content: i === 0 ? opts.first : `follow-up ${i}` });
      events.push({
        kind: 'assistant',
        t,
        content: [{ type: 'text', text: `Answer ${i + 1} to: ${i === 0 ? opts.first : `follow-up ${i}`}` }],
      });
    }
    if (opts.title) events.push({ kind: 'title', t: opts.at.toISOString(), title: opts.title, source: 'user' });
    else events.push({ kind: 'event', t: opts.at.toISOString(), type: 'checkpoint' });
    await this.append(id, events);
    return id;
  }

  async sessionFile(id: string): Promise<string | undefined> {
    for (const dir of await readdir(this.store)) {
      const p = join(this.store, dir, `${id}.jsonl`);
      if (existsSync(p)) return p;
    }
    return undefined;
  }

  async events(id: string): Promise<Record<string, unknown>[]> {
    const file = await this.sessionFile(id);
    if (!file) throw new Error(`no file for ${id}`);
    return (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  // -- code-server and the browser -----------------------------------------------------------------

  /** Packages a test fixture extension (a folder with package.json) into a .vsix in the temp folder. */
  async packageFixture(folder: string): Promise<string> {
    const out = join(this.root, `${folder.split('/').pop()}.vsix`);
    const vsce = join(REPO, 'clients/vscode/node_modules/.bin/vsce');
    await execFileP(vsce, ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', out], {
      cwd: folder,
      env: this.env(),
    });
    return out;
  }

  /** The pids of the sidecars serving this store (the bundled one, run by the extension host). */
  async sidecarPids(): Promise<number[]> {
    const pids: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
      if (args.some((a) => a.endsWith('dist/sidecar/cli/main.js')) && args.includes(this.store) && args.includes('serve'))
        pids.push(Number(entry));
    }
    return pids;
  }

  /**
   * Sets a setting as a user does, in the Settings editor (User), and waits until it is saved;
   * `restarts`: and until a new sidecar runs (the extension restarts it for that setting).
   */
  async setSetting(key: string, value: number | string, opts: { restarts?: boolean } = {}): Promise<void> {
    const before = await this.sidecarPids();
    await this.command('Preferences: Open User Settings');
    const editor = this.page.locator('.settings-editor').filter({ visible: true }).first();
    await editor.waitFor({ timeout: WAIT });
    // The search keeps its last query: replace it.
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.type(key);
    // The list first shows every setting (or the last search's): wait for this one alone.
    const name = key
      .split('.')
      .pop()!
      .replace(/([a-z])([A-Z])/g, '$1 $2');
    const title = `${name[0]!.toUpperCase()}${name.slice(1)}`;
    await editor.locator('.settings-count-widget', { hasText: '1 Setting Found' }).first().waitFor({ timeout: WAIT });
    const item = editor
      .locator('.setting-item-contents', { has: this.page.locator('.setting-item-title', { hasText: title }) })
      .filter({ visible: true });
    await item.first().waitFor({ timeout: WAIT });
    const input = item.first().locator('.setting-item-control input').first();
    await input.waitFor({ timeout: WAIT });
    await input.fill(String(value));
    await this.page.keyboard.press('Tab');
    const file = join(this.root, 'user/User/settings.json');
    // Set to its default, the setting leaves settings.json (VS Code writes only what differs).
    const manifest = JSON.parse(await readFile(join(REPO, 'clients/vscode/package.json'), 'utf8'));
    const byDefault = manifest.contributes.configuration.properties[key]?.default;
    const saved = async () => ((JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>)[key] ?? byDefault) === value;
    await this.until(saved, `${key} saved`);
    await this.closeSettings();
    if (opts.restarts) {
      await this.until(async () => (await this.sidecarPids()).some((p) => !before.includes(p)), `a new sidecar after ${key} changed`);
    }
  }

  /**
   * Closes the Settings editor, which code-server shows as a modal editor, with the close button
   * on its title bar. Not Escape: Escape closes it only while the focus is where no widget (the
   * search box, a list) takes the key first, and on a busy machine the focus is not always there.
   */
  async closeSettings(): Promise<void> {
    const editor = this.page.locator('.settings-editor').filter({ visible: true }).first();
    if (await editor.isVisible())
      await this.page.locator('.action-item a[aria-label^="Close Modal Editor"]').filter({ visible: true }).first().click();
    await editor.waitFor({ state: 'hidden', timeout: WAIT });
  }

  /** Clicks a History title-bar action by its title ("Show Archived Chats"). */
  async historyTitleAction(title: string): Promise<void> {
    // The view alone in its container: its actions are on the side bar's title, shown on hover.
    const bar = this.page.locator('.part.sidebar .composite.title').first();
    await bar.hover();
    await bar
      .locator(`.action-item a[aria-label^=${JSON.stringify(title)}]`)
      .first()
      .click();
  }

  /** Starts code-server on the project folder (`noFolder`: an empty window, no folder open). */
  async start(settings: Record<string, unknown> = {}, extraVsix: string[] = [], opts: { noFolder?: boolean } = {}): Promise<void> {
    const user = join(this.root, 'user');
    const exts = join(this.root, 'extensions');
    await mkdir(join(user, 'User'), { recursive: true });
    await writeFile(
      join(user, 'User/settings.json'),
      JSON.stringify(
        {
          'security.workspace.trust.enabled': false,
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'workbench.enableExperiments': false,
          'telemetry.telemetryLevel': 'off',
          'extensions.ignoreRecommendations': true,
          'update.mode': 'none',
          'chat.disableAIFeatures': true,
          'workbench.secondarySideBar.defaultVisibility': 'hidden',
          'window.commandCenter': false,
          'levelcodeSessions.storeFolder': this.store,
          'levelcodeSessions.undoSeconds': 10,
          // Fixtures are dated weeks back: auto-archive (default 30 days) would take them out.
          'levelcodeSessions.autoArchiveDays': 0,
          ...settings,
        },
        null,
        2,
      ),
    );
    const config = join(this.root, 'code-server.yaml');
    await writeFile(config, 'auth: none\n');
    // Installing is part of what is tested: the .vsix as a user gets it.
    for (const vsix of [VSIX, ...extraVsix]) {
      await execFileP(
        NODE24,
        [CODE_SERVER, '--install-extension', vsix, '--extensions-dir', exts, '--user-data-dir', user, '--config', config],
        {
          env: this.env(),
        },
      );
    }
    this.port = await freePort();
    this.proc = spawn(
      NODE24,
      [
        CODE_SERVER,
        '--bind-addr',
        `127.0.0.1:${this.port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        '--config',
        config,
        '--user-data-dir',
        user,
        '--extensions-dir',
        exts,
        ...(opts.noFolder ? [] : [this.project]),
      ],
      { env: this.env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Recorded for .ci/clients-vscode.sh, which kills the group should this process die first.
    if (process.env.LEVELCODE_E2E_PGID_FILE && this.proc.pid) await appendFile(process.env.LEVELCODE_E2E_PGID_FILE, `${this.proc.pid}\n`);
    this.proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    await this.waitForHttp();
    this.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const origin = `http://127.0.0.1:${this.port}`;
    this.context = await this.browser.newContext({ viewport: { width: 1280, height: 800 } });
    await this.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    this.page = await this.context.newPage();
    await this.page.goto(opts.noFolder ? `${origin}/?ew=true` : `${origin}/?folder=${encodeURIComponent(this.project)}`);
    await this.page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
  }

  /** Another browser tab on the same workbench (code-server gives it an extension host of its own). */
  async openPage(): Promise<Page> {
    const page = await this.context.newPage();
    await page.goto(this.page.url());
    await page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
    return page;
  }

  /** Runs `fn` with every workbench helper acting on `page`, then on the first tab again. */
  async on<T>(page: Page, fn: () => Promise<T>): Promise<T> {
    const was = this.page;
    this.page = page;
    try {
      return await fn();
    } finally {
      this.page = was;
    }
  }

  private async waitForHttp(): Promise<void> {
    const deadline = Date.now() + WAIT;
    while (Date.now() < deadline) {
      if (this.proc?.exitCode !== null && this.proc?.exitCode !== undefined) throw new Error(`code-server exited: ${this.output}`);
      try {
        const r = await fetch(`http://127.0.0.1:${this.port}/healthz`);
        if (r.ok) return;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`code-server did not answer on ${this.port}: ${this.output}`);
  }

  /** The extension's LogOutputChannel and the extension host logs (for failure reports). */
  async extensionLogs(): Promise<string> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (/LevelCode|exthost|remoteexthost/i.test(p) && e.name.endsWith('.log'))
          out.push(`--- ${p}\n${await readFile(p, 'utf8').catch(() => '')}`);
      }
    };
    await walk(join(this.root, 'user/logs'));
    return out.join('\n');
  }

  /** Everything code-server printed (for failure messages). */
  get log(): string {
    return this.output;
  }

  async stop(): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    const pid = this.proc?.pid;
    if (pid && this.proc?.exitCode === null) {
      const exited = new Promise((r) => this.proc!.once('exit', r));
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    // Extension hosts and the sidecar are in the group too; make sure none outlived it.
    if (pid) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* the group is empty */
      }
    }
    await rm(this.root, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }

  // -- the workbench ------------------------------------------------------------------------------

  async screenshot(name: string, clip?: { x: number; y: number; width: number; height: number }): Promise<void> {
    await mkdir(ARTIFACTS, { recursive: true });
    await this.page.screenshot({ path: join(ARTIFACTS, `${name}.png`), ...(clip ? { clip } : {}) });
  }

  /**
   * A screenshot the README shows: in test-artifacts/vscode/ like every other, and also into
   * clients/vscode/screenshots/ when LEVELCODE_REFRESH_SCREENSHOTS=1 (npm run screenshots:vscode).
   */
  async readmeScreenshot(name: string, clip?: { x: number; y: number; width: number; height: number }): Promise<void> {
    await this.screenshot(name, clip);
    if (process.env.LEVELCODE_REFRESH_SCREENSHOTS !== '1') return;
    await mkdir(SCREENSHOTS, { recursive: true });
    await copyFile(join(ARTIFACTS, `${name}.png`), join(SCREENSHOTS, `${name}.png`));
  }

  /** Runs a command from the palette by its title (e.g. "LevelCode: New Chat"). */
  async command(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    // F1 can land while a webview or a closing widget holds the keyboard: press it again.
    const deadline = Date.now() + WAIT;
    for (;;) {
      await this.page.keyboard.press('F1');
      if (
        await input.waitFor({ state: 'visible', timeout: 5000 }).then(
          () => true,
          () => false,
        )
      )
        break;
      if (Date.now() > deadline) throw new Error('the Command Palette never opened');
    }
    await input.fill(`>${title}`);
    const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    const row = this.page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: exact }), visible: true })
      .first();
    await row.waitFor({ timeout: WAIT });
    await row.click();
  }

  /** The History pane (opens the LevelCode container when needed). */
  async openHistory(): Promise<Locator> {
    const pane = this.historyPane();
    if (!(await pane.isVisible().catch(() => false))) {
      await this.page
        .locator('.activitybar .action-item a[aria-label^="LevelCode"], .activitybar .action-item[aria-label^="LevelCode"]')
        .first()
        .click();
    }
    await pane.waitFor({ timeout: WAIT });
    return pane;
  }

  /** Drags the side bar's edge so titles and descriptions fit (screenshots are for people). */
  async widenSidebar(width = 560): Promise<void> {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box || box.width >= width) return;
    const x = box.x + box.width + 1;
    const y = box.y + box.height / 2;
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + 40, y, { steps: 4 });
    await this.page.mouse.move(box.x + width, y, { steps: 8 });
    await this.page.mouse.up();
  }

  historyPane(): Locator {
    return this.page.locator('.pane:has(.pane-header[aria-label^="History"]) .monaco-list').first();
  }

  /** aria-labels of the History rows, top to bottom. */
  async historyRows(): Promise<string[]> {
    // One read of the whole list: rows come and go while the History refreshes.
    return this.historyPane()
      .locator('.monaco-list-row')
      .evaluateAll((rows) =>
        rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).map((r) => r.getAttribute('aria-label') ?? ''),
      )
      .catch(() => []);
  }

  /** The text of the active editor's visible lines (non-breaking spaces made plain). */
  async editorText(): Promise<string> {
    const lines = this.page.locator('.editor-group-container.active .monaco-editor .view-lines').filter({ visible: true }).first();
    return (await lines.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
  }

  /** Waits until the History rows satisfy `ok`; returns them. */
  async waitForRows(ok: (rows: string[]) => boolean, what: string): Promise<string[]> {
    const deadline = Date.now() + WAIT;
    let rows: string[] = [];
    while (Date.now() < deadline) {
      rows = await this.historyRows();
      if (ok(rows)) return rows;
      await this.page.waitForTimeout(250);
    }
    throw new Error(`History never showed ${what}; rows: ${JSON.stringify(rows)}`);
  }

  /** The rendered Markdown preview's text (a webview: two frames deep). */
  async previewText(): Promise<string> {
    return this.page
      .frameLocator('iframe.webview.ready')
      .first()
      .frameLocator('#active-frame')
      .locator('body')
      .innerText({ timeout: WAIT });
  }

  /** The row whose screen-reader line holds `text` (the label shows long titles cut). */
  historyRow(text: string): Locator {
    return this.historyPane()
      .locator(`.monaco-list-row[aria-label*=${JSON.stringify(text)}]`)
      .first();
  }

  /**
   * Resolves once the History list has gone `ms` without a DOM change. A refresh (a didChange
   * from the step before, debounced by the view) redraws rows, and a redraw closes an open
   * context menu: a keypress meant for the menu then lands on the tree instead.
   */
  async historyStill(ms = 600): Promise<void> {
    const list = await this.historyPane().elementHandle({ timeout: WAIT });
    const still = await list.evaluate(
      (el, [quiet, limit]) =>
        new Promise<boolean>((done) => {
          let timer = setTimeout(finish, quiet, true);
          const giveUp = setTimeout(finish, limit, false);
          const seen = new MutationObserver(() => {
            clearTimeout(timer);
            timer = setTimeout(finish, quiet, true);
          });
          seen.observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
          function finish(ok: boolean) {
            seen.disconnect();
            clearTimeout(timer);
            clearTimeout(giveUp);
            done(ok);
          }
        }),
      [ms, WAIT] as const,
    );
    if (!still) throw new Error(`the History list kept changing for ${WAIT} ms`);
  }

  /** Moves the pointer off the History and closes any hover it left (a hover covers rows). */
  async dismissHover(): Promise<void> {
    await this.page.mouse.move(1, 1);
    await this.page.keyboard.press('Escape');
    await this.page.locator('.monaco-hover').filter({ visible: true }).first().waitFor({ state: 'hidden', timeout: WAIT });
  }

  /** Right-clicks a History row and picks a context-menu entry. */
  async contextAction(rowText: string, action: string): Promise<void> {
    const menu = this.page.locator('.context-view .monaco-menu').filter({ visible: true }).first();
    const item = this.page.locator('.context-view .action-item', { hasText: action }).filter({ visible: true }).first();
    const focused = this.page.locator('.context-view .action-item.focused').filter({ visible: true });
    // A refresh that redraws the rows closes a menu just opened: wait for a still list, open the
    // menu, and start over when the menu is gone before the entry could be chosen.
    for (let attempt = 1; ; attempt++) {
      await this.dismissHover();
      await this.historyStill();
      await this.historyRow(rowText).click({ button: 'right' });
      try {
        await item.waitFor({ timeout: 5000 });
      } catch (e) {
        if (attempt >= 5) throw e;
        await this.page.keyboard.press('Escape');
        continue;
      }
      // The keyboard, not a click: a click that lands while the menu is still settling is dropped.
      let chosen = false;
      for (let i = 0; i < 20 && !chosen; i++) {
        if (!(await menu.isVisible())) break;
        await this.page.keyboard.press('ArrowDown');
        const entry = await focused
          .first()
          .innerText({ timeout: 2000 })
          .catch(() => '');
        // Checked again right before Enter: with the menu gone, Enter would open the row instead.
        if (entry.includes(action) && (await menu.isVisible())) {
          await this.page.keyboard.press('Enter');
          chosen = true;
        }
      }
      if (chosen) {
        await menu.waitFor({ state: 'hidden', timeout: WAIT });
        return;
      }
      if (attempt >= 5) throw new Error(`no menu entry "${action}", or the menu kept closing`);
      await this.page.keyboard.press('Escape');
    }
  }

  /** The open QuickPick's rows, top to bottom (their text), once it shows `ready`. */
  async quickPickRows(ready: (rows: string[]) => boolean, what: string): Promise<string[]> {
    const rows = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ visible: true });
    const deadline = Date.now() + WAIT;
    let texts: string[] = [];
    while (Date.now() < deadline) {
      texts = (await rows.allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, ' ').trim());
      if (ready(texts)) return texts;
      await this.page.waitForTimeout(200);
    }
    throw new Error(`the QuickPick never showed ${what}; rows: ${JSON.stringify(texts)}`);
  }

  /** The open QuickPick's row holding `text`. */
  quickPickRow(text: string): Locator {
    return this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).filter({ visible: true }).first();
  }

  /** Clicks a button of the modal dialog (showWarningMessage with modal: true); returns its message. */
  async dialogButton(label: string): Promise<string> {
    const dialog = this.page.locator('.monaco-dialog-box').filter({ visible: true }).first();
    await dialog.waitFor({ timeout: WAIT });
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    await dialog.locator('.monaco-button', { hasText: label }).first().click();
    await dialog.waitFor({ state: 'hidden', timeout: WAIT });
    return text;
  }

  /** Visible notification toasts' text. */
  async toasts(): Promise<string[]> {
    const t = this.page.locator('.notifications-toasts .notification-toast');
    const n = await t.count();
    const out: string[] = [];
    for (let i = 0; i < n; i++)
      out.push(
        (
          await t
            .nth(i)
            .innerText()
            .catch(() => '')
        ).replace(/\s+/g, ' '),
      );
    return out;
  }

  async waitForToast(text: string): Promise<Locator> {
    const toast = this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).filter({ visible: true }).first();
    await toast.waitFor({ timeout: WAIT });
    return toast;
  }

  /** Polls until `fn` is true (file system state written by the sidecar, for instance). */
  async until(fn: () => Promise<boolean> | boolean, what: string): Promise<void> {
    const deadline = Date.now() + WAIT;
    while (Date.now() < deadline) {
      if (await fn()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out waiting for ${what}`);
  }
}
