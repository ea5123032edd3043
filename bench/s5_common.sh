# What the S5 scripts share (bench_s5.sh, bench_s5_store.sh source this file; it runs nothing
# by itself): the descriptor limit, the build, one server at a time with its stop bounded, one
# load run, and the median of the summaries. Expects `bin` (the release directory) and
# `server_log` (a file) to be set.

# 1,000 connections need more than 1,024 descriptors on both sides (an SSE connection is three
# TCP connections): raise the limit to 8192 where we may.
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 8192 ]; then
    ulimit -n 8192 || echo "warning: could not raise the descriptor limit ($(ulimit -n))" >&2
fi

if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release -p acp-bench --bin bench_trait_agent --bin bench_s5_client >&2
fi

server_pid=""

# Stops the server: SIGTERM, then SIGKILL after 10 s.
stop_server() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 100); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}

# Starts `bench_trait_agent --listen 127.0.0.1:0 ARGS...` and sets `url` to where it listens.
start_server() {
    : >"$server_log"
    "$bin/bench_trait_agent" --listen 127.0.0.1:0 "$@" 2>"$server_log" &
    server_pid=$!
    url=""
    for _ in $(seq 100); do
        url="$(sed -n 's/^listening on //p' "$server_log")"
        [ -n "$url" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "the server did not start:" >&2
    cat "$server_log" >&2
    exit 1
}

# Sets `flags` to the client's flags for transport $1 (sse, sse-h2 or ws).
transport_flags() {
    case "$1" in
        sse | ws) flags=(--transport "$1") ;;
        sse-h2) flags=(--transport sse --http2) ;;
        *) echo "the transport is sse, sse-h2 or ws, not $1" >&2; exit 2 ;;
    esac
}

# One load run against the server at `url`: $1 connections, `n` chunks each, `flags`, within
# `timeout_s`; prints the client's summary line (`{"ok":false}` when it printed none).
load_run() {
    local line
    line="$(timeout $((timeout_s + 60)) "$bin/bench_s5_client" s5 --url "$url" \
        --conns "$1" --n "$n" "${flags[@]}" --server-pid "$server_pid" \
        --timeout "$timeout_s" || true)"
    [ -n "$line" ] || line='{"ok":false}'
    echo "$line"
}

# The awk functions of the summaries: `median(key)` of the values `collect(prefix, line)`
# gathered from the numeric fields of a summary line under `prefix SUBSEP field`.
s5_awk_functions='
function median(key,    c, i, j, v, t) {
    c = count[key]
    if (c == 0) return ""
    for (i = 1; i <= c; i++) v[i] = vals[key, i]
    for (i = 2; i <= c; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
}
function collect(prefix, line,    field, kv, key) {
    while (match(line, /"[a-z0-9_]+":[-0-9.]+/)) {
        field = substr(line, RSTART + 1, RLENGTH - 1)
        split(field, kv, "\":")
        key = prefix SUBSEP kv[1]
        vals[key, ++count[key]] = kv[2] + 0
        line = substr(line, RSTART + RLENGTH)
    }
}
'
