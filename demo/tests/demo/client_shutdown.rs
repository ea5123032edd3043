//! The demo client against agents that misbehave: one that never answers `initialize`, one
//! that never ends a turn, one that ignores its input closing and SIGTERM. The client must give
//! up with a clear message instead of hanging, stop in order on SIGINT, SIGTERM or SIGHUP
//! (cancel the turn, close the agent, stop the terminal commands), kill everything on a second
//! signal, and leave no process behind.
#![cfg(unix)]

use crate::common::program;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long one client run may take before the test gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// A fake ACP agent in `sh`, driven by the words of its first argument:
/// - `silent`: never reads or answers anything;
/// - otherwise it answers `initialize` and `session/new` (session `s1`), never ends a prompt,
///   and logs every line it reads to `agent.log` (and `eof` at the end of its input);
/// - `terminal`: on a prompt, asks the client to run a command (`term.pid` gets its pid);
/// - `helper`: starts a helper process (`helper.pid`);
/// - `stubborn`: ignores SIGTERM (its helpers too) and the end of its input;
/// - `die`: kills itself with SIGKILL on a prompt.
///
/// `agent.pid` gets the agent's pid; `prompted` appears when a prompt arrived.
const FAKE_AGENT: &str = r#"
echo $$ > agent.pid
case "$1" in *stubborn*) trap '' TERM;; esac
case "$1" in *helper*) sleep 1000 & echo $! > helper.pid;; esac
case "$1" in *silent*) exec sleep 1000;; esac
while IFS= read -r line; do
  printf '%s\n' "$line" >> agent.log
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1}}\n' "$id";;
    *'"method":"session/new"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}\n' "$id";;
    *'"method":"session/prompt"'*)
      case "$1" in *terminal*)
        printf '{"jsonrpc":"2.0","id":"t1","method":"terminal/create","params":{"sessionId":"s1","command":"sh","args":["-c","echo $$ > term.pid; exec sleep 1000"]}}\n';;
      esac
      : > prompted
      case "$1" in *die*) kill -KILL $$;; esac;;
  esac
done
echo eof >> agent.log
case "$1" in *stubborn*) while :; do sleep 1; done;; esac
"#;

/// True while `pid` runs (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) if Path::new("/proc/self").exists() => false,
        Err(_) => Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
    }
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pid}");
}

/// A working directory for one run; on drop, kills whatever the run left behind (so that a
/// failing test does not leak processes) and removes the directory.
struct Workdir(PathBuf);

impl Workdir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("acp-shutdown-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir.canonicalize().unwrap())
    }

    /// The pid in `name`, once it was written.
    fn pid(&self, name: &str) -> Option<u32> {
        std::fs::read_to_string(self.0.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Waits (bounded) for the pid file `name`.
    fn wait_for_pid(&self, name: &str) -> u32 {
        let start = Instant::now();
        loop {
            if let Some(pid) = self.pid(name) {
                return pid;
            }
            assert!(start.elapsed() < RUN_TIMEOUT, "{name} was never written");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.0.join("agent.log")).unwrap_or_default()
    }

    /// Asserts that the process in pid file `name` is gone (killing is asynchronous, and an
    /// orphan is reaped by init: poll, bounded).
    fn assert_gone(&self, name: &str) {
        let pid = self
            .pid(name)
            .unwrap_or_else(|| panic!("{name} was written"));
        let start = Instant::now();
        while alive(pid) {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the process of {name} ({pid}) survived the client"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        for name in ["agent.pid", "helper.pid", "term.pid"] {
            if let Some(pid) = self.pid(name) {
                if alive(pid) {
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .status();
                }
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running client, its stderr read line by line.
struct Run {
    child: Child,
    stderr: mpsc::Receiver<String>,
    lines: Vec<String>,
}

impl Run {
    fn start(dir: &Workdir, flags: &[&str], agent_mode: &str) -> Self {
        let mut child = Command::new(program("client"))
            .args(flags)
            .args(["--", "sh", "-c", FAKE_AGENT, "fake-agent", agent_mode])
            .current_dir(&dir.0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the client");
        let (tx, stderr) = mpsc::channel();
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stderr,
            lines: Vec::new(),
        }
    }

    /// Waits (bounded) for a stderr line containing `text`.
    fn wait_for_line(&mut self, text: &str) {
        let deadline = Instant::now() + RUN_TIMEOUT;
        while !self.lines.iter().any(|l| l.contains(text)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) => self.lines.push(line),
                Err(_) => panic!("no stderr line with `{text}`: {:?}", self.lines),
            }
        }
    }

    /// Waits (bounded) for the client to exit; returns its status and whole stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > RUN_TIMEOUT {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "the client did not finish within {RUN_TIMEOUT:?}; stderr so far: {:?}",
                    self.lines
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The pipe closes when the client and everything it started have exited; a survivor
        // holding it must not hang the test (its pid check fails instead).
        let deadline = Instant::now() + Duration::from_secs(5);
        while let Ok(line) = self
            .stderr
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.lines.push(line);
        }
        (status, self.lines.join("\n"))
    }
}

#[test]
fn an_agent_that_never_answers_initialize_is_given_up_and_stopped() {
    let dir = Workdir::new("silent");
    let run = Run::start(&dir, &["--timeout", "1", "--prompt", "hi"], "silent");
    let (status, stderr) = run.finish();
    assert_eq!(status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("initialize failed: the agent did not answer initialize within 1s"),
        "stderr: {stderr}"
    );
    // It ignored its input closing: SIGTERM ended it.
    assert!(stderr.contains("after SIGTERM"), "stderr: {stderr}");
    dir.assert_gone("agent.pid");
}

#[test]
fn a_turn_that_never_ends_fails_once_cancelled_and_timed_out() {
    let dir = Workdir::new("hang");
    let flags = ["--cancel-after", "0.2", "--timeout", "1", "--prompt", "hi"];
    let run = Run::start(&dir, &flags, "hang");
    let (status, stderr) = run.finish();
    assert_eq!(status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("did not end the turn within 1s of session/cancel"),
        "stderr: {stderr}"
    );
    let log = dir.log();
    assert!(
        log.contains(r#""method":"session/cancel""#),
        "agent log: {log}"
    );
    // Its stdin was closed, and it exited at the end of its input.
    assert!(log.ends_with("eof\n"), "agent log: {log}");
    dir.assert_gone("agent.pid");
}

/// The client is stopped by `signal` while a turn runs with a terminal command: the turn is
/// cancelled, the agent's stdin closed, then its group (terminal commands included) stopped,
/// and the client exits with `code`.
fn a_signal_cancels_the_turn_and_stops_the_agent_group_and_the_terminals(
    signal_name: &str,
    code: i32,
) {
    let dir = Workdir::new(&format!("sig{}", signal_name.to_lowercase()));
    let run = Run::start(
        &dir,
        &["--yes", "--prompt", "hi"],
        "terminal helper stubborn",
    );
    let terminal = dir.wait_for_pid("term.pid");
    assert!(alive(terminal), "the terminal command runs");
    signal(run.child.id(), signal_name);
    let (status, stderr) = run.finish();
    assert_eq!(status.code(), Some(code), "stderr: {stderr}");
    assert!(
        stderr.contains(&format!("SIG{signal_name}: cancelling")),
        "stderr: {stderr}"
    );
    // The agent ignored everything but SIGKILL.
    assert!(
        stderr.contains("killed after ignoring SIGTERM"),
        "stderr: {stderr}"
    );
    let log = dir.log();
    assert!(
        log.contains(r#""method":"session/cancel""#),
        "agent log: {log}"
    );
    assert!(log.contains("eof\n"), "its stdin was closed first: {log}");
    dir.assert_gone("agent.pid");
    dir.assert_gone("helper.pid");
    dir.assert_gone("term.pid");
}

#[test]
fn sigterm_cancels_the_turn_and_stops_the_agent_group_and_the_terminals() {
    a_signal_cancels_the_turn_and_stops_the_agent_group_and_the_terminals("TERM", 143);
}

/// SIGHUP (the client's terminal closed) is a stop like SIGTERM: without it handled, the
/// client died at once and left the agent and its terminal commands running.
#[test]
fn sighup_cancels_the_turn_and_stops_the_agent_group_and_the_terminals() {
    a_signal_cancels_the_turn_and_stops_the_agent_group_and_the_terminals("HUP", 129);
}

#[test]
fn a_second_signal_kills_everything_at_once() {
    let dir = Workdir::new("sigint");
    let mut run = Run::start(
        &dir,
        &["--yes", "--prompt", "hi"],
        "terminal helper stubborn",
    );
    let terminal = dir.wait_for_pid("term.pid");
    assert!(alive(terminal), "the terminal command runs");
    let client = run.child.id();
    signal(client, "INT");
    run.wait_for_line("SIGINT: cancelling");
    let second = Instant::now();
    signal(client, "INT");
    let (status, stderr) = run.finish();
    assert_eq!(status.code(), Some(130), "stderr: {stderr}");
    assert!(
        stderr.contains("SIGINT: killing the agent and the terminal commands"),
        "stderr: {stderr}"
    );
    // Well within the graceful path (2s for the turn, 2s after stdin closed, 2s after SIGTERM).
    assert!(
        second.elapsed() < Duration::from_secs(4),
        "the second signal took {:?}",
        second.elapsed()
    );
    dir.assert_gone("agent.pid");
    dir.assert_gone("helper.pid");
    dir.assert_gone("term.pid");
}

#[test]
fn an_agent_that_dies_is_reported_with_how_it_ended() {
    let dir = Workdir::new("die");
    let run = Run::start(&dir, &["--prompt", "hi", "--prompt", "again"], "die");
    let (status, stderr) = run.finish();
    assert_eq!(status.code(), Some(1), "stderr: {stderr}");
    let failures: Vec<&str> = stderr.lines().filter(|l| l.contains("failed")).collect();
    assert_eq!(
        failures.len(),
        1,
        "the client stops once the agent is gone: {stderr}"
    );
    assert!(
        failures[0].contains("session/prompt failed")
            && failures[0].contains("the agent exited with signal 9 (SIGKILL)"),
        "stderr: {stderr}"
    );
    dir.assert_gone("agent.pid");
}
