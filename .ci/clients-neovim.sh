#!/usr/bin/env bash
# CI: the Neovim client's suite (test/clients/neovim) in real Neovim against the real sidecar.
# Idempotent: installs Debian's neovim (0.7.2, the oldest version the plugin supports) only when
# `nvim` is missing, builds dist/ unless it is current (tools/build.mjs), then runs the suite.
# Every Neovim and sidecar the tests start is stopped by the tests themselves. Expects `npm ci`
# to have run (it needs the `neovim` and markdown-it devDependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvim >/dev/null 2>&1; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y neovim
fi
nvim --version | head -n 1

# The build a user's `npm ci` makes (tsc), skipped when current.
node tools/build.mjs --if-stale
test -f dist/cli/main.js

npx vitest run -c vitest.clients.config.ts test/clients/neovim
