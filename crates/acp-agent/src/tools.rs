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
    /// The tool's programmatic name it started with (`name`), for the permission request: a
    /// client may decide by it (always allow `read_file`) where the title is for display.
    name: Option<String>,
    content: Arc<Mutex<Vec<ToolCallContent>>>,
}

impl ToolCallHandle {
    pub(crate) fn new(cx: PromptContext, call: &ToolCall) -> Self {
        Self {
            cx,
            id: call.tool_call_id.clone(),
            title: Some(call.title.clone()),
            name: call.name.clone(),
            content: Arc::new(Mutex::new(call.content.clone().unwrap_or_default())),
        }
    }

    /// The context of the turn the call belongs to.
    #[cfg(feature = "unstable_protocol_v2")]
    pub(crate) fn context(&self) -> &PromptContext {
        &self.cx
    }

    /// The tool call's id.
    pub fn id(&self) -> &ToolCallId {
        &self.id
    }

    /// The tool's programmatic name the call started with (`name`), if it had one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
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
    /// On a v2 connection only the new item goes out, as a `tool_call_content_chunk` the
    /// client appends; on v1, which has no chunks, a `tool_call_update` with the whole content
    /// the handle accumulated (the client then shows the same). A
    /// [`SessionStore`](crate::SessionStore) records the whole content either way, so that a
    /// replay shows it.
    ///
    /// # Errors
    ///
    /// On v2, `Error::Unconvertible` for content v2 cannot say (nothing is sent or added);
    /// or when the connection is closed.
    pub async fn content(&self, content: impl Into<ToolCallContent>) -> Result<(), Error> {
        let content = content.into();
        #[cfg(feature = "unstable_protocol_v2")]
        if self.cx.client().is_v2() {
            return self.content_chunk(content).await;
        }
        let all = {
            let mut shown = self.content.lock().unwrap_or_else(PoisonError::into_inner);
            shown.push(content);
            shown.clone()
        };
        self.update(ToolCallUpdate::new(self.id.clone()).content(all))
            .await
    }

    /// Sends `content` as a v2 content chunk, recording the whole content.
    #[cfg(feature = "unstable_protocol_v2")]
    async fn content_chunk(&self, content: ToolCallContent) -> Result<(), Error> {
        use acp_types::v2;
        // A terminal reference here is a display terminal's: see `v2::convert::update_to_v2`.
        let item = v2::convert::tool_call_content(content.clone(), v2::convert::Terminals::Keep)
            .map_err(|e| Error::Unconvertible {
                what: "a tool call's content".into(),
                version: crate::v2::V2,
                reason: e.to_string(),
            })?;
        let recorded = {
            let mut shown = self.content.lock().unwrap_or_else(PoisonError::into_inner);
            shown.push(content);
            // Only a recording context needs the whole list again.
            self.cx.is_recording().then(|| shown.clone())
        };
        let chunk = v2::ToolCallContentChunk::new(self.id.clone(), item);
        self.cx
            .update_v2_recorded(chunk, || {
                let all = recorded.unwrap_or_default();
                SessionUpdate::from(ToolCallUpdate::new(self.id.clone()).content(all))
            })
            .await
    }

    /// Replaces everything the call shows with `content` (`[]` clears it): a
    /// `tool_call_update` with the whole list, on either protocol version; later
    /// [`content`](Self::content) adds to it.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn replace_content(
        &self,
        content: impl IntoIterator<Item = impl Into<ToolCallContent>>,
    ) -> Result<(), Error> {
        let all: Vec<ToolCallContent> = content.into_iter().map(Into::into).collect();
        *self.content.lock().unwrap_or_else(PoisonError::into_inner) = all.clone();
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

    /// Asks the user to approve this call (named by its title, and by its tool's name when it
    /// has one), offering `options`; the answer says which kind of option was chosen (see
    /// [`Permission`]). A cancelled turn answers [`Permission::Cancelled`].
    ///
    /// # Errors
    ///
    /// When the client fails the request or the connection closes.
    pub async fn ask(&self, options: Vec<PermissionOption>) -> Result<Permission, Error> {
        let offered = options.clone();
        let call = ToolCallUpdate::new(self.id.clone())
            .maybe(self.title.clone(), ToolCallUpdate::title)
            .maybe(self.name.clone(), ToolCallUpdate::name);
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

    /// Adds `output` (a text or any [`ToolCallContent`], several with [`ToolOutput`], and a
    /// raw output) and marks the call `completed`, in one update.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn completed_with(&self, output: impl Into<ToolOutput>) -> Result<(), Error> {
        self.finish(ToolCallStatus::Completed, output.into()).await
    }

    /// Ends the call with `status`, adding `output`'s content and raw output.
    async fn finish(&self, status: ToolCallStatus, output: ToolOutput) -> Result<(), Error> {
        let all = {
            let mut shown = self.content.lock().unwrap_or_else(PoisonError::into_inner);
            shown.extend(output.content);
            shown.clone()
        };
        let update = self.with_status(status).content(all);
        self.update(match output.raw_output {
            Some(raw) => update.raw_output(raw),
            None => update,
        })
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

    /// Adds `output` (the reason, as for [`completed_with`](Self::completed_with)) and marks
    /// the call `failed`, in one update.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn failed_with(&self, output: impl Into<ToolOutput>) -> Result<(), Error> {
        self.finish(ToolCallStatus::Failed, output.into()).await
    }
}

/// What a tool call ends with ([`ToolCallHandle::completed_with`], [`failed_with`]): content
/// added to what it shows, and the tool's raw output. A text or a single content converts
/// into it.
///
/// ```no_run
/// # use acp_agent::{Error, ToolCallHandle, ToolOutput};
/// # use acp_types::*;
/// # #[allow(dead_code)]
/// # async fn end(call: ToolCallHandle) -> Result<(), Error> {
/// let output = ToolOutput::new(["3 matches", "in 2 files"])
///     .raw_output(serde_json::json!({ "matches": 3 }));
/// call.completed_with(output).await?;
/// # Ok(()) }
/// ```
///
/// [`failed_with`]: ToolCallHandle::failed_with
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    content: Vec<ToolCallContent>,
    raw_output: Option<serde_json::Value>,
}

impl ToolOutput {
    /// `content`, in order.
    pub fn new(content: impl IntoIterator<Item = impl Into<ToolCallContent>>) -> Self {
        Self {
            content: content.into_iter().map(Into::into).collect(),
            raw_output: None,
        }
    }

    /// Adds one more content.
    #[must_use]
    pub fn content(mut self, content: impl Into<ToolCallContent>) -> Self {
        self.content.push(content.into());
        self
    }

    /// Sets the tool's raw output (`rawOutput`).
    #[must_use]
    pub fn raw_output(mut self, raw: impl Into<serde_json::Value>) -> Self {
        self.raw_output = Some(raw.into());
        self
    }
}

impl From<ToolCallContent> for ToolOutput {
    fn from(content: ToolCallContent) -> Self {
        Self::new([content])
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self::new([text])
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        Self::new([text])
    }
}

impl From<ContentBlock> for ToolOutput {
    fn from(content: ContentBlock) -> Self {
        Self::new([content])
    }
}

impl From<Diff> for ToolOutput {
    fn from(diff: Diff) -> Self {
        Self::new([diff])
    }
}

impl From<Vec<ToolCallContent>> for ToolOutput {
    fn from(content: Vec<ToolCallContent>) -> Self {
        Self {
            content,
            raw_output: None,
        }
    }
}

/// What the user decided about a permission request, by the kind of the option chosen, with
/// the chosen option's id (to tell apart several options of one kind).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Permission {
    /// An `allow_once` option.
    AllowedOnce(PermissionOptionId),
    /// An `allow_always` option: remember it.
    AllowedAlways(PermissionOptionId),
    /// A `reject_once` option.
    RejectedOnce(PermissionOptionId),
    /// A `reject_always` option: remember it.
    RejectedAlways(PermissionOptionId),
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
        let id = selected.option_id.clone();
        let kind = options
            .iter()
            .find(|o| o.option_id == selected.option_id)
            .map(|o| &o.kind);
        match kind {
            Some(PermissionOptionKind::AllowOnce) => Permission::AllowedOnce(id),
            Some(PermissionOptionKind::AllowAlways) => Permission::AllowedAlways(id),
            Some(PermissionOptionKind::RejectOnce) => Permission::RejectedOnce(id),
            Some(PermissionOptionKind::RejectAlways) => Permission::RejectedAlways(id),
            _ => Permission::Unrecognized(Some(id)),
        }
    }

    /// The id of the option the user chose (`None` when cancelled, or for an outcome this
    /// crate does not know).
    pub fn option_id(&self) -> Option<&PermissionOptionId> {
        match self {
            Permission::AllowedOnce(id)
            | Permission::AllowedAlways(id)
            | Permission::RejectedOnce(id)
            | Permission::RejectedAlways(id) => Some(id),
            Permission::Unrecognized(id) => id.as_ref(),
            Permission::Cancelled => None,
        }
    }

    /// True for an allow option (once or always).
    pub fn is_allowed(&self) -> bool {
        matches!(
            self,
            Permission::AllowedOnce(_) | Permission::AllowedAlways(_)
        )
    }

    /// True for an `always` option, allowing or rejecting: the choice should be remembered.
    pub fn is_remembered(&self) -> bool {
        matches!(
            self,
            Permission::AllowedAlways(_) | Permission::RejectedAlways(_)
        )
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

    /// Changes the entries with `change` (statuses, priorities, contents, adding or removing
    /// entries) and publishes the result, in one update.
    ///
    /// ```no_run
    /// # use acp_agent::{Error, PlanHandle};
    /// # use acp_types::*;
    /// # #[allow(dead_code)]
    /// # async fn replan(plan: PlanHandle) -> Result<(), Error> {
    /// plan.update(|entries| {
    ///     entries[0].status = PlanEntryStatus::Completed;
    ///     entries[1].priority = PlanEntryPriority::High;
    /// })
    /// .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn update(&self, change: impl FnOnce(&mut Vec<PlanEntry>)) -> Result<(), Error> {
        let entries = {
            let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            change(&mut entries);
            entries.clone()
        };
        self.cx.update(Plan::new(entries)).await
    }

    /// Sets the status of every entry, in one update.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn set_all(&self, status: PlanEntryStatus) -> Result<(), Error> {
        self.update(|entries| {
            for entry in entries {
                entry.status = status.clone();
            }
        })
        .await
    }

    /// Sets the status of entry `index` (out-of-range indices change nothing, but the plan is
    /// still sent).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn set_status(&self, index: usize, status: PlanEntryStatus) -> Result<(), Error> {
        self.update(|entries| {
            if let Some(entry) = entries.get_mut(index) {
                entry.status = status;
            }
        })
        .await
    }

    /// Sets the priority of entry `index` (out-of-range indices change nothing, but the plan
    /// is still sent).
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn set_priority(
        &self,
        index: usize,
        priority: PlanEntryPriority,
    ) -> Result<(), Error> {
        self.update(|entries| {
            if let Some(entry) = entries.get_mut(index) {
                entry.priority = priority;
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

    /// Appends a pending entry (a text, medium priority, or a `(text, priority)` pair) and
    /// returns its index.
    ///
    /// # Errors
    ///
    /// When the connection is closed.
    pub async fn push(&self, entry: impl IntoPlanEntry) -> Result<usize, Error> {
        let mut index = 0;
        let entry = entry.into_plan_entry();
        self.update(|entries| {
            index = entries.len();
            entries.push(entry);
        })
        .await?;
        Ok(index)
    }
}

/// What [`PromptContext::plan`] and [`PlanHandle::push`] take as an entry: a text (a pending,
/// medium-priority entry), a `(text, priority)` pair (pending), or a whole [`PlanEntry`].
pub trait IntoPlanEntry {
    /// The entry.
    fn into_plan_entry(self) -> PlanEntry;
}

impl IntoPlanEntry for PlanEntry {
    fn into_plan_entry(self) -> PlanEntry {
        self
    }
}

impl IntoPlanEntry for String {
    fn into_plan_entry(self) -> PlanEntry {
        pending(self, PlanEntryPriority::Medium)
    }
}

impl IntoPlanEntry for &str {
    fn into_plan_entry(self) -> PlanEntry {
        pending(self.to_owned(), PlanEntryPriority::Medium)
    }
}

impl<T: Into<String>> IntoPlanEntry for (T, PlanEntryPriority) {
    fn into_plan_entry(self) -> PlanEntry {
        pending(self.0.into(), self.1)
    }
}

/// A pending plan entry.
fn pending(content: String, priority: PlanEntryPriority) -> PlanEntry {
    PlanEntry::new(content, priority, PlanEntryStatus::Pending)
}
