//! Smoke tests of the benchmark programs: every client drives every agent through S1-S3 at a
//! small size over real pipes, and reports `ok` with figures that add up. This also exercises
//! `acp_rpc::stdio()`, which the RPC and trait agents serve on. The programs are the `acp-rpc`
//! pair, the hand-written limit pair and the `acp-agent`/`acp-client` trait pair.

use std::process::Command;
use std::time::Duration;

use acp_testkit::output_with_deadline;
use serde_json::Value;

/// How long one client run may take (the sizes below take well under a second).
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The path of a bench program of this package (cargo builds them for its tests).
fn program(name: &str) -> &'static str {
    match name {
        "bench_client" => env!("CARGO_BIN_EXE_bench_client"),
        "bench_limit_client" => env!("CARGO_BIN_EXE_bench_limit_client"),
        "bench_trait_client" => env!("CARGO_BIN_EXE_bench_trait_client"),
        "bench_agent" => env!("CARGO_BIN_EXE_bench_agent"),
        "bench_limit_agent" => env!("CARGO_BIN_EXE_bench_limit_agent"),
        "bench_trait_agent" => env!("CARGO_BIN_EXE_bench_trait_agent"),
        other => panic!("no bench program {other}"),
    }
}

/// Runs a client against an agent and returns its report line.
fn run(client: &str, args: &[&str], agent: &str) -> Value {
    let output = output_with_deadline(
        Command::new(program(client))
            .args(args)
            .arg("--")
            .arg(program(agent)),
        RUN_LIMIT,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{client} {args:?} -- {agent} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let report: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not one JSON line ({e}): {stdout}"));
    assert_eq!(report["ok"], true, "{report}");
    report
}

/// Checks that `rate` over `elapsed` (printed with limited precision) accounts for `count` events.
fn assert_count(report: &Value, rate: &str, count: f64) {
    let rate_value = report[rate].as_f64().unwrap();
    let elapsed = report["elapsed_s"].as_f64().unwrap();
    let slack = count * 0.01 + rate_value * 1e-4;
    assert!(
        (rate_value * elapsed - count).abs() <= slack,
        "{rate} does not account for {count} events: {report}"
    );
}

/// The clients and agents: on `acp-rpc`, hand-written (the limit), and on the role traits.
const CLIENTS: [&str; 3] = ["bench_client", "bench_limit_client", "bench_trait_client"];
const AGENTS: [&str; 3] = ["bench_agent", "bench_limit_agent", "bench_trait_agent"];

/// Every client against every agent.
fn pairs() -> impl Iterator<Item = (&'static str, &'static str)> {
    CLIENTS
        .into_iter()
        .flat_map(|client| AGENTS.into_iter().map(move |agent| (client, agent)))
}

#[test]
fn s1_streams_every_chunk_in_order_with_every_pair() {
    for (client, agent) in pairs() {
        let report = run(client, &["s1", "3000"], agent);
        assert_eq!(report["scenario"], "s1");
        assert_count(&report, "notif_per_s", 3000.0);
        assert!(report.get("p50_us").is_none(), "no latency in S1: {report}");
        assert!(report["agent_rss_kb"].as_u64().unwrap() > 0, "{report}");
        assert!(report["mb_per_s"].as_f64().unwrap() > 0.0, "{report}");
    }
}

#[test]
fn s2_answers_every_permission_request_with_every_pair() {
    for (client, agent) in pairs() {
        let report = run(client, &["s2", "300"], agent);
        assert_count(&report, "rt_per_s", 300.0);
        let (p50, p99) = (report["p50_us"].as_u64(), report["p99_us"].as_u64());
        assert!(p50.is_some() && p99 >= p50, "{report}");
    }
}

#[test]
fn s3_runs_sessions_in_parallel_with_every_pair() {
    for (client, agent) in pairs() {
        let report = run(client, &["s3", "4", "500", "20"], agent);
        assert_count(&report, "notif_per_s", 2000.0);
        assert_count(&report, "rt_per_s", 80.0);
        assert!(report["p99_us"].as_u64().is_some(), "{report}");
    }
}

#[test]
fn a_bad_command_line_is_refused_with_the_usage() {
    for client in ["bench_client", "bench_trait_client"] {
        let output = output_with_deadline(
            Command::new(program(client)).args(["s9", "--", "true"]),
            RUN_LIMIT,
        );
        assert_eq!(output.status.code(), Some(2), "{client}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("usage:"));
    }
}

#[test]
fn a_failing_agent_makes_the_client_fail() {
    // An agent that exits at once: the client reports the failure instead of hanging.
    for client in ["bench_client", "bench_trait_client"] {
        let output = output_with_deadline(
            Command::new(program(client)).args(["s1", "10", "--", "true"]),
            RUN_LIMIT,
        );
        assert!(!output.status.success(), "{client}");
    }
}

#[test]
fn the_trait_programs_report_what_the_rpc_programs_report() {
    // Same command line, same report fields, same counts.
    for scenario in [&["s1", "500"][..], &["s2", "50"], &["s3", "2", "100", "10"]] {
        let rpc = run("bench_client", scenario, "bench_agent");
        let traits = run("bench_trait_client", scenario, "bench_trait_agent");
        let keys = |report: &Value| {
            let mut keys: Vec<String> = report.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        assert_eq!(keys(&rpc), keys(&traits), "{rpc}\n{traits}");
        assert_eq!(rpc["scenario"], traits["scenario"]);
    }
}

#[test]
fn s5_streams_to_every_remote_connection_over_both_transports() {
    // The S5 pair at a small size: the trait agent served over HTTP, a few connections.
    let server = acp_testkit::ListeningProgram::start(
        Command::new(program("bench_trait_agent")).args(["--listen", "127.0.0.1:0"]),
        RUN_LIMIT,
    );
    let pid = server.id().to_string();
    for (transport, extra) in [("sse", &[][..]), ("sse", &["--http2"]), ("ws", &[])] {
        let output = output_with_deadline(
            Command::new(env!("CARGO_BIN_EXE_bench_s5_client"))
                .args(["s5", "--url", server.url(), "--conns", "4", "--n", "200"])
                .args([
                    "--transport",
                    transport,
                    "--server-pid",
                    &pid,
                    "--timeout",
                    "30",
                ])
                .args(extra),
            RUN_LIMIT,
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{transport} {extra:?}: {stdout}\n{stderr}"
        );
        let report: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("not one JSON line ({e}): {stdout}"));
        assert_eq!(report["ok"], true, "{report}");
        assert_eq!(report["transport"], transport, "{report}");
        assert_eq!(report["conns"], 4, "{report}");
        assert_eq!(report["errors"], 0, "{report}");
        assert_count(&report, "notif_per_s", 800.0);
        assert!(report["server_rss_kb"].as_u64() > Some(0), "{report}");
    }
}
