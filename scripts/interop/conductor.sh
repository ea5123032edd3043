#!/usr/bin/env bash
# Proxy-chain interop (issue 23): our conductor and proxies against the official ones, with the
# official TypeScript SDK's client and agent at the two ends, over stdio. Not part of CI (it
# needs the npm and Rust registries and compiles the official conductor).
#
#   scripts/interop/conductor.sh [--keep]
#
# Environment (all optional):
#   OFFICIAL_CONDUCTOR   path of an already-installed `agent-client-protocol-conductor` 5.0.0
#                        binary: used instead of compiling one (about 265 crates); e.g. from
#                        `cargo install --root DIR agent-client-protocol-conductor@5.0.0`.
#   OFFICIAL_TARGET_DIR  cargo target folder for the official crates (the conductor when it is
#                        compiled, and the official proxy below); default: in the temporary
#                        folder. Pointing it at the folder the conductor was compiled in reuses
#                        the shared dependencies.
#   ACP_PROFILE          the cargo profile of our programs: `release` (the default) or `dev`
#                        (quicker to build; the wire is the same).
#   CARGO_TARGET_DIR     where our programs are built (as for any cargo build).
#
# Installs into a temporary folder (never into the repository): @agentclientprotocol/sdk 2.4.0
# (npm), the official conductor unless OFFICIAL_CONDUCTOR names one, and a proxy written with
# the official crate's proxy API (agent-client-protocol 5.0.0, `Proxy.v1()`): the official
# crates publish no example proxy (the SDK's repository has one, `arrow_proxy`, in its test
# crate, which is not published), so the script writes a minimal one as a temporary cargo
# project: with no argument it forwards everything, with LINE it puts LINE as a text block in
# front of every prompt. Builds `acp` and acp-proxy's examples `passthrough` and `context`
# (release, or ACP_PROFILE). Each cell drives one chain with the TypeScript client
# (conductor_ts.mjs client: initialize, session/new, a prompt `hello`, end_turn, and the
# agent's echo naming what it got) in front of the TypeScript agent (conductor_ts.mjs agent):
#   theirs-none          official conductor -- TS-agent                      (baseline)
#   theirs-official      official conductor -- official-proxy TS-agent       (baseline)
#   ours-none            acp conduct -- TS-agent
#   ours-pass            acp conduct -- passthrough TS-agent
#   ours-context         acp conduct -- context LINE TS-agent                (LINE reaches it)
#   ours-official-pass   acp conduct -- official-proxy TS-agent
#   ours-official-ctx    acp conduct -- "official-proxy LINE" TS-agent       (LINE reaches it)
#   ours-mixed           acp conduct -- "official-proxy LINE" context LINE2 passthrough TS-agent
#   theirs-pass          official conductor -- passthrough TS-agent
#   theirs-context       official conductor -- context LINE TS-agent         (LINE reaches it)
#   theirs-mixed         official conductor -- context LINE "official-proxy LINE2" TS-agent
#   nested               official conductor -- "acp conduct --proxy -- context LINE" TS-agent
#   nested-ours          acp conduct -- "official conductor proxy context LINE" TS-agent
# The official conductor takes `agent PROXY... AGENT` (each component one shell-split
# argument) and `proxy PROXY...`.
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

OFFICIAL_TARGET=${OFFICIAL_TARGET_DIR:-$WORK/official-target}
if [[ -n "${OFFICIAL_CONDUCTOR:-}" ]]; then
    OFFICIAL=$OFFICIAL_CONDUCTOR
    [[ -x "$OFFICIAL" ]] || { echo "OFFICIAL_CONDUCTOR=$OFFICIAL is not an executable" >&2; exit 1; }
    say "using the official conductor $OFFICIAL"
else
    say "installing $CONDUCTOR (compiles it; several minutes)"
    timeout 3000 cargo install --quiet --locked --root "$WORK/official" --target-dir "$OFFICIAL_TARGET" \
        "$CONDUCTOR" >&2 || { echo "cargo install $CONDUCTOR failed" >&2; exit 1; }
    OFFICIAL="$WORK/official/bin/agent-client-protocol-conductor"
fi

say "building a proxy with the official crate's proxy API (agent-client-protocol 5.0.0)"
mkdir -p "$WORK/official-proxy/src"
cat >"$WORK/official-proxy/Cargo.toml" <<'TOML'
[package]
name = "official-proxy"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
agent-client-protocol = { version = "=5.0.0", features = ["stdio"] }
tokio = { version = "1", features = ["rt", "macros"] }

[workspace]
TOML
cat >"$WORK/official-proxy/src/main.rs" <<'RUST'
//! An ACP proxy on the official SDK's proxy API, for acp-rs's conductor interop run.
//! `official-proxy` forwards everything; `official-proxy LINE` also puts LINE as a text block
//! in front of every prompt on its way to the agent.

use agent_client_protocol::v1::schema::{ContentBlock, PromptRequest, TextContent};
use agent_client_protocol::{Agent, Client, Proxy, Stdio};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), agent_client_protocol::Error> {
    let builder = Proxy.v1().name("official-proxy");
    let Some(line) = std::env::args().nth(1) else {
        return builder.connect_to(Stdio::new()).await;
    };
    builder
        .on_receive_request_from(
            Client,
            async move |mut request: PromptRequest, responder, cx| {
                let block = ContentBlock::Text(TextContent::new(line.clone()));
                request.prompt.insert(0, block);
                cx.send_request_to(Agent, request)
                    .forward_response_to(responder)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await
}
RUST
# The conductor's own lock file, when cargo has it unpacked: the same dependency versions, so
# that a shared OFFICIAL_TARGET_DIR reuses what compiling the conductor built.
LOCK=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/agent-client-protocol-conductor-5.0.0/Cargo.lock 2>/dev/null | head -n 1)
[[ -n "$LOCK" ]] && cp "$LOCK" "$WORK/official-proxy/Cargo.lock"
(cd "$WORK/official-proxy" && timeout 3000 cargo build --quiet --release --target-dir "$OFFICIAL_TARGET") >&2 ||
    { echo "building the official-API proxy failed" >&2; exit 1; }
THEIR_PROXY="$OFFICIAL_TARGET/release/official-proxy"

PROFILE=${ACP_PROFILE:-release}
say "building acp, passthrough and context (profile $PROFILE)"
(cd "$ROOT" && cargo build --quiet --profile "$PROFILE" -p acp-cli --bin acp &&
    cargo build --quiet --profile "$PROFILE" -p acp-proxy --example passthrough --example context) >&2 || exit 1
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/$([[ "$PROFILE" == dev ]] && echo debug || echo "$PROFILE")"
ACP="$BIN/acp"
PASS="$BIN/examples/passthrough"
CONTEXT="$BIN/examples/context"
TS_AGENT="node $WORK/conductor_ts.mjs agent"

"$OFFICIAL" --help >"$WORK/official-help.txt" 2>&1 || true

# cell NAME [--expect TEXT]... -- CMD...: the TypeScript client in front of CMD.
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

LINE2="Second context line."
say "cells"
cell theirs-none -- "$OFFICIAL" agent "$TS_AGENT"
cell theirs-official --expect "$LINE" -- "$OFFICIAL" agent "$THEIR_PROXY '$LINE'" "$TS_AGENT"
cell ours-none -- "$ACP" conduct -- "$TS_AGENT"
cell ours-pass -- "$ACP" conduct -- "$PASS" "$TS_AGENT"
cell ours-context --expect "$LINE" -- "$ACP" conduct -- "$CONTEXT '$LINE'" "$TS_AGENT"
cell ours-official-pass -- "$ACP" conduct -- "$THEIR_PROXY" "$TS_AGENT"
cell ours-official-ctx --expect "$LINE" -- "$ACP" conduct -- "$THEIR_PROXY '$LINE'" "$TS_AGENT"
cell ours-mixed --expect "$LINE" --expect "$LINE2" -- "$ACP" conduct -- "$THEIR_PROXY '$LINE'" \
    "$CONTEXT '$LINE2'" "$PASS" "$TS_AGENT"
cell theirs-pass -- "$OFFICIAL" agent "$PASS" "$TS_AGENT"
cell theirs-context --expect "$LINE" -- "$OFFICIAL" agent "$CONTEXT '$LINE'" "$TS_AGENT"
cell theirs-mixed --expect "$LINE" --expect "$LINE2" -- "$OFFICIAL" agent "$CONTEXT '$LINE'" \
    "$THEIR_PROXY '$LINE2'" "$TS_AGENT"
cell nested --expect "$LINE" -- "$OFFICIAL" agent "$ACP conduct --proxy -- \"$CONTEXT '$LINE'\"" "$TS_AGENT"
cell nested-ours --expect "$LINE" -- "$ACP" conduct -- "$OFFICIAL proxy \"$CONTEXT '$LINE'\"" "$TS_AGENT"

say "matrix"
column -t -s $'\t' "$MATRIX"
! grep -q $'\tFAIL' "$MATRIX"
