#!/usr/bin/env bash
# The ACP recording proxy driven in front of real ACP agents (test/clients/acp/): installs the
# newest Claude Code ACP adapter (@zed-industries/claude-agent-acp), Gemini CLI and Qwen Code
# from the npm registry (`npm view PKG version`) into the git-ignored .tools/acp/<name>-<version>/,
# points .tools/acp/<name> at them, and runs the suite. Each agent talks only to the fake vendor
# API the suite starts on 127.0.0.1.
#
# Idempotent: a version already installed is not installed again.
# Usage: bash .ci/acp-agents.sh [--install-only]   (env: LEVELCODE_ACP_AGENTS to put them elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
ACP=${LEVELCODE_ACP_AGENTS:-$PWD/.tools/acp}
export LEVELCODE_ACP_AGENTS=$ACP
mkdir -p "$ACP"

install() { # NAME PACKAGE BIN
  local name=$1 pkg=$2 bin=$3 version dir
  version=$(npm view "$pkg" version)
  dir="$ACP/$name-$version"
  if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
    printf '[acp-agents] installing %s@%s\n' "$pkg" "$version"
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || printf '{"private":true}\n' >"$dir/package.json"
    npm install --prefix "$dir" --save-exact --no-audit --no-fund "$pkg@$version" >/dev/null
  fi
  ln -sfn "$name-$version" "$ACP/$name"
  printf '[acp-agents] %s: %s@%s\n' "$name" "$pkg" "$version"
}

install claude-agent-acp @zed-industries/claude-agent-acp claude-agent-acp
install gemini @google/gemini-cli gemini
install qwen @qwen-code/qwen-code qwen

[ "${1:-}" = --install-only ] && exit 0
node tools/build.mjs --if-stale
npx vitest run -c vitest.clients.config.ts test/clients/acp
