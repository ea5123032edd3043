//! Signing in: the agent's authentication methods (`authMethods` of its `initialize` answer),
//! shown to the user, and the method chosen with `--auth`.
//!
//! The specification defines two kinds of method: `agent` (the default: the client calls
//! `authenticate` and the agent signs the user in by itself) and `terminal` (the client runs the
//! agent's own program, with the method's extra `args` and `env`, in the user's terminal, then
//! reconnects; it never calls `authenticate` for it). Agents built on the earlier draft also
//! offer `env_var` methods, which name environment variables holding the credentials: this
//! types crate keeps them as unknown methods, and this module reads them from the raw JSON.
//! The spawned agent inherits the client's environment, so the client checks that the named
//! variables are set, then calls `authenticate` as for an agent method.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Stdio;

use acp_types::{AuthMethod, AuthMethodTerminal};
use serde_json::{Value, json};

use super::connection::describe_exit;

/// An authentication method the agent offers, as this client understands it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Method {
    /// What `--auth` names.
    pub(crate) id: String,
    /// A human-readable name.
    pub(crate) name: String,
    /// A longer human-readable description.
    pub(crate) description: Option<String>,
    /// How the client signs in with it.
    pub(crate) kind: Kind,
}

/// How the client signs in with a method.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// `authenticate`; the agent does the rest.
    Agent,
    /// The agent's program run in the user's terminal, with these extra arguments and
    /// environment variables; then a new connection.
    Terminal {
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    /// Environment variables the agent reads (the draft's `env_var`); then `authenticate`.
    EnvVar(Vec<EnvVar>),
    /// A kind this client does not know (its `type`).
    Unknown(String),
}

/// An environment variable of an `env_var` method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnvVar {
    /// The variable's name.
    pub(crate) name: String,
    /// Whether the method works without it.
    pub(crate) optional: bool,
}

impl Kind {
    /// The kind's name on the wire.
    pub(crate) fn name(&self) -> &str {
        match self {
            Kind::Agent => "agent",
            Kind::Terminal { .. } => "terminal",
            Kind::EnvVar(_) => "env_var",
            Kind::Unknown(tag) => tag,
        }
    }
}

/// The methods of an `initialize` answer this client can name; an unknown method without an
/// `id` (nothing could select it) is left out.
pub(crate) fn methods(offered: &[AuthMethod]) -> Vec<Method> {
    offered.iter().filter_map(method).collect()
}

fn method(offered: &AuthMethod) -> Option<Method> {
    Some(match offered {
        AuthMethod::Agent(agent) => Method {
            id: agent.id.to_string(),
            name: agent.name.clone(),
            description: agent.description.clone(),
            kind: Kind::Agent,
        },
        AuthMethod::Terminal(terminal) => terminal_method(terminal),
        AuthMethod::Unknown(raw) => unknown_method(raw)?,
        // A kind added to the types after this client: known by its tag only.
        other => {
            let raw = serde_json::to_value(other).ok()?;
            unknown_method(&raw)?
        }
    })
}

fn terminal_method(terminal: &AuthMethodTerminal) -> Method {
    Method {
        id: terminal.id.to_string(),
        name: terminal.name.clone(),
        description: terminal.description.clone(),
        kind: Kind::Terminal {
            args: terminal.args.clone().unwrap_or_default(),
            env: terminal.env.clone().unwrap_or_default(),
        },
    }
}

/// A method of a kind the types do not model: the draft's `env_var` is read from its JSON
/// (`vars: [{name, optional}]`, or an older single `varName`), anything else kept by its tag.
fn unknown_method(raw: &Value) -> Option<Method> {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_owned);
    let id = text("id")?;
    let tag = text("type").unwrap_or_default();
    let kind = if tag == "env_var" || tag == "envVar" {
        let mut vars: Vec<EnvVar> = raw
            .get("vars")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|var| {
                Some(EnvVar {
                    name: var.get("name")?.as_str()?.to_owned(),
                    optional: var.get("optional").and_then(Value::as_bool) == Some(true),
                })
            })
            .collect();
        if let Some(name) = text("varName") {
            vars.push(EnvVar {
                name,
                optional: false,
            });
        }
        Kind::EnvVar(vars)
    } else {
        Kind::Unknown(tag)
    };
    Some(Method {
        name: text("name").unwrap_or_else(|| id.clone()),
        description: text("description"),
        id,
        kind,
    })
}

/// The methods for the JSON transcript.
pub(crate) fn to_json(methods: &[Method]) -> Value {
    methods
        .iter()
        .map(|m| {
            let mut entry = json!({
                "id": m.id,
                "name": m.name,
                "description": m.description,
                "kind": m.kind.name(),
            });
            if let Kind::EnvVar(vars) = &m.kind {
                entry["vars"] = vars
                    .iter()
                    .map(|v| json!({ "name": v.name, "optional": v.optional }))
                    .collect();
            }
            entry
        })
        .collect()
}

/// The methods for people, one per line, each indented by `indent`:
/// `ID (KIND): NAME - DESCRIPTION`, with what an `env_var` method needs and what a `terminal`
/// one runs.
pub(crate) fn lines(methods: &[Method], indent: &str) -> String {
    let mut text = String::new();
    for m in methods {
        let _ = write!(text, "\n{indent}{} ({}): {}", m.id, m.kind.name(), m.name);
        if let Some(description) = &m.description {
            let _ = write!(text, " - {description}");
        }
        match &m.kind {
            Kind::EnvVar(vars) => {
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| match v.optional {
                        true => format!("{} (optional)", v.name),
                        false => v.name.clone(),
                    })
                    .collect();
                let _ = write!(text, " [reads {}]", names.join(", "));
            }
            Kind::Terminal { args, .. } if !args.is_empty() => {
                let _ = write!(text, " [runs the agent with {}]", args.join(" "));
            }
            _ => {}
        }
    }
    text
}

/// The required variables of an `env_var` method that are unset or empty in this process
/// (and so in the agent it spawned).
pub(crate) fn missing_vars(vars: &[EnvVar]) -> Vec<&str> {
    vars.iter()
        .filter(|v| !v.optional && std::env::var_os(&v.name).is_none_or(|value| value.is_empty()))
        .map(|v| v.name.as_str())
        .collect()
}

/// The terminal login of a `terminal` method: the agent's program with its arguments and the
/// method's, the method's environment variables over the client's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Login {
    /// The method's id.
    pub(crate) method: String,
    /// The agent's program.
    pub(crate) program: String,
    /// The agent's arguments, then the method's.
    pub(crate) args: Vec<String>,
    /// The method's environment variables.
    pub(crate) env: BTreeMap<String, String>,
}

impl Login {
    /// The login of `method` for the agent command `program args`.
    pub(crate) fn new(
        method: &str,
        (program, base): &(String, Vec<String>),
        args: &[String],
        env: &BTreeMap<String, String>,
    ) -> Self {
        Self {
            method: method.to_owned(),
            program: program.clone(),
            args: base.iter().chain(args).cloned().collect(),
            env: env.clone(),
        }
    }

    /// The command line, for messages.
    pub(crate) fn command_line(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs the login in `cwd` with the user's terminal (stdin and stderr inherited; stdout
    /// too, unless it carries the JSON transcript: then the login's goes to stderr) and waits
    /// for it. Success is exit status zero. Dropping the future kills the login.
    ///
    /// # Errors
    ///
    /// Why the login failed: it could not start, or did not exit with status zero.
    pub(crate) async fn run(&self, cwd: &Path, json: bool) -> Result<(), String> {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .envs(&self.env)
            .current_dir(cwd)
            .stdin(Stdio::inherit())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        if json {
            command.stdout(std::io::stderr());
        } else {
            command.stdout(Stdio::inherit());
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", self.command_line()))?;
        let status = child
            .wait()
            .await
            .map_err(|e| format!("cannot wait for `{}`: {e}", self.command_line()))?;
        if status.success() {
            return Ok(());
        }
        // "the agent exited with code 1": the login is the agent's program.
        let how = describe_exit(&status);
        let how = how.strip_prefix("the agent ").unwrap_or(&how);
        Err(format!("the login `{}` {how}", self.command_line()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(value: Value) -> Vec<Method> {
        let offered: Vec<AuthMethod> = serde_json::from_value(value).unwrap();
        methods(&offered)
    }

    #[test]
    fn every_kind_is_read() {
        let methods = decode(json!([
            { "id": "login", "name": "Log in", "description": "In the browser" },
            { "id": "tty", "name": "Terminal", "type": "terminal", "args": ["--login"],
              "env": { "MODE": "1" } },
            { "id": "key", "name": "API key", "type": "env_var",
              "vars": [{ "name": "KEY" }, { "name": "URL", "optional": true }] },
            { "id": "old", "name": "Old key", "type": "envVar", "varName": "OLD_KEY" },
            { "id": "new", "name": "Newer", "type": "passkey" },
            { "name": "no id", "type": "passkey" },
        ]));
        let kinds: Vec<&str> = methods.iter().map(|m| m.kind.name()).collect();
        assert_eq!(
            kinds,
            ["agent", "terminal", "env_var", "env_var", "passkey"]
        );
        assert_eq!(methods[0].description.as_deref(), Some("In the browser"));
        assert_eq!(
            methods[1].kind,
            Kind::Terminal {
                args: vec!["--login".into()],
                env: BTreeMap::from([("MODE".into(), "1".into())]),
            }
        );
        let Kind::EnvVar(vars) = &methods[2].kind else {
            panic!("env_var");
        };
        assert_eq!(vars.len(), 2);
        assert!(!vars[0].optional && vars[1].optional);
        assert_eq!(
            methods[3].kind,
            Kind::EnvVar(vec![EnvVar {
                name: "OLD_KEY".into(),
                optional: false
            }])
        );
        let shown = lines(&methods, "  ");
        assert!(
            shown.contains("\n  key (env_var): API key [reads KEY, URL (optional)]"),
            "{shown}"
        );
        assert!(
            shown.contains("\n  tty (terminal): Terminal [runs the agent with --login]"),
            "{shown}"
        );
    }

    #[test]
    fn only_required_unset_or_empty_variables_are_missing() {
        let var = |name: &str, optional| EnvVar {
            name: name.into(),
            optional,
        };
        // PATH is set in any test environment; the others are names nobody sets.
        let vars = [
            var("PATH", false),
            var("ACP_EXAMPLES_TEST_UNSET_A", false),
            var("ACP_EXAMPLES_TEST_UNSET_B", true),
        ];
        assert_eq!(missing_vars(&vars), ["ACP_EXAMPLES_TEST_UNSET_A"]);
    }

    #[test]
    fn a_login_appends_the_method_arguments_to_the_agent_command() {
        let agent = ("agent".to_owned(), vec!["--acp".to_owned()]);
        let login = Login::new("tty", &agent, &["--login".into()], &BTreeMap::new());
        assert_eq!(login.command_line(), "agent --acp --login");
    }
}
