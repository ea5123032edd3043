#!/usr/bin/env bash
# Remote ACP interop: acp-rs against the official TypeScript and Python SDKs, over Streamable
# HTTP and WebSocket, on 127.0.0.1 only. Not part of CI (it needs the npm and PyPI registries).
#
#   scripts/interop/run.sh [--keep]
#
# Installs into a temporary folder (never into the repository): @agentclientprotocol/sdk 2.4.0
# and ws (npm), agent-client-protocol[http] 0.12.1 and hypercorn (PyPI, in a venv). Builds the
# demo `agent`, `client` and `bridge` (package acp-demo). Then:
#
#   (a) their clients (ts_side.mjs / py_side.py `client URL`) against our server
#       (`agent --listen --token TOKEN`, a random TOKEN that the clients send as
#       `Authorization: Bearer TOKEN` on every request of both transports): initialize,
#       session/new, a prompt with updates, a prompt with fs/read +
#       session/request_permission + fs/write, a prompt cancelled with session/cancel,
#       session/close, closing the transport; then a new connection with session/load
#       (replayed history) and a prompt in the loaded session: the token's holder is one user,
#       whose sessions follow them from connection to connection;
#       and the same clients, without a token, against `agent --listen` without --token: there
#       a session belongs to the connection that made it (no client reaches another's
#       sessions), so the new connection's session/load must be refused with -32002 (Resource
#       not found, the schema's code for an unknown session);
#   (a') the same clients against `bridge -- agent`, to see that closing their transport ends
#       the bridged agent process (DELETE / WebSocket close reached our server);
#   (b) our client (`client --url`) against their servers (ts_side.mjs / py_side.py `server`):
#       initialize, session/new, `hello` (updates), `permission` (session/request_permission,
#       answered by --yes), `slow` cancelled by --cancel-after, and the close (DELETE seen by
#       their server, or the WebSocket closing).
#   (c) the features that became stable in November and a draft method, with the TypeScript SDK
#       (its stable entry point, and `/unstable` for the draft):
#       - their client (`ts_side.mjs eras URL`) against our agent: as an August-era client
#         (neither `session.compaction` nor `session.notices`) it gets no compaction or notice
#         update for `compact` and `notice`; as a November-era client (both advertised) it gets
#         the compaction (in_progress, summary chunks, completed) and the notice, and the tool
#         calls of `edit` carry a `name`;
#       - their `/unstable` client (`ts_side.mjs draft URL`) forks a session of our agent
#         (session/fork);
#       - our client (`client --url --draft`) against their stable server: `compact`, `notice`,
#         `permission` (a tool call with a `name`): what our client advertised decides what
#         their agent sends, and everything sent is rendered in the transcript;
#       - our client's `:fork` against their `/unstable` server (`ts_side.mjs server --draft`).
#
# Prints the matrix (pair x transport: PASS / FAIL and why) and exits 0 when every cell passed.
# Every step has a timeout; every process started is stopped at the end (by its pid); the
# temporary folder is removed unless --keep.

set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KEEP=0
[[ "${1:-}" == "--keep" ]] && KEEP=1

TS_SDK="@agentclientprotocol/sdk@2.4.0"
TS_WS="ws@8.23.0"
PY_SDK="agent-client-protocol[http]==0.12.1"
PY_SERVER="hypercorn==0.18.0"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/acp-interop.XXXXXX")
MATRIX="$WORK/matrix.tsv"
: >"$MATRIX"
PIDS=()

say() { printf '\n== %s\n' "$*" >&2; }

cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        local alive=0
        for pid in "${PIDS[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive=1
        done
        ((alive)) || break
        sleep 0.5
    done
    for pid in "${PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null
    done
    if ((KEEP)); then
        echo "kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# result PAIR TRANSPORT VERDICT WHY
result() {
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$MATRIX"
    printf '   %-40s %-10s %s  %s\n' "$1" "$2" "$3" "$4" >&2
}

# stop PID: SIGTERM, then SIGKILL after 10 s.
stop() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
        sleep 0.5
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

# wait_url FILE: the first http:// URL printed in FILE, within 30 s (empty if none).
wait_url() {
    local file=$1 url=""
    for _ in $(seq 1 60); do
        url=$(grep -o 'http://[^ ]*' "$file" 2>/dev/null | head -n 1)
        [[ -n "$url" ]] && break
        sleep 0.5
    done
    printf '%s' "$url"
}

# children PID: the live children of PID.
children() {
    ps -o pid=,stat= --ppid "$1" 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }'
}

# why LOG: the first failure a driver logged, or its last line.
why() {
    local line
    line=$(grep -m 1 -E 'FAILED|Error|error' "$1" 2>/dev/null | cut -c 1-200)
    [[ -z "$line" ]] && line=$(tail -n 1 "$1" 2>/dev/null | cut -c 1-200)
    printf '%s' "$line"
}

# --- Installing their SDKs and building ours ---

say "installing the TypeScript SDK ($TS_SDK, $TS_WS) into $WORK/node"
mkdir -p "$WORK/node"
(
    cd "$WORK/node" &&
        printf '{"name":"acp-interop","private":true,"type":"module"}\n' >package.json &&
        timeout 300 npm install --no-audit --no-fund --ignore-scripts --loglevel=error "$TS_SDK" "$TS_WS"
) >"$WORK/npm.log" 2>&1 || { cat "$WORK/npm.log" >&2; echo "npm install failed" >&2; exit 2; }
cp "$HERE/ts_side.mjs" "$WORK/node/ts_side.mjs"

say "installing the Python SDK ($PY_SDK, $PY_SERVER) into $WORK/venv"
{
    timeout 120 python3 -m venv "$WORK/venv" &&
        timeout 600 "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check "$PY_SDK" "$PY_SERVER"
} >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log" >&2; echo "pip install failed" >&2; exit 2; }
PY="$WORK/venv/bin/python"

# With the draft features: session/fork (a draft) is part of (c).
say "building the demo agent, client and bridge (--features unstable)"
(cd "$ROOT" && timeout 1800 cargo build -j2 -q -p acp-demo --features unstable --bin agent --bin client --bin bridge) ||
    { echo "cargo build failed" >&2; exit 2; }
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug"

TS_CLIENT=(timeout 90 node "$WORK/node/ts_side.mjs" client)
PY_CLIENT=(timeout 90 "$PY" "$HERE/py_side.py" client)

# --- (a) their clients against our server ---

# The token of (a): random hex. The clients read it from ACP_INTEROP_TOKEN (exported only to
# them, per command); our agent takes it as --token.
TOKEN=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
if [[ ${#TOKEN} -ne 48 ]]; then
    echo "could not make a random token" >&2
    exit 2
fi

say "(a) their clients (with the token) -> our agent --listen --token"
"$BIN/agent" --listen 127.0.0.1:0 --token "$TOKEN" --wire-log "$WORK/agent-wire" 2>"$WORK/agent.err" &
AGENT=$!
PIDS+=("$AGENT")
URL=$(wait_url "$WORK/agent.err")
if [[ -z "$URL" ]]; then
    echo "our agent did not start:" >&2
    cat "$WORK/agent.err" >&2
    exit 2
fi
for side in ts py; do
    for url in "$URL" "${URL/http:/ws:}"; do
        transport=$([[ "$url" == ws:* ]] && echo WebSocket || echo HTTP)
        log="$WORK/a-$side-${transport}.log"
        if [[ $side == ts ]]; then
            (cd "$WORK/node" && ACP_INTEROP_TOKEN=$TOKEN "${TS_CLIENT[@]}" "$url") >"$log" 2>&1
        else
            ACP_INTEROP_TOKEN=$TOKEN "${PY_CLIENT[@]}" "$url" >"$log" 2>&1
        fi
        rc=$?
        if grep -q 'STEP core: ok' "$log"; then
            result "$side client -> acp-rs agent" "$transport" PASS "$(grep 'STEP core: ok' "$log" | sed 's/.*STEP core: ok (\(.*\))/\1/')"
        elif ((rc == 124)); then
            result "$side client -> acp-rs agent" "$transport" FAIL "timed out; last: $(tail -n 1 "$log" | cut -c 1-160)"
        else
            result "$side client -> acp-rs agent" "$transport" FAIL "$(why "$log")"
        fi
        if grep -q 'STEP core: ok' "$log"; then
            if ((rc == 0)); then
                result "$side client -> acp-rs agent, reconnect" "$transport" PASS "with --token (Bearer on every request): session/load replayed the history before its answer; a prompt in the loaded session"
            else
                check=$(grep -m 1 'FAILED CHECK' "$log" | sed 's/.*FAILED CHECK: //')
                failed=$(grep -m 1 'FAILED:' "$log" | sed 's/.*FAILED: //' | cut -c 1-160)
                # The final check repeats the first failed one; anything else is news.
                [[ -n "$check" && "$failed" == *"$check"* ]] && failed=""
                result "$side client -> acp-rs agent, reconnect" "$transport" FAIL "${check}${check:+${failed:+; then }}${failed}"
            fi
        fi
    done
done
stop "$AGENT"

say "(a) their clients (no token) -> our agent --listen (sessions belong to their connection)"
"$BIN/agent" --listen 127.0.0.1:0 2>"$WORK/agent-open.err" &
AGENT=$!
PIDS+=("$AGENT")
URL=$(wait_url "$WORK/agent-open.err")
if [[ -z "$URL" ]]; then
    echo "our agent did not start:" >&2
    cat "$WORK/agent-open.err" >&2
    exit 2
fi
for side in ts py; do
    for url in "$URL" "${URL/http:/ws:}"; do
        transport=$([[ "$url" == ws:* ]] && echo WebSocket || echo HTTP)
        log="$WORK/a-open-$side-${transport}.log"
        if [[ $side == ts ]]; then
            (cd "$WORK/node" && "${TS_CLIENT[@]}" "$url" --reload-refused) >"$log" 2>&1
        else
            "${PY_CLIENT[@]}" "$url" --reload-refused >"$log" 2>&1
        fi
        rc=$?
        pair="$side client -> acp-rs agent without token, reconnect refused"
        if ((rc == 0)) && grep -q 'STEP reload: refused' "$log"; then
            result "$pair" "$transport" PASS "as wanted: $(grep 'STEP reload: refused' "$log" | sed 's/.*STEP reload: refused (\(.*\))/\1/') (the schema's Resource not found); without --token a session belongs to its connection, no client reaches another's sessions"
        elif ((rc == 124)); then
            result "$pair" "$transport" FAIL "timed out; last: $(tail -n 1 "$log" | cut -c 1-160)"
        else
            result "$pair" "$transport" FAIL "$(why "$log")"
        fi
    done
done
stop "$AGENT"

say "(a') their clients -> our bridge -- agent (closing ends the bridged process)"
"$BIN/bridge" --listen 127.0.0.1:0 -- "$BIN/agent" 2>"$WORK/bridge.err" &
BRIDGE=$!
PIDS+=("$BRIDGE")
URL=$(wait_url "$WORK/bridge.err")
if [[ -z "$URL" ]]; then
    echo "our bridge did not start:" >&2
    cat "$WORK/bridge.err" >&2
    exit 2
fi
for side in ts py; do
    for url in "$URL" "${URL/http:/ws:}"; do
        transport=$([[ "$url" == ws:* ]] && echo WebSocket || echo HTTP)
        log="$WORK/b-$side-${transport}.log"
        # Behind the bridge a session lives as long as its connection's agent process: no reload.
        if [[ $side == ts ]]; then
            (cd "$WORK/node" && "${TS_CLIENT[@]}" "$url" --no-reload) >"$log" 2>&1
        else
            "${PY_CLIENT[@]}" "$url" --no-reload >"$log" 2>&1
        fi
        rc=$?
        left=""
        for _ in $(seq 1 20); do
            left=$(children "$BRIDGE")
            [[ -z "$left" ]] && break
            sleep 0.5
        done
        if [[ -n "$left" ]]; then
            result "$side client -> acp-rs bridge" "$transport" FAIL "bridged agent(s) still running 10 s after the client exited (rc $rc): $(echo $left)"
        elif ((rc == 0)); then
            result "$side client -> acp-rs bridge" "$transport" PASS "the whole session; the bridged agent stopped after the close"
        else
            result "$side client -> acp-rs bridge" "$transport" FAIL "$(why "$log") (the bridged agent stopped after the close)"
        fi
    done
done
stop "$BRIDGE"

# --- (b) our client against their servers ---

for side in ts py; do
    say "(b) our client -> the $side server"
    err="$WORK/$side-server.err"
    out="$WORK/$side-server.out"
    if [[ $side == ts ]]; then
        (cd "$WORK/node" && exec timeout 600 node ts_side.mjs server) >"$out" 2>"$err" &
    else
        timeout 600 "$PY" "$HERE/py_side.py" server >"$out" 2>"$err" &
    fi
    SERVER=$!
    PIDS+=("$SERVER")
    URL=$(wait_url "$out")
    if [[ -z "$URL" ]]; then
        result "acp-rs client -> $side server" "-" FAIL "the $side server did not start: $(tail -n 3 "$err" | tr '\n' ' ')"
        stop "$SERVER"
        continue
    fi
    for url in "$URL" "${URL/http:/ws:}"; do
        transport=$([[ "$url" == ws:* ]] && echo WebSocket || echo HTTP)
        cwd="$WORK/cwd-$side-$transport"
        mkdir -p "$cwd"
        deletes_before=$(grep -c 'DELETE /acp 202' "$err")
        closes_before=$(grep -c 'WEBSOCKET CLOSED\|WEBSOCKET /acp 101 (ended)' "$err")
        (cd "$cwd" && timeout 90 "$BIN/client" --url "$url" --json --yes --cancel-after 3s \
            --prompt hello --prompt permission --prompt slow) >"$cwd/transcript.json" 2>"$cwd/stderr"
        rc=$?
        sleep 1
        detail=$("$PY" "$HERE/transcripts.py" core "$cwd/transcript.json")
        ok=$?
        if [[ $transport == HTTP ]]; then
            closed=$(($(grep -c 'DELETE /acp 202' "$err") - deletes_before))
            close_note="DELETE answered 202: $closed"
        else
            closed=$(($(grep -c 'WEBSOCKET CLOSED\|WEBSOCKET /acp 101 (ended)' "$err") - closes_before))
            close_note="WebSocket closed: $closed"
        fi
        if ((rc == 0 && ok == 0 && closed >= 1)); then
            result "acp-rs client -> $side server" "$transport" PASS "$detail; $close_note"
        elif ((rc == 124)); then
            result "acp-rs client -> $side server" "$transport" FAIL "timed out; $detail"
        else
            result "acp-rs client -> $side server" "$transport" FAIL "exit $rc; $detail; $close_note; $(head -c 300 "$cwd/stderr")"
        fi
    done
    stop "$SERVER"
done

# --- (c) the newly stable features and a draft method (TypeScript SDK) ---

say "(c) their stable and /unstable clients -> our agent --listen"
"$BIN/agent" --listen 127.0.0.1:0 2>"$WORK/agent-c.err" &
AGENT=$!
PIDS+=("$AGENT")
URL=$(wait_url "$WORK/agent-c.err")
if [[ -z "$URL" ]]; then
    result "ts client -> acp-rs agent, November features" "-" FAIL "our agent did not start: $(tail -n 3 "$WORK/agent-c.err" | tr '\n' ' ')"
else
    for url in "$URL" "${URL/http:/ws:}"; do
        transport=$([[ "$url" == ws:* ]] && echo WebSocket || echo HTTP)
        for mode in eras draft; do
            log="$WORK/c-ts-$mode-${transport}.log"
            (cd "$WORK/node" && timeout 90 node ts_side.mjs "$mode" "$url") >"$log" 2>&1
            rc=$?
            if [[ $mode == eras ]]; then
                pair="ts client -> acp-rs agent, November features"
            else
                pair="ts /unstable client -> acp-rs agent, session/fork"
            fi
            if ((rc == 0)) && grep -q "STEP $mode: ok" "$log"; then
                result "$pair" "$transport" PASS "$(grep "STEP $mode: ok" "$log" | sed "s/.*STEP $mode: ok (\(.*\))/\1/")"
            elif ((rc == 124)); then
                result "$pair" "$transport" FAIL "timed out; last: $(tail -n 1 "$log" | cut -c 1-160)"
            else
                result "$pair" "$transport" FAIL "$(why "$log")"
            fi
        done
    done
fi
stop "$AGENT"

for flavour in stable draft; do
    say "(c) our client -> the ts server ($flavour)"
    err="$WORK/ts-$flavour-server.err"
    out="$WORK/ts-$flavour-server.out"
    flags=()
    [[ $flavour == draft ]] && flags=(--draft)
    (cd "$WORK/node" && exec timeout 600 node ts_side.mjs server "${flags[@]}") >"$out" 2>"$err" &
    SERVER=$!
    PIDS+=("$SERVER")
    URL=$(wait_url "$out")
    if [[ $flavour == stable ]]; then
        pair="acp-rs client -> ts server, November features"
        prompts=(--prompt compact --prompt notice --prompt permission)
    else
        pair="acp-rs client -> ts /unstable server, session/fork"
        prompts=(--prompt hello --prompt :fork --prompt hello)
    fi
    if [[ -z "$URL" ]]; then
        result "$pair" "-" FAIL "the ts server did not start: $(tail -n 3 "$err" | tr '\n' ' ')"
        stop "$SERVER"
        continue
    fi
    for url in "$URL" "${URL/http:/ws:}"; do
        transport=$([[ "$url" == ws:* ]] && echo WebSocket || echo HTTP)
        cwd="$WORK/cwd-c-$flavour-$transport"
        mkdir -p "$cwd"
        (cd "$cwd" && timeout 90 "$BIN/client" --url "$url" --json --yes --draft "${prompts[@]}") \
            >"$cwd/transcript.json" 2>"$cwd/stderr"
        rc=$?
        if [[ $flavour == stable ]]; then
            caps=$(grep -o 'CLIENT CAPS .*' "$err" | tail -n 1 | sed 's/^CLIENT CAPS //')
            detail=$("$PY" "$HERE/transcripts.py" november "$cwd/transcript.json" "$caps")
        else
            detail=$("$PY" "$HERE/transcripts.py" fork "$cwd/transcript.json")
        fi
        ok=$?
        if ((rc == 0 && ok == 0)); then
            result "$pair" "$transport" PASS "$detail"
        elif ((rc == 124)); then
            result "$pair" "$transport" FAIL "timed out; $detail"
        else
            result "$pair" "$transport" FAIL "exit $rc; $detail; $(head -c 300 "$cwd/stderr")"
        fi
    done
    stop "$SERVER"
done

# --- The matrix ---

printf '\nInterop matrix (acp-rs %s):\n\n' "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
printf '| pair | transport | verdict | why |\n| --- | --- | --- | --- |\n'
while IFS=$'\t' read -r pair transport verdict reason; do
    printf '| %s | %s | %s | %s |\n' "$pair" "$transport" "$verdict" "${reason//|/\\|}"
done <"$MATRIX"
if grep -q $'\tFAIL\t' "$MATRIX"; then
    exit 1
fi
