//! A policy proxy: permission requests for edits outside one directory are refused without
//! asking the editor; every other permission request goes to the editor as usual.
//!
//! ```text
//! acp conduct -- "policy /home/me/project" "my-agent"
//! ```

use std::path::{Component, Path, PathBuf};

use acp_proxy::{Context, Proxy};
use acp_types::{
    ErrorObject, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, ToolKind, methods,
};

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
) -> Result<RequestPermissionResponse, ErrorObject> {
    let tool = &request.tool_call;
    let edits = matches!(
        tool.kind,
        Some(ToolKind::Edit | ToolKind::Delete | ToolKind::Move)
    );
    let outside = tool
        .locations
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
    let proxy = Proxy::new().on_request_permission(move |cx, request| decide(cx, request, root));
    let (_cx, driver) = proxy.serve_stdio();
    driver.await
}
