#!/usr/bin/env bash
# The browser check: a page in headless Chromium reaches the example agent of acp-rs with the
# official TypeScript SDK's browser clients (@agentclientprotocol/sdk 2.4.0: createHttpStream
# and createWebSocketStream), over Streamable HTTP and over WebSocket, on 127.0.0.1 only.
#
#   scripts/browser/run.sh [--keep]
#
# Needs Chromium (the Debian package `chromium`: installed with apt-get when missing and run as
# root), Node.js 18+ with npm, cargo, and the npm registry. Installs into a temporary folder
# (never into the repository): the SDK, esbuild (bundles page.mjs with the SDK for the browser)
# and puppeteer-core (drives the system Chromium over the DevTools protocol; it downloads no
# browser). Builds the demo `agent` and starts three of them:
#
#   - one that allows the page's origin (`--allow-origin`);
#   - one that allows it and requires a token (`--token`): the page sends it as
#     `Authorization: Bearer` over HTTP, and as the WebSocket subprotocol `acp.bearer.TOKEN`
#     next to `acp` (a browser cannot set headers on a WebSocket);
#   - one that allows only another origin (http://localhost:PORT, the page being served from
#     http://127.0.0.1:PORT).
#
# The page (page.html + page.mjs, served by serve.mjs from its own port: cross-origin to the
# agents) runs the cases drive.mjs gives it; see page.mjs for what each checks. Prints the
# matrix (case x transport: PASS / FAIL and why); exits 0 when every cell passed, 1 when one
# failed, 2 when the check could not run. Every wait has a deadline; every process started is
# stopped at the end (with its descendants, by pid); the temporary folder is removed unless
# --keep.

set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KEEP=0
[[ "${1:-}" == "--keep" ]] && KEEP=1

TS_SDK="@agentclientprotocol/sdk@2.4.0"
ESBUILD="esbuild@0.28.2"
PUPPETEER="puppeteer-core@24.43.1"
# The number of cases drive.mjs runs (2 transports x 4 agents or credentials).
CASES=8

WORK=$(mktemp -d "${TMPDIR:-/tmp}/acp-browser.XXXXXX")
PIDS=()

say() { printf '== %s\n' "$*" >&2; }
die() {
    printf 'browser check: %s\n' "$*" >&2
    exit 2
}

# descendants PID: every live descendant of PID, children first.
descendants() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$child"
        descendants "$child"
    done
}

cleanup() {
    local pid all=()
    for pid in "${PIDS[@]}"; do
        all+=("$pid" $(descendants "$pid"))
    done
    for pid in "${all[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    for _ in $(seq 1 20); do
        local alive=0
        for pid in "${all[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive=1
        done
        ((alive)) || break
        sleep 0.25
    done
    for pid in "${all[@]}"; do
        kill -KILL "$pid" 2>/dev/null
    done
    wait 2>/dev/null
    if ((KEEP)); then
        echo "kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# waited CMD...: runs CMD and waits for it, in the background so that a signal to this script is
# handled at once (the cleanup then stops CMD too); returns CMD's status.
waited() {
    "$@" &
    local pid=$!
    PIDS+=("$pid")
    wait "$pid"
}

# wait_for PATTERN FILE: the first match of PATTERN (grep -o) in FILE, within 30 s.
wait_for() {
    local found=""
    for _ in $(seq 1 60); do
        found=$(grep -o -m 1 "$1" "$2" 2>/dev/null | head -n 1)
        [[ -n "$found" ]] && break
        sleep 0.5
    done
    printf '%s' "$found"
}

# --- What it needs ---

if ! command -v chromium >/dev/null; then
    ((EUID == 0)) || die "chromium is missing (apt-get install chromium, as root)"
    say "installing chromium (apt-get)"
    {
        waited timeout 300 apt-get update &&
            waited env DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y chromium
    } >"$WORK/apt.log" 2>&1 || { tail -n 20 "$WORK/apt.log" >&2; die "apt-get install chromium failed"; }
fi
command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed (Node.js 18 or later)"
say "$(chromium --version 2>/dev/null | grep -m 1 Chromium), node $(node --version)"

say "installing $TS_SDK, $ESBUILD, $PUPPETEER into $WORK/node"
mkdir -p "$WORK/node" "$WORK/www"
printf '{"name":"acp-browser-check","private":true,"type":"module"}\n' >"$WORK/node/package.json"
waited env -C "$WORK/node" timeout 300 npm install --no-audit --no-fund --ignore-scripts \
    --loglevel=error "$TS_SDK" "$ESBUILD" "$PUPPETEER" >"$WORK/npm.log" 2>&1 ||
    { cat "$WORK/npm.log" >&2; die "npm install failed"; }
# ES modules resolve packages from their own folder: the scripts run from there.
cp "$HERE/page.mjs" "$HERE/drive.mjs" "$HERE/serve.mjs" "$WORK/node/"
cp "$HERE/page.html" "$WORK/www/"
waited env -C "$WORK/node" timeout 60 node_modules/.bin/esbuild page.mjs --bundle --format=esm \
    --platform=browser --target=chrome120 --outfile="$WORK/www/page.js" --log-level=warning ||
    die "esbuild could not bundle page.mjs"

say "building the demo agent"
waited env -C "$ROOT" timeout 1800 cargo build -q -p acp-demo --bin agent || die "cargo build failed"
AGENT="${CARGO_TARGET_DIR:-$ROOT/target}/debug/agent"

# --- The page, the agents, the browser ---

env -C "$WORK/node" node serve.mjs "$WORK/www" >"$WORK/serve.out" 2>"$WORK/serve.err" &
PIDS+=("$!")
PAGE=$(wait_for 'http://127\.0\.0\.1:[0-9]*/' "$WORK/serve.out")
[[ -n "$PAGE" ]] || { cat "$WORK/serve.err" >&2; die "the page server did not start"; }
ORIGIN=${PAGE%/}
PORT=${ORIGIN##*:}

TOKEN=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
# start NAME FLAGS...: starts an agent, sets URL to where it serves.
start() {
    local name=$1
    shift
    "$AGENT" --listen 127.0.0.1:0 "$@" 2>"$WORK/$name.err" &
    PIDS+=("$!")
    URL=$(wait_for 'http://127\.0\.0\.1:[0-9]*/acp' "$WORK/$name.err")
    [[ -n "$URL" ]] || { cat "$WORK/$name.err" >&2; die "the $name agent did not start"; }
}
start open --allow-origin "$ORIGIN"
OPEN_URL=$URL
start token --allow-origin "$ORIGIN" --token "$TOKEN"
TOKEN_URL=$URL
start foreign --allow-origin "http://localhost:$PORT"
FOREIGN_URL=$URL

say "page $PAGE; agents: $OPEN_URL (origin allowed), $TOKEN_URL (+ token), $FOREIGN_URL (origin not allowed)"

# As root (CI) Chromium refuses to start with its sandbox; in a container it often cannot set
# one up anyway. The page only talks to our loopback servers.
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --no-default-browser-check --disable-background-networking --disable-component-update \
    --disable-sync --disable-breakpad --disable-crash-reporter --disable-extensions \
    --user-data-dir="$WORK/profile" --remote-debugging-address=127.0.0.1 \
    --remote-debugging-port=0 about:blank >"$WORK/chromium.log" 2>&1 &
PIDS+=("$!")
# Chromium writes its DevTools port and path there once it listens.
for _ in $(seq 1 60); do
    [[ -s "$WORK/profile/DevToolsActivePort" ]] && break
    sleep 0.5
done
[[ -s "$WORK/profile/DevToolsActivePort" ]] || { tail -n 20 "$WORK/chromium.log" >&2; die "chromium did not start"; }
DEVTOOLS="ws://127.0.0.1:$(sed -n 1p "$WORK/profile/DevToolsActivePort")$(sed -n 2p "$WORK/profile/DevToolsActivePort")"

# --- The cases ---

say "running the page"
waited env -C "$WORK/node" timeout 200 node drive.mjs --devtools "$DEVTOOLS" --page "${PAGE}page.html" \
    --agent "$OPEN_URL" --token-agent "$TOKEN_URL" --token "$TOKEN" --foreign-agent "$FOREIGN_URL" \
    >"$WORK/results.tsv" 2>"$WORK/drive.err"
rc=$?
if ((rc != 0)); then
    cat "$WORK/drive.err" >&2
    [[ $rc == 124 ]] && die "drive.mjs timed out"
fi

printf '\nBrowser check (Chromium %s, %s, acp-rs %s):\n\n' \
    "$(chromium --version 2>/dev/null | grep -o -m 1 '[0-9][0-9.]*' | head -n 1)" "$TS_SDK" \
    "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
printf '| case | transport | verdict | detail |\n| --- | --- | --- | --- |\n'
while IFS=$'\t' read -r name transport verdict detail; do
    printf '| %s | %s | %s | %s |\n' "$name" "$transport" "$verdict" "${detail//|/\\|}"
done <"$WORK/results.tsv"

rows=$(grep -c . "$WORK/results.tsv")
if ((rc != 0 || rows != CASES)); then
    die "drive.mjs exited with $rc and reported $rows of $CASES cases"
fi
if grep -q $'\tFAIL\t' "$WORK/results.tsv"; then
    grep -h . "$WORK/drive.err" | tail -n 30 >&2
    exit 1
fi
echo "every case passed"
