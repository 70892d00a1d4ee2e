// The build's bundles, each one CommonJS file with a V8 code cache beside it
// (server/core/code-cache.ts), made after tsc from what it wrote:
// - dist/vendor/: the two libraries the sidecar and the CLI load before they can do their work.
//   vscode-languageserver (its /node entry, with vscode-languageserver-protocol and
//   vscode-jsonrpc behind them): dist/vendor/vscode-languageserver.cjs, which
//   server/rpc/lsp.ts loads in place of the package; the sidecar needs it before it can answer
//   `initialize`. zod: dist/vendor/zod.cjs, which server/core/zod.ts loads in place of the
//   package; the sidecar needs it before its first request, and the CLI before any command that
//   goes through the store.
// - dist/cli/main.cjs: the CLI itself (dist/cli/main.js and every module it imports, the
//   sidecar's included; the packages stay outside it), which bin/levelcode-sessions.js runs
//   through dist/cli/boot.cjs (server/cli/boot.ts, bundled here too) while it is up to date.
//   Its code cache is made after a training run of a few commands (list, search, show, export)
//   on a small store made for it, so that it holds what they compile; main.cjs.inputs lists the
//   modules it was made from, for boot.ts's check.
//
// Why: Node resolving, reading and compiling each library's files one by one (a few dozen for
// the first, a few hundred for zod) was 30-60 and 80-120 ms on the bench machine; one file is
// one read, and its code cache saves compiling it and the functions its module code runs
// (bench/PERFORMANCE.md: sidecar start). For the CLI's own modules, Node's ES loader was most
// of what a warm search spent before it searched (bench/PERFORMANCE.md: search). The libraries'
// code is the installed version's, bundled as it is. The VS Code extension's own esbuild bundle
// already does this for the whole sidecar (clients/vscode/build.mjs).
//
// The caches are made by this Node, the one `npm ci` and `npm run build` run with, in a fresh
// process with no flags, as the sidecar runs; another Node's V8 refuses them, and the files are
// then compiled the ordinary way.
//
// Run by `npm run build`, `prepare`, `npm test` and the other scripts that run tsc, after it
// (it uses dist/core/code-cache.js). Depends on esbuild only.

import * as esbuild from 'esbuild';
import { readFile } from 'node:fs/promises';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const vendor = join(repo, 'dist', 'vendor');
const cliDir = join(repo, 'dist', 'cli');
const codeCacheModule = pathToFileURL(join(repo, 'dist', 'core', 'code-cache.js')).href;
// The bundle's and its list's names, as boot.ts looks for them (tsc has just written boot.js).
const { BUNDLE, BUNDLE_INPUTS } = await import(pathToFileURL(join(cliDir, 'boot.js')).href);

const bundles = [
  {
    file: 'vscode-languageserver.cjs',
    contents: "module.exports = { lsp: require('vscode-languageserver'), lspNode: require('vscode-languageserver/node') };",
  },
  { file: 'zod.cjs', contents: "module.exports = require('zod');" },
];

for (const { file, contents } of bundles) {
  const outfile = join(vendor, file);
  await esbuild.build({
    stdin: { contents, resolveDir: repo, sourcefile: `${file.replace(/\.cjs$/, '')}-entry.cjs`, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    legalComments: 'inline',
    logLevel: 'warning',
  });
  writeCacheInFreshNode(outfile, `writeCodeCache(${JSON.stringify(outfile)});`);
}

await bundleCli();

/**
 * Runs `call` (a call of code-cache.js's writeCodeCache or writeCodeCacheAfter, both imported)
 * in a fresh Node with no flags, as the sidecar and the CLI run; exits on failure.
 */
function writeCacheInFreshNode(file, call) {
  const made = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { writeCodeCache, writeCodeCacheAfter } from ${JSON.stringify(codeCacheModule)};\n${call}`],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  if (made.status !== 0) {
    process.stderr.write(`bundle: could not write the code cache of ${file} (exit ${made.status})\n`);
    process.exit(1);
  }
}

/** dist/cli/boot.cjs, dist/cli/main.cjs with its inputs' list, and main.cjs's trained code cache. */
async function bundleCli() {
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', legalComments: 'inline', logLevel: 'warning' };
  // boot.cjs runs under Node's own loader, so its import() (importEsm) stays as it is.
  await esbuild.build({ ...common, entryPoints: [join(cliDir, 'boot.js')], outfile: join(cliDir, 'boot.cjs') });

  const outfile = join(cliDir, BUNDLE);
  const built = await esbuild.build({
    ...common,
    entryPoints: [join(cliDir, 'main.js')],
    outfile,
    packages: 'external',
    // No import() in code that code-cache.ts runs (boot.ts): each becomes a require.
    supported: { 'dynamic-import': false },
    metafile: true,
    plugins: [ownUrls(cliDir), esmOnly(['trash'])],
  });
  const inputs = Object.keys(built.metafile.inputs)
    .filter((i) => !i.includes(':'))
    .map((i) => relative(cliDir, resolve(repo, i)).split('\\').join('/'));
  writeFileSync(join(cliDir, BUNDLE_INPUTS), JSON.stringify(inputs) + '\n');

  const store = mkdtempSync(join(tmpdir(), 'lcs-bundle-train-'));
  try {
    const sessions = trainingStore(store);
    const runs = [
      ['list', '--all', '--json'],
      ['list', '--all', '--json'],
      ['list', '--project', '/home/ada/code/app'],
      ['search', 'idempotency', '--all', '--json'],
      ['search', 'idempotency', '--all'],
      ['show', sessions[0]],
      ['show', sessions[0], '--json'],
      ['export', sessions[1], '--format', 'json'],
    ].map((args) => [...args, '--dir', store]);
    writeCacheInFreshNode(
      outfile,
      `await writeCodeCacheAfter(${JSON.stringify(outfile)}, async (cli) => {\n` +
        `  for (const args of ${JSON.stringify(runs)}) {\n` +
        `    const code = await cli.main(args);\n` +
        `    if (code !== 0) throw new Error('the training run ' + args.join(' ') + ' exited ' + code);\n` +
        `  }\n` +
        `});`,
    );
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}

/**
 * Each module keeps its own import.meta.url: the URL of the file tsc wrote, which the bundle
 * computes from its own folder. What the modules find by it (dist/vendor/, package.json, the
 * module a helper thread runs: server/core/helper.ts) is then where it was.
 */
function ownUrls(bundleDir) {
  return {
    name: 'own-urls',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        const src = await readFile(args.path, 'utf8');
        const rel = relative(bundleDir, args.path).split('\\').join('/');
        const url = `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(rel)})).href`;
        return { contents: src.replaceAll('import.meta.url', url), loader: 'js' };
      });
    },
  };
}

/**
 * Packages that are ES modules only, which Node 20's require cannot load: each is imported, when
 * first called, by boot.cjs's importEsm. Only for a package whose default export is the function
 * the CLI calls (trash).
 */
function esmOnly(names) {
  const filter = new RegExp(`^(${names.join('|')})$`);
  return {
    name: 'esm-only',
    setup(build) {
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'esm-only' }));
      build.onResolve({ filter: /^\.\/boot\.cjs$/ }, () => ({ path: './boot.cjs', external: true }));
      build.onLoad({ filter: /.*/, namespace: 'esm-only' }, (args) => ({
        contents:
          "import { importEsm } from './boot.cjs';\n" +
          `export default (...args) => importEsm(${JSON.stringify(args.path)}).then((m) => m.default(...args));\n`,
        loader: 'js',
      }));
    },
  };
}

/**
 * A small store for the training run: two projects, three sessions with a tool call and its
 * result, a word to find. Returns the sessions' ids.
 */
function trainingStore(root) {
  const line = (o) => `${JSON.stringify(o)}\n`;
  const ids = [];
  for (const [i, project] of ['/home/ada/code/app', '/home/ada/code/app', '/home/ada/code/site'].entries()) {
    const id = `2026-07-0${i + 1}T10-00-00-tr${i}n`;
    const t = `2026-07-0${i + 1}T10:00:00.000Z`;
    const dir = join(root, project.replaceAll('/', '-'));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dir, `${id}.jsonl`),
      line({ kind: 'meta', v: 1, id, project, createdAt: t, title: null }) +
        line({ kind: 'user', t, content: `where is the idempotency key checked? (${i})` }) +
        line({ kind: 'assistant', t, content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: `tu${i}`, name: 'grep', input: { q: 'idempotency' } }] }) +
        line({ kind: 'user', t, content: [{ type: 'tool_result', tool_use_id: `tu${i}`, content: 'server/pay.ts:12: checkIdempotency(key)' }] }) +
        line({ kind: 'assistant', t, content: [{ type: 'text', text: 'In `checkIdempotency`, server/pay.ts line 12.' }] }),
      { mode: 0o600 },
    );
    ids.push(id);
  }
  return ids;
}
