//! The terminals the checker, playing the client, runs for an agent (`terminal/*`): each
//! command in its own process group, in the sandbox, its output kept up to the agent's limit.

use std::collections::HashMap;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use acp_client::ProcessGroup;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::{mpsc, watch};

/// The output kept when the agent gives no `outputByteLimit`.
const DEFAULT_OUTPUT_LIMIT: usize = 1024 * 1024;

/// How long `terminal/wait_for_exit` may wait before the checker gives up on the command.
const WAIT_LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Default)]
struct Output {
    bytes: Vec<u8>,
    truncated: bool,
}

#[derive(Debug)]
struct Terminal {
    output: Arc<Mutex<Output>>,
    /// The exit status once known (`None` inside while it runs).
    exit: watch::Receiver<Option<ExitStatus>>,
    /// Kills the command's group when sent (or dropped).
    kill: Option<tokio::sync::oneshot::Sender<()>>,
}

/// The terminals of one connection. Dropping it kills their commands.
#[derive(Debug, Default)]
pub(crate) struct Terminals {
    next: u64,
    running: HashMap<String, Terminal>,
}

type Answer = Result<Value, (i64, String)>;

fn exit_status(status: &ExitStatus) -> Value {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(status).map(|s| format!("{s}"));
    #[cfg(not(unix))]
    let signal: Option<String> = None;
    json!({"exitCode": status.code(), "signal": signal})
}

impl Terminals {
    /// `terminal/create`: starts the command in `cwd` (checked to be in the sandbox by the
    /// caller).
    pub(crate) fn create(&mut self, params: &Value, cwd: &Path) -> Answer {
        let Some(command) = params["command"].as_str() else {
            return Err((-32602, "terminal/create needs a command".into()));
        };
        let mut cmd = tokio::process::Command::new(command);
        for arg in params["args"].as_array().into_iter().flatten() {
            cmd.arg(arg.as_str().unwrap_or_default());
        }
        for var in params["env"].as_array().into_iter().flatten() {
            if let (Some(name), Some(value)) = (var["name"].as_str(), var["value"].as_str()) {
                cmd.env(name, value);
            }
        }
        cmd.current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut group = ProcessGroup::spawn(&mut cmd)
            .map_err(|e| (-32603, format!("cannot start `{command}`: {e}")))?;
        let limit = params["outputByteLimit"]
            .as_u64()
            .map_or(DEFAULT_OUTPUT_LIMIT, |l| {
                usize::try_from(l).unwrap_or(usize::MAX)
            });
        let output = Arc::new(Mutex::new(Output::default()));
        let (done_tx, mut done_rx) = mpsc::channel::<()>(2);
        for pipe in [
            group
                .child()
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>),
            group
                .child()
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        {
            tokio::spawn(collect(pipe, output.clone(), limit, done_tx.clone()));
        }
        drop(done_tx);
        let (exit_tx, exit_rx) = watch::channel(None);
        let (kill_tx, kill_rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            tokio::select! {
                status = group.wait() => {
                    // The output is complete once both pipes are read to their end.
                    while done_rx.recv().await.is_some() {}
                    let _ = exit_tx.send(status.ok());
                }
                _ = kill_rx => {
                    let _ = group.kill();
                    let status = group.wait().await.ok();
                    let _ = exit_tx.send(status);
                }
            }
        });
        self.next += 1;
        let id = format!("acp-check-term-{}", self.next);
        self.running.insert(
            id.clone(),
            Terminal {
                output,
                exit: exit_rx,
                kill: Some(kill_tx),
            },
        );
        Ok(json!({ "terminalId": id }))
    }

    fn find(&mut self, params: &Value) -> Result<&mut Terminal, (i64, String)> {
        let id = params["terminalId"].as_str().unwrap_or_default();
        self.running
            .get_mut(id)
            .ok_or_else(|| (-32002, format!("no terminal `{id}`")))
    }

    /// `terminal/output`.
    pub(crate) fn output(&mut self, params: &Value) -> Answer {
        let terminal = self.find(params)?;
        let output = terminal
            .output
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut answer = json!({
            "output": String::from_utf8_lossy(&output.bytes),
            "truncated": output.truncated,
        });
        if let Some(status) = terminal.exit.borrow().as_ref() {
            answer["exitStatus"] = exit_status(status);
        }
        Ok(answer)
    }

    /// `terminal/kill`.
    pub(crate) fn kill(&mut self, params: &Value) -> Answer {
        let terminal = self.find(params)?;
        if let Some(kill) = terminal.kill.take() {
            let _ = kill.send(());
        }
        Ok(json!({}))
    }

    /// `terminal/release`: kills the command if it runs and forgets the terminal.
    pub(crate) fn release(&mut self, params: &Value) -> Answer {
        self.kill(params)?;
        let id = params["terminalId"].as_str().unwrap_or_default();
        self.running.remove(id);
        Ok(json!({}))
    }

    /// `terminal/wait_for_exit`: a future that answers once the command exited, so that the
    /// checker goes on serving meanwhile.
    pub(crate) fn wait_for_exit(
        &mut self,
        params: &Value,
    ) -> Result<impl Future<Output = Answer> + Send + 'static, (i64, String)> {
        let mut exit = self.find(params)?.exit.clone();
        Ok(async move {
            let waited = tokio::time::timeout(WAIT_LIMIT, exit.wait_for(Option::is_some)).await;
            match waited {
                Ok(Ok(status)) => Ok(status.as_ref().map_or(json!({}), exit_status)),
                Ok(Err(_)) => Err((-32603, "the terminal was released".to_owned())),
                Err(_) => Err((-32603, format!("the command ran past {WAIT_LIMIT:?}"))),
            }
        })
    }
}

/// Reads `pipe` into `output`, keeping at most `limit` bytes (the latest ones, cut at a
/// character boundary).
async fn collect(
    mut pipe: Box<dyn AsyncRead + Send + Unpin>,
    output: Arc<Mutex<Output>>,
    limit: usize,
    _done: mpsc::Sender<()>,
) {
    let mut chunk = vec![0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
        output.bytes.extend_from_slice(&chunk[..n]);
        if output.bytes.len() > limit {
            let mut cut = output.bytes.len() - limit;
            // Do not start inside a UTF-8 sequence.
            while cut < output.bytes.len() && (output.bytes[cut] & 0xC0) == 0x80 {
                cut += 1;
            }
            output.bytes.drain(..cut);
            output.truncated = true;
        }
    }
}
