#!/usr/bin/env bash
# CI: the Neovim client's suite (test/clients/neovim) in real Neovim against the real sidecar.
# Idempotent: installs Debian's neovim (0.7.2, the oldest version the plugin supports) only when
# `nvim` is missing, builds dist/ (tsc emits even when some files have type errors; the tests
# need bin/ -> dist/), then runs the suite. Every Neovim and sidecar the tests start is stopped
# by the tests themselves. Expects `npm ci` to have run (it needs the `neovim` and markdown-it
# devDependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvim >/dev/null 2>&1; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y neovim
fi
nvim --version | head -n 1

npx tsc -p . || echo "clients-neovim: tsc reported type errors; dist/ was emitted anyway" >&2
test -f dist/cli/main.js
# The bundles the bin runs (the CLI's, with its code cache; the libraries'): as a user's build has them.
node tools/bundle.mjs
test -f dist/cli/main.cjs

npx vitest run -c vitest.clients.config.ts test/clients/neovim
