//! `run` on an ACP v2 connection (feature `unstable_protocol_v2`): v2 has no client
//! terminals, so the agent runs the command itself and shows it in an agent-owned display
//! terminal embedded in the tool call, its output streamed as byte chunks as it comes.

use std::future::IntoFuture;

use acp_agent::{DisplayTerminalHandle, ToolCallHandle};
use acp_types::*;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::tools::Ran;
use super::{Stop, TERMINAL_OUTPUT_LIMIT_BYTES, Turn};

/// The most bytes one output chunk carries.
const CHUNK_BYTES: usize = 4096;

impl Turn<'_> {
    /// Runs `command` with `args` in `cwd` here, in the agent, shown in a display terminal of
    /// `call` (`line` is the command line shown). The output is streamed up to
    /// [`TERMINAL_OUTPUT_LIMIT_BYTES`]; past it the rest is read and dropped, and the summary
    /// says so.
    pub(super) async fn run_here(
        &mut self,
        call: &ToolCallHandle,
        command: &str,
        args: &[String],
        cwd: &str,
        line: &str,
    ) -> Result<(), Stop> {
        let mut child = match Command::new(command)
            .args(args)
            .current_dir(cwd)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
        {
            Ok(child) => child,
            Err(error) => {
                return self
                    .give_up(call, &format!("Could not start `{line}`: {error}"))
                    .await;
            }
        };
        // Live only: the history keeps the output as text (a replay has no terminal to show).
        let live = self.cx.unrecorded();
        let terminal = self
            .guard(live.display_terminal(line).cwd(cwd).into_future())
            .await?;
        let running = ToolCallUpdate::new(call.id().clone())
            .status(ToolCallStatus::InProgress)
            .content(vec![terminal.content()]);
        self.guard(live.update(running)).await?;

        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let streamed = self
            .cx
            .or_cancelled(async {
                let output = stream(&terminal, stdout, stderr).await?;
                let status = child.wait().await;
                Ok::<_, acp_agent::Error>((output, status))
            })
            .await;
        let Ok(streamed) = streamed else {
            // Cancelled: stop the command, and say how it ended.
            let _ = child.kill().await;
            let killed = v2::TerminalExitStatus::new().signal("SIGKILL");
            let _ = terminal.exit(killed).await;
            return Err(Stop::Cancelled);
        };
        let (output, status) = streamed?;
        let status = match status {
            Ok(status) => status,
            Err(error) => {
                let why = format!("Could not wait for `{line}`: {error}");
                return self.give_up(call, &why).await;
            }
        };
        let exit = exit_status(status);
        self.guard(terminal.exit(exit.clone())).await?;

        let text = String::from_utf8_lossy(&output.bytes);
        let ran = Ran {
            line,
            exit_code: exit.exit_code,
            signal: exit.signal.as_deref(),
            truncated: output.truncated,
            output: &text,
        };
        self.report_run(call, &ran, terminal.content()).await
    }
}

/// What a command printed, as far as it was kept.
struct Output {
    /// The bytes streamed, at most [`TERMINAL_OUTPUT_LIMIT_BYTES`].
    bytes: Vec<u8>,
    /// True when more was printed than that.
    truncated: bool,
}

/// Streams the command's stdout and stderr, as they come, into `terminal` until both end.
async fn stream(
    terminal: &DisplayTerminalHandle,
    stdout: Option<impl AsyncRead + Unpin>,
    stderr: Option<impl AsyncRead + Unpin>,
) -> Result<Output, acp_agent::Error> {
    let limit = usize::try_from(TERMINAL_OUTPUT_LIMIT_BYTES).unwrap_or(usize::MAX);
    let mut output = Output {
        bytes: Vec::new(),
        truncated: false,
    };
    let (mut out, mut err) = (stdout, stderr);
    let (mut out_buf, mut err_buf) = ([0u8; CHUNK_BYTES], [0u8; CHUNK_BYTES]);
    while out.is_some() || err.is_some() {
        let (read, from_out) = tokio::select! {
            read = read_some(&mut out, &mut out_buf), if out.is_some() => (read, true),
            read = read_some(&mut err, &mut err_buf), if err.is_some() => (read, false),
        };
        // A read error ends that stream as its end does.
        let n = read.unwrap_or(0);
        if n == 0 {
            if from_out {
                out = None;
            } else {
                err = None;
            }
            continue;
        }
        let bytes = if from_out {
            &out_buf[..n]
        } else {
            &err_buf[..n]
        };
        let room = limit.saturating_sub(output.bytes.len());
        if room < n {
            output.truncated = true;
        }
        let kept = &bytes[..n.min(room)];
        if !kept.is_empty() {
            output.bytes.extend_from_slice(kept);
            terminal.output(kept).await?;
        }
    }
    Ok(output)
}

/// Reads what `reader` has into `buf` (0 at its end).
async fn read_some(
    reader: &mut Option<impl AsyncRead + Unpin>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match reader {
        Some(reader) => reader.read(buf).await,
        None => Ok(0),
    }
}

/// How a process ended, in the protocol's terms (the conventional name of a POSIX signal).
fn exit_status(status: std::process::ExitStatus) -> v2::TerminalExitStatus {
    let exit = v2::TerminalExitStatus::new();
    if let Some(code) = status.code() {
        return exit.exit_code(i64::from(code));
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        let name = match signal {
            1 => "SIGHUP".to_owned(),
            2 => "SIGINT".to_owned(),
            3 => "SIGQUIT".to_owned(),
            6 => "SIGABRT".to_owned(),
            9 => "SIGKILL".to_owned(),
            13 => "SIGPIPE".to_owned(),
            15 => "SIGTERM".to_owned(),
            other => format!("signal {other}"),
        };
        return exit.signal(name);
    }
    exit
}
