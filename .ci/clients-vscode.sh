#!/usr/bin/env bash
# The VS Code client end to end, from a clean machine (CI runs it as root): installs what the
# suite needs (Chromium, libkrb5-dev and a CJK font from Debian; Node 24 and code-server from the npm registry
# into the git-ignored tools folder; the extension's own dependencies), builds and packages the
# .vsix with vsce, then runs the unit tests and the end-to-end suite in real VS Code (code-server
# in headless Chromium; the suite installs the .vsix into a temp code-server profile).
#
# Idempotent: every tool install is skipped when its pinned version is already there; the
# extension's own dependencies are installed as the README's `npm run package:vscode` does (npm ci).
# Cleans up after itself: code-server runs in its own process group (the suite kills it); if the
# suite itself dies, the trap below kills the groups the suite recorded.
#
# Usage: bash .ci/clients-vscode.sh     (env: LEVELCODE_TOOLS to put the tools elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
TOOLS=${LEVELCODE_TOOLS:-$REPO/.tools}
NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
export LEVELCODE_TOOLS=$TOOLS

section() { printf '\n=== %s ===\n' "$*"; }
timed() {
  local label=$1; shift
  local t0=$SECONDS
  "$@"
  printf '[clients-vscode] %s: %ss\n' "$label" $((SECONDS - t0))
}

# Process groups started by the suite (harness.ts appends code-server's pgid here).
export LEVELCODE_E2E_PGID_FILE
LEVELCODE_E2E_PGID_FILE=$(mktemp -t lcs-vscode-pgids.XXXXXX)
cleanup() {
  local pgid
  while read -r pgid; do
    [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null || true
  done <"$LEVELCODE_E2E_PGID_FILE"
  rm -f "$LEVELCODE_E2E_PGID_FILE"
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------
section "Debian packages: chromium, libkrb5-dev, fonts-wqy-microhei"
apt_install() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
  # A CJK font, so the screenshots show the fixture's Japanese title instead of boxes.
  dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || missing+=(fonts-wqy-microhei)
  if [ ${#missing[@]} -eq 0 ]; then echo "present"; return; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -o DPkg::Lock::Timeout=600
  apt-get install -y -o DPkg::Lock::Timeout=600 "${missing[@]}"
}
timed "apt packages" apt_install

# ---------------------------------------------------------------------------------------------
section "Node $NODE24_VERSION and code-server $CODE_SERVER_VERSION in $TOOLS"
NODE24=$TOOLS/node_modules/node/bin/node
tools_install() {
  mkdir -p "$TOOLS"
  [ -f "$TOOLS/package.json" ] || printf '{ "name": "levelcode-tools", "private": true }\n' >"$TOOLS/package.json"
  if [ "$("$NODE24" --version 2>/dev/null || true)" != "v$NODE24_VERSION" ]; then
    (cd "$TOOLS" && npm install --save-exact --no-audit --no-fund "node@$NODE24_VERSION")
  else
    echo "node $NODE24_VERSION present"
  fi
  local have
  have=$(node -p "try { require('$TOOLS/node_modules/code-server/package.json').version } catch { '' }")
  if [ "$have" != "$CODE_SERVER_VERSION" ]; then
    # code-server's latest needs Node 24 (first on PATH, for npm's scripts too); its native
    # modules are built from source by install scripts, which this npm blocks unless allowed.
    (cd "$TOOLS" && PATH="$(dirname "$NODE24"):$PATH" npm install --save-exact --no-audit --no-fund \
      --foreground-scripts --dangerously-allow-all-scripts "code-server@$CODE_SERVER_VERSION")
  else
    echo "code-server $CODE_SERVER_VERSION present"
  fi
}
timed "tools" tools_install

# ---------------------------------------------------------------------------------------------
section "the repo's build (the CLI the suite writes with, the server sources the sidecar bundle takes)"
repo_build() {
  # .ci/run has run `npm ci` at the root already; a standalone run on a clean clone needs it too.
  [ -d node_modules ] || npm ci --no-audit --no-fund
  node tools/build.mjs --if-stale
  test -f dist/cli/main.js
}
timed "repo build" repo_build

# ---------------------------------------------------------------------------------------------
section "clients/vscode: the README's command (its dependencies, the .vsix), type check"
# As README.md has it: `npm run package:vscode` installs the extension's own dependencies
# (npm ci in clients/vscode) and packages the .vsix with vsce.
timed "npm run package:vscode" npm run package:vscode
(cd clients/vscode && npm ls vscode-jsonrpc)
test -f clients/vscode/levelcode-sessions.vsix
timed "type check" npm --prefix clients/vscode run typecheck
# The e2e tests import playwright-core's types from clients/vscode/node_modules (installed above).
timed "type check (e2e tests)" npx tsc -p tsconfig.e2e.json

# ---------------------------------------------------------------------------------------------
section "tests: unit, then end to end in code-server"
export CHROMIUM=/usr/bin/chromium
timed "vitest (vscode)" npx vitest run -c vitest.clients.config.ts test/clients/vscode
