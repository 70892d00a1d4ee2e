#!/usr/bin/env bash
# Refreshes the pictures clients/jetbrains/README.md shows (screenshots/*.png): runs the JetBrains
# suite (.ci/clients-jetbrains.sh, under Xvfb) with LEVELCODE_SCREENSHOTS set to this folder's
# screenshots/, where HistoryPanelTest and HistoryViewTest save what their panels draw.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/screenshots"
LEVELCODE_SCREENSHOTS="$here/screenshots" bash "$here/../../.ci/clients-jetbrains.sh"
ls -l "$here/screenshots"
