//! Slash commands.
//!
//! Generated from the official v2 schema by `codegen/gen.py`: edit the generator.

use super::prelude::*;
use super::shape::catch_all_requires;

tagged_union! {
    /// A slash command, told apart by its `type`.
    pub enum AvailableCommand {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        unknown_requires = ["name", "description"],
        schema_extend = schema_available_command,
        variants {
            /// A slash command the agent offers.
            Command(Command) = "command",
        }
    }
}

/// Gives the catch-all branch of a [`AvailableCommand`] the members every kind requires.
fn schema_available_command(object: &mut serde_json::Map<String, serde_json::Value>) {
    catch_all_requires(
        object,
        serde_json::json!({"name": {"type": "string"}, "description": {"type": "string"}}),
        &["name", "description"],
    );
}

tagged_union! {
    /// The input of a slash command, told apart by its `type`.
    pub enum AvailableCommandInput {
        tag = "type",
        combinator = "anyOf",
        discriminator = false,
        open = true,
        unknown = Unknown,
        variants {
            /// Free-text input of a slash command.
            Text(TextCommandInput) = "text",
        }
    }
}

wire_object! {
    /// Free-text input of a slash command.
    #[new(hint: impl Into<String>)]
    pub struct TextCommandInput {
        /// A hint shown while the user types the input.
        req hint: String = "hint";
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// A slash command the agent offers.
    #[new(name: impl Into<String>, description: impl Into<String>)]
    pub struct Command {
        /// A human-readable name.
        req name: String = "name";
        /// A human-readable description.
        req description: String = "description";
        /// The input the command takes, if any.
        opt input: AvailableCommandInput = "input" [DOE | NULLABLE];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}

wire_object! {
    /// The set of slash commands changed.
    #[new(available_commands: impl Into<Vec<AvailableCommand>>)]
    pub struct AvailableCommandsUpdate {
        /// The commands now available.
        req available_commands: Vec<AvailableCommand> = "availableCommands" [SKIP];
        /// Extension data, opaque to the protocol.
        opt meta: Meta = "_meta" [DOE | NULLABLE];
    }
}
