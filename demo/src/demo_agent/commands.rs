//! The prompt-text commands of the demo agent, and the help text that documents them.

/// What the demo agent understands, shown by `agent --help` and by the `help` command.
pub const COMMANDS_HELP: &str = "\
The agent acts on the first word of the prompt's text (a leading `/` is optional, so the
slash commands it advertises work too); of its last text block when there are several, so
that context put before the user's words (by a proxy, say) is not taken for a command.
Anything else gets a chat reply.

  help                     List these commands.
  read PATH [LINE [LIMIT]] Read a file through the client (fs/read_text_file), as a `read`
                           tool call; LINE is 1-based, LIMIT a number of lines.
  edit PATH [OLD => NEW]   Plan, read the file, propose an edit as a `diff` (by default every
                           TODO becomes DONE), ask permission (in `ask` mode), then write it
                           through the client (fs/write_text_file) only if allowed.
  run CMD [ARGS...]        Run a command in a client terminal (terminal/create, output,
                           wait_for_exit, release), embedded in an `execute` tool call; asks
                           permission first in `ask` mode. Quotes group words.
  mode ask|auto|read-only  Switch the session's mode from the agent's side.
  title TEXT               Rename the session (session_info_update).
  stream [N [MS]]          Stream N message chunks MS milliseconds apart (default 10, 100):
                           something slow to cancel.
  refuse                   End the turn with stopReason `refusal`.
  fail                     Fail the prompt request with a JSON-RPC error.
  compact                  Compact the session's context: `compaction_update` (in progress),
                           the summary as `compaction_summary_chunk`s, then `completed`; if
                           the client did not advertise `session.compaction`, only said.
  notice [info|warning|error] TEXT
                           Show TEXT as a `notice` (default severity: info); if the client did
                           not advertise `session.notices`, as a message instead.

Every turn streams a thought (unless the `thoughts` option is off) and ends with a
`usage_update`; the first turn also announces the slash commands and titles the session. Tool calls carry the
tool's programmatic `name` (`read_file`, `edit_file`, `run_command`, `switch_mode`).
Prompts may hold every content block kind: text, image, audio, resource links and embedded
resources; the agent describes what it received.

Modes: `ask` asks before every edit and command; `auto` does not ask; `read-only` only reads
and proposes. Without the client's fs or terminal capabilities, the tool calls that need them
fail with an explanation and the turn goes on.";

/// The commands of the draft protocol features (the `unstable` cargo feature), shown after
/// [`COMMANDS_HELP`].
#[cfg(feature = "unstable")]
pub const DRAFT_COMMANDS_HELP: &str = "\
Draft protocol features (built with `--features unstable`):

Edits publish their plan as `plan_update` and remove it with `plan_removed` once done when the
client advertised `plan` (the `plan` update otherwise); every prompt answer reports its token
`usage`. Sessions can be forked (`session/fork`, the history copied),
and the LLM providers `main` (required) and `embeddings` listed, set and disabled
(`providers/list`, `providers/set`, `providers/disable`).";

/// One parsed prompt command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    Help,
    Read {
        path: String,
        line: Option<u32>,
        limit: Option<u32>,
    },
    Edit {
        path: String,
        replace: Option<(String, String)>,
    },
    Run {
        command: String,
        args: Vec<String>,
    },
    Mode(String),
    Title(String),
    Stream {
        chunks: u32,
        delay_ms: u64,
    },
    Refuse,
    Fail,
    /// Compact the session's context, reporting it.
    Compact,
    /// Show the user a notice.
    Notice {
        severity: acp_types::NoticeSeverity,
        title: String,
    },
    /// Not a command: free text.
    Chat,
}

/// Parses the prompt's text; `Err` holds a usage message for a command used wrongly.
pub(crate) fn parse(text: &str) -> Result<Command, String> {
    let text = text.trim();
    let (word, rest) = match text.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (text, ""),
    };
    let word = word.strip_prefix('/').unwrap_or(word).to_ascii_lowercase();
    let number = |s: &str, what: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("{what} must be a number, not `{s}`"))
    };
    Ok(match word.as_str() {
        "help" => Command::Help,
        "read" => {
            let words = split_words(rest);
            let Some(path) = words.first() else {
                return Err("usage: read PATH [LINE [LIMIT]]".into());
            };
            Command::Read {
                path: path.clone(),
                line: words.get(1).map(|s| number(s, "LINE")).transpose()?,
                limit: words.get(2).map(|s| number(s, "LIMIT")).transpose()?,
            }
        }
        "edit" => {
            let (path, replace) = match rest.split_once(char::is_whitespace) {
                Some((path, spec)) => {
                    let Some((old, new)) = spec.split_once("=>") else {
                        return Err("usage: edit PATH [OLD => NEW]".into());
                    };
                    let (old, new) = (unquote(old.trim()), unquote(new.trim()));
                    if old.is_empty() {
                        return Err("edit: OLD must not be empty".into());
                    }
                    (path, Some((old.to_owned(), new.to_owned())))
                }
                None => (rest, None),
            };
            if path.is_empty() {
                return Err("usage: edit PATH [OLD => NEW]".into());
            }
            Command::Edit {
                path: unquote(path).to_owned(),
                replace,
            }
        }
        "run" => {
            let mut words = split_words(rest).into_iter();
            let Some(command) = words.next() else {
                return Err("usage: run CMD [ARGS...]".into());
            };
            Command::Run {
                command,
                args: words.collect(),
            }
        }
        "mode" if !rest.is_empty() => Command::Mode(rest.to_owned()),
        "mode" => return Err("usage: mode ask|auto|read-only".into()),
        "title" if !rest.is_empty() => Command::Title(rest.to_owned()),
        "title" => return Err("usage: title TEXT".into()),
        "stream" => {
            let words = split_words(rest);
            let chunks = words.first().map(|s| number(s, "N")).transpose()?;
            let delay = words.get(1).map(|s| number(s, "MS")).transpose()?;
            Command::Stream {
                chunks: chunks.unwrap_or(10).min(10_000),
                delay_ms: delay.map_or(100, u64::from).min(10_000),
            }
        }
        "refuse" => Command::Refuse,
        "fail" => Command::Fail,
        "compact" => Command::Compact,
        "notice" => {
            use acp_types::NoticeSeverity;
            let (severity, title) = match rest.split_once(char::is_whitespace) {
                Some(("info", title)) => (NoticeSeverity::Info, title.trim()),
                Some(("warning", title)) => (NoticeSeverity::Warning, title.trim()),
                Some(("error", title)) => (NoticeSeverity::Error, title.trim()),
                _ => (NoticeSeverity::Info, rest),
            };
            if title.is_empty() {
                return Err("usage: notice [info|warning|error] TEXT".into());
            }
            Command::Notice {
                severity,
                title: title.to_owned(),
            }
        }
        _ => Command::Chat,
    })
}

/// Splits on whitespace, keeping quoted ("..." or '...') groups together.
pub(crate) fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

fn unquote(s: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_with_or_without_a_slash() {
        assert_eq!(parse("/help"), Ok(Command::Help));
        assert_eq!(
            parse("read notes.txt 2 3"),
            Ok(Command::Read {
                path: "notes.txt".into(),
                line: Some(2),
                limit: Some(3)
            })
        );
        assert_eq!(
            parse("edit a.txt \"x y\" => z"),
            Ok(Command::Edit {
                path: "a.txt".into(),
                replace: Some(("x y".into(), "z".into()))
            })
        );
        assert_eq!(
            parse("run sh -c 'echo hi there'"),
            Ok(Command::Run {
                command: "sh".into(),
                args: vec!["-c".into(), "echo hi there".into()]
            })
        );
        assert_eq!(parse("hello there"), Ok(Command::Chat));
        assert!(parse("read").is_err());
        assert!(parse("stream x").is_err());
    }
}
