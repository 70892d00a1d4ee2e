// Refreshes the pictures clients/neovim/README.md shows (screenshots/*.png): real Neovim (the
// `nvim` on PATH, 0.7.2 in CI) with this plugin, against the real sidecar on a temp store holding
// the shared History-view fixture set (test/fixtures/history-view/, times from now) and a chat
// with tool calls. Neovim's screen is read through its UI protocol (nvim_ui_attach, ext_linegrid:
// every cell and its highlight), drawn as HTML and photographed by headless Chromium.
//   node clients/neovim/screenshots.mjs            (after `node tools/build.mjs`)
// Writes history.png (:LevelHistory!), search.png (:LevelSearch in Neovim's own vim.ui.select)
// and transcript.png (Open transcript: tool calls one folded line each). Leaves nothing running.

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attach } from 'neovim';
import { materialise } from '../../test/fixtures/history-view/materialise.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '..', '..');
const BIN = join(REPO, 'bin', 'levelcode-sessions.js');
const OUT = join(HERE, 'screenshots');
const COLS = 110;
const ROWS = 30;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Neovim's screen, kept from the `redraw` notifications of the UI protocol (one grid). */
class Screen {
  constructor() {
    this.cells = [];
    this.hl = new Map([[0, {}]]);
    this.fg = 0xd4d4d4;
    this.bg = 0x1e1e1e;
    this.resize(COLS, ROWS);
  }
  resize(w, h) {
    this.w = w;
    this.h = h;
    this.cells = Array.from({ length: h }, () => Array.from({ length: w }, () => [' ', 0]));
  }
  redraw(batches) {
    for (const [name, ...calls] of batches) {
      for (const a of calls) {
        if (name === 'grid_resize') this.resize(a[1], a[2]);
        else if (name === 'default_colors_set') {
          if (a[0] >= 0) this.fg = a[0];
          if (a[1] >= 0) this.bg = a[1];
        } else if (name === 'hl_attr_define') this.hl.set(a[0], a[1]);
        else if (name === 'grid_clear') this.resize(this.w, this.h);
        else if (name === 'grid_line') this.line(a[1], a[2], a[3]);
        else if (name === 'grid_scroll') this.scroll(a[1], a[2], a[3], a[4], a[5]);
      }
    }
  }
  line(row, col, cells) {
    let hl = 0;
    for (const c of cells) {
      if (c.length > 1) hl = c[1];
      const n = c.length > 2 ? c[2] : 1;
      for (let i = 0; i < n && col < this.w; i++) this.cells[row][col++] = [c[0], hl];
    }
  }
  scroll(top, bot, left, right, rows) {
    const copy = this.cells.map((r) => r.slice());
    for (let r = top; r < bot; r++) {
      const from = r + rows;
      if (from < top || from >= bot) continue;
      for (let c = left; c < right; c++) this.cells[r][c] = copy[from][c];
    }
  }
  html() {
    const hex = (n) => `#${n.toString(16).padStart(6, '0')}`;
    const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    let body = '';
    for (const row of this.cells) {
      let line = '';
      for (const [text, id] of row) {
        if (text === '') continue; // the right half of a double-width character
        const a = this.hl.get(id) ?? {};
        let fg = a.foreground ?? this.fg;
        let bg = a.background ?? this.bg;
        if (a.reverse) [fg, bg] = [bg, fg];
        const style = `color:${hex(fg)};background:${hex(bg)}${a.bold ? ';font-weight:bold' : ''}${a.underline ? ';text-decoration:underline' : ''}`;
        line += `<span style="${style}">${esc(text)}</span>`;
      }
      body += `<div>${line}</div>`;
    }
    return `<!doctype html><meta charset="utf-8"><style>body{margin:0;background:${hex(this.bg)}}
      div{font:15px/20px "DejaVu Sans Mono",monospace;white-space:pre;height:20px}</style><body>${body}</body>`;
  }
}

async function shoot(screen, name) {
  const dir = mkdtempSync(join(tmpdir(), 'lcs-shot-'));
  const html = join(dir, 'screen.html');
  writeFileSync(html, screen.html());
  const width = Math.ceil(COLS * 9.05) + 4;
  execFileSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--window-size=${width},${ROWS * 20}`,
    `--screenshot=${join(OUT, name)}`, `file://${html}`], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`wrote ${join(OUT, name)}\n`);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const base = mkdtempSync(join(tmpdir(), 'lcs-nvim-shots-'));
  const store = join(base, 'store');
  const project = join(base, 'thin.ly');
  mkdirSync(project);
  const want = materialise(store, project);
  const cli = (args, input) =>
    execFileSync(process.execPath, [BIN, ...args, '--dir', store], { input, encoding: 'utf8', env: { ...process.env, TZ: want.timeZone } });
  const id = cli(['new', '--project', project, '--model', 'claude-sonnet-4']).trim();
  const events = [
    { kind: 'user', content: 'Why does the upload retry twice on a 503?' },
    { kind: 'assistant', content: [{ type: 'text', text: 'Let me look at the client.' }, { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'grep -rn retry src/upload' } }] },
    { kind: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'src/upload/client.ts:42: retry({ times: 2 })\nsrc/upload/proxy.ts:17: retryOn: [502, 503]' }] },
    { kind: 'assistant', content: [{ type: 'text', text: 'Both the client and the proxy retry: the client twice, the proxy on 502 and 503. Drop one of them.' }] },
  ];
  cli(['append', id], `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  cli(['rename', id, 'Upload retries twice on 503']);

  const proc = spawn('nvim', ['--embed', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', `set rtp^=${HERE}`], {
    cwd: project,
    env: { ...process.env, TZ: want.timeZone, XDG_DATA_HOME: join(base, 'data'), XDG_STATE_HOME: join(base, 'state') },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const nvim = attach({ proc });
  const screen = new Screen();
  nvim.on('notification', (method, args) => {
    if (method === 'redraw') screen.redraw(args);
  });
  try {
    await nvim.uiAttach(COLS, ROWS, { ext_linegrid: true, rgb: true });
    await nvim.command('set termguicolors laststatus=2 noruler noshowcmd shortmess+=I cmdheight=1 background=dark');
    await nvim.command('runtime plugin/levelcode.lua');
    await nvim.lua(`require('levelcode').setup({ dir = ${JSON.stringify(store)}, auto_archive_days = 0 })`);

    await nvim.command('LevelHistory!');
    await nvim.lua(`vim.wait(15000, function() return #vim.api.nvim_buf_get_lines(0, 0, -1, false) > 10 end, 50)`);
    await nvim.command('call cursor(6, 1) | redraw!');
    await sleep(400);
    await shoot(screen, 'history.png');

    // :LevelSearch in Neovim's own vim.ui.select (a picker plugin would show the same rows).
    nvim.command('LevelSearch retry').catch(() => undefined);
    await sleep(2500);
    await shoot(screen, 'search.png');
    await nvim.input('<Esc>');
    await sleep(300);

    await nvim.lua(`require('levelcode.transcript').open({ id = ${JSON.stringify(id)}, title = 'Upload retries twice on 503' })`);
    await nvim.lua(`vim.wait(15000, function() for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do if l:find('Drop one') then return true end end end, 50)`);
    await nvim.command('normal! gg');
    await nvim.command('redraw!');
    await sleep(400);
    await shoot(screen, 'transcript.png');
  } finally {
    await nvim.command('qa!').catch(() => undefined);
    proc.kill();
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
