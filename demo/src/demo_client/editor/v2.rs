//! The editor's side of a v2 connection (feature `unstable_protocol_v2`): v2 permission
//! requests, answered by the same policy and keyboard as v1's. v2 has no client file system
//! or terminals: the library refuses those methods on a v2 connection.

use acp_types::{ErrorObject, v2};
use serde_json::json;

use super::{Choice, Editor, choices_line};

impl Editor {
    /// `session/request_permission` of a v2 agent: shows its title and subject, decides by
    /// policy or at the keyboard, and shows the answer.
    pub(super) async fn permission_v2(
        &self,
        request: v2::RequestPermissionRequest,
    ) -> Result<v2::RequestPermissionResponse, ErrorObject> {
        let output = &self.shared().output;
        let s = output.style();
        output.permission_v2(&request);
        let (policy, keyboard) = self.question();
        let options: Vec<Choice<'_>> = request
            .options
            .iter()
            .map(|o| Choice {
                id: o.option_id.as_str(),
                name: &o.name,
                kind: o.kind.as_str(),
            })
            .collect();
        let tool_call_id = match &request.subject {
            Some(v2::RequestPermissionSubject::ToolCall(subject)) => {
                Some(subject.tool_call.tool_call_id.clone())
            }
            Some(v2::RequestPermissionSubject::Command(subject)) => subject.tool_call_id.clone(),
            _ => None,
        };
        output.event(
            json!({
                "event": "permission_request",
                "sessionId": request.session_id,
                "toolCallId": tool_call_id,
                "title": request.title,
                "subject": request.subject,
                "options": request.options,
            }),
            Some(s.yellow(&format!(
                "  ? Permission for \u{201c}{}\u{201d}: {}",
                request.title,
                choices_line(&options)
            ))),
        );
        let (choice, by) = self.decide(&options, policy, keyboard).await;
        let name = choice
            .as_deref()
            .and_then(|id| options.iter().find(|o| o.id == id))
            .map_or_else(|| "no answer (cancelled)".to_owned(), |o| o.name.to_owned());
        output.event(
            json!({
                "event": "permission_response",
                "sessionId": request.session_id,
                "toolCallId": tool_call_id,
                "outcome": if choice.is_some() { "selected" } else { "cancelled" },
                "optionId": choice,
                "by": by,
            }),
            Some(s.yellow(&format!("  \u{2192} {name} (answered by {by})"))),
        );
        Ok(v2::RequestPermissionResponse::new(match choice {
            Some(option) => v2::RequestPermissionOutcome::from(v2::SelectedPermissionOutcome::new(
                option.as_str(),
            )),
            // Nothing fits (no such option, or the keyboard is gone).
            None => v2::RequestPermissionOutcome::from(v2::CancelledPermissionOutcome::new()),
        }))
    }
}
