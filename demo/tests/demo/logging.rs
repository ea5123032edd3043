//! The demo programs install a `tracing` subscriber: what the libraries log reaches stderr,
//! filtered by `RUST_LOG` (warnings only by default, so that a run's stderr stays readable),
//! and a `RUST_LOG` that does not parse is said so instead of silently logging nothing.

use std::process::{Command, Stdio};

use crate::common::{Run, Workdir, program, wait};

/// Runs the client with the demo agent spawned (`--prompt help`), `RUST_LOG` set to
/// `filter` (`None`: unset), to the end.
fn run_with(dir: &Workdir, filter: Option<&str>) -> Run {
    let mut command = Command::new(program("client"));
    command
        .args(["--prompt", "help", "--"])
        .arg(program("agent"))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match filter {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    wait(command.spawn().expect("start the client"), |_| {})
}

/// The stderr lines that are debug log lines of our libraries (`… DEBUG acp_client::…: …`).
fn debug_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.contains(" DEBUG acp_"))
        .collect()
}

#[test]
fn rust_log_turns_on_the_libraries_logs_on_stderr() {
    let dir = Workdir::new("logging", "debug");
    let run = run_with(&dir, Some("acp_client=debug,acp_rpc=debug"));
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let lines = debug_lines(&run.stderr);
    assert!(
        lines.iter().any(|l| l.contains("acp_client::"))
            && lines.iter().any(|l| l.contains("acp_rpc::")),
        "stderr: {}",
        run.stderr
    );
    // The transcript on stdout carries no log line.
    assert!(!run.stdout.contains(" DEBUG "), "stdout: {}", run.stdout);
}

#[test]
fn by_default_only_warnings_are_logged() {
    let dir = Workdir::new("logging", "default");
    let run = run_with(&dir, None);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(debug_lines(&run.stderr), Vec::<&str>::new());
}

#[test]
fn a_bad_rust_log_is_reported_and_the_default_used() {
    let dir = Workdir::new("logging", "bad");
    let run = run_with(&dir, Some("acp_client=loud"));
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(
        run.stderr.contains("ignoring RUST_LOG (`acp_client=loud`")
            && run.stderr.contains("logging with `warn`"),
        "stderr: {}",
        run.stderr
    );
    assert_eq!(debug_lines(&run.stderr), Vec::<&str>::new());
}
