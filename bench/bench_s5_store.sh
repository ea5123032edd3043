#!/usr/bin/env bash
# Runs BENCH.md S5-store: S5 (many remote connections) with every session and every update
# recorded by the durable session store in PostgreSQL, against S5 with the in-memory store
# recording the same, in the same run (alternating, RUNS times each), then prints the medians
# of each and their ratio to the in-memory store (goal: >= 50% of its notif/s, 0 errors,
# server memory within S5's bounds). STORES="none memory postgres" adds plain S5 (no store).
# `pg_cpu_s` is the CPU the database's backends spent on a PostgreSQL run (the sessions' setup included).
#
# The server is `bench_trait_agent --listen 127.0.0.1:0 [--sessions memory|postgres://URL]`;
# the load is `bench_s5_client`. PostgreSQL is a throwaway cluster this script creates in a
# temporary directory (initdb; as the `postgres` account when run as root), on a free port of
# 127.0.0.1, with fsync on (the durable setting), and removes at the end; every run gets a
# fresh database. Needs the Debian package `postgresql`. Loopback only.
#
#   bench/bench_s5_store.sh                       # C=1000, N=1000, SSE, 3 runs of each store
#   RUNS=5 CONNS=1000 TRANSPORT=ws bench/bench_s5_store.sh
#   FSYNC=off SKIP_BUILD=1 CARGO_TARGET_DIR=... bench/bench_s5_store.sh
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-3}"
conns="${CONNS:-1000}"
transport="${TRANSPORT:-sse}"
n="${N:-1000}"
timeout_s="${TIMEOUT:-180}"
fsync="${FSYNC:-on}"
stores="${STORES:-memory postgres}"
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release"

# PostgreSQL's programs: on PATH or where Debian keeps them.
pg_bin=""
for dir in $(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)") \
    $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then
        pg_bin="$(dirname "$(readlink -f "$dir/initdb")")"
        break
    fi
done
[ -n "$pg_bin" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

work="$(mktemp -d)"
results="$work/results"
server_log="$work/server.log"
# shellcheck source=bench/s5_common.sh
. bench/s5_common.sh
pg_pid=""
as_pg=()
if [ "$(id -u)" = 0 ]; then
    # The server refuses to run as root: the Debian package's account runs it.
    chown postgres: "$work"
    as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --)
fi

stop_postgres() {
    if [ -n "$pg_pid" ]; then
        kill -INT "$pg_pid" 2>/dev/null || true # fast shutdown
        for _ in $(seq 300); do
            kill -0 "$pg_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pg_pid" 2>/dev/null || true
        wait "$pg_pid" 2>/dev/null || true
        pg_pid=""
    fi
}
trap 'stop_server; stop_postgres; rm -rf "$work"' EXIT

# The cluster: 1,000 connections each with a session need more than the default 100 database
# connections only if the store opens one per session; it keeps a small pool, so the default
# is kept.
pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${as_pg[@]}" "$pg_bin/initdb" --pgdata "$work/data" --username acp --auth trust \
    --encoding UTF8 --no-locale >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log" >&2; exit 1; }
"${as_pg[@]}" "$pg_bin/postgres" -D "$work/data" -h 127.0.0.1 -p "$pg_port" -k "$work" \
    -c "fsync=$fsync" -c "synchronous_commit=$fsync" 2>"$work/postgres.log" &
pg_pid=$!
for _ in $(seq 300); do
    grep -q "ready to accept connections" "$work/postgres.log" 2>/dev/null && break
    kill -0 "$pg_pid" 2>/dev/null || { cat "$work/postgres.log" >&2; exit 1; }
    sleep 0.1
done
grep -q "ready to accept connections" "$work/postgres.log" \
    || { echo "PostgreSQL did not start:" >&2; cat "$work/postgres.log" >&2; exit 1; }

transport_flags "$transport"

# The CPU time, in clock ticks, of the PostgreSQL server and of the backends it has reaped
# (fields 14-17 of /proc/PID/stat: utime, stime, cutime, cstime).
pg_cpu_ticks() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$pg_pid/stat"
}

# Seconds of CPU the server and its finished backends spent since `pg_cpu_ticks` said $1;
# waits (at most 5 s) for the backends of the stopped agent to end first.
pg_cpu_since() {
    for _ in $(seq 50); do
        [ -z "$(pgrep -P "$pg_pid" -f 'postgres: acp ' || true)" ] && break
        sleep 0.1
    done
    awk -v a="$1" -v b="$(pg_cpu_ticks)" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%.2f", (b - a) / hz }'
}

: >"$results"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), C=$conns N=$n $transport, fsync=$fsync, PostgreSQL $("$pg_bin/postgres" --version | awk '{print $NF}')"
for run in $(seq "$runs"); do
    for store in $stores; do
        sessions="$store"
        if [ "$store" = postgres ]; then
            "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U acp "s5_$run"
            sessions="postgres://acp@127.0.0.1:$pg_port/s5_$run"
        fi
        pg_before="$(pg_cpu_ticks)"
        if [ "$store" = none ]; then start_server; else start_server --sessions "$sessions"; fi
        line="$(load_run "$conns")"
        stop_server
        if [ "$store" = postgres ]; then
            # The CPU the database's backends spent on the run (they end with the server's
            # connections; the postmaster reaps them and counts their time).
            pg_cpu="$(pg_cpu_since "$pg_before")"
            line="${line%\}},\"pg_cpu_s\":$pg_cpu}"
            # What the store holds once the server stopped: every update of every session.
            rows="$(psql -h 127.0.0.1 -p "$pg_port" -U acp -d "s5_$run" -At -c \
                "SELECT (SELECT count(*) FROM acp_sessions) || ' sessions, ' || (SELECT coalesce(sum(cardinality(updates)), 0) FROM acp_history_chunks) || ' updates'" 2>/dev/null || echo "?")"
            echo "run $run: the store holds $rows" >&2
        fi
        echo "$store $line" >>"$results"
        echo "run $run $store: $line" >&2
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

awk "$s5_awk_functions"'
{
    store = $1; line = $0
    if (line !~ /"ok":true/) { failed[++nfailed] = line; next }
    runs[store]++
    collect(store, line)
}
END {
    nf = split("notif_per_s elapsed_s first_update_p50_ms first_update_p99_ms idle_kib_per_conn server_rss_kb server_cpu_s client_cpu_s pg_cpu_s setup_s errors", order, " ")
    ns = split(stores, names, " ")
    printf "\n%-22s", "S5-store (medians)"
    for (k = 1; k <= ns; k++) printf " %14s", names[k]
    printf " %16s\n", "postgres/memory"
    printf "  %-20s", "ok runs"
    for (k = 1; k <= ns; k++) printf " %14s", runs[names[k]]
    printf "\n"
    for (i = 1; i <= nf; i++) {
        f = order[i]
        printf "  %-20s", f
        for (k = 1; k <= ns; k++) printf " %14s", median(names[k] SUBSEP f)
        m = median("memory" SUBSEP f); p = median("postgres" SUBSEP f)
        ratio = (m != "" && p != "" && m + 0 != 0) ? sprintf("%.2f", p / m) : ""
        printf " %16s\n", ratio
    }
    if (nfailed) {
        printf "\nruns left out (not ok):\n"
        for (i = 1; i <= nfailed; i++) print "  " failed[i]
    }
}' stores="$stores" "$results"
