//! The client's command line.

use std::path::PathBuf;
use std::time::Duration;

use acp_client::FramingMode;

/// `client --help`.
pub const USAGE: &str = "\
A terminal stand-in for an editor: drives any ACP agent, shows its session as it streams, and
serves its file and terminal requests inside the working directory.

Usage: client [OPTIONS] [-- AGENT_COMMAND [ARGS...]]
       client [OPTIONS] --url URL

With no agent command and no --url, the example agent runs in this process. With no --prompt and no
--interactive either, a scripted demo session shows every feature (in a temporary directory it
removes afterwards) and exits.

Options:
  --prompt TEXT        Send TEXT as a prompt (repeatable; in order). TEXT starting with `:` is a
                       client command instead (see below). `@PATH` in TEXT attaches a file of the
                       working directory (embedded text, an image or audio, as the agent
                       accepts), `@URL` a resource link.
  -i, --interactive    Read prompts from the keyboard (after any --prompt): output streams as it
                       arrives, permission questions are answered at the keyboard, `:cancel`
                       stops a running turn, `:quit` (or end of input) leaves.
  --yes                Allow every permission request (non-interactive).
  --no                 Reject every permission request (the default when not interactive).
  --cancel-after DUR   Cancel each prompt turn still running after DUR (`500ms`, `2s`, `1.5`).
  --timeout DUR        How long to wait for the agent (default 30s, `0` for ever): for its
                       answer to initialize and to every other request but a prompt, and for a
                       turn to end once cancelled. A turn itself has no limit (--cancel-after,
                       `:cancel` or Ctrl-C end it). A call not answered in time fails.
  --mode ID            Switch the session to mode ID (session/set_mode) before the prompts.
  --auth ID            Sign in with the agent's authentication method ID before the session
                       starts (the methods are listed on connecting, and when the agent asks for
                       a sign-in). An `agent` method: `authenticate`. A `terminal` method (with
                       an agent command only): the agent's command with the method's arguments
                       and environment runs in this terminal; once it exits with status 0 the
                       agent is started again. An `env_var` method: the variables it names must
                       be set (the agent inherits them), then `authenticate`.
  --json               Print a machine-readable transcript: one JSON object per line.
  --cwd DIR            The working directory served to the agent (default: the current one).
                       File and terminal requests outside it are refused.
  --read-only          Do not offer fs/write_text_file (and refuse it if asked anyway).
  --no-fs              Do not offer the file system capability to the agent.
  --no-terminal        Do not offer the terminal capability to the agent.
  --framing MODE       ndjson (default), content-length or auto (stdio only).
  --url URL            Drive a remote agent instead of a command: http://HOST:PORT/acp for
                       Streamable HTTP, ws://HOST:PORT/acp for WebSocket (e.g. the example agent
                       run with --listen, or the bridge); https:// and wss:// with the examples
                       built with `--features tls` (else they are refused).
  --tls-ca FILE        With an https:// or wss:// --url: trust the certificates in FILE (PEM),
                       and only them, instead of the system's (a private authority, or the
                       self-signed certificate of `agent --listen --tls-cert`).
  --token TOKEN        With --url: send `Authorization: Bearer TOKEN` with every request.
  --client-id-profile  With --url: speak the client_id profile of older remote agents
                       (POST URL/acp/rpc?client_id=..., GET URL/acp/sse?client_id=...); URL is
                       the server's base (http://HOST:PORT).
  -h, --help           Show this help.

The first SIGINT (Ctrl-C), SIGTERM or SIGHUP (the terminal closed) cancels the running turn,
then closes the agent: its stdin first, then SIGTERM and SIGKILL to its process group, 2s apart
(a remote agent: the connection is closed, with DELETE or a WebSocket close frame); commands
started for the agent (terminal/create) are stopped the same way. A second signal kills them
all at once. Exit status: 0 when every step succeeded, 1 when one failed, 2 when the client
could not start, 130, 143 or 129 when stopped by SIGINT, SIGTERM or SIGHUP.

Client commands (as --prompt TEXT, or typed in interactive mode):
  :new                 Create a session and switch to it.
  :list                List the agent's sessions (session/list).
  :load ID             Load a session; its history is replayed (session/load).
  :resume ID           Resume a session without replay (session/resume).
  :close [ID]          Close a session (session/close), by default the current one.
  :delete ID           Delete a session (session/delete).
  #N                   In place of an ID: the Nth session started here (:new, :fork).
  :mode ID             Switch mode (session/set_mode).
  :config ID VALUE     Set a configuration option (session/set_config_option).
  :cancel              Cancel the running turn (session/cancel; interactive mode).
  :help, :quit

Environment:
  RUST_LOG             What the libraries log to stderr (default `warn`), e.g. `acp_client=debug`.

Examples:
  cargo run --example client
  cargo run --example client -- --prompt \"edit notes.txt\" --yes
  client --interactive -- my-agent --acp
  client --auth api-key --prompt hello -- my-agent   (after it listed its sign-in methods)
  client --url ws://127.0.0.1:8123/acp --prompt help   (after `agent --listen 127.0.0.1:8123`)";

/// The options and client commands of the draft protocol features (the `unstable` cargo
/// feature), shown after [`USAGE`].
#[cfg(feature = "unstable")]
pub const DRAFT_USAGE: &str = "\
Draft protocol features (built with `--features unstable`):
  --draft              Advertise the draft client capabilities this client renders: `plan`
                       (plan_update, plan_removed) and `session.compaction`. Notices, token
                       usage and tool call names are shown whenever the agent sends them.
  :fork [ID]           Fork a session, by default the current one, and switch to the fork
                       (session/fork; the agent must advertise sessionCapabilities.fork).
  :providers           List the agent's LLM providers (providers/list).
  :providers set ID API URL
                       Point provider ID at URL, speaking API (`anthropic`, `openai`, ...)
                       (providers/set).
  :providers disable ID
                       Stop the agent using provider ID (providers/disable).";

/// Parsed options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The agent program and its arguments, or `None` for the in-process example agent.
    pub agent: Option<(String, Vec<String>)>,
    /// The prompts and client commands, in order.
    pub steps: Vec<String>,
    /// Read prompts from the keyboard.
    pub interactive: bool,
    /// `Some(true)` for `--yes`, `Some(false)` for `--no`.
    pub allow: Option<bool>,
    /// Cancel each turn after this long.
    pub cancel_after: Option<Duration>,
    /// `--timeout`: how long to wait for the agent (`None`: the default, see
    /// [`request_timeout`](Self::request_timeout)).
    pub timeout: Option<Duration>,
    /// The mode to switch to first.
    pub mode: Option<String>,
    /// `--auth`: the authentication method to sign in with before the first session.
    pub auth: Option<String>,
    /// Print the JSON transcript.
    pub json: bool,
    /// The working directory served.
    pub cwd: Option<PathBuf>,
    /// Refuse writes.
    pub read_only: bool,
    /// Do not advertise `fs`.
    pub no_fs: bool,
    /// Do not advertise `terminal`.
    pub no_terminal: bool,
    /// The framing of the connection.
    pub framing: FramingMode,
    /// Record the traffic (hidden, for tests): the raw bytes of the in-process connection, or
    /// the messages (one JSON per line) exchanged with a spawned agent.
    pub wire_log: Option<PathBuf>,
    /// `--url`: the remote agent's endpoint.
    pub url: Option<String>,
    /// `--token`: the bearer token for the remote agent.
    pub token: Option<String>,
    /// `--client-id-profile`: speak the `client_id` profile to the remote agent.
    pub client_id_profile: bool,
    /// `--tls-ca`: the certificates (PEM) to trust for an `https://` or `wss://` URL.
    pub tls_ca: Option<PathBuf>,
    /// `--draft`: advertise the draft client capabilities (`plan`, `session.compaction`).
    #[cfg(feature = "unstable")]
    pub draft: bool,
}

/// How long the client waits for an answer by default: long enough for an agent that starts
/// slowly (loads a model, checks credentials), short enough that a stuck agent is noticed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

impl Options {
    /// How long to wait for the agent's answers (and for a cancelled turn to end): `--timeout`,
    /// [`DEFAULT_TIMEOUT`] without it, `None` (no limit) for `--timeout 0`.
    pub fn request_timeout(&self) -> Option<Duration> {
        match self.timeout {
            None => Some(DEFAULT_TIMEOUT),
            Some(limit) if limit.is_zero() => None,
            Some(limit) => Some(limit),
        }
    }
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// Run with these options.
    Run(Box<Options>),
    /// Print the help.
    Help,
}

/// Parses the arguments (without the program name).
///
/// # Errors
///
/// A message for a bad argument.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut options = Options::default();
    let mut framing_set = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--prompt" | "-p" => options.steps.push(value("--prompt")?),
            "-i" | "--interactive" => options.interactive = true,
            "--yes" | "-y" => options.allow = Some(true),
            "--no" | "-n" => options.allow = Some(false),
            "--cancel-after" => options.cancel_after = Some(duration(&value("--cancel-after")?)?),
            "--timeout" => options.timeout = Some(duration(&value("--timeout")?)?),
            "--mode" => options.mode = Some(value("--mode")?),
            "--auth" => {
                let id = value("--auth")?;
                if id.trim().is_empty() {
                    return Err("--auth needs a method id (the agent lists its methods)".into());
                }
                options.auth = Some(id);
            }
            "--json" => options.json = true,
            "--cwd" => options.cwd = Some(value("--cwd")?.into()),
            "--read-only" => options.read_only = true,
            "--no-fs" => options.no_fs = true,
            "--no-terminal" => options.no_terminal = true,
            "--framing" => {
                let mode = value("--framing")?;
                options.framing = mode
                    .parse()
                    .map_err(|_| format!("unknown framing `{mode}`"))?;
                framing_set = true;
            }
            "--url" => options.url = Some(value("--url")?),
            "--token" => options.token = Some(value("--token")?),
            "--client-id-profile" => options.client_id_profile = true,
            "--tls-ca" => options.tls_ca = Some(value("--tls-ca")?.into()),
            "--wire-log" => options.wire_log = Some(value("--wire-log")?.into()),
            #[cfg(feature = "unstable")]
            "--draft" => options.draft = true,
            "--" => {
                let Some(program) = args.next() else {
                    return Err("`--` must be followed by the agent command".into());
                };
                options.agent = Some((program, args.collect()));
                break;
            }
            other => return Err(format!("unexpected argument `{other}` (see --help)")),
        }
    }
    check_remote(&options, framing_set)?;
    Ok(Parsed::Run(Box::new(options)))
}

/// `--url` excludes an agent command and the stdio flags; `--token` and
/// `--client-id-profile` need it.
fn check_remote(options: &Options, framing_set: bool) -> Result<(), String> {
    if options.tls_ca.is_some() && !cfg!(feature = "tls") {
        return Err(
            "--tls-ca needs the examples built with TLS: `cargo build --examples --features tls`"
                .into(),
        );
    }
    if options.url.is_none() {
        return match (
            options.token.is_some(),
            options.client_id_profile,
            options.tls_ca.is_some(),
        ) {
            (true, _, _) => Err("--token needs --url".into()),
            (_, true, _) => Err("--client-id-profile needs --url".into()),
            (_, _, true) => Err("--tls-ca needs an https:// or wss:// --url".into()),
            _ => Ok(()),
        };
    }
    if options.agent.is_some() {
        return Err("--url and an agent command (`-- CMD`) exclude each other".into());
    }
    if framing_set {
        return Err("--framing is for stdio: HTTP and WebSocket frame every message".into());
    }
    if options.wire_log.is_some() {
        return Err(
            "--wire-log records a local connection only; the example agent \
                    takes --wire-log with --listen too"
                .into(),
        );
    }
    Ok(())
}

/// `500ms`, `2s` or a plain number of seconds.
fn duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("`{text}` is not a duration (like 500ms, 2s or 1.5)");
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 0.001)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        (text, 1.0)
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    Duration::try_from_secs_f64(value * scale).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Parsed, String> {
        parse(list.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn the_agent_command_follows_the_double_dash() {
        let Ok(Parsed::Run(options)) =
            args(&["--prompt", "hi", "--", "agent", "--framing", "auto"])
        else {
            panic!("parse failed");
        };
        assert_eq!(options.steps, ["hi"]);
        let (program, rest) = options.agent.unwrap();
        assert_eq!(program, "agent");
        assert_eq!(rest, ["--framing", "auto"]);
    }

    #[test]
    fn a_url_excludes_a_command_and_the_remote_flags_need_one() {
        let Ok(Parsed::Run(options)) = args(&[
            "--url",
            "ws://127.0.0.1:1/acp",
            "--token",
            "t",
            "--client-id-profile",
        ]) else {
            panic!("parse failed");
        };
        assert_eq!(options.url.as_deref(), Some("ws://127.0.0.1:1/acp"));
        assert_eq!(options.token.as_deref(), Some("t"));
        assert!(options.client_id_profile);
        assert!(args(&["--url", "http://h/acp", "--", "agent"]).is_err());
        assert!(args(&["--url", "http://h/acp", "--framing", "auto"]).is_err());
        assert!(args(&["--token", "t"]).is_err());
        assert!(args(&["--client-id-profile"]).is_err());
        // `--tls-ca` needs a URL, and a build with TLS.
        let tls_ca = args(&["--url", "https://h/acp", "--tls-ca", "ca.pem"]);
        assert_eq!(tls_ca.is_ok(), cfg!(feature = "tls"));
        assert!(args(&["--tls-ca", "ca.pem"]).is_err());
    }

    #[test]
    fn durations_take_units() {
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(duration("soon").is_err());
        assert!(args(&["--cancel-after", "-1"]).is_err());
    }

    #[test]
    fn the_timeout_defaults_and_zero_means_no_limit() {
        let timeout = |list: &[&str]| match args(list) {
            Ok(Parsed::Run(options)) => options.request_timeout(),
            _ => panic!("parse failed"),
        };
        assert_eq!(timeout(&[]), Some(DEFAULT_TIMEOUT));
        assert_eq!(
            timeout(&["--timeout", "1.5"]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(timeout(&["--timeout", "0"]), None);
        assert!(args(&["--timeout", "soon"]).is_err());
    }
}
