// The map stays true: a tidy test over the text of the repository (pure file reading, no process).
//
// (a) ARCHITECTURE.md: every file path in backticks exists. A name with a slash
//     (`server/store/files.ts`, `store/files.ts`, `src/participant.ts`) is found when it is a repo
//     path, a path under server/, or the ending of a path under the folder of the `### \`folder/\``
//     heading it stands under. A bare name (`files.ts`) under such a heading is a file of that
//     folder or below; outside one, a file somewhere under server/.
// (b) every server/**/*.ts file's header (its opening comment lines, before the first line of code)
//     names only files that exist: a name with a slash as in (a) (also relative to the file's own
//     folder); a bare `name.md` is beside the file or at the root; a bare `name.ts` is in the
//     file's own folder or is a module the file imports
//     (statically or with import()), which is how "Depends on x.ts" stays true. A module named for
//     another reason ("kept apart from store.ts") is written with its folder (`store/store.ts`)
//     and only has to exist. A name after a possessive ("vscode-eslint's customMessages.ts") is
//     another project's file, and a dotfile (.aider.chat.history.md) another tool's: not checked.
// (c) no comment in server/** quotes a timing or an issue number: a number with a time unit
//     (ns, µs, ms, s, seconds, minutes, hours), a ratio (`2x`, `1.5x`; `0.2x` is a version family
//     and allowed), a percentage, or "issue N". Figures belong in bench/PERFORMANCE.md and commit
//     bodies; a behaviour's duration is named by its constant.
// Each failure names file:line and what is wrong.

import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const SKIP = new Set(['node_modules', '.git', '.tools', 'dist', 'build', 'out', '.gradle', '.vscode-test']);

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const files = walk('');
const fileSet = new Set(files);
const isFile = (p: string) => fileSet.has(p);
const isPath = (p: string) => isFile(p) || (existsSync(join(root, p)) && statSync(join(root, p)).isDirectory());
const serverTs = files.filter((f) => f.startsWith('server/') && f.endsWith('.ts'));
const read = (f: string) => readFileSync(join(root, f), 'utf8');

// A file name as the docs write it: letters, digits, dots, dashes, slashes, ending in a known kind.
const NAME = /(?<![\w~<>*$./-])((?:[\w@.-]+\/)*[\w.-]+\.(?:ts|mjs|js|md|lua|java|sh|txt))(?![\w/-])/g;

/** Whether a name with a slash leads to a file: a repo path, under server/, or relative to `bases`. */
function slashedExists(name: string, bases: string[]): boolean {
  const n = name.replace(/^\.\//, '');
  const js2ts = n.replace(/\.js$/, '.ts');
  const candidates = [n, js2ts, `server/${n}`, `server/${js2ts}`];
  for (const b of bases) candidates.push(posix.normalize(`${b}/${n}`), posix.normalize(`${b}/${js2ts}`));
  if (candidates.some(isPath)) return true;
  // dist/x.js is built from server/x.ts.
  if (n.startsWith('dist/') && isFile(`server/${js2ts.slice(5)}`)) return true;
  // The ending of a path under a heading's folder (`src/participant.ts` under `clients/`).
  return bases.some((b) => files.some((f) => f.startsWith(`${b}/`) && f.endsWith(`/${n}`)));
}

describe('ARCHITECTURE.md names only files that exist', () => {
  it('every backticked path exists', () => {
    const wrong: string[] = [];
    let folder: string | undefined;
    read('ARCHITECTURE.md')
      .split('\n')
      .forEach((line, i) => {
        const heading = /^#{2,3} /.test(line) ? line : undefined;
        if (heading) {
          const m = /^### `([^`]+?)\/?`/.exec(heading);
          folder = m?.[1] && isPath(m[1]) ? m[1] : undefined;
        }
        for (const span of line.matchAll(/`([^`]+)`/g)) {
          for (const m of (span[1] ?? '').matchAll(NAME)) {
            const name = m[1] ?? '';
            const ok = name.includes('/')
              ? slashedExists(name, folder ? [folder] : [])
              : folder
                ? files.some((f) => f.startsWith(`${folder}/`) && (f.endsWith(`/${name}`) || f === `${folder}/${name}`))
                : serverTs.some((f) => f.endsWith(`/${name}`)) || isFile(name);
            if (!ok) wrong.push(`ARCHITECTURE.md:${i + 1}: \`${name}\` does not exist${folder ? ` (read under ${folder}/)` : ''}`);
          }
        }
      });
    expect(wrong.length, `\n${wrong.join('\n')}\n`).toBe(0);
  });
});

/** The opening comment lines of a source file (its header): its comments up to the first code. */
function header(text: string): { line: number; text: string }[] {
  return comments(text, { headerOnly: true });
}

/** The file names a module imports (`./x.js` and `../dir/x.js` as `x.ts`). */
function importedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
    const base = (m[1] ?? '').split('/').pop() ?? '';
    names.add(base.replace(/\.js$/, '.ts'));
    names.add(base);
  }
  return names;
}

describe('file headers name only modules that exist, and that they import or sit beside', () => {
  it('every server/**/*.ts header', () => {
    const wrong: string[] = [];
    for (const f of serverTs) {
      const text = read(f);
      const dir = dirname(f);
      const imports = importedNames(text);
      for (const { line, text: l } of header(text)) {
        for (const m of l.matchAll(NAME)) {
          const name = m[1] ?? '';
          const before = l.slice(0, m.index);
          if (/[\w-]'s $/.test(before) && !/\.[a-z]+'s $/.test(before)) continue; // another project's file
          if (/^\.[^./]/.test(name)) continue; // a tool's dotfile (.aider.chat.history.md)
          if (name.includes('/')) {
            if (!slashedExists(name, [dir, dirname(dir)])) wrong.push(`${f}:${line}: names ${name}, which does not exist`);
          } else if (name.endsWith('.md')) {
            // Notes beside the module, or one of the repository's documents.
            if (!isFile(`${dir}/${name}`) && !isFile(name))
              wrong.push(`${f}:${line}: names ${name}, which is neither in ${dir}/ nor at the root`);
          } else if (name.endsWith('.ts') || name.endsWith('.js')) {
            const ts = name.replace(/\.js$/, '.ts');
            if (isFile(`${dir}/${ts}`) || imports.has(ts)) continue;
            const exists = serverTs.some((s) => s.endsWith(`/${ts}`));
            wrong.push(
              exists
                ? `${f}:${line}: names ${name}, which it does not import and which is not in ${dir}/`
                : `${f}:${line}: names ${name}, which does not exist`,
            );
          }
        }
      }
    }
    expect(wrong.length, `\n${wrong.join('\n')}\n`).toBe(0);
  });
});

// ---- (c) figures in comments ---------------------------------------------------------------

const UNIT = '(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?|hours?)';
const FIGURES: [RegExp, string][] = [
  [new RegExp(String.raw`(?<![\w.])~?\d[\d,]*(?:\.\d+)?(?:\s?[-–]\s?\d[\d,]*(?:\.\d+)?)?\s?${UNIT}(?![\w'])`), 'a timing'],
  [/(?<![\w.])(?!0\.)\d+(?:\.\d+)?x(?![\w-])/, 'a ratio'],
  [/(?<![\w.])\d+(?:\.\d+)?\s?%/, 'a percentage'],
  [/\bissues?\s+#?\d+/i, 'an issue number'],
];

/**
 * The comment text of each line of a TypeScript file (line comments, block comments, JSDoc,
 * trailing comments), with line numbers; `headerOnly`: only those before the first code line.
 */
function comments(text: string, o: { headerOnly?: boolean } = {}): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  for (const [i, raw] of text.split('\n').entries()) {
    const t = raw.trim();
    if (inBlock) {
      out.push({ line: i + 1, text: t });
      if (t.includes('*/')) inBlock = false;
    } else if (t.startsWith('//') || (i === 0 && t.startsWith('#!'))) out.push({ line: i + 1, text: t });
    else if (t.startsWith('/*')) {
      out.push({ line: i + 1, text: t });
      inBlock = !t.includes('*/');
    } else if (o.headerOnly) {
      if (t !== '') break;
    } else {
      // A trailing comment after code: ` // ...` (a URL's `://` has no space before it).
      const at = raw.search(/\s\/\/\s/);
      if (at >= 0 && !/['"`]/.test(raw.slice(at))) out.push({ line: i + 1, text: raw.slice(at).trim() });
    }
  }
  return out;
}

describe('comments in server/ quote no figures', () => {
  it('no timing, ratio, percentage or issue number', () => {
    const wrong: string[] = [];
    for (const f of serverTs) {
      for (const { line, text } of comments(read(f))) {
        for (const [re, what] of FIGURES) {
          const m = re.exec(text);
          if (m) wrong.push(`${f}:${line}: quotes ${what} ("${m[0].trim()}"): ${text}`);
        }
      }
    }
    expect(wrong.length, `\n${wrong.join('\n')}\n`).toBe(0);
  });
});
