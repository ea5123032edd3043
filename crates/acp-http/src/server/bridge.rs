//! A bridge for stdio agents: every remote connection gets a child process of its own, and
//! the messages are relayed between the connection and the child's stdio as they are, without
//! being decoded into types, so that any existing stdio agent becomes a remote one.
//!
//! The child runs in a process group of its own ([`acp_client::ProcessGroup`]): when the
//! connection ends (DELETE, the WebSocket closing, a stall, an idle timeout, the server
//! shutting down) the child and everything it started are killed. When the child exits, the
//! connection ends. Its stderr goes to `tracing` (or where [`BridgeOptions::stderr`] says),
//! bounded per line and drained to the end.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use acp_client::{ProcessGroup, Stderr, forward_stderr};
use acp_codec::{AnyCodec, Frame, FramingMode};
use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use tokio::process::Command;
use tokio::sync::mpsc;
use tokio_util::codec::{FramedRead, FramedWrite};

use crate::server::link::{Backend, CHANNEL_MESSAGES, Inbound, Link};
use crate::server::{AcpServer, Peer, ServerOptions};

/// How a bridged agent program is run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BridgeOptions {
    /// How the program frames messages on its stdio: NDJSON, as the ACP specification says,
    /// unless told otherwise.
    pub framing: FramingMode,
    /// The largest message relayed, either way.
    pub max_frame_len: usize,
    /// What happens to the program's stderr.
    pub stderr: Stderr,
    /// How long the program has to exit once its connection ended and its stdin closed,
    /// before its process group is terminated (and killed after as long again).
    pub grace: Duration,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        Self {
            framing: FramingMode::Ndjson,
            max_frame_len: acp_codec::DEFAULT_MAX_FRAME_LEN,
            stderr: Stderr::Tracing,
            grace: Duration::from_secs(2),
        }
    }
}

impl BridgeOptions {
    /// Sets the program's framing.
    #[must_use]
    pub fn framing(mut self, framing: FramingMode) -> Self {
        self.framing = framing;
        self
    }

    /// Sets what happens to the program's stderr.
    #[must_use]
    pub fn stderr(mut self, stderr: Stderr) -> Self {
        self.stderr = stderr;
        self
    }
}

type MakeCommand = dyn Fn() -> Command + Send + Sync;

/// Agent programs, one child per connection.
struct Programs {
    command: Arc<MakeCommand>,
    options: BridgeOptions,
}

impl AcpServer {
    /// A server that runs the agent *program* made by `command` for each connection and
    /// relays its stdio, so that any stdio agent (`codex-acp`, `claude-code-acp`, ...) can be
    /// reached over HTTP and WebSocket.
    ///
    /// ```no_run
    /// # #[allow(dead_code)]
    /// # async fn f() -> std::io::Result<()> {
    /// use acp_http::server::{AcpServer, BridgeOptions, ServerOptions, serve};
    ///
    /// let server = AcpServer::bridge(
    ///     || tokio::process::Command::new("my-stdio-agent"),
    ///     ServerOptions::default(),
    ///     BridgeOptions::default(),
    /// );
    /// let listener = acp_http::server::bind("127.0.0.1:8123").await?;
    /// serve(listener, server, async { let _ = tokio::signal::ctrl_c().await; }).await
    /// # }
    /// ```
    ///
    /// The protocol rules of [`ServerOptions::agent`] do not apply: the program enforces its
    /// own.
    pub fn bridge(
        command: impl Fn() -> Command + Send + Sync + 'static,
        options: ServerOptions,
        bridge: BridgeOptions,
    ) -> Self {
        let programs = Programs {
            command: Arc::new(command),
            options: bridge,
        };
        Self::with_backend(Box::new(programs), options)
    }
}

impl Backend for Programs {
    fn open(&self, _peer: &Peer) -> io::Result<Link> {
        let mut command = (self.command)();
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(match self.options.stderr {
                Stderr::Inherit => std::process::Stdio::inherit(),
                Stderr::Discard => std::process::Stdio::null(),
                _ => std::process::Stdio::piped(),
            });
        let mut group = ProcessGroup::spawn(&mut command)?;
        let child = group.child();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other(
                "the agent program's stdio could not be piped",
            ));
        };
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(forward_stderr(stderr, self.options.stderr.clone()));
        }
        tracing::debug!(pid = ?group.id(), "started a bridged agent program");
        let (to_agent, mut to_agent_rx) = mpsc::channel::<Inbound>(CHANNEL_MESSAGES);
        let (from_agent_tx, from_agent) = mpsc::channel::<Bytes>(CHANNEL_MESSAGES);
        let codec = || AnyCodec::with_max_len(self.options.framing, self.options.max_frame_len);
        let mut writer = FramedWrite::new(stdin, codec());
        let mut reader = FramedRead::new(stdout, codec());
        let grace = self.options.grace;
        let task = tokio::spawn(async move {
            // The process group lives in this task: aborting the task (the connection ended)
            // drops it, which kills the group.
            let mut group = group;
            let to_program = async {
                while let Some(inbound) = to_agent_rx.recv().await {
                    if let Err(error) = writer.send(inbound.message).await {
                        tracing::debug!(%error, "the bridged agent program stopped reading");
                        return;
                    }
                }
                // The connection ended: the program sees the end of its input.
                let _ = SinkExt::<Bytes>::close(&mut writer).await;
            };
            let mut from_program = Box::pin(async move {
                while let Some(frame) = reader.next().await {
                    match frame {
                        Ok(Frame::Message(message)) => {
                            if from_agent_tx.send(message).await.is_err() {
                                return;
                            }
                        }
                        Ok(Frame::Oversized { limit }) => {
                            tracing::warn!(
                                limit,
                                "the bridged agent program wrote a message over the limit: skipped"
                            );
                        }
                        Ok(_) => {}
                        Err(error) => {
                            tracing::warn!(%error, "the bridged agent program's output cannot be read");
                            return;
                        }
                    }
                }
            });
            tokio::pin!(to_program);
            tokio::select! {
                () = &mut from_program => {}
                () = &mut to_program => {
                    // Input closed: let the program finish what it writes, for a while.
                    let _ = tokio::time::timeout(grace, &mut from_program).await;
                }
            }
            // The connection sees the agent's end.
            drop(from_program);
            match group.stop(grace).await {
                Ok(stopped) => tracing::debug!(%stopped, "a bridged agent program ended"),
                Err(error) => tracing::warn!(%error, "could not stop a bridged agent program"),
            }
        });
        Ok(Link {
            to_agent,
            from_agent,
            task,
            // A program's own output: any layout.
            ours: false,
        })
    }
}
