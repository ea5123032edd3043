//! What a turn reports as it works: tool calls, the plan, and the user's permission decisions.
//!
//! ```no_run
//! # use acp_agent::{Error, PromptContext, permission_options};
//! # use acp_types::*;
//! # #[allow(dead_code)]
//! # async fn turn(cx: PromptContext) -> Result<(), Error> {
//! let plan = cx.plan(["Read the file", "Edit it"]).await?;
//! let read = cx.tool_call("Read notes.txt", ToolKind::Read).await?;
//! plan.start(0).await?;
//! let text = cx.read_text_file("/work/notes.txt").await?;
//! read.completed_with(text.clone()).await?;
//! plan.complete(0).await?;
//!
//! let edit = cx.tool_call("Edit notes.txt", ToolKind::Edit).await?;
//! edit.diff("/work/notes.txt", Some(&text), "new text").await?;
//! if edit.ask(permission_options::allow_once_always_reject()).await?.is_allowed() {
//!     cx.write_text_file("/work/notes.txt", "new text").await?;
//!     edit.completed().await?;
//! } else {
//!     edit.failed().await?;
//! }
//! plan.complete(1).await?;
//! # Ok(()) }
//! ```

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use acp_types::*;

use crate::{Error, PromptContext};

/// A tool call of the running turn, started with [`PromptContext::tool_call`] (a `tool_call`
/// update) and reported on with `tool_call_update`s.
///
/// Content accumulates: [`content`](Self::content), [`diff`](Self::diff) and
/// [`terminal`](Self::terminal) add to what was shown before (the protocol's updates replace
/// the whole list; the handle keeps it).
#[derive(Debug, Clone)]
pub struct ToolCallHandle {
    cx: PromptContext,
    id: ToolCallId,
    /// The title it started with, for the permission request.
    title: Option<String>,
    content: Arc<Mutex<Vec<ToolCallContent>>>,
}

impl ToolCallHandle {
    pub(crate) fn new(cx: PromptContext, call: &ToolCall) -> Self {
        Self {
            cx,
            id: call.tool_call_id.clone(),
            title: Some(call.title.clone()),
            content: Arc::new(Mutex::new(call.content.clone().unwrap_or_default())),
        }
    }

    /// The tool call's id.
    pub fn id(&self) -> &ToolCallId {
        &self.id
    }

    /// Sends `update` as is (its id is this call's, whatever it held). Content it carries
    /// replaces what the client shows, but not what the handle accumulates for
    /// [`content`](Self::content) and the others.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn update(&self, mut update: ToolCallUpdate) -> Result<(), Error> {
        update.tool_call_id = self.id.clone();
        self.cx.update(SessionUpdate::from(update)).await
    }

    fn with_status(&self, status: ToolCallStatus) -> ToolCallUpdate {
        ToolCallUpdate::new(self.id.clone()).status(status)
    }

    /// Marks the call `in_progress`.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn in_progress(&self) -> Result<(), Error> {
        self.update(self.with_status(ToolCallStatus::InProgress))
            .await
    }

    /// Adds `content` to what the call shows (text, or any [`ToolCallContent`]).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn content(&self, content: impl Into<ToolCallContent>) -> Result<(), Error> {
        let all = {
            let mut shown = self.content.lock().unwrap_or_else(PoisonError::into_inner);
            shown.push(content.into());
            shown.clone()
        };
        self.update(ToolCallUpdate::new(self.id.clone()).content(all))
            .await
    }

    /// Adds a diff of `path` (`old` is `None` for a new file) to what the call shows.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn diff(
        &self,
        path: impl AsRef<Path>,
        old: Option<&str>,
        new: &str,
    ) -> Result<(), Error> {
        let mut diff = Diff::new(path, new);
        if let Some(old) = old {
            diff = diff.old_text(old);
        }
        self.content(ToolCallContent::Diff(diff)).await
    }

    /// Embeds a client terminal in the call: the client shows its output live.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn terminal(&self, terminal: &crate::TerminalHandle) -> Result<(), Error> {
        self.content(terminal.content()).await
    }

    /// Asks the user to approve this call (named by its title), offering `options`; the
    /// answer says which kind of option was chosen (see [`Permission`]). A cancelled turn
    /// answers [`Permission::Cancelled`].
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn ask(&self, options: Vec<PermissionOption>) -> Result<Permission, Error> {
        let offered = options.clone();
        let call =
            ToolCallUpdate::new(self.id.clone()).maybe(self.title.clone(), ToolCallUpdate::title);
        let outcome = self.cx.request_permission(call, options).await?;
        Ok(Permission::of(&outcome, &offered))
    }

    /// Marks the call `completed`.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn completed(&self) -> Result<(), Error> {
        self.update(self.with_status(ToolCallStatus::Completed))
            .await
    }

    /// Adds `content` and marks the call `completed`, in one update.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn completed_with(&self, content: impl Into<ToolCallContent>) -> Result<(), Error> {
        let all = {
            let mut shown = self.content.lock().unwrap_or_else(PoisonError::into_inner);
            shown.push(content.into());
            shown.clone()
        };
        self.update(self.with_status(ToolCallStatus::Completed).content(all))
            .await
    }

    /// Marks the call `failed`.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn failed(&self) -> Result<(), Error> {
        self.update(self.with_status(ToolCallStatus::Failed)).await
    }

    /// Adds `content` (the reason) and marks the call `failed`, in one update.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn failed_with(&self, content: impl Into<ToolCallContent>) -> Result<(), Error> {
        let all = {
            let mut shown = self.content.lock().unwrap_or_else(PoisonError::into_inner);
            shown.push(content.into());
            shown.clone()
        };
        self.update(self.with_status(ToolCallStatus::Failed).content(all))
            .await
    }
}

/// What the user decided about a permission request, by the kind of the option chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Permission {
    /// An `allow_once` option.
    AllowedOnce,
    /// An `allow_always` option: remember it.
    AllowedAlways,
    /// A `reject_once` option.
    RejectedOnce,
    /// A `reject_always` option: remember it.
    RejectedAlways,
    /// The turn was cancelled before the user chose.
    Cancelled,
    /// An option that was not offered, or of a kind this crate does not know, or an outcome
    /// it does not know: treat it as a refusal.
    Unrecognized(Option<PermissionOptionId>),
}

impl Permission {
    /// The decision `outcome` stands for, given the `options` that were offered.
    pub fn of(outcome: &RequestPermissionOutcome, options: &[PermissionOption]) -> Self {
        let RequestPermissionOutcome::Selected(selected) = outcome else {
            return match outcome {
                RequestPermissionOutcome::Cancelled(_) => Permission::Cancelled,
                _ => Permission::Unrecognized(None),
            };
        };
        let kind = options
            .iter()
            .find(|o| o.option_id == selected.option_id)
            .map(|o| &o.kind);
        match kind {
            Some(PermissionOptionKind::AllowOnce) => Permission::AllowedOnce,
            Some(PermissionOptionKind::AllowAlways) => Permission::AllowedAlways,
            Some(PermissionOptionKind::RejectOnce) => Permission::RejectedOnce,
            Some(PermissionOptionKind::RejectAlways) => Permission::RejectedAlways,
            _ => Permission::Unrecognized(Some(selected.option_id.clone())),
        }
    }

    /// True for an allow option (once or always).
    pub fn is_allowed(&self) -> bool {
        matches!(self, Permission::AllowedOnce | Permission::AllowedAlways)
    }

    /// True for an `always` option, allowing or rejecting: the choice should be remembered.
    pub fn is_remembered(&self) -> bool {
        matches!(self, Permission::AllowedAlways | Permission::RejectedAlways)
    }
}

/// Ready-made option sets for [`ToolCallHandle::ask`] and
/// [`PromptContext::request_permission`].
pub mod permission_options {
    use acp_types::{PermissionOption, PermissionOptionKind};

    /// `Allow once` (`allow`) and `Reject` (`reject`).
    pub fn allow_reject() -> Vec<PermissionOption> {
        vec![
            PermissionOption::new("allow", "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ]
    }

    /// `Allow once` (`allow`), `Always allow` (`allow-always`) and `Reject` (`reject`).
    pub fn allow_once_always_reject() -> Vec<PermissionOption> {
        vec![
            PermissionOption::new("allow", "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                "allow-always",
                "Always allow",
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ]
    }

    /// All four kinds: `allow`, `allow-always`, `reject`, `reject-always`.
    pub fn all() -> Vec<PermissionOption> {
        let mut options = allow_once_always_reject();
        options.push(PermissionOption::new(
            "reject-always",
            "Always reject",
            PermissionOptionKind::RejectAlways,
        ));
        options
    }
}

/// The plan of the running turn, published with [`PromptContext::plan`]; each change sends
/// the whole plan again, as the protocol requires.
#[derive(Debug, Clone)]
pub struct PlanHandle {
    cx: PromptContext,
    entries: Arc<Mutex<Vec<PlanEntry>>>,
}

impl PlanHandle {
    pub(crate) fn new(cx: PromptContext, entries: Vec<PlanEntry>) -> Self {
        Self {
            cx,
            entries: Arc::new(Mutex::new(entries)),
        }
    }

    /// The entries as last published.
    pub fn entries(&self) -> Vec<PlanEntry> {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    async fn change(&self, change: impl FnOnce(&mut Vec<PlanEntry>)) -> Result<(), Error> {
        let entries = {
            let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            change(&mut entries);
            entries.clone()
        };
        self.cx.update(Plan::new(entries)).await
    }

    /// Sets the status of entry `index` (out-of-range indices change nothing, but the plan is
    /// still sent).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn set_status(&self, index: usize, status: PlanEntryStatus) -> Result<(), Error> {
        self.change(|entries| {
            if let Some(entry) = entries.get_mut(index) {
                entry.status = status;
            }
        })
        .await
    }

    /// Marks entry `index` `in_progress`.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn start(&self, index: usize) -> Result<(), Error> {
        self.set_status(index, PlanEntryStatus::InProgress).await
    }

    /// Marks entry `index` `completed`.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn complete(&self, index: usize) -> Result<(), Error> {
        self.set_status(index, PlanEntryStatus::Completed).await
    }

    /// Appends a pending entry and returns its index.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn push(&self, content: impl Into<String>) -> Result<usize, Error> {
        let mut index = 0;
        let content = content.into();
        self.change(|entries| {
            index = entries.len();
            entries.push(pending(content));
        })
        .await?;
        Ok(index)
    }
}

/// A pending, medium-priority plan entry.
pub(crate) fn pending(content: String) -> PlanEntry {
    PlanEntry::new(content, PlanEntryPriority::Medium, PlanEntryStatus::Pending)
}
