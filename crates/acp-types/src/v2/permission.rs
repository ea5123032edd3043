//! Permission requests: subjects, options and outcomes.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::check::min_items;
use super::prelude::*;
use super::shape::keywords;

wire_object! {
    /// Asks the user for permission (`session/request_permission`).
    #[schema_extend(schema_request_permission_request)]
    #[check(check_request_permission_request)]
    #[new(session_id: impl Into<SessionId>, title: impl Into<String>, options: impl Into<Vec<PermissionOption>>)]
    pub struct RequestPermissionRequest {
        /// The session this concerns.
        req session_id: SessionId = "sessionId";
        /// The text of the permission prompt (it changes no tool call's title).
        req title: String = "title";
        /// Supporting text for the permission prompt.
        opt description: String = "description" [DOE | NULLABLE];
        /// What needs permission, if known.
        opt subject: RequestPermissionSubject = "subject" [NULLABLE];
        /// The choices offered.
        req options: Vec<PermissionOption> = "options";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

/// Adds to the schema of a [`RequestPermissionRequest`] what the types of its fields do not say.
fn schema_request_permission_request(object: &mut serde_json::Map<String, serde_json::Value>) {
    keywords(object, serde_json::json!({"options": {"minItems": 1}}));
}

/// Checks the bounds the schema sets on the members of a [`RequestPermissionRequest`].
fn check_request_permission_request(value: &RequestPermissionRequest) -> Result<(), String> {
    min_items("options", &value.options, 1)?;
    Ok(())
}

tagged_union! {
    /// What a permission request is about.
    pub enum RequestPermissionSubject {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// A tool call that needs permission, as a tool-call upsert.
            ToolCall(ToolCallPermissionSubject) = "tool_call",
            /// A command the agent asks permission to run (it never asks the client to run it).
            Command(CommandPermissionSubject) = "command",
        }
    }
}

wire_object! {
    /// A command the agent asks permission to run (it never asks the client to run it).
    #[new(command: impl Into<String>, cwd: impl Into<AbsolutePath>)]
    pub struct CommandPermissionSubject {
        /// The command line the agent wants to run.
        req command: String = "command";
        /// The absolute directory it would run in.
        req cwd: AbsolutePath = "cwd";
        /// The tool call the command belongs to, if known.
        opt tool_call_id: ToolCallId = "toolCallId" [DOE | NULLABLE];
        /// The display terminal that shows the command, if known.
        opt terminal_id: TerminalId = "terminalId" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The `PermissionOption` of ACP v2.
    #[new(option_id: impl Into<PermissionOptionId>, name: impl Into<String>, kind: impl Into<PermissionOptionKind>)]
    pub struct PermissionOption {
        /// The identifier of the option.
        req option_id: PermissionOptionId = "optionId";
        /// A human-readable name.
        req name: String = "name";
        /// What choosing this option means.
        req kind: PermissionOptionKind = "kind";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

string_enum! {
    /// What a permission option means, so clients can style it and remember choices.
    pub enum PermissionOptionKind {
        /// Allow this one time.
        AllowOnce = "allow_once",
        /// Allow and remember the choice.
        AllowAlways = "allow_always",
        /// Reject this one time.
        RejectOnce = "reject_once",
        /// Reject and remember the choice.
        RejectAlways = "reject_always",
    }
    Unknown, open_schema = true
}

wire_object! {
    /// The client's answer to `session/request_permission`.
    #[new(outcome: impl Into<RequestPermissionOutcome>)]
    pub struct RequestPermissionResponse {
        /// What the user chose.
        req outcome: RequestPermissionOutcome = "outcome";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

tagged_union! {
    /// What came of a permission request: an option was chosen, or the request was cancelled
    /// (as every pending one is when the client cancels the turn). An agent takes an outcome it
    /// does not know for no approval.
    pub enum RequestPermissionOutcome {
        tag = "outcome",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// The permission request was cancelled (the prompt turn was cancelled).
            Cancelled(CancelledPermissionOutcome) = "cancelled",
            /// The option the user chose.
            Selected(SelectedPermissionOutcome) = "selected",
        }
    }
}

wire_object! {
    /// The permission request was cancelled (the prompt turn was cancelled).
    #[optional_fields(new)]
    pub struct CancelledPermissionOutcome {
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
