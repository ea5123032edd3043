#!/usr/bin/env bash
# ACP v2 (draft) interop over stdio: the demo agent and client of acp-rs (built with
# `--features unstable_protocol_v2`) against the official SDKs' v2. Not part of CI (it needs the
# npm and crates.io registries).
#
#   scripts/interop/v2.sh [--keep] [--no-rust]
#
# Installs into a temporary folder (never into the repository): @agentclientprotocol/sdk 2.4.0
# (npm: its `experimental/v2` entry point and `AgentProtocolRouter`), and the source of the
# official Rust SDK, agent-client-protocol 5.2.0 (fetched by cargo), whose own v2 examples
# (`simple_agent_v2`, `v2_one_shot_client`, feature `unstable_protocol_v2`) are built there with
# their own target folder (several minutes: ACP_INTEROP_RS_TARGET=DIR keeps it between runs;
# `--no-rust` leaves them out). Then:
#
#   (a) their v2 client (v2_side.mjs `client`) -> our `agent`: initialize (v2 negotiated),
#       session/new, a prompt acknowledged with its messageId and ended by the idle
#       state_update, a prompt cancelled (idle `cancelled`), session/list, session/resume with
#       replayFrom start, session/close, the agent exiting when its input closes;
#   (b) our `client` -> their AgentProtocolRouter agent (v2_side.mjs `agent`: a v1 and a v2
#       implementation): v2 negotiated (a message, a permission request during
#       requires_action, a cancelled turn), v1 with `--protocol 1`, and v1 by fallback against
#       the router with its v1 implementation only (`agent --v1-only`);
#   (c) their Rust SDK: `v2_one_shot_client --command AGENT` -> our agent, and our `client`
#       -> `simple_agent_v2` (v2 negotiated; with `--protocol 1` the v2-only agent must refuse
#       with a clear error, which our client reports).
#
# Prints the matrix (cell: PASS / FAIL and why) and exits 0 when every cell passed. Every step
# has a timeout; the temporary folder is removed unless --keep.

set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KEEP=0
RUST=1
for arg in "$@"; do
    case "$arg" in
        --keep) KEEP=1 ;;
        --no-rust) RUST=0 ;;
        *) echo "usage: $0 [--keep] [--no-rust]" >&2; exit 2 ;;
    esac
done

TS_SDK="@agentclientprotocol/sdk@2.4.0"
RS_SDK="agent-client-protocol"
RS_VERSION="5.2.0"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/acp-interop-v2.XXXXXX")
MATRIX="$WORK/matrix.tsv"
: >"$MATRIX"

say() { printf '\n== %s\n' "$*" >&2; }

cleanup() {
    if ((KEEP)); then
        echo "kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# result CELL VERDICT WHY
result() {
    printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$MATRIX"
    printf '   %-58s %-5s %s\n' "$1" "$2" "$3" >&2
}

# count PATTERN FILE: how many lines of FILE hold the fixed string PATTERN; `turn:REASON`
# counts the turns of the client's transcript that ended with stop reason REASON.
count() {
    if [[ "$1" == turn:* ]]; then
        grep -F '"event":"prompt_result"' "$2" 2>/dev/null | grep -cF "\"stopReason\":\"${1#turn:}\"" || true
    else
        grep -cF -- "$1" "$2" 2>/dev/null || true
    fi
}

# expect CELL LOG RC: PASS when the client exited 0 and every CHECK (pattern=count, after
# the third argument) holds in LOG; else FAIL naming the first check that did not.
expect() {
    local cell=$1 log=$2 rc=$3
    shift 3
    if ((rc == 124)); then
        result "$cell" FAIL "timed out; last: $(tail -n 1 "$log" | cut -c 1-160)"
        return
    fi
    if ((rc != 0)); then
        result "$cell" FAIL "exit $rc: $(grep -m 1 'client:' "$log" | cut -c 1-160)"
        return
    fi
    local check pattern want got
    for check in "$@"; do
        pattern=${check%=*}
        want=${check##*=}
        got=$(count "$pattern" "$log")
        if [[ "$got" != "$want" ]]; then
            result "$cell" FAIL "$pattern: $got, expected $want"
            return
        fi
    done
    result "$cell" PASS "${*//=/ x}"
}

# --- Installing their SDKs and building ours ---

say "installing the TypeScript SDK ($TS_SDK) into $WORK/node"
mkdir -p "$WORK/node"
(
    cd "$WORK/node" &&
        printf '{"name":"acp-interop-v2","private":true,"type":"module"}\n' >package.json &&
        timeout 300 npm install --no-audit --no-fund --ignore-scripts --loglevel=error "$TS_SDK"
) >"$WORK/npm.log" 2>&1 || { cat "$WORK/npm.log" >&2; echo "npm install failed" >&2; exit 2; }
cp "$HERE/v2_side.mjs" "$WORK/node/v2_side.mjs"

say "building the demo agent and client (--features unstable_protocol_v2)"
(cd "$ROOT" && timeout 1800 cargo build -j2 -q -p acp-demo --features unstable_protocol_v2 --bin agent --bin client) ||
    { echo "cargo build failed" >&2; exit 2; }
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
AGENT="$BIN/agent"
CLIENT=(timeout 90 "$BIN/client" --json --yes)
# Each run in a scratch directory of its own (the client serves it as the session's cwd).
mkdir -p "$WORK/cwd"

# --- (a) their v2 client -> our agent ---

say "(a) the TypeScript SDK's v2 client -> our agent"
log="$WORK/a-ts.log"
(cd "$WORK/cwd" && timeout 120 node "$WORK/node/v2_side.mjs" client "$AGENT") >"$log" 2>&1
rc=$?
if ((rc == 0)); then
    result "ts v2 client -> acp-rs agent (stdio)" PASS "$(count PASS "$log") checks: $(grep '^PASS' "$log" | cut -c 6- | paste -sd ';' | cut -c 1-300)"
else
    result "ts v2 client -> acp-rs agent (stdio)" FAIL "$(grep -m 3 '^FAIL' "$log" | paste -sd ';' | cut -c 1-300)"
fi

# --- (b) our client -> their AgentProtocolRouter ---

say "(b) our client -> the TypeScript SDK's AgentProtocolRouter agent"
TS_AGENT=(node "$WORK/node/v2_side.mjs" agent)
log="$WORK/b-v2.log"
(cd "$WORK/cwd" && "${CLIENT[@]}" --prompt hello --prompt permission --prompt :list -- "${TS_AGENT[@]}") >"$log" 2>&1
expect "acp-rs client -> ts router (v2 negotiated)" "$log" $? \
    '"event":"negotiated","protocolVersion":2=1' 'turn:end_turn=2' \
    '[v2] Hello=1' '"sessionUpdate":"state_update","state":"requires_action"=1' \
    '"outcome":"selected"=1' '"event":"sessions"=1'
log="$WORK/b-v2-cancel.log"
(cd "$WORK/cwd" && "${CLIENT[@]}" --cancel-after 500ms --prompt slow -- "${TS_AGENT[@]}") >"$log" 2>&1
expect "acp-rs client -> ts router (v2, session/cancel)" "$log" $? \
    '"event":"negotiated","protocolVersion":2=1' 'turn:cancelled=1'
log="$WORK/b-v1.log"
(cd "$WORK/cwd" && "${CLIENT[@]}" --protocol 1 --prompt hello --prompt permission -- "${TS_AGENT[@]}") >"$log" 2>&1
expect "acp-rs client --protocol 1 -> ts router (v1)" "$log" $? \
    '"event":"negotiated","protocolVersion":1=1' 'turn:end_turn=2' '[v1] Hello=1' \
    '"outcome":"selected"=1'
log="$WORK/b-fallback.log"
(cd "$WORK/cwd" && "${CLIENT[@]}" --prompt hello -- "${TS_AGENT[@]}" --v1-only) >"$log" 2>&1
expect "acp-rs client -> ts router, v1 only (fallback to v1)" "$log" $? \
    '"event":"negotiated","protocolVersion":1=1' 'turn:end_turn=1' '[v1] Hello=1'

# --- (c) the official Rust SDK's v2 examples ---

if ((RUST)); then
    say "(c) fetching $RS_SDK $RS_VERSION and building its v2 examples (several minutes)"
    mkdir -p "$WORK/rust"
    # ACP_INTEROP_RS_TARGET: a target folder kept between runs (the build takes minutes).
    RS_TARGET="${ACP_INTEROP_RS_TARGET:-$WORK/rust/target}"
    (
        # Cargo fetches the crate's source (a throwaway package that depends on it), then the
        # copy is built on its own, with its examples.
        cd "$WORK/rust" &&
            mkdir -p fetch/src &&
            printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s = "=%s"\n' \
                "$RS_SDK" "$RS_VERSION" >fetch/Cargo.toml &&
            : >fetch/src/lib.rs &&
            (cd fetch && timeout 300 cargo fetch -q) &&
            src=$(cd fetch && cargo metadata --format-version 1 2>/dev/null |
                python3 -c 'import json,sys; m=json.load(sys.stdin); print(next(p["manifest_path"] for p in m["packages"] if p["name"]==sys.argv[1]))' "$RS_SDK") &&
            cp -r "$(dirname "$src")" "$RS_SDK-$RS_VERSION" &&
            cd "$RS_SDK-$RS_VERSION" &&
            # Its lock file pins a yanked crate: resolve afresh.
            rm -f Cargo.lock &&
            CARGO_TARGET_DIR="$RS_TARGET" timeout 2400 cargo build -j2 -q \
                --features stdio,process,unstable_protocol_v2 \
                --example simple_agent_v2 --example v2_one_shot_client
    ) >"$WORK/rust.log" 2>&1
    if (($? != 0)); then
        result "rust sdk v2 examples" FAIL "did not build: $(tail -n 3 "$WORK/rust.log" | paste -sd ' ' | cut -c 1-200)"
    else
        RS="$RS_TARGET/debug/examples"
        log="$WORK/c-rs-client.log"
        (cd "$WORK/cwd" && timeout 90 "$RS/v2_one_shot_client" --command "$AGENT" "hello from the rust sdk") >"$log" 2>&1
        rc=$?
        if ((rc == 0)) && grep -qF 'You said' "$log"; then
            result "rust v2_one_shot_client -> acp-rs agent (stdio)" PASS "v2 initialize, session/new, prompt to idle: $(grep -m 1 -F 'You said' "$log" | cut -c 1-100)"
        else
            result "rust v2_one_shot_client -> acp-rs agent (stdio)" FAIL "exit $rc: $(tail -n 2 "$log" | paste -sd ' ' | cut -c 1-200)"
        fi
        log="$WORK/c-rs-agent.log"
        (cd "$WORK/cwd" && "${CLIENT[@]}" --prompt hello --prompt :list -- "$RS/simple_agent_v2") >"$log" 2>&1
        expect "acp-rs client -> rust simple_agent_v2 (v2)" "$log" $? \
            '"event":"negotiated","protocolVersion":2=1' 'turn:end_turn=1' '"event":"sessions"=1'
        log="$WORK/c-rs-agent-v1.log"
        (cd "$WORK/cwd" && "${CLIENT[@]}" --protocol 1 --prompt hello -- "$RS/simple_agent_v2") >"$log" 2>&1
        rc=$?
        if ((rc == 1 || rc == 2)) && grep -q 'initialize failed' "$log"; then
            result "acp-rs client --protocol 1 -> rust simple_agent_v2 (v2 only)" PASS "refused, reported: $(grep -m 1 'initialize failed' "$log" | cut -c 1-160)"
        else
            result "acp-rs client --protocol 1 -> rust simple_agent_v2 (v2 only)" FAIL "exit $rc: $(tail -n 2 "$log" | paste -sd ' ' | cut -c 1-200)"
        fi
    fi
fi

say "matrix"
column -t -s $'\t' "$MATRIX" 2>/dev/null || cat "$MATRIX"
! grep -q $'\tFAIL\t' "$MATRIX"
