#!/usr/bin/env bash
# Runs BENCH.md S5 (many remote connections): the trait bench agent served over HTTP
# (`bench_trait_agent --listen 127.0.0.1:0`) against the load client `bench_s5_client`, for
# each transport (sse, ws) and connection count (100, 1000), N chunks per session, RUNS times,
# then prints the medians. Every run gets a fresh server (so that the idle figure starts from a
# clean process), stopped with SIGTERM afterwards. Loopback only.
#
#   bench/bench_s5.sh                      # builds the two programs in release mode first
#   RUNS=5 CONNS="1000" TRANSPORTS="ws" bench/bench_s5.sh
#   TRANSPORTS="sse sse-h2 ws" bench/bench_s5.sh   # sse-h2: SSE over h2c (--http2)
#   N=1000 TIMEOUT=120 SKIP_BUILD=1 CARGO_TARGET_DIR=... bench/bench_s5.sh
#   ACP_BENCH_RUNTIME=current bench/bench_s5.sh   # the server on one thread (default: multi)
#
# 1,000 connections need more than 1,024 descriptors on both sides (an SSE connection is three
# TCP connections): the script raises its own limit to 8192 where it may. Runs that are not `ok`
# are left out of the medians and listed. The machine's load average is printed before and
# after and is in every run's line: on a shared machine, compare only figures taken at a low
# load.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-3}"
conns_list="${CONNS:-100 1000}"
transports="${TRANSPORTS:-sse ws}"
n="${N:-1000}"
timeout_s="${TIMEOUT:-120}"
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release"

if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 8192 ]; then
    ulimit -n 8192 || echo "warning: could not raise the descriptor limit ($(ulimit -n))" >&2
fi

if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release -p acp-bench --bin bench_trait_agent --bin bench_s5_client >&2
fi

results="$(mktemp)"
server_log="$(mktemp)"
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        # Bounded: SIGKILL after 10 s.
        for _ in $(seq 100); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
trap 'stop_server; rm -f "$results" "$server_log"' EXIT

start_server() {
    : >"$server_log"
    "$bin/bench_trait_agent" --listen 127.0.0.1:0 2>"$server_log" &
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

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), N=$n, descriptors $(ulimit -n)"
for run in $(seq "$runs"); do
    for conns in $conns_list; do
        for transport in $transports; do
            case "$transport" in
                sse | ws) flags=(--transport "$transport") ;;
                sse-h2) flags=(--transport sse --http2) ;;
                *) echo "TRANSPORTS holds sse, sse-h2 or ws, not $transport" >&2; exit 2 ;;
            esac
            start_server
            line="$(timeout $((timeout_s + 60)) "$bin/bench_s5_client" s5 --url "$url" \
                --conns "$conns" --n "$n" "${flags[@]}" --server-pid "$server_pid" \
                --timeout "$timeout_s" || true)"
            stop_server
            [ -n "$line" ] || line='{"ok":false}'
            echo "$transport $conns $line" >>"$results"
            echo "run $run $transport C=$conns: $line" >&2
        done
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# Medians per transport, connection count and field.
awk '
function median(key,    c, i, j, v, t) {
    c = count[key]
    if (c == 0) return ""
    for (i = 1; i <= c; i++) v[i] = vals[key, i]
    for (i = 2; i <= c; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
}
{
    case_ = $1 " C=" $2; line = $0
    if (line !~ /"ok":true/) { failed[++nfailed] = line; next }
    if (!(case_ in seen)) { seen[case_] = 1; cases[++ncases] = case_ }
    runs[case_]++
    while (match(line, /"[a-z0-9_]+":[-0-9.]+/)) {
        field = substr(line, RSTART + 1, RLENGTH - 1)
        split(field, kv, "\":")
        key = case_ SUBSEP kv[1]
        vals[key, ++count[key]] = kv[2] + 0
        line = substr(line, RSTART + RLENGTH)
    }
}
END {
    nf = split("notif_per_s elapsed_s first_update_p50_ms first_update_p99_ms first_in_p99_ms first_agent_p99_ms first_out_p99_ms idle_kib_per_conn server_rss_kb server_cpu_s server_stream_cpu_s client_cpu_s client_rss_kb setup_s errors", order, " ")
    printf "\n%-22s", "S5 (medians)"
    for (c = 1; c <= ncases; c++) printf " %14s", cases[c]
    printf "\n  %-20s", "ok runs"
    for (c = 1; c <= ncases; c++) printf " %14s", runs[cases[c]]
    printf "\n"
    for (i = 1; i <= nf; i++) {
        f = order[i]
        printf "  %-20s", f
        for (c = 1; c <= ncases; c++) printf " %14s", median(cases[c] SUBSEP f)
        printf "\n"
    }
    if (nfailed) {
        printf "\nruns left out (not ok):\n"
        for (i = 1; i <= nfailed; i++) print "  " failed[i]
    }
}' "$results"
