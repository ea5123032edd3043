//! `acp check agent` (the `acp-cli` checker) against the demo agent, over both framings:
//! the agent must pass every case of both profiles.

use std::time::Duration;

use acp_agent::FramingMode;
use acp_cli::check_agent::{AgentCheck, Profile, check_agent};
use acp_cli::conn::PeerCommand;
use acp_cli::report::Status;

async fn check(framing: FramingMode, profile: Profile, prompt: Option<&str>) {
    let agent = program("agent");
    let argv = vec![agent, "--framing".to_owned(), framing.as_str().to_owned()];
    let mut opts = AgentCheck::new(PeerCommand::from_argv(&argv).unwrap());
    opts.framing = framing;
    opts.profile = profile;
    opts.timeout = Duration::from_secs(20);
    // The demo agent's slow command: 30 chunks 100 ms apart, something to cancel.
    opts.long_prompt = Some("stream 30 100".into());
    if let Some(prompt) = prompt {
        opts.prompt = prompt.to_owned();
    }
    let report = check_agent(opts).await;
    let table = report.table(false);
    assert!(report.passed(), "{table}");
    // Only the case about methods it does not advertise is skipped: it advertises them all.
    let skipped = report.names(Status::Skip);
    assert_eq!(skipped, ["unadvertised-methods"], "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_agent_passes_the_core_profile_over_ndjson() {
    check(FramingMode::Ndjson, Profile::Core, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_agent_passes_the_core_profile_over_content_length() {
    check(FramingMode::ContentLength, Profile::Core, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_agent_passes_the_full_profile_running_commands_in_checker_terminals() {
    // `run` makes the agent ask permission and use terminal/create, wait_for_exit, output and
    // release, all served by the checker in its sandbox.
    check(FramingMode::Ndjson, Profile::Full, Some("run echo checked")).await;
}

fn program(name: &str) -> String {
    crate::common::program(name).to_string_lossy().into_owned()
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_client_passes_the_client_check() {
    use acp_cli::check_client::{ClientCheck, check_client};

    let argv = [
        "--prompt",
        "hi",
        "--yes",
        "--cancel-after",
        "1s",
        "--",
        "{agent}",
    ];
    let mut command = vec![program("client")];
    command.extend(argv.iter().map(|s| s.to_string()));
    let report = check_client(ClientCheck {
        argv: command,
        relay: vec![program("acp_relay")],
        timeout: Duration::from_secs(20),
        long_turn: Duration::from_secs(3),
        progress: false,
        protocol: Default::default(),
    })
    .await;
    let table = report.table(false);
    assert!(report.passed(), "{table}");
    // `--yes` answers every permission request at once, so none is pending at the cancel.
    let skipped = report.names(Status::Skip);
    assert_eq!(skipped, ["cancel-pending-permission"], "{table}");
}
