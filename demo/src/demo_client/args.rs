//! The client's command line.

use std::path::PathBuf;
use std::time::Duration;

use acp_client::FramingMode;
use clap::CommandFactory as _;

/// The first lines of `client --help`.
const ABOUT: &str = "\
A terminal stand-in for an editor: drives any ACP agent, shows its session as it streams, and
serves its file and terminal requests inside the working directory.

With no agent command and no --url, the demo agent runs in this process. With no --prompt and no
--interactive either, a scripted demo session shows every feature (in a temporary directory it
removes afterwards) and exits.";

/// The usage lines of `client --help`.
const USAGE: &str = "\
client [OPTIONS] [-- AGENT_COMMAND [ARGS...]]
       client [OPTIONS] --url URL";

/// The client commands: typed in interactive mode, given as `--prompt TEXT`, listed by `:help`.
pub const CLIENT_COMMANDS: &str = "\
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
  :help, :quit";

/// The end of `client --help`: signals and exit codes, [`CLIENT_COMMANDS`], the environment
/// and examples.
pub fn after_help() -> String {
    #[cfg(not(feature = "unstable"))]
    let draft = "";
    #[cfg(feature = "unstable")]
    let draft = format!("\n\n{DRAFT_USAGE}");
    format!(
        "\
The first SIGINT (Ctrl-C), SIGTERM or SIGHUP (the terminal closed) cancels the running turn,
then closes the agent: its stdin first, then SIGTERM and SIGKILL to its process group, 2s apart
(a remote agent: the connection is closed, with DELETE or a WebSocket close frame); commands
started for the agent (terminal/create) are stopped the same way. A second signal kills them
all at once. Exit status: 0 when every step succeeded, 1 when one failed, 2 when the client
could not start, 130, 143 or 129 when stopped by SIGINT, SIGTERM or SIGHUP.

{CLIENT_COMMANDS}

Environment:
  RUST_LOG             What the libraries log to stderr (default `warn`), e.g. `acp_client=debug`.

Examples:
  cargo run --bin client
  cargo run --bin client -- --prompt \"edit notes.txt\" --yes
  client --interactive -- my-agent --acp
  client --auth api-key --prompt hello -- my-agent   (after it listed its sign-in methods)
  client --url ws://127.0.0.1:8123/acp --prompt help   (after `agent --listen 127.0.0.1:8123`){draft}"
    )
}

/// The options and client commands of the draft protocol features (the `unstable` cargo
/// feature), shown at the end of `client --help`.
#[cfg(feature = "unstable")]
pub const DRAFT_USAGE: &str = "\
Draft protocol features (built with `--features unstable`):
  --draft              Advertise the draft client capability this client renders: `plan`
                       (plan_update, plan_removed). Token usage is shown whenever the agent
                       sends it.
  :fork [ID]           Fork a session, by default the current one, and switch to the fork
                       (session/fork; the agent must advertise sessionCapabilities.fork).
  :providers           List the agent's LLM providers (providers/list).
  :providers set ID API URL
                       Point provider ID at URL, speaking API (`anthropic`, `openai`, ...)
                       (providers/set).
  :providers disable ID
                       Stop the agent using provider ID (providers/disable).";

/// The command line; each line of a field's comment is a line of `client --help`.
#[derive(Debug, Clone, Default, clap::Parser)]
#[command(name = "client", about = ABOUT, override_usage = USAGE)]
pub struct Options {
    /// The agent program and its arguments, after `--`; none for the in-process
    /// demo agent (or with --url).
    #[arg(last = true, value_name = "AGENT_COMMAND", verbatim_doc_comment)]
    pub agent: Vec<String>,
    /// Send TEXT as a prompt (repeatable; in order). TEXT starting with `:` is a
    /// client command instead (see below). `@PATH` in TEXT attaches a file of the
    /// working directory (embedded text, an image or audio, as the agent
    /// accepts), `@URL` a resource link.
    #[arg(
        long = "prompt",
        short = 'p',
        value_name = "TEXT",
        verbatim_doc_comment
    )]
    pub steps: Vec<String>,
    /// Read prompts from the keyboard (after any --prompt): output streams as it
    /// arrives, permission questions are answered at the keyboard, `:cancel`
    /// stops a running turn, `:quit` (or end of input) leaves.
    #[arg(short, long, verbatim_doc_comment)]
    pub interactive: bool,
    /// Allow every permission request (non-interactive).
    #[arg(short, long, overrides_with = "no", verbatim_doc_comment)]
    pub yes: bool,
    /// Reject every permission request (the default when not interactive).
    #[arg(short, long, overrides_with = "yes", verbatim_doc_comment)]
    pub no: bool,
    /// Cancel each prompt turn still running after DUR (`500ms`, `2s`, `1.5`).
    #[arg(long, value_name = "DUR", value_parser = duration, verbatim_doc_comment)]
    pub cancel_after: Option<Duration>,
    /// How long to wait for the agent (default 30s, `0` for ever): for its
    /// answer to initialize and to every other request but a prompt, and for a
    /// turn to end once cancelled. A turn itself has no limit (--cancel-after,
    /// `:cancel` or Ctrl-C end it). A call not answered in time fails.
    #[arg(long, value_name = "DUR", value_parser = duration, verbatim_doc_comment)]
    pub timeout: Option<Duration>,
    /// Switch the session to mode ID (session/set_mode) before the prompts.
    #[arg(long, value_name = "ID", verbatim_doc_comment)]
    pub mode: Option<String>,
    /// Sign in with the agent's authentication method ID before the session
    /// starts (the methods are listed on connecting, and when the agent asks for
    /// a sign-in). An `agent` method: `authenticate`. A `terminal` method (with
    /// an agent command only): the agent's command with the method's arguments
    /// and environment runs in this terminal; once it exits with status 0 the
    /// agent is started again. An `env_var` method: the variables it names must
    /// be set (the agent inherits them), then `authenticate`.
    #[arg(long, value_name = "ID", value_parser = method_id, verbatim_doc_comment)]
    pub auth: Option<String>,
    /// Print a machine-readable transcript: one JSON object per line.
    #[arg(long, verbatim_doc_comment)]
    pub json: bool,
    /// The working directory served to the agent (default: the current one).
    /// File and terminal requests outside it are refused.
    #[arg(long, value_name = "DIR", verbatim_doc_comment)]
    pub cwd: Option<PathBuf>,
    /// Do not offer fs/write_text_file (and refuse it if asked anyway).
    #[arg(long, verbatim_doc_comment)]
    pub read_only: bool,
    /// Do not offer the file system capability to the agent.
    #[arg(long, verbatim_doc_comment)]
    pub no_fs: bool,
    /// Do not offer the terminal capability to the agent.
    #[arg(long, verbatim_doc_comment)]
    pub no_terminal: bool,
    /// Do not advertise `session.compaction` (the agent then reports no
    /// compaction).
    #[arg(long, verbatim_doc_comment)]
    pub no_compaction: bool,
    /// Do not advertise `session.notices` (the agent then sends no notice).
    #[arg(long, verbatim_doc_comment)]
    pub no_notices: bool,
    /// ndjson (default), content-length or auto (stdio only).
    #[arg(long, value_name = "MODE", verbatim_doc_comment)]
    pub framing: Option<FramingMode>,
    /// Record the traffic (hidden, for tests): the raw bytes of the in-process connection, or
    /// the messages (one JSON per line) exchanged with a spawned agent.
    #[arg(long, value_name = "PREFIX", hide = true)]
    pub wire_log: Option<PathBuf>,
    /// Drive a remote agent instead of a command: http://HOST:PORT/acp for
    /// Streamable HTTP, ws://HOST:PORT/acp for WebSocket (e.g. the demo agent
    /// run with --listen, or the bridge); https:// and wss:// with the demo
    /// built with `--features tls` (else they are refused).
    #[arg(long, value_name = "URL", verbatim_doc_comment)]
    pub url: Option<String>,
    /// With --url: send `Authorization: Bearer TOKEN` with every request.
    #[arg(long, value_name = "TOKEN", verbatim_doc_comment)]
    pub token: Option<String>,
    /// With --url: speak the client_id profile of older remote agents
    /// (POST URL/acp/rpc?client_id=..., GET URL/acp/sse?client_id=...); URL is
    /// the server's base (http://HOST:PORT).
    #[arg(long, verbatim_doc_comment)]
    pub client_id_profile: bool,
    /// With an https:// or wss:// --url: trust the certificates in FILE (PEM),
    /// and only them, instead of the system's (a private authority, or the
    /// self-signed certificate of `agent --listen --tls-cert`).
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub tls_ca: Option<PathBuf>,
    /// The protocol version to ask for: 2 asks for the v2 draft and falls back
    /// to v1 when the agent answers 1 (the default when built with
    /// `--features unstable_protocol_v2`), 1 speaks v1 only (the default
    /// otherwise). The version negotiated is shown on connecting.
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u16).range(1..=2), verbatim_doc_comment)]
    pub protocol: Option<u16>,
    /// `--draft` (the `unstable` feature; `DRAFT_USAGE` is its help): advertise the draft client
    /// capability `plan`.
    #[arg(long, hide = true)]
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

    /// The agent program and its arguments, or `None` for the in-process demo agent (or a
    /// remote one).
    pub fn agent_command(&self) -> Option<(&String, &[String])> {
        self.agent.split_first()
    }

    /// The permission policy of the command line: `Some(true)` for `--yes`, `Some(false)` for
    /// `--no` (the last one given wins), `None` for neither.
    pub fn allow(&self) -> Option<bool> {
        match (self.yes, self.no) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }

    /// The protocol version to ask for: `--protocol`, else 2 in a build with the feature
    /// `unstable_protocol_v2` and 1 otherwise.
    pub fn protocol_version(&self) -> u16 {
        self.protocol
            .unwrap_or(if cfg!(feature = "unstable_protocol_v2") {
                2
            } else {
                1
            })
    }

    /// The framing of a stdio connection: `--framing`, or the default.
    pub fn framing(&self) -> FramingMode {
        self.framing.unwrap_or_default()
    }
}

/// Parses the arguments (the program name first, as `std::env::args_os` gives them).
///
/// # Errors
///
/// A usage error: a bad or missing value, an unknown flag, flags that exclude each other; or
/// the help, which [`clap::Error::exit`] prints on stdout with exit code 0.
pub fn parse<I, T>(args: I) -> Result<Options, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    // `client --`: clap takes no command at all, which would run the demo instead.
    let dangling = args.last().is_some_and(|arg| arg == "--");
    let command = Options::command().after_help(after_help());
    crate::cli::parse(command, args, |options: &Options| {
        if dangling && options.agent.is_empty() {
            return Err("`--` must be followed by the agent command".to_owned());
        }
        check(options)
    })
}

/// What clap cannot say per flag: `--url` excludes an agent command and the stdio flags;
/// `--token`, `--client-id-profile` and `--tls-ca` need it; `--tls-ca` and `--draft` need
/// their cargo features.
fn check(options: &Options) -> Result<(), String> {
    if options.tls_ca.is_some() && !cfg!(feature = "tls") {
        return Err(
            "--tls-ca needs the demo built with TLS: `cargo build -p acp-demo --features tls`"
                .into(),
        );
    }
    if options.draft && !cfg!(feature = "unstable") {
        return Err(
            "--draft needs the demo built with the draft features: `--features unstable`".into(),
        );
    }
    if options.protocol == Some(2) && !cfg!(feature = "unstable_protocol_v2") {
        return Err("--protocol 2 needs the demo built with the ACP v2 draft: \
                    `--features unstable_protocol_v2`"
            .into());
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
    if !options.agent.is_empty() {
        return Err("--url and an agent command (`-- CMD`) exclude each other".into());
    }
    if options.framing.is_some() {
        return Err("--framing is for stdio: HTTP and WebSocket frame every message".into());
    }
    if options.wire_log.is_some() {
        return Err(
            "--wire-log records a local connection only; the demo agent \
                    takes --wire-log with --listen too"
                .into(),
        );
    }
    Ok(())
}

/// `--auth`: a method id, not blank.
fn method_id(id: &str) -> Result<String, String> {
    if id.trim().is_empty() {
        return Err("a method id is needed (the agent lists its methods)".into());
    }
    Ok(id.to_owned())
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

    fn args(list: &[&str]) -> Result<Options, clap::Error> {
        parse(std::iter::once("client").chain(list.iter().copied()))
    }

    #[test]
    fn the_agent_command_follows_the_double_dash() {
        let options = args(&["--prompt", "hi", "--", "agent", "--framing", "auto"]).unwrap();
        assert_eq!(options.steps, ["hi"]);
        let (program, rest) = options.agent_command().unwrap();
        assert_eq!(program, "agent");
        assert_eq!(rest, ["--framing", "auto"]);
        // Nothing after `--` is an error, not the demo.
        let dangling = args(&["--prompt", "hi", "--"]).unwrap_err().to_string();
        assert!(
            dangling.contains("must be followed by the agent command"),
            "{dangling}"
        );
        // No `--`: an argument that is no flag is refused.
        assert!(args(&["agent"]).is_err());
    }

    #[test]
    fn the_last_of_yes_and_no_wins() {
        assert_eq!(args(&[]).unwrap().allow(), None);
        assert_eq!(args(&["--yes"]).unwrap().allow(), Some(true));
        assert_eq!(args(&["-y", "--no"]).unwrap().allow(), Some(false));
        assert_eq!(args(&["-n", "--yes"]).unwrap().allow(), Some(true));
    }

    #[test]
    fn the_help_says_every_flag_and_the_client_commands() {
        let help = args(&["--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        let help = help.to_string();
        for flag in [
            "--prompt <TEXT>",
            "--interactive",
            "--yes",
            "--cancel-after <DUR>",
            "--timeout <DUR>",
            "--auth <ID>",
            "--url <URL>",
            "--tls-ca <FILE>",
            ":providers", /* draft only */
            ":load ID",
            "Exit status: 0 when every step succeeded",
        ] {
            assert_eq!(
                help.contains(flag),
                flag != ":providers" || cfg!(feature = "unstable"),
                "{flag} in {help}"
            );
        }
        assert!(!help.contains("--wire-log"), "hidden: {help}");
        assert_eq!(help.contains("--draft"), cfg!(feature = "unstable"));
        assert_eq!(args(&["--draft"]).is_ok(), cfg!(feature = "unstable"));
    }

    #[test]
    fn a_url_excludes_a_command_and_the_remote_flags_need_one() {
        let options = args(&[
            "--url",
            "ws://127.0.0.1:1/acp",
            "--token",
            "t",
            "--client-id-profile",
        ])
        .unwrap();
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
    fn the_protocol_is_1_or_2_and_2_needs_the_feature() {
        let v2 = cfg!(feature = "unstable_protocol_v2");
        assert_eq!(
            args(&[]).unwrap().protocol_version(),
            if v2 { 2 } else { 1 }
        );
        assert_eq!(args(&["--protocol", "1"]).unwrap().protocol_version(), 1);
        assert_eq!(args(&["--protocol", "2"]).is_ok(), v2);
        if !v2 {
            let error = args(&["--protocol", "2"]).unwrap_err().to_string();
            assert!(error.contains("unstable_protocol_v2"), "{error}");
        }
        for bad in ["0", "3", "two"] {
            assert!(args(&["--protocol", bad]).is_err(), "{bad}");
        }
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
        let timeout = |list: &[&str]| args(list).unwrap().request_timeout();
        assert_eq!(timeout(&[]), Some(DEFAULT_TIMEOUT));
        assert_eq!(
            timeout(&["--timeout", "1.5"]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(timeout(&["--timeout", "0"]), None);
        assert!(args(&["--timeout", "soon"]).is_err());
    }
}
