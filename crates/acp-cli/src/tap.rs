//! `acp tap`: a transparent stdio proxy between an editor and an agent that writes a
//! timestamped NDJSON transcript of both directions.
//!
//! Bytes pass unchanged both ways, whatever the framing; a copy of each direction goes through
//! a framing detector ([`AutoCodec`]) to cut it into messages for the transcript. Signals the
//! tap receives (`SIGINT`, `SIGTERM`, `SIGHUP`) go to the agent's process group, and the tap
//! exits with the agent's status (`128 + N` when a signal `N` ended it).

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};

use acp_client::ProcessGroup;
use acp_codec::{AutoCodec, Frame};
use bytes::BytesMut;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_util::codec::Decoder;

use crate::conn::PeerCommand;
use crate::schema::Role;
use crate::transcript::{Validator, timestamp};

/// The settings of `acp tap`.
#[derive(Debug, Clone)]
pub struct Tap {
    /// The agent's command.
    pub command: PeerCommand,
    /// Where to write the transcript (none when `None`).
    pub log: Option<PathBuf>,
    /// Report protocol problems on stderr as they happen.
    pub validate: bool,
}

/// The transcript and the live validator, shared by both directions.
struct Recorder {
    log: Option<std::io::BufWriter<std::fs::File>>,
    validator: Option<Validator>,
    line: usize,
}

impl Recorder {
    fn record(&mut self, from: Role, body: &[u8]) {
        self.line += 1;
        // Written by hand so that the timestamp comes first (`json!` sorts the keys).
        let (ts, from_name) = (timestamp(), from.as_str());
        let entry = match serde_json::from_slice::<Value>(body) {
            Ok(message) => {
                if let Some(validator) = &mut self.validator {
                    for problem in validator.feed(self.line, from, &message) {
                        #[allow(clippy::print_stderr)] // `--validate` reports on stderr.
                        {
                            eprintln!("acp tap: line {}: {}", problem.line, problem.reason);
                        }
                    }
                }
                format!(r#"{{"ts":"{ts}","from":"{from_name}","message":{message}}}"#)
            }
            Err(_) => {
                let raw = Value::String(String::from_utf8_lossy(body).into_owned());
                format!(r#"{{"ts":"{ts}","from":"{from_name}","raw":{raw}}}"#)
            }
        };
        if let Some(log) = &mut self.log {
            // A failing log must not break the session it records.
            let _ = writeln!(log, "{entry}").and_then(|()| log.flush());
        }
    }
}

/// Copies `from` to `to` unchanged, recording each message as `role`'s.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    role: Role,
    recorder: Arc<Mutex<Recorder>>,
) {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut codec = AutoCodec::new();
    let mut buf = BytesMut::new();
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // Recorded before it is passed on, so that the transcript keeps cause before effect
        // (an answer never precedes the request it answers).
        buf.extend_from_slice(&chunk[..n]);
        while let Ok(Some(frame)) = codec.decode(&mut buf) {
            if let Frame::Message(body) = frame {
                recorder
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .record(role, &body);
            }
        }
        if to.write_all(&chunk[..n]).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    // An unterminated last message still goes in the transcript.
    while let Ok(Some(frame)) = codec.decode_eof(&mut buf) {
        if let Frame::Message(body) = frame {
            recorder
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .record(role, &body);
        }
    }
    let _ = to.shutdown().await;
}

/// Runs the tap until the agent exits; returns the exit code to give.
///
/// # Errors
///
/// When the log cannot be created or the agent cannot be started.
pub async fn run(tap: Tap) -> Result<u8, String> {
    let log = match &tap.log {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        )),
        None => None,
    };
    let recorder = Arc::new(Mutex::new(Recorder {
        log,
        validator: tap.validate.then(|| Validator::new(true)),
        line: 0,
    }));
    let mut cmd = tokio::process::Command::new(&tap.command.program);
    cmd.args(&tap.command.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut group = ProcessGroup::spawn(&mut cmd)
        .map_err(|e| format!("cannot start `{}`: {e}", tap.command))?;
    let stdin = group.child().stdin.take().expect("stdin is piped");
    let stdout = group.child().stdout.take().expect("stdout is piped");
    // The editor's side may stay open after the agent exits: this one is not waited for.
    tokio::spawn(pump(
        tokio::io::stdin(),
        stdin,
        Role::Client,
        recorder.clone(),
    ));
    let to_editor = tokio::spawn(pump(
        stdout,
        tokio::io::stdout(),
        Role::Agent,
        recorder.clone(),
    ));
    let status = wait_forwarding_signals(&mut group).await;
    // Everything the agent wrote reaches the editor before the tap exits (bounded: helpers it
    // left behind may hold its stdout open).
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), to_editor).await;
    if let Some(validator) = &mut recorder
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .validator
    {
        validator.finish();
        for problem in validator
            .problems
            .iter()
            .filter(|p| p.reason.contains("never answered"))
        {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("acp tap: line {}: {}", problem.line, problem.reason);
            }
        }
    }
    Ok(status)
}

/// Waits for the agent, passing on the signals the tap gets; returns the exit code to give.
#[cfg(unix)]
async fn wait_forwarding_signals(group: &mut ProcessGroup) -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        (SignalKind::interrupt(), rustix::process::Signal::INT),
        (SignalKind::terminate(), rustix::process::Signal::TERM),
        (SignalKind::hangup(), rustix::process::Signal::HUP),
    ];
    let mut streams = Vec::new();
    for (kind, sig) in kinds {
        if let Ok(stream) = signal(kind) {
            streams.push((stream, sig));
        }
    }
    let pgid = group
        .group_id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw);
    loop {
        let next_signal = futures::future::select_all(
            streams
                .iter_mut()
                .map(|(s, sig)| Box::pin(async move { s.recv().await.map(|_| *sig) })),
        );
        tokio::select! {
            status = group.wait() => return exit_code(status),
            (Some(sig), _, _) = next_signal => {
                if let Some(pgid) = pgid {
                    let _ = rustix::process::kill_process_group(pgid, sig);
                }
            }
        }
    }
}

#[cfg(not(unix))]
async fn wait_forwarding_signals(group: &mut ProcessGroup) -> u8 {
    exit_code(group.wait().await)
}

fn exit_code(status: std::io::Result<std::process::ExitStatus>) -> u8 {
    let Ok(status) = status else { return 1 };
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return u8::try_from((128 + signal) & 0xff).unwrap_or(1);
    }
    1
}
