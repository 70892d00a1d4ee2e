#!/usr/bin/env bash
# The hand-off judged by the real agent CLIs (test/clients/handoff/): installs the newest
# @anthropic-ai/claude-code and @openai/codex from the npm registry (`npm view PKG version`) into
# the git-ignored .tools/ai/<name>-<version>/, points .tools/ai/<name> at them, and runs the
# suite. Each CLI talks only to the fake model API the suite starts on 127.0.0.1.
#
# Idempotent: a version already installed is not installed again.
# Usage: bash .ci/handoff-clis.sh     (env: LEVELCODE_AI_TOOLS to put the CLIs elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
AI=${LEVELCODE_AI_TOOLS:-$PWD/.tools/ai}
export LEVELCODE_AI_TOOLS=$AI
mkdir -p "$AI"

install() { # NAME PACKAGE
  local name=$1 pkg=$2 version dir
  version=$(npm view "$pkg" version)
  dir="$AI/$name-$version"
  if [ ! -x "$dir/node_modules/.bin/${3:-$name}" ]; then
    printf '[handoff-clis] installing %s@%s\n' "$pkg" "$version"
    npm install --prefix "$dir" --save-exact --no-audit --no-fund "$pkg@$version" >/dev/null
  fi
  ln -sfn "$name-$version" "$AI/$name"
  printf '[handoff-clis] %s: %s\n' "$name" "$("$AI/$name/node_modules/.bin/${3:-$name}" --version)"
}

install claude-code @anthropic-ai/claude-code claude
install codex @openai/codex codex

node tools/build.mjs --if-stale
npx vitest run -c vitest.clients.config.ts test/clients/handoff
