//! Connecting to the agent: a spawned command ([`acp_client::spawn`]), a remote agent over
//! Streamable HTTP or WebSocket ([`acp_http::client::connect`]), or the demo agent in this
//! process over an in-memory duplex pipe ([`acp_agent::serve`] on one end,
//! [`acp_client::connect`] on the other); and closing it again.

use std::io;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use acp_agent::AgentOptions;
use acp_client::{AgentHandle, AgentProcess, ClientOptions, SpawnOptions, Stderr, Stopped};
use acp_http::client::{ConnectOptions, Profile};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::{Editor, Options, Shared};
use crate::demo_agent::DemoAgent;
use crate::wire_log::{self, WireLog};

/// How long a spawned agent gets at each step of closing it: to exit by itself once its stdin
/// is closed, then to exit after SIGTERM, before SIGKILL.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The bytes the in-process pipe buffers in each direction.
const DUPLEX_BUFFER_BYTES: usize = 1024 * 1024;

/// How long closing a remote connection may take (its `DELETE`, or the WebSocket close).
const REMOTE_CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// A live connection to the agent.
pub(crate) struct Connection {
    pub(crate) agent: AgentHandle,
    /// The tasks driving the connection (and, in process, the agent).
    tasks: Vec<JoinHandle<()>>,
    /// The spawned agent's process, watched by a task of its own.
    process: Option<Watcher>,
    /// The remote connection, and how it ended (once it did).
    remote: Option<Remote>,
}

/// The task that owns a spawned agent's process: it notes when the agent exits, and closes it
/// when asked. Dropping the connection drops the task's request channel, and a closing
/// interrupted half way drops the process: either way its process group is killed.
struct Watcher {
    /// How the agent exited, once it did (`the agent exited with code 3`).
    exit: watch::Receiver<Option<String>>,
    close: Option<oneshot::Sender<oneshot::Sender<io::Result<Stopped>>>>,
    task: JoinHandle<()>,
}

/// A remote agent's connection: the handle that closes it, and what its driver said when it
/// ended.
struct Remote {
    connection: acp_http::client::Connection,
    ended: watch::Receiver<Option<String>>,
}

/// Connects as the options say.
pub(crate) async fn open(options: &Options, shared: &Arc<Shared>) -> Result<Connection, String> {
    let editor = Editor::new(shared.clone());
    let client_options = ClientOptions::default().framing(options.framing());
    if let Some(url) = &options.url {
        return remote(url, options, editor, client_options).await;
    }
    let Some((program, args)) = options.agent_command() else {
        return in_process(options, editor, client_options);
    };
    let mut client_options = client_options;
    if let Some(prefix) = &options.wire_log {
        // A spawned agent's pipes are the library's: record the messages it observes (one
        // JSON per line), not the raw frames.
        let (recv, sent) =
            wire_log::open(prefix).map_err(|e| format!("cannot create the wire log: {e}"))?;
        client_options.rpc.observer = Some(acp_client::Observer::write_lines(recv, sent));
    }
    let mut command = tokio::process::Command::new(program);
    command.args(args).current_dir(shared.workspace.root());
    let spawn_options = SpawnOptions::default()
        .client(client_options)
        .stderr(Stderr::Inherit);
    let spawned = acp_client::spawn(command, |_agent| editor, spawn_options).map_err(|e| {
        let why = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
        format!("cannot start the agent `{program}`: {why}")
    })?;
    let driver = spawned.driver;
    Ok(Connection {
        agent: spawned.agent,
        tasks: vec![tokio::spawn(async move {
            let _ = driver.await;
        })],
        process: Some(watch_process(spawned.process)),
        remote: None,
    })
}

/// A TLS configuration that trusts the certificates in the PEM file `path`, and only them.
#[cfg(feature = "tls")]
fn trusting(path: &std::path::Path) -> Result<acp_http::client::rustls::ClientConfig, String> {
    use acp_http::client::rustls;
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;

    let shown = path.display();
    let mut roots = rustls::RootCertStore::empty();
    let certificates =
        CertificateDer::pem_file_iter(path).map_err(|e| format!("--tls-ca {shown}: {e}"))?;
    for certificate in certificates {
        let certificate = certificate.map_err(|e| format!("--tls-ca {shown}: {e}"))?;
        roots
            .add(certificate)
            .map_err(|e| format!("--tls-ca {shown}: {e}"))?;
    }
    if roots.is_empty() {
        return Err(format!("--tls-ca {shown}: no certificate in the file"));
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Connects to the remote agent at `url` (the profile by its scheme, or `client_id`).
async fn remote(
    url: &str,
    options: &Options,
    editor: Editor,
    client_options: ClientOptions,
) -> Result<Connection, String> {
    // `--timeout` bounds the connection's own waits too: the handshake and each POST
    // (`initialize`'s carries the agent's answer); `--timeout 0` waits for ever.
    let limit = options.request_timeout();
    let mut connect_options = ConnectOptions::default()
        .client(client_options)
        .connect_timeout(limit)
        .post_timeout(limit)
        .close_timeout(REMOTE_CLOSE_TIMEOUT);
    if let Some(token) = &options.token {
        connect_options = connect_options
            .bearer_token(token)
            .map_err(|e| e.to_string())?;
    }
    if options.client_id_profile {
        connect_options = connect_options.profile(Profile::ClientId);
    }
    #[cfg(feature = "tls")]
    if let Some(path) = &options.tls_ca {
        connect_options = connect_options.tls_config(trusting(path)?);
    }
    let (agent, driver) = acp_http::client::connect(url, |_agent| editor, connect_options)
        .await
        .map_err(|e| format!("cannot connect to the agent: {e}"))?;
    let connection = driver.connection();
    let (ended_tx, ended) = watch::channel(None);
    let task = tokio::spawn(async move {
        let how = match driver.await {
            Ok(()) => "the agent closed the connection".to_owned(),
            Err(error) => format!("the connection ended: {error}"),
        };
        ended_tx.send_replace(Some(how));
    });
    Ok(Connection {
        agent,
        tasks: vec![task],
        process: None,
        remote: Some(Remote { connection, ended }),
    })
}

fn watch_process(mut process: AgentProcess) -> Watcher {
    let (exit_tx, exit) = watch::channel(None);
    let (close, mut close_rx) = oneshot::channel::<oneshot::Sender<io::Result<Stopped>>>();
    let task = tokio::spawn(async move {
        let mut waiting = true;
        let reply = loop {
            tokio::select! {
                status = process.wait(), if waiting => match status {
                    Ok(status) => {
                        exit_tx.send_replace(Some(describe_exit(&status)));
                        waiting = false;
                    }
                    // Unreadable: stop watching; closing still works.
                    Err(_) => waiting = false,
                },
                request = &mut close_rx => match request {
                    Ok(reply) => break reply,
                    // The connection was dropped: dropping the process kills its group.
                    Err(_) => return,
                },
            }
        };
        let mut reply = reply;
        let stopped = tokio::select! {
            stopped = process.shutdown(EXIT_GRACE) => stopped,
            // The closer gave up (a second signal): dropping the process kills its group.
            () = reply.closed() => return,
        };
        if let Ok(stopped) = &stopped {
            exit_tx.send_replace(Some(describe_exit(&stopped.status)));
        }
        let _ = reply.send(stopped);
    });
    Watcher {
        exit,
        close: Some(close),
        task,
    }
}

fn in_process(
    options: &Options,
    editor: Editor,
    client_options: ClientOptions,
) -> Result<Connection, String> {
    let (client_io, agent_io) = tokio::io::duplex(DUPLEX_BUFFER_BYTES);
    let (reader, writer) = tokio::io::split(agent_io);
    let agent_options = AgentOptions::default().framing(options.framing());
    let (_client, agent_driver) = acp_agent::serve(DemoAgent::new, reader, writer, agent_options);
    let (reader, writer) = tokio::io::split(client_io);
    let log = match &options.wire_log {
        Some(prefix) => {
            Some(wire_log::open(prefix).map_err(|e| format!("cannot create the wire log: {e}"))?)
        }
        None => None,
    };
    let (agent, client_driver) = match log {
        Some((recv, sent)) => acp_client::connect(
            |_agent| editor,
            WireLog::new(reader, recv),
            WireLog::new(writer, sent),
            client_options,
        ),
        None => acp_client::connect(|_agent| editor, reader, writer, client_options),
    };
    Ok(Connection {
        agent,
        tasks: vec![
            tokio::spawn(async move {
                let _ = agent_driver.await;
            }),
            tokio::spawn(async move {
                let _ = client_driver.await;
            }),
        ],
        process: None,
        remote: None,
    })
}

impl Connection {
    /// How the agent ended, once it did: how a spawned agent exited, or how a remote
    /// connection ended (`None` in process).
    pub(crate) fn exit(&self) -> Option<watch::Receiver<Option<String>>> {
        match (&self.process, &self.remote) {
            (Some(process), _) => Some(process.exit.clone()),
            (None, Some(remote)) => Some(remote.ended.clone()),
            (None, None) => None,
        }
    }

    /// Ends the connection. A spawned agent is closed gracefully: its stdin is closed, then its
    /// process group gets SIGTERM and SIGKILL, [`EXIT_GRACE`] apart; how it ended is returned
    /// (`None` in process or remote, or when that could not be learnt). A remote connection
    /// is closed (`DELETE`, or a WebSocket close frame), within [`REMOTE_CLOSE_TIMEOUT`].
    ///
    /// Dropped half way, the agent's process group is killed at once (a remote connection
    /// still sends its `DELETE`, from a task of its own).
    pub(crate) async fn close(mut self) -> Option<Stopped> {
        if let Some(remote) = &self.remote {
            remote.connection.close();
            // The driver says goodbye and resolves; past the bound, the tasks are aborted below.
            let mut ended = remote.ended.clone();
            let _ = tokio::time::timeout(
                REMOTE_CLOSE_TIMEOUT + Duration::from_millis(500),
                ended.wait_for(Option::is_some),
            )
            .await;
        }
        let stopped = match self.process.as_mut().and_then(|p| p.close.take()) {
            Some(close) => {
                let (reply, stopped) = oneshot::channel();
                let _ = close.send(reply);
                stopped.await.ok().and_then(Result::ok)
            }
            None => None,
        };
        // The agent has exited: what is left of the connection goes.
        for task in &self.tasks {
            task.abort();
        }
        for task in std::mem::take(&mut self.tasks) {
            let _ = task.await;
        }
        stopped
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        if let Some(process) = &self.process {
            // Dropping the process kills its group.
            process.task.abort();
        }
    }
}

/// `the agent exited with code 3`, `the agent exited with signal 9 (SIGKILL)`.
pub(crate) fn describe_exit(status: &ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("the agent exited with code {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(status) {
        return format!(
            "the agent exited with signal {signal} ({})",
            acp_client::terminals::signal_name(signal)
        );
    }
    format!("the agent exited ({status})")
}
