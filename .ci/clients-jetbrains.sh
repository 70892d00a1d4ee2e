#!/usr/bin/env bash
# CI: the JetBrains client's tested core (clients/jetbrains, plain Java 17 without the IntelliJ
# SDK, which cannot be downloaded here) against the real sidecar, and its Swing History panel on a
# virtual display (Xvfb). Idempotent: installs Debian's JDK 17, JUnit 5, Gson and Xvfb only when
# missing, builds dist/ when the bin has nothing to run, compiles the core and its tests with
# javac, compiles the plugin adapter (src/main/java/dev/levelcode/sessions/plugin) against a stub
# of exactly the IntelliJ API it uses (clients/jetbrains/stubs; checked by tools/jetbrains-stubs.mjs),
# then runs the JUnit console launcher under xvfb-run and prints its summary.
# The tests stop every sidecar and peer process they start.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

need=()
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
[ -f /usr/share/java/junit-platform-console-standalone.jar ] || need+=(junit5)
[ -f /usr/share/java/gson.jar ] || need+=(libgoogle-gson-java)
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}"
fi
javac -version

if [ ! -f dist/cli/main.js ]; then
  npx tsc -p . || echo "clients-jetbrains: tsc reported type errors; dist/ was emitted anyway" >&2
fi
test -f dist/cli/main.js

gson=/usr/share/java/gson.jar
junit=/usr/share/java/junit-platform-console-standalone.jar
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=clients/jetbrains/src
# The core must not depend on the IntelliJ SDK: no com.intellij import below core/.
if grep -rn 'com\.intellij' "$src/main/java/dev/levelcode/sessions/core"; then
  echo "clients-jetbrains: the core imports com.intellij" >&2
  exit 1
fi
javac --release 17 -Xlint:all -Xlint:-serial -Werror -encoding UTF-8 -d "$out/main" -cp "$gson" \
  $(find "$src/main/java/dev/levelcode/sessions/core" -name '*.java')
javac --release 17 -encoding UTF-8 -d "$out/test" -cp "$out/main:$gson:$junit" $(find "$src/test/java" -name '*.java')

# The plugin adapter, against the stub of the IntelliJ API (the platform's jars cannot be
# downloaded here; Debian's are 2018.3 and lack 35 of the 62 classes plugin/ uses). The stub set
# must be exactly what plugin/ uses; javac checks every member plugin/ calls.
node tools/jetbrains-stubs.mjs
stubs=clients/jetbrains/stubs/src
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$out/stubs" $(find "$stubs" -name '*.java')
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$out/plugin" -cp "$out/stubs:$out/main:$gson" \
  $(find "$src/main/java/dev/levelcode/sessions/plugin" -name '*.java')
echo "clients-jetbrains: plugin/ compiled against the IntelliJ API stub"

# The README's pictures go to LEVELCODE_SCREENSHOTS when it is set (clients/jetbrains/screenshots.sh).
shots=${LEVELCODE_SCREENSHOTS:-$out/screenshots}
set +e
xvfb-run -a -s "-screen 0 1280x1024x24" \
  java -Dlevelcode.repo="$repo" -Dlevelcode.screenshots="$shots" -Djava.awt.headless=false \
    -jar "$junit" -cp "$out/main:$out/test:$gson" --scan-class-path "$out/test" \
    --disable-banner --disable-ansi-colors --details=summary >"$out/junit.log" 2>&1
rc=$?
set -e
cat "$out/junit.log" | sed -n '/Failures (/,/^Test run finished/p'
summary=$(grep -E '^\[ +[0-9]+ tests (successful|failed) +\]' "$out/junit.log" | tr -s ' ' | tr '\n' ' ')
grep -E '^Test run finished' "$out/junit.log" || true
echo "clients-jetbrains: ${summary:-no summary (see above)}"
if [ $rc -ne 0 ]; then
  cat "$out/junit.log" | tail -n 40 >&2
  exit $rc
fi
