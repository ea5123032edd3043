#!/usr/bin/env bash
# Proxy-chain interop (issue 23): our conductor and proxies against the official ones, with the
# official TypeScript SDK's client and agent at the two ends, over stdio. Not part of CI (it
# needs the npm and Rust registries and compiles the official conductor).
#
#   scripts/interop/conductor.sh [--keep]
#
# Installs into a temporary folder (never into the repository): @agentclientprotocol/sdk 2.4.0
# (npm) and the official conductor, agent-client-protocol-conductor 5.0.0 (`cargo install
# --root`). Builds `acp` and acp-proxy's examples `passthrough` and `context` (release). Then
# each cell drives one chain with the TypeScript client (conductor_ts.mjs client: initialize,
# session/new, a prompt `hello`, end_turn, and the agent's echo naming what it got) in front
# of the TypeScript agent (conductor_ts.mjs agent):
#   ours/none      acp conduct -- TS-agent
#   ours/pass      acp conduct -- passthrough TS-agent
#   ours/context   acp conduct -- context LINE TS-agent            (LINE reaches the agent)
#   theirs/pass    official conductor with our passthrough, then TS-agent
#   theirs/context official conductor with our context proxy      (LINE reaches the agent)
#   nested         official conductor with `acp conduct --proxy -- context LINE`, then TS-agent
# The official crate (agent-client-protocol 5.0.0) ships no example proxy, so there is no cell
# of an official proxy inside our conductor; the official conductor stands for the official
# side of the proxy wire (it speaks `proxy/initialize` and `proxy/successor`, as ours does
# first; ours falls back to `_proxy/*` for proxies of older official releases).
#
# Prints the matrix (PASS / FAIL and the log's last line) and exits 0 when every cell passed.
# Every cell has a timeout; the temporary folder is removed unless --keep.

set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KEEP=0
[[ "${1:-}" == "--keep" ]] && KEEP=1

TS_SDK="@agentclientprotocol/sdk@2.4.0"
CONDUCTOR="agent-client-protocol-conductor@5.0.0"
LINE="Interop context line."

WORK=$(mktemp -d "${TMPDIR:-/tmp}/acp-conductor-interop.XXXXXX")
MATRIX="$WORK/matrix.tsv"
: >"$MATRIX"
cleanup() {
    if ((KEEP)); then
        echo "kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

say() { printf '\n== %s\n' "$*" >&2; }

say "installing $TS_SDK"
(cd "$WORK" && npm init -y >/dev/null && timeout 600 npm install --silent --no-audit --no-fund "$TS_SDK") || {
    echo "npm install failed" >&2
    exit 1
}
cp "$HERE/conductor_ts.mjs" "$WORK/"

say "installing $CONDUCTOR (compiles it; several minutes)"
timeout 3000 cargo install --quiet --locked --root "$WORK/official" --target-dir "$WORK/official-target" \
    "$CONDUCTOR" >&2 || { echo "cargo install $CONDUCTOR failed" >&2; exit 1; }
OFFICIAL="$WORK/official/bin/agent-client-protocol-conductor"

say "building acp, passthrough and context (release)"
(cd "$ROOT" && cargo build --quiet --release -p acp-cli --bin acp &&
    cargo build --quiet --release -p acp-proxy --example passthrough --example context) >&2 || exit 1
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release"
ACP="$BIN/acp"
PASS="$BIN/examples/passthrough"
CONTEXT="$BIN/examples/context"
TS_AGENT="node $WORK/conductor_ts.mjs agent"

"$OFFICIAL" --help >"$WORK/official-help.txt" 2>&1 || true

# cell NAME [--expect TEXT] -- CMD...: the TypeScript client in front of CMD.
cell() {
    local name=$1
    shift
    local out="$WORK/$name.log"
    if (cd "$WORK" && timeout 120 node conductor_ts.mjs client "$@") >"$out" 2>&1 &&
        grep -q "STEP chain: ok" "$out"; then
        printf '%s\tPASS\n' "$name" >>"$MATRIX"
    else
        printf '%s\tFAIL\t%s\n' "$name" "$(grep -v '^\s*$' "$out" | tail -n 1)" >>"$MATRIX"
    fi
}

say "cells"
cell ours/none -- "$ACP" conduct -- "$TS_AGENT"
cell ours/pass -- "$ACP" conduct -- "$PASS" "$TS_AGENT"
cell ours/context --expect "$LINE" -- "$ACP" conduct -- "$CONTEXT '$LINE'" "$TS_AGENT"
# The official conductor: `agent-client-protocol-conductor agent PROXY… AGENT`, each component
# one shell-split argument.
cell theirs/pass -- "$OFFICIAL" agent "$PASS" "$TS_AGENT"
cell theirs/context --expect "$LINE" -- "$OFFICIAL" agent "$CONTEXT '$LINE'" "$TS_AGENT"
cell nested --expect "$LINE" -- "$OFFICIAL" agent "$ACP conduct --proxy -- \"$CONTEXT '$LINE'\"" "$TS_AGENT"

say "matrix"
column -t -s $'\t' "$MATRIX"
! grep -q $'\tFAIL' "$MATRIX"
