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

results="$(mktemp)"
server_log="$(mktemp)"
# shellcheck source=bench/s5_common.sh
. bench/s5_common.sh
trap 'stop_server; rm -f "$results" "$server_log"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), N=$n, descriptors $(ulimit -n)"
for run in $(seq "$runs"); do
    for conns in $conns_list; do
        for transport in $transports; do
            transport_flags "$transport"
            start_server
            line="$(load_run "$conns")"
            stop_server
            echo "$transport $conns $line" >>"$results"
            echo "run $run $transport C=$conns: $line" >&2
        done
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# Medians per transport, connection count and field.
awk "$s5_awk_functions"'
{
    case_ = $1 " C=" $2; line = $0
    if (line !~ /"ok":true/) { failed[++nfailed] = line; next }
    if (!(case_ in seen)) { seen[case_] = 1; cases[++ncases] = case_ }
    runs[case_]++
    collect(case_, line)
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
