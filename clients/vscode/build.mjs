// Builds the extension with esbuild: the extension host bundle (dist/extension.js, CommonJS, the
// `vscode` module external) and the sidecar bundled from ../../server so that the .vsix needs no
// separate install (dist/sidecar/, ESM, pure Node).
//
// The sidecar is one ES module (dist/sidecar/cli/main.js) with a package.json beside it that
// says so and carries the version. Two things esbuild cannot see are handled here: server/rpc/
// lsp.ts requires vscode-languageserver through createRequire (lspStatic below), and the `trash`
// package finds its macOS/Windows helper binaries next to its own module (new URL('macos-trash',
// import.meta.url)), so they are copied next to the output file that holds that code. Native
// modules are not bundled: the SQLite importers use Node's own node:sqlite there
// (server/import/sqlite.ts).
//
// Usage: node build.mjs [--production]. Depends on esbuild only.

import * as esbuild from 'esbuild';
import { copyFile, mkdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const production = process.argv.includes('--production');
const dist = join(here, 'dist');

/** CommonJS dependencies of the sidecar call require('fs') etc.; ESM output needs a real require. */
const esmRequireBanner = [
  "import { createRequire as __lcCreateRequire } from 'node:module';",
  "import { fileURLToPath as __lcFileURLToPath } from 'node:url';",
  "import { dirname as __lcDirname } from 'node:path';",
  'const require = __lcCreateRequire(import.meta.url);',
  // write-file-atomic hashes __filename into its temp names.
  'const __filename = __lcFileURLToPath(import.meta.url);',
  'const __dirname = __lcDirname(__filename);',
].join('\n');

/**
 * @stroncium/procfs (under trash, on Linux) loads its parsers with require(`./parsers/${name}`);
 * esbuild bundles that folder but keys it by file name with the extension, so the lookup
 * without one fails at run time. Adding the extension is enough.
 */
const procfsParsers = {
  name: 'procfs-parsers',
  setup(build) {
    build.onLoad({ filter: /[\\/]@stroncium[\\/]procfs[\\/]lib[\\/]parsers\.js$/ }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text matched and written is procfs's own source, a template literal
      const patched = src.replace('require(`./parsers/${name}`)', 'require(`./parsers/${name}.js`)');
      if (patched === src) throw new Error(`procfs-parsers: the pattern is gone from ${args.path}; check the bundle`);
      return { contents: patched, loader: 'js' };
    });
  },
};

/**
 * server/rpc/lsp.ts takes vscode-languageserver through createRequire (a start-time gain for the
 * repository's build, where Node loads node_modules itself). esbuild cannot follow that call, and
 * the .vsix has no node_modules, so here the module is the same two exports as static imports,
 * which esbuild bundles.
 */
const lspStatic = {
  name: 'lsp-static',
  setup(build) {
    build.onLoad({ filter: /[\\/]server[\\/]rpc[\\/]lsp\.ts$/ }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      if (!src.includes("req('vscode-languageserver')") || !src.includes("req('vscode-languageserver/node')"))
        throw new Error(`lsp-static: ${args.path} no longer requires vscode-languageserver as this plugin expects`);
      return {
        contents: [
          "import * as lsp from 'vscode-languageserver';",
          "import * as lspNode from 'vscode-languageserver/node';",
          'export { lsp, lspNode };',
        ].join('\n'),
        loader: 'ts',
      };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

async function buildExtension() {
  await esbuild.build({
    ...common,
    entryPoints: { extension: join(here, 'src/extension.ts') },
    outdir: dist,
    format: 'cjs',
    external: ['vscode'],
    // vscode-languageclient's package "exports" point at node/main for `vscode-languageclient/node`.
    mainFields: ['module', 'main'],
  });
}

async function buildSidecar() {
  const out = join(dist, 'sidecar');
  const result = await esbuild.build({
    ...common,
    entryPoints: { 'cli/main': join(here, 'sidecar/main.mjs') },
    outdir: out,
    format: 'esm',
    banner: { js: esmRequireBanner },
    metafile: true,
    plugins: [procfsParsers, lspStatic],
    // The sidecar must never pull editor code in.
    external: ['vscode'],
  });
  // Node reads dist/sidecar/**/*.js as ES modules because of this file (the extension is CJS).
  // It also carries the sidecar's version, which `levelcode-sessions --version` reads.
  const { version } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));
  await writeFile(join(out, 'package.json'), JSON.stringify({ type: 'module', private: true, version }, null, 2) + '\n');

  // The trash helpers, next to each output that contains trash's platform module.
  const trashLib = dirname(fileURLToPathSafe(await resolveTrash()));
  for (const [outFile, info] of Object.entries(result.metafile.outputs)) {
    for (const [input, binary] of [
      ['lib/macos.js', 'macos-trash'],
      ['lib/windows.js', 'windows-trash.exe'],
    ]) {
      const holds = Object.keys(info.inputs).some((i) => i.replaceAll('\\', '/').endsWith(`node_modules/trash/${input}`));
      if (!holds) continue;
      const dest = join(dirname(resolve(process.cwd(), outFile)), binary);
      await copyFile(join(trashLib, 'lib', binary), dest);
      await chmod(dest, 0o755);
    }
  }
  return result;
}

function fileURLToPathSafe(p) {
  return p.startsWith('file:') ? fileURLToPath(p) : p;
}

/** trash's package folder, as the sidecar bundle resolved it (the repo's node_modules). */
async function resolveTrash() {
  const pkg = join(repo, 'node_modules/trash/package.json');
  await readFile(pkg); // fails loudly when the repo's dependencies are not installed
  return pkg;
}

async function main() {
  const started = Date.now();
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  await Promise.all([buildExtension(), buildSidecar()]);
  process.stdout.write(
    `built ${relative(process.cwd(), dist) || dist} in ${Date.now() - started} ms${production ? ' (production)' : ''}\n`,
  );
}

await main();
