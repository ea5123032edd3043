#!/usr/bin/env bash
# Runs the BENCH.md scenarios S1-S3 with program pairs side by side (one run of each,
# alternating), RUNS times each, then prints the medians and the ratios to the first pair:
#   limit  the hand-written "physical limit" programs (bench_limit_client + bench_limit_agent)
#   rpc    the acp-rpc programs (bench_client + bench_agent)
#   trait  the acp-agent / acp-client trait programs (bench_trait_client + bench_trait_agent)
#   trait-v2  the trait programs on an ACP v2 connection (bench_trait_client --protocol 2;
#          the programs are built with the feature unstable_protocol_v2 then)
#
#   bench/bench.sh                # builds the programs in release mode first
#   RUNS=5 SCENARIOS="s2" bench/bench.sh
#   PAIRS="rpc trait" bench/bench.sh   # default: "limit rpc" (ratios are to the first pair)
#   PAIRS="trait trait-v2" SCENARIOS=s1 RUNS=5 bench/bench.sh   # S1 on v1 and on v2, alternating
#   SKIP_BUILD=1 CARGO_TARGET_DIR=... bench/bench.sh
#   PIN=same bench/bench.sh       # client and agent on CPU 0 (taskset)
#   PIN=split bench/bench.sh      # client on CPU 0, agent on CPU 1
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
pairs="${PAIRS:-limit rpc}"
for pair in $pairs; do
    case "$pair" in
        limit | rpc | trait | trait-v2) ;;
        *) echo "PAIRS holds limit, rpc, trait or trait-v2, not $pair" >&2; exit 2 ;;
    esac
done
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release"
case "${PIN:-none}" in
    none) pin_client=() pin_agent=() ;;
    same) pin_client=(taskset -c 0) pin_agent=() ;;
    split) pin_client=(taskset -c 0) pin_agent=(taskset -c 1) ;;
    *) echo "PIN must be none, same or split" >&2; exit 2 ;;
esac

features=()
case " $pairs " in
    *" trait-v2 "*) features=(--features unstable_protocol_v2) ;;
esac
if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release -p acp-bench "${features[@]}" \
        --bin bench_agent --bin bench_client \
        --bin bench_limit_agent --bin bench_limit_client \
        --bin bench_trait_agent --bin bench_trait_client >&2
fi

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (pin: ${PIN:-none})"
for scenario in $scenarios; do
    for run in $(seq "$runs"); do
        for pair in $pairs; do
            case "$pair" in
                rpc) client="$bin/bench_client" agent="$bin/bench_agent" ;;
                limit) client="$bin/bench_limit_client" agent="$bin/bench_limit_agent" ;;
                trait) client="$bin/bench_trait_client" agent="$bin/bench_trait_agent" ;;
                trait-v2) client="$bin/bench_trait_client" agent="$bin/bench_trait_agent" ;;
            esac
            protocol=()
            [ "$pair" = trait-v2 ] && protocol=(--protocol 2)
            line="$("${pin_client[@]}" "$client" "${protocol[@]}" "$scenario" -- "${pin_agent[@]}" "$agent" || true)"
            [ -n "$line" ] || line='{"ok":false}'
            echo "$scenario $pair $line" >>"$results"
            echo "$scenario run $run $pair: $line" >&2
        done
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# Medians per scenario, program pair and field, then the ratio of each pair to the first.
awk -v pairs="$pairs" '
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
    np = split(pairs, pl, " ")
    name["limit"] = "limit"; name["rpc"] = "acp-rpc"; name["trait"] = "trait"
    nf = split("notif_per_s rt_per_s msgs_per_s mb_per_s elapsed_s p50_us p99_us agent_rss_kb client_rss_kb agent_cpu_s client_cpu_s total_s", order, " ")
    for (s = 1; s <= 3; s++) {
        scenario = "s" s
        if (!(scenario in seen)) continue
        printf "\n%-24s", toupper(scenario) " (medians)"
        for (p = 1; p <= np; p++) printf " %12s", name[pl[p]]
        for (p = 2; p <= np; p++) printf " %14s", name[pl[p]] "/" name[pl[1]]
        printf "\n"
        for (i = 1; i <= nf; i++) {
            f = order[i]
            any = 0
            for (p = 1; p <= np; p++) { m[p] = median(scenario SUBSEP pl[p] SUBSEP f); if (m[p] != "") any = 1 }
            if (!any) continue
            printf "  %-22s", f
            for (p = 1; p <= np; p++) printf " %12s", m[p]
            for (p = 2; p <= np; p++) {
                ratio = (m[p] != "" && m[1] != "" && m[1] != 0) ? sprintf("%13.1f%%", 100 * m[p] / m[1]) : ""
                printf " %14s", ratio
            }
            printf "\n"
        }
    }
    if (nfailed) {
        printf "\nruns left out (not ok):\n"
        for (i = 1; i <= nfailed; i++) print "  " failed[i]
    }
}' "$results"
