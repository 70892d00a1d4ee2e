// Printing is a boundary (issue 43): a title, model or project folder holding a terminal escape
// (ESC]0;…BEL sets the window title, ESC[2J clears the screen), a newline or U+202E (right-to-left
// override) is printed escaped by every human output of the CLI (list, search, show), so nothing
// drives the terminal and a folder named with "\n" cannot forge a History row; --json carries
// them as JSON escapes and parses back to the same text.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cli, sandbox } from './door.js';

const s = sandbox('lcs-print-');
afterAll(() => rmSync(s.dir, { recursive: true, force: true }));

const HOSTILE_TITLE = 'pwned \x1b]0;owned\x07 \x1b[2J title \u202eevil\u202c \x9b31m end';
const HOSTILE_MODEL = 'model\x1b[31m\u202e';
/** What must never reach a terminal raw: ESC, BEL, CSI (C1), the bidi override. */
const RAW = /[\x1b\x07\x9b\u202e]/;

describe('hostile titles, models and folders are printed escaped', () => {
  it('list, search and show escape them; a folder with a newline forges no row; --json keeps them', async () => {
    const project = join(s.dir, 'proj\nfake-row  1 turn  forged');
    mkdirSync(project);
    const made = await cli(['new', '--project', project, '--model', HOSTILE_MODEL, '--json'], s.env);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    const appended = await cli(['append', id], s.env, {
      input: `${JSON.stringify({ kind: 'user', t: '2026-01-01T00:00:00.000Z', content: `needle ${HOSTILE_TITLE}` })}\n`,
    });
    expect(appended.code, appended.stderr).toBe(0);
    expect((await cli(['rename', id, HOSTILE_TITLE], s.env)).code).toBe(0);

    const list = await cli(['list', '--all'], s.env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(RAW);
    expect(list.stdout.trim().split('\n')).toHaveLength(1); // one session, one row: the "\n" is shown as \n
    expect(list.stdout).toContain('\\e]0;owned\\x07');
    expect(list.stdout).toContain('\\u202e');

    const here = await cli(['list', '--project', project], s.env);
    expect(here.stdout + here.stderr).not.toMatch(RAW);

    const search = await cli(['search', 'needle', '--all'], s.env);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).not.toMatch(RAW);

    const show = await cli(['show', id], s.env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(RAW);

    const json = await cli(['list', '--all', '--json'], s.env);
    expect(json.stdout).not.toMatch(RAW);
    const row = JSON.parse(json.stdout).sessions[0];
    expect(row.title).toBe(HOSTILE_TITLE);
    expect(row.model).toBe(HOSTILE_MODEL);
    expect(row.project).toBe(project);
    const again = await cli(['list', '--all', '--json'], s.env); // the cached answer, the same bytes
    expect(again.stdout).toBe(json.stdout);

    const searchJson = await cli(['search', 'needle', '--all', '--json'], s.env);
    expect(searchJson.stdout).not.toMatch(RAW);
    expect(JSON.parse(searchJson.stdout).hits[0].title).toBe(HOSTILE_TITLE);
  });
});
