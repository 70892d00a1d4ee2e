// The import rules of server/ and the VS Code client, checked by dependency-cruiser
// (`npm run depcruise`; test/tools/depcruise.test.ts proves a broken rule fails). The layers only
// go down: format imports nothing of ours, store only format, listing only store and format (and
// the tool descriptors), no domain folder imports a door (rpc, cli, mcp, acp), the VS Code client
// takes types only from the server, and no module imports itself back through others.
// ARCHITECTURE.md ("Tests") lists this check with the others.
const DOMAIN = '^server/(format|store|listing|search|resume|export|import|handoff|sync|maintenance)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module that imports itself back through others: split out what both need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'format-imports-nothing',
      comment: 'server/format is the bottom layer: pure data and checks, nothing of ours beside it.',
      severity: 'error',
      from: { path: '^server/format/' },
      to: { path: '^server/', pathNot: '^server/format/' },
    },
    {
      name: 'store-imports-only-format',
      comment: 'server/store reads and writes session files; it knows format, nothing above it.',
      severity: 'error',
      from: { path: '^server/store/' },
      to: { path: '^server/', pathNot: '^server/(store|format)/' },
    },
    {
      name: 'listing-not-above',
      comment: 'server/listing builds on the store and format (and the tool descriptors), no higher.',
      severity: 'error',
      from: { path: '^server/listing/' },
      to: { path: '^server/', pathNot: '^server/(listing|store|format)/|^server/import/tools\\.ts$' },
    },
    {
      name: 'domain-never-imports-doors',
      comment: 'The domain folders are called by the doors (rpc, cli, mcp, acp), never the reverse.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: '^server/(rpc|cli|mcp|acp)/' },
    },
    {
      name: 'vscode-client-types-only',
      comment: 'The extension talks to the sidecar over JSON-RPC: it may take types from server/, no values.',
      severity: 'error',
      from: { path: '^clients/vscode/src/' },
      to: { path: '^server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to no file (a typo, a moved module).',
      severity: 'error',
      from: { pathNot: '^clients/vscode/' },
      to: { couldNotResolve: true, pathNot: '^node:' },
    },
    {
      name: 'vscode-client-resolves-its-modules',
      comment:
        "The extension's own modules must resolve. Its packages (vscode, vscode-languageclient) come from " +
        "clients/vscode's own npm ci, which npm test does not run, so a bare package name is not checked.",
      severity: 'error',
      from: { path: '^clients/vscode/' },
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.d.ts'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
