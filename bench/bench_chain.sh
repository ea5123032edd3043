#!/usr/bin/env bash
# Issue 23's speed check: the BENCH.md scenarios S1 and S3 through the conductor, against the
# same agent reached directly, in the same run. Three set-ups, one run of each in turn
# (alternating), RUNS times, with the trait pair (bench_trait_client + bench_trait_agent):
#   direct   bench_trait_client S -- bench_trait_agent
#   conduct  bench_trait_client S -- acp conduct -- bench_trait_agent
#   proxy    bench_trait_client S -- acp conduct -- passthrough bench_trait_agent
#            (`passthrough`: acp-proxy's example, forwarding everything untouched)
# Then it prints, per scenario, the medians and the range (min-max over the runs) of each
# set-up's ratio to the direct run of the same round. Goals: conduct >= 90%, proxy >= 50% of
# direct (S1 notif_per_s, S3 msgs_per_s; S2, if asked for, rt_per_s).
#
#   bench/bench_chain.sh                 # builds the programs in release mode first
#   RUNS=7 SCENARIOS="s1" bench/bench_chain.sh
#   SKIP_BUILD=1 CARGO_TARGET_DIR=... bench/bench_chain.sh
#
# Runs that are not `ok` are left out and listed. The load average is printed before and
# after: on a shared machine, compare only figures taken at a low load.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
scenarios="${SCENARIOS:-s1 s3}"
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release"

if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release -p acp-bench --bin bench_trait_agent --bin bench_trait_client >&2
    cargo build --release -p acp-cli --bin acp >&2
    cargo build --release -p acp-proxy --example passthrough >&2
fi
for program in "$bin/bench_trait_client" "$bin/bench_trait_agent" "$bin/acp" \
    "$bin/examples/passthrough"; do
    [ -x "$program" ] || { echo "$program is not built (drop SKIP_BUILD)" >&2; exit 2; }
done

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

agent="$bin/bench_trait_agent"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for scenario in $scenarios; do
    for run in $(seq "$runs"); do
        for setup in direct conduct proxy; do
            case "$setup" in
                direct) cmd=("$agent") ;;
                conduct) cmd=("$bin/acp" conduct -- "$agent") ;;
                proxy) cmd=("$bin/acp" conduct -- "$bin/examples/passthrough" "$agent") ;;
            esac
            line="$(timeout 300 "$bin/bench_trait_client" "$scenario" -- "${cmd[@]}" || true)"
            [ -n "$line" ] || line='{"ok":false}'
            echo "$scenario $run $setup $line" >>"$results"
            echo "$scenario run $run $setup: $line" >&2
        done
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# Per scenario: the medians of the main figure per set-up, and each set-up's ratio to the
# direct run of the same round (median and range).
awk '
function sort(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function median(a, n) { sort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function field(line, name,    re) {
    re = "\"" name "\":[-0-9.]+"
    if (!match(line, re)) return ""
    return substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 3) + 0
}
{
    scenario = $1; run = $2; setup = $3; line = $0
    if (line !~ /"ok":true/) { failed[++nfailed] = line; next }
    f = (scenario == "s1") ? "notif_per_s" : (scenario == "s2") ? "rt_per_s" : "msgs_per_s"
    v = field(line, f)
    if (v == "") { failed[++nfailed] = line; next }
    metric[scenario] = f
    value[scenario, run, setup] = v
    seen[scenario] = 1
    if (run > maxrun) maxrun = run
}
END {
    for (s = 1; s <= 5; s++) {
        scenario = "s" s
        if (!(scenario in seen)) continue
        printf "\n%s %s (median; ratio to direct of the same round: median [min-max])\n", toupper(scenario), metric[scenario]
        split("direct conduct proxy", setups, " ")
        for (k = 1; k <= 3; k++) {
            setup = setups[k]; n = 0; nr = 0
            delete vals; delete ratios
            for (r = 1; r <= maxrun; r++) {
                if (!((scenario, r, setup) in value)) continue
                vals[++n] = value[scenario, r, setup]
                if (setup != "direct" && (scenario, r, "direct") in value)
                    ratios[++nr] = 100 * value[scenario, r, setup] / value[scenario, r, "direct"]
            }
            if (n == 0) continue
            printf "  %-8s %12.0f", setup, median(vals, n)
            if (nr > 0) {
                m = median(ratios, nr)
                printf "   %5.1f%% [%5.1f%%-%5.1f%%] over %d rounds", m, ratios[1], ratios[nr], nr
            }
            printf "\n"
        }
    }
    if (nfailed) {
        printf "\nruns left out (not ok):\n"
        for (i = 1; i <= nfailed; i++) print "  " failed[i]
    }
}' "$results"
