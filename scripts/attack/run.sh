#!/usr/bin/env bash
# Measures the resource attacks of issue 19 against the demo programs' `--listen` servers
# (`agent --listen`, `bridge --listen`), before and after the server's hardening.
#
# Usage:
#   scripts/attack/run.sh OLD_AGENT_BIN NEW_AGENT_BIN [ATTACK.PY OPTIONS...]
#       both builds (each `bridge` is taken from its agent's directory); prints a markdown
#       table "figure | old | new".
#   scripts/attack/run.sh --agent BIN --bridge BIN [--only 1,5] [--label NAME] [OPTIONS...]
#       one build; prints its table.
#
# Build the binaries in release first:
#   cargo build --release -p acp-demo --bin agent --bin bridge
#
# The attacks (attack.py holds the details; `attack.py run --help` lists the knobs):
#   1 WebSocket pings as fast as possible, never reading: RSS at 10 s, closed or not (75 s)
#   2 100 POSTs announcing 16 MiB - 1 that never finish: RSS, their state after 40 s
#   3 200 slowloris + 2,000 idle sockets: open after 15 s; server at `ulimit -n 1024` with
#     1,100 idle sockets: can a normal client initialize within 15 s?
#   4 100 x 15 MiB POSTs on one connection (bridge with a deaf program; agent): RSS, outcomes
#     (--post-mib 1 shows the queued-POST cap: the body budget does not fill first)
#   5 1,024 initialize POSTs in a burst: another client's answer; bridge: processes started
#   6 200 SSE readers never reading while a prompt streams: RSS (--readers, --sessions,
#     --prompt, --prompt-bytes N for a chat prompt echoed back)
#   7 a bridged program when its connection is DELETEd: what it sees (stdin EOF, SIGTERM)
#   8 a client vanishing without DELETE: when its bridged program is gone (up to 150 s)
#   9 --allow-origin '*': exit code
#   10 a second client's session/list: does it show the first client's sessions?
#
# Loopback only (127.0.0.1, with client source addresses 127.0.0.x). Every loop is bounded in
# count and time, a guard stops an attack when the server's RSS passes --rss-limit-mb (6000 by
# default), and every process started is stopped at the end. A full run of one build takes
# about 10 minutes and needs a few GB of free memory (the old build's attacks 1, 2 and 6).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# The attack clients hold thousands of sockets (attack 3).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
out=$(mktemp -d /tmp/attack-run.XXXXXX)
trap 'rm -rf "$out"' EXIT

if [[ $# -ge 2 && $1 != -* && $2 != -* ]]; then
    old=$1 new=$2
    shift 2
    python3 -B "$here/attack.py" run --agent "$old" --bridge "$(dirname "$old")/bridge" \
        --label old --out "$out/old.jsonl" "$@" >&2
    python3 -B "$here/attack.py" run --agent "$new" --bridge "$(dirname "$new")/bridge" \
        --label new --out "$out/new.jsonl" "$@" >&2
    python3 -B "$here/attack.py" table "$out/old.jsonl" "$out/new.jsonl"
else
    python3 -B "$here/attack.py" run --out "$out/run.jsonl" "$@" >&2
    python3 -B "$here/attack.py" table "$out/run.jsonl"
fi
