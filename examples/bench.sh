#!/usr/bin/env bash
# Runs the BENCH.md scenarios S1-S3 with the acp-rpc programs (bench_client + bench_agent) and
# the hand-written "physical limit" programs (bench_limit_client + bench_limit_agent), side by
# side (one run of each, alternating), RUNS times each, then prints the medians and the ratios.
#
#   examples/bench.sh                # builds the examples in release mode first
#   RUNS=5 SCENARIOS="s2" examples/bench.sh
#   SKIP_BUILD=1 CARGO_TARGET_DIR=... examples/bench.sh
#   PIN=same examples/bench.sh       # client and agent on CPU 0 (taskset)
#   PIN=split examples/bench.sh      # client on CPU 0, agent on CPU 1
#
# Round-trip latency depends on where the scheduler puts the two processes: on one CPU a
# round trip costs two context switches; on two CPUs, two cross-CPU wake-ups, which cost tens
# of microseconds in some virtual machines. PIN makes the placement explicit; without it the
# scheduler decides (and may decide differently from run to run).
#
# Runs that are not `ok` are left out of the medians and listed. The machine's load average is
# printed before and after: on a shared machine, compare only figures taken at a low load.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-3}"
scenarios="${SCENARIOS:-s1 s2 s3}"
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release/examples"
case "${PIN:-none}" in
    none) pin_client=() pin_agent=() ;;
    same) pin_client=(taskset -c 0) pin_agent=() ;;
    split) pin_client=(taskset -c 0) pin_agent=(taskset -c 1) ;;
    *) echo "PIN must be none, same or split" >&2; exit 2 ;;
esac

if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release -p acp-examples \
        --example bench_agent --example bench_client \
        --example bench_limit_agent --example bench_limit_client >&2
fi

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (pin: ${PIN:-none})"
for scenario in $scenarios; do
    for run in $(seq "$runs"); do
        for pair in rpc limit; do
            if [ "$pair" = rpc ]; then
                client="$bin/bench_client" agent="$bin/bench_agent"
            else
                client="$bin/bench_limit_client" agent="$bin/bench_limit_agent"
            fi
            line="$("${pin_client[@]}" "$client" "$scenario" -- "${pin_agent[@]}" "$agent" || true)"
            [ -n "$line" ] || line='{"ok":false}'
            echo "$scenario $pair $line" >>"$results"
            echo "$scenario run $run $pair: $line" >&2
        done
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# Medians per scenario, program pair and field, then the ratio rpc / limit.
awk '
function median(key,    n, i, j, v, t) {
    n = count[key]
    if (n == 0) return ""
    for (i = 1; i <= n; i++) v[i] = vals[key, i]
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{
    scenario = $1; pair = $2; line = $0
    if (line !~ /"ok":true/) { failed[++nfailed] = line; next }
    seen[scenario] = 1
    while (match(line, /"[a-z0-9_]+":[-0-9.]+/)) {
        field = substr(line, RSTART + 1, RLENGTH - 1)
        split(field, kv, "\":")
        key = scenario SUBSEP pair SUBSEP kv[1]
        vals[key, ++count[key]] = kv[2] + 0
        fields[kv[1]] = 1
        line = substr(line, RSTART + RLENGTH)
    }
}
END {
    nf = split("notif_per_s rt_per_s msgs_per_s mb_per_s elapsed_s p50_us p99_us agent_rss_kb client_rss_kb agent_cpu_s client_cpu_s total_s", order, " ")
    for (s = 1; s <= 3; s++) {
        scenario = "s" s
        if (!(scenario in seen)) continue
        printf "\n%s (medians)            %14s %14s %8s\n", toupper(scenario), "acp-rpc", "limit", "ratio"
        for (i = 1; i <= nf; i++) {
            f = order[i]
            r = median(scenario SUBSEP "rpc" SUBSEP f)
            l = median(scenario SUBSEP "limit" SUBSEP f)
            if (r == "" && l == "") continue
            ratio = (r != "" && l != "" && l != 0) ? sprintf("%7.1f%%", 100 * r / l) : ""
            printf "  %-22s %14s %14s %8s\n", f, r, l, ratio
        }
    }
    if (nfailed) {
        printf "\nruns left out (not ok):\n"
        for (i = 1; i <= nfailed; i++) print "  " failed[i]
    }
}' "$results"
