//! The chain without proxies: the editor's bytes go to the agent and the agent's to the editor
//! unchanged (no re-framing, no re-serialization). Each message is looked at only to know which
//! of the editor's requests are open, so that if the agent ends, each of them still gets its
//! answer: an error saying how the agent ended.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use acp_codec::{AnyCodec, AutoCodec, Frame, Framing, FramingMode};
use acp_rpc::Direction;
use acp_types::{ErrorObject, RequestId};
use bytes::BytesMut;
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_util::codec::{Decoder, Encoder};

use crate::Link;
use crate::component::Pipes;
use crate::conductor::{Ended, Observe};
use crate::supervise::Processes;

/// How much is read at a time.
const READ_CHUNK: usize = 64 * 1024;
/// How long a component that ended gets to exit, so that the errors can say how it ended;
/// and how long the agent's last output gets to reach the editor after it exited.
const END_WAIT: Duration = Duration::from_secs(1);

/// How long the agent's last output (its answers to the editor's last requests) gets to reach
/// the editor once the editor's input ended; an agent exits when its input ends.
const HANG_UP_DRAIN: Duration = Duration::from_secs(5);

/// The editor's requests the agent has not answered yet, with their methods.
type Open = Arc<Mutex<HashMap<RequestId, String>>>;

/// The members of a message the relay needs.
#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
}

/// The members of the agent's message the relay needs: is it a response, and to which id.
#[derive(Deserialize)]
struct PeekResponse {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(default)]
    method: Option<IgnoredAny>,
}

/// What the relay shares between its two directions.
struct Shared {
    open: Open,
    /// The editor's framing, once detected: the errors of an ended chain are written in it.
    framing: OnceLock<Framing>,
    /// True while the last bytes written to the editor end in the middle of a line.
    mid_line: AtomicBool,
    observe: Option<Observe>,
}

impl Shared {
    fn observe(&self, link: Link, direction: Direction, body: &[u8]) {
        if let Some(observe) = &self.observe {
            observe(link, direction, body);
        }
    }

    /// Notes a message from the editor: a request is open until answered.
    fn note_editor(&self, body: &[u8]) {
        self.observe(Link::Predecessor, Direction::Received, body);
        self.observe(Link::Component(0), Direction::Sent, body);
        if let Ok(Peek {
            id: Some(id),
            method: Some(method),
        }) = serde_json::from_slice::<Peek<'_>>(body)
        {
            self.open
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id, method.into_owned());
        }
    }

    /// Notes a message from the agent: a response closes the request it answers.
    fn note_agent(&self, body: &[u8]) {
        self.observe(Link::Component(0), Direction::Received, body);
        self.observe(Link::Predecessor, Direction::Sent, body);
        // Requests and notifications, as the serializers we know write them: no need to look.
        if body.starts_with(br#"{"jsonrpc":"2.0","method":"#) {
            return;
        }
        if let Ok(PeekResponse {
            id: Some(id),
            method: None,
        }) = serde_json::from_slice::<PeekResponse>(body)
        {
            self.open
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
        }
    }
}

/// Why a [`pump`] stopped before the end of its input.
enum Stopped {
    /// Reading its input failed.
    Reading(std::io::Error),
    /// Writing its output failed.
    Writing(std::io::Error),
}

impl From<Stopped> for std::io::Error {
    fn from(stopped: Stopped) -> Self {
        match stopped {
            Stopped::Reading(e) | Stopped::Writing(e) => e,
        }
    }
}

/// Copies `from` to `to` unchanged, one read at a time, handing each complete message to
/// `note` first. Ends at the end of `from` or when either side fails.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    to: &mut (impl AsyncWrite + Unpin),
    note: impl Fn(&[u8], Option<Framing>),
    mut written: impl FnMut(&[u8]),
) -> Result<(), Stopped> {
    let mut chunk = vec![0u8; READ_CHUNK];
    let mut codec = AutoCodec::new();
    let mut buf = BytesMut::new();
    loop {
        let n = from.read(&mut chunk).await.map_err(Stopped::Reading)?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        // A framing error only ends the tracking, never the relay: the bytes still go on.
        while let Ok(Some(frame)) = codec.decode(&mut buf) {
            if let Frame::Message(body) = frame {
                note(&body, codec.framing());
            }
        }
        to.write_all(&chunk[..n]).await.map_err(Stopped::Writing)?;
        to.flush().await.map_err(Stopped::Writing)?;
        written(&chunk[..n]);
    }
}

/// Runs the relay until the editor closes the connection or the agent ends.
pub(crate) async fn run<R, W>(
    reader: R,
    writer: W,
    pipes: Vec<Pipes>,
    mut processes: Processes,
    observe: Option<Observe>,
) -> (Ended, Processes)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let Some(Pipes { stdin, stdout }) = pipes.into_iter().next() else {
        unreachable!("the relay runs one component");
    };
    let shared = Arc::new(Shared {
        open: Open::default(),
        framing: OnceLock::new(),
        mid_line: AtomicBool::new(false),
        observe,
    });

    let to_agent = {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut stdin = stdin;
            let result = pump(
                reader,
                &mut stdin,
                |body, framing| {
                    if let Some(framing) = framing {
                        let _ = shared.framing.set(framing);
                    }
                    shared.note_editor(body);
                },
                |_| {},
            )
            .await;
            // The end of the editor's input is the end of the agent's.
            let _ = stdin.shutdown().await;
            result.map_err(std::io::Error::from)
        })
    };
    let to_editor = {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut writer = writer;
            let result = pump(
                stdout,
                &mut writer,
                |body, _| shared.note_agent(body),
                |bytes| {
                    shared
                        .mid_line
                        .store(bytes.last() != Some(&b'\n'), Ordering::Relaxed);
                },
            )
            .await;
            (writer, result)
        })
    };
    let to_editor_abort = to_editor.abort_handle();
    let mut to_agent = to_agent;
    let mut to_editor = to_editor;

    let agent_output = tokio::select! {
        result = &mut to_agent => {
            // The editor's input ended: the agent's input is closed, and it stops by itself;
            // what it still writes (answers to the last requests) is passed on meanwhile.
            let result = result.unwrap_or_else(|e| Err(std::io::Error::other(e)));
            let _ = tokio::time::timeout(HANG_UP_DRAIN, &mut to_editor).await;
            to_editor_abort.abort();
            return (Ended::Predecessor(result), processes);
        }
        output = &mut to_editor => match output {
            // Writing to the editor failed: the editor is gone (its end of input may not have
            // been read yet), not the agent. The agent's input closes with the relay.
            Ok((_, Err(Stopped::Writing(error)))) => {
                to_agent.abort();
                return (Ended::Predecessor(Err(error)), processes);
            }
            output => Some(output),
        },
        _ = processes.exited() => None,
    };
    to_agent.abort();
    let how = processes.how_ended(0, END_WAIT).await;
    tracing::warn!(
        agent = processes.name(0),
        "the chain ended: the agent {how}"
    );
    // The agent's last output first (helpers it left may hold its stdout open: bounded).
    let output = match agent_output {
        Some(output) => Some(output),
        None => tokio::time::timeout(END_WAIT, &mut to_editor).await.ok(),
    };
    let Some(Ok((mut writer, _))) = output else {
        to_editor_abort.abort();
        return (Ended::Component { index: 0, how }, processes);
    };
    answer_open(&shared, &mut writer, processes.name(0), &how).await;
    (Ended::Component { index: 0, how }, processes)
}

/// Answers every open request of the editor with an error saying how the agent ended.
async fn answer_open(
    shared: &Shared,
    writer: &mut (impl AsyncWrite + Unpin),
    agent: &str,
    how: &str,
) {
    let open: Vec<(RequestId, String)> = shared
        .open
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain()
        .collect();
    if open.is_empty() {
        return;
    }
    let framing = shared.framing.get().copied().unwrap_or(Framing::Ndjson);
    let mut codec = AnyCodec::new(FramingMode::from(framing));
    let mut out = BytesMut::new();
    // A message the agent left unfinished would swallow the first answer.
    if framing == Framing::Ndjson && shared.mid_line.load(Ordering::Relaxed) {
        out.extend_from_slice(b"\n");
    }
    for (id, method) in open {
        let error = ErrorObject::internal_error(format_args!(
            "`{method}` was not answered: the chain ended: `{agent}` (component 0) {how}"
        ));
        let mut body = Vec::new();
        let written = serde_json::to_writer(
            &mut body,
            &serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": error }),
        );
        if written.is_ok() && codec.encode(&body[..], &mut out).is_ok() {
            shared.observe(Link::Predecessor, Direction::Sent, &body);
        }
    }
    if writer.write_all(&out).await.is_ok() {
        let _ = writer.flush().await;
    }
}
