//! A policy proxy: permission requests for edits outside one directory are refused without
//! asking the editor; every other permission request goes to the editor as usual.
//!
//! A permission request often names its tool call by id alone (its kind and locations came
//! earlier, in `session/update`s): the proxy keeps what the updates said of each tool call
//! still running, per session, and reads the request with it.
//!
//! ```text
//! acp conduct -- "policy /home/me/project" "my-agent"
//! ```

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use acp_proxy::{Context, Proxy};
use acp_types::{
    ErrorObject, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionId, SessionNotification,
    SessionUpdate, ToolCallId, ToolCallLocation, ToolCallStatus, ToolKind, methods,
};

/// The most running tool calls remembered; past it the memory starts over (a request then
/// decides on what it carries itself).
const MAX_TRACKED: usize = 4096;

/// What the updates said of a running tool call.
#[derive(Default, Clone)]
struct Seen {
    kind: Option<ToolKind>,
    locations: Option<Vec<ToolCallLocation>>,
}

/// The running tool calls, by session and id.
type Tracked = Arc<Mutex<HashMap<(SessionId, ToolCallId), Seen>>>;

/// Remembers the kind and locations of the tool calls an update starts or changes, forgets
/// the finished ones, and passes the update on unchanged.
async fn track(
    cx: Context,
    update: SessionNotification,
    tracked: Tracked,
) -> Result<(), ErrorObject> {
    remember(&tracked, &update);
    forward(cx, &update).await
}

/// Takes note of what `update` says of a tool call, if anything.
fn remember(tracked: &Tracked, update: &SessionNotification) {
    let (id, kind, locations, status) = match &update.update {
        SessionUpdate::ToolCall(call) => (
            &call.tool_call_id,
            call.kind.clone(),
            call.locations.clone(),
            call.status.clone(),
        ),
        SessionUpdate::ToolCallUpdate(call) => (
            &call.tool_call_id,
            call.kind.clone(),
            call.locations.clone(),
            call.status.clone(),
        ),
        _ => return,
    };
    let mut calls = tracked.lock().unwrap_or_else(PoisonError::into_inner);
    let key = (update.session_id.clone(), id.clone());
    if matches!(
        status,
        Some(ToolCallStatus::Completed | ToolCallStatus::Failed)
    ) {
        calls.remove(&key);
        return;
    }
    if calls.len() >= MAX_TRACKED && !calls.contains_key(&key) {
        calls.clear();
    }
    let seen = calls.entry(key).or_default();
    if kind.is_some() {
        seen.kind = kind;
    }
    if locations.is_some() {
        seen.locations = locations;
    }
}

async fn forward(cx: Context, update: &SessionNotification) -> Result<(), ErrorObject> {
    cx.predecessor()
        .notify::<methods::SessionUpdate>(update)
        .await
}

/// True when `path` is inside `root`, after resolving `.` and `..` lexically (the agent's
/// paths are absolute; a relative one is treated as outside).
fn inside(root: &Path, path: &Path) -> bool {
    if !path.is_absolute() {
        return false;
    }
    let mut resolved = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved.starts_with(root)
}

/// Refuses an edit that touches a path outside `root`, else asks the editor.
async fn decide(
    cx: Context,
    request: RequestPermissionRequest,
    root: &Path,
    tracked: Tracked,
) -> Result<RequestPermissionResponse, ErrorObject> {
    let tool = &request.tool_call;
    let seen = tracked
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&(request.session_id.clone(), tool.tool_call_id.clone()))
        .cloned()
        .unwrap_or_default();
    // What the request says wins over what the updates said.
    let kind = tool.kind.clone().or(seen.kind);
    let locations = tool.locations.clone().or(seen.locations);
    let edits = matches!(
        kind,
        Some(ToolKind::Edit | ToolKind::Delete | ToolKind::Move)
    );
    let outside = locations
        .iter()
        .flatten()
        .any(|location| !inside(root, Path::new(&location.path)));
    if edits && outside {
        let reject = request.options.iter().find(|option| {
            matches!(
                option.kind,
                PermissionOptionKind::RejectOnce | PermissionOptionKind::RejectAlways
            )
        });
        tracing::info!(tool = %tool.tool_call_id, "refused: an edit outside {}", root.display());
        let outcome = match reject {
            Some(option) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                option.option_id.clone(),
            )),
            None => RequestPermissionOutcome::Cancelled(Default::default()),
        };
        return Ok(RequestPermissionResponse::new(outcome));
    }
    cx.predecessor()
        .request::<methods::SessionRequestPermission>(&request)
        .await
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), acp_rpc::Error> {
    let root = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("/nonexistent"), PathBuf::from);
    // Lives as long as the program.
    let root: &'static Path = Box::leak(root.into_boxed_path());
    let tracked = Tracked::default();
    let seen = tracked.clone();
    let proxy = Proxy::new()
        .on_session_update(move |cx, update| track(cx, update, seen.clone()))
        .on_request_permission(move |cx, request| decide(cx, request, root, tracked.clone()));
    let (_cx, driver) = proxy.serve_stdio();
    driver.await
}
