//! What the tests that run the demo programs as processes share: the programs, a scratch
//! directory, a run of the client with a deadline, and queries of its `--json` transcript.

#![cfg_attr(not(unix), allow(dead_code))] // The modules that use a part are Unix-only.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A program of this package (`agent`, `client`, `bridge`, `acp_relay`), as cargo built it for
/// the tests.
pub(crate) fn program(name: &str) -> PathBuf {
    PathBuf::from(match name {
        "agent" => env!("CARGO_BIN_EXE_agent"),
        "client" => env!("CARGO_BIN_EXE_client"),
        "bridge" => env!("CARGO_BIN_EXE_bridge"),
        "acp_relay" => env!("CARGO_BIN_EXE_acp_relay"),
        other => panic!("acp-demo has no program `{other}`"),
    })
}

/// How long one client run may take before the test gives up on it.
pub(crate) const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A fresh directory holding `notes.txt` (the file the scripts read and edit); removed when
/// dropped.
pub(crate) struct Workdir(PathBuf);

impl Workdir {
    /// A new directory under the system's temporary one, named after the test module's
    /// `suite`, the test's `name` and this process.
    pub(crate) fn new(suite: &str, name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("acp-demo-{suite}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dir = dir.canonicalize().unwrap();
        let workdir = Self(dir);
        workdir.write("notes.txt", "# Notes\n- TODO: one\n- TODO: two\n");
        workdir
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes the file `name` in the directory.
    pub(crate) fn write(&self, name: &str, contents: impl AsRef<[u8]>) {
        std::fs::write(self.0.join(name), contents).unwrap();
    }

    /// The text of the file `name` in the directory.
    pub(crate) fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).unwrap()
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A finished run of the client.
pub(crate) struct Run {
    /// Its exit code (`None` when a signal ended it).
    pub(crate) code: Option<i32>,
    /// Everything it wrote to stdout.
    pub(crate) stdout: String,
    /// Everything it wrote to stderr.
    pub(crate) stderr: String,
}

impl Run {
    /// The `--json` transcript.
    pub(crate) fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("transcript line is not JSON ({e}): {line}"))
            })
            .collect()
    }
}

/// Starts the client with `args` in `cwd`, its stdin empty and its output piped.
pub(crate) fn start_client(cwd: &Path, args: &[&str]) -> Child {
    Command::new(program("client"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the client")
}

/// Runs the client with `args` in `cwd`, with a deadline.
pub(crate) fn run_client(cwd: &Path, args: &[&str]) -> Run {
    wait(start_client(cwd, args), |_| {})
}

/// Waits for the client (at most [`RUN_TIMEOUT`]), handing each line of its stdout to
/// `on_line` as it comes.
pub(crate) fn wait(mut child: Child, on_line: impl Fn(&str) + Send + 'static) -> Run {
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            on_line(&line);
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let status = acp_testkit::wait_with_deadline(&mut child, RUN_TIMEOUT);
    Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// The transcript's events called `name`.
pub(crate) fn of<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

/// The live (not replayed) updates of one kind.
pub(crate) fn updates<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["event"] == "update" && e["replay"].is_null())
        .map(|e| &e["update"])
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

/// The stop reasons of the transcript's prompt turns, in order.
pub(crate) fn stop_reasons(events: &[Value]) -> Vec<&str> {
    of(events, "prompt_result")
        .iter()
        .map(|e| e["stopReason"].as_str().unwrap())
        .collect()
}
