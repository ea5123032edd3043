//! `acp`: check that an Agent Client Protocol agent or client speaks the protocol correctly,
//! tap the traffic between two, validate a transcript. `acp --help` says how.

// A command-line program: its output goes to stdout, its errors and progress to stderr.
#![allow(clippy::print_stderr)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use acp_cli::check_agent::{AgentCheck, DEFAULT_PROMPT, Profile, Protocol, check_agent};
use acp_cli::check_client::{ClientCheck, check_client};
use acp_cli::conn::PeerCommand;
use acp_cli::report::{Report, colour_on_stdout};
use acp_cli::schema::Role;
use acp_codec::FramingMode;
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "acp",
    version,
    about = "Check, tap and validate Agent Client Protocol traffic."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the conformance checks against an agent or a client.
    #[command(subcommand)]
    Check(Check),
    /// Put a transparent proxy between an editor and an agent, recording a transcript:
    /// `acp tap --log FILE -- CMD ARGS…` where the editor would run `CMD ARGS…`.
    Tap(TapArgs),
    /// Run a chain of proxies in front of an agent, as one agent on stdio:
    /// `acp conduct -- "PROXY ARGS…" … "AGENT ARGS…"`.
    #[command(after_help = acp_cli::conduct::CONDUCT_AFTER_HELP)]
    Conduct(acp_cli::conduct::ConductArgs),
    /// Check a transcript (the tap's, or plain NDJSON of one direction).
    Validate(ValidateArgs),
    /// Print the JSON Schema of the protocol (the one the checks validate against).
    Schema {
        /// The protocol version whose schema to print (2 needs a build with the feature
        /// `unstable_protocol_v2`).
        #[arg(long, value_name = "VERSION", default_value_t = 1)]
        protocol: u64,
    },
    /// Relay stdio to a checker's socket (what `{agent}` becomes in `acp check client`).
    #[command(hide = true)]
    Relay {
        /// The checker's socket.
        socket: PathBuf,
    },
}

#[derive(Subcommand)]
enum Check {
    /// Spawn an agent and check it: `acp check agent -- CMD ARGS…`.
    Agent(AgentArgs),
    /// Play a scripted agent and check a client: `acp check client -- CMD ARGS… {agent}`,
    /// where `{agent}` is where the client takes its agent's command (without it, the
    /// client's own stdio is served).
    Client(ClientArgs),
}

/// The options both checks take.
#[derive(clap::Args)]
struct CheckArgs {
    /// Write a machine-readable report to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Seconds to wait for any one answer or step of the peer's (an agent's prompt turn gets
    /// three times it).
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    timeout: f64,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
struct ClientArgs {
    #[command(flatten)]
    check: CheckArgs,
    /// The protocol versions to play: `1`; `2`, an agent of the ACP v2 draft; or `both`, v1
    /// then v2, each with clients of its own, in one report (`2` and `both` need a build with
    /// the feature `unstable_protocol_v2`).
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1)]
    protocol: ProtocolArg,
    /// Seconds the long turn of the cancellation case lasts (the client is to cancel it).
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    long_turn: f64,
    /// The client's command and its arguments (after `--`), `{agent}` for its agent.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(clap::Args)]
struct AgentArgs {
    /// `core`: what every agent must do; `full`: also each optional feature it advertises.
    #[arg(long, value_enum, default_value_t = ProfileArg::Core)]
    profile: ProfileArg,
    /// How messages are framed on the agent's stdio (`auto` tries NDJSON, then Content-Length).
    #[arg(long, value_enum, default_value_t = FramingArg::Ndjson)]
    framing: FramingArg,
    #[command(flatten)]
    check: CheckArgs,
    /// The protocol versions to check: `1`; `2`, the ACP v2 draft; or `both`, v1 then v2,
    /// each on connections of its own, in one report (`2` and `both` need a build with the
    /// feature `unstable_protocol_v2`).
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1)]
    protocol: ProtocolArg,
    /// The text of an ordinary prompt.
    #[arg(long, value_name = "TEXT", default_value = DEFAULT_PROMPT)]
    prompt: String,
    /// The text of a prompt that keeps the agent busy a few seconds (to cancel it); the
    /// ordinary prompt by default.
    #[arg(long, value_name = "TEXT")]
    long_prompt: Option<String>,
    /// The agent's command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(clap::Args)]
struct TapArgs {
    /// Write the timestamped NDJSON transcript of both directions to FILE.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Report protocol problems on stderr as they happen.
    #[arg(long)]
    validate: bool,
    /// The agent's command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(clap::Args)]
struct ValidateArgs {
    /// Who sent the messages of a plain NDJSON file (guessed from its methods by default).
    #[arg(long, value_enum)]
    from: Option<SideArg>,
    /// The protocol version to check the messages as (by default the one the transcript's
    /// `initialize` negotiates, 1 until then; 2 needs a build with the feature
    /// `unstable_protocol_v2`).
    #[arg(long, value_name = "VERSION")]
    protocol: Option<u64>,
    /// How many problems to print.
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_problems: usize,
    /// The transcript.
    file: PathBuf,
}

#[derive(Clone, Copy, ValueEnum)]
enum SideArg {
    Agent,
    Client,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProtocolArg {
    #[value(name = "1")]
    V1,
    #[cfg(feature = "unstable_protocol_v2")]
    #[value(name = "2")]
    V2,
    #[cfg(feature = "unstable_protocol_v2")]
    Both,
}

impl ProtocolArg {
    fn protocol(self) -> Protocol {
        match self {
            ProtocolArg::V1 => Protocol::V1,
            #[cfg(feature = "unstable_protocol_v2")]
            ProtocolArg::V2 => Protocol::V2,
            #[cfg(feature = "unstable_protocol_v2")]
            ProtocolArg::Both => Protocol::Both,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    Core,
    Full,
}

#[derive(Clone, Copy, ValueEnum)]
enum FramingArg {
    Ndjson,
    ContentLength,
    Auto,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Schema { protocol } => match acp_cli::schema::Schema::for_version(protocol) {
            Some(schema) => {
                emit(&format!("{}\n", schema.text().trim_end()));
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "acp schema: this build of acp does not know protocol version {protocol}"
                );
                ExitCode::from(2)
            }
        },
        Command::Check(Check::Agent(args)) => run(check_agent_command(args)),
        Command::Check(Check::Client(args)) => run(check_client_command(args)),
        Command::Tap(args) => run(tap_command(args)),
        Command::Conduct(args) => run_on_one_thread(acp_cli::conduct::conduct(args)),
        Command::Relay { socket } => run(relay_command(socket)),
        Command::Validate(args) => validate_command(&args),
    }
}

fn seconds(value: f64, name: &str) -> Option<Duration> {
    if value > 0.0 && value.is_finite() {
        Some(Duration::from_secs_f64(value))
    } else {
        eprintln!("acp: {name} must be a positive number of seconds");
        None
    }
}

async fn check_client_command(args: ClientArgs) -> ExitCode {
    let (Some(timeout), Some(long_turn)) = (
        seconds(args.check.timeout, "--timeout"),
        seconds(args.long_turn, "--long-turn"),
    ) else {
        return ExitCode::from(2);
    };
    let Some(command) = PeerCommand::from_argv(&args.command) else {
        eprintln!("acp: no client command given (after `--`)");
        return ExitCode::from(2);
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe.to_string_lossy().into_owned(),
        Err(e) => {
            eprintln!("acp: cannot find its own program for the relay: {e}");
            return ExitCode::from(2);
        }
    };
    let mut argv = vec![command.program];
    argv.extend(command.args);
    let opts = ClientCheck {
        argv,
        relay: vec![exe, "relay".to_owned()],
        timeout,
        long_turn,
        progress: !args.check.quiet,
        protocol: args.protocol.protocol(),
    };
    let report = check_client(opts).await;
    finish(&report, args.check.json.as_deref())
}

async fn relay_command(socket: PathBuf) -> ExitCode {
    #[cfg(unix)]
    match acp_cli::check_client::relay(&socket).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("acp relay: {}: {e}", socket.display());
            ExitCode::FAILURE
        }
    }
    #[cfg(not(unix))]
    {
        eprintln!("acp relay: needs Unix sockets ({})", socket.display());
        ExitCode::FAILURE
    }
}

async fn tap_command(args: TapArgs) -> ExitCode {
    let Some(command) = PeerCommand::from_argv(&args.command) else {
        eprintln!("acp: no agent command given (after `--`)");
        return ExitCode::from(2);
    };
    let tap = acp_cli::tap::Tap {
        command,
        log: args.log,
        validate: args.validate,
    };
    match acp_cli::tap::run(tap).await {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("acp tap: {e}");
            ExitCode::from(2)
        }
    }
}

fn validate_command(args: &ValidateArgs) -> ExitCode {
    let from = args.from.map(|side| match side {
        SideArg::Agent => Role::Agent,
        SideArg::Client => Role::Client,
    });
    match acp_cli::validate::validate_file_as(&args.file, from, args.protocol) {
        Ok(validation) => {
            let mut text = format!("{}\n", validation.summary());
            for problem in validation.problems.iter().take(args.max_problems) {
                text.push_str(&format!("line {}: {}\n", problem.line, problem.reason));
            }
            if validation.problems.len() > args.max_problems {
                let more = validation.problems.len() - args.max_problems;
                text.push_str(&format!("… and {more} more\n"));
            }
            emit(&text);
            if validation.problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("acp validate: {}: {e}", args.file.display());
            ExitCode::from(2)
        }
    }
}

/// Writes `text` to stdout; a closed stdout (`acp schema | head`) is not an error worth a
/// panic, so write errors end the output quietly.
fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Runs a relaying command's future on a fresh single-threaded runtime: every connection's
/// task runs on the thread that read the message, so what one reads is written by the next
/// task in one batch, without a wake-up of another thread per message.
fn run_on_one_thread(future: impl Future<Output = ExitCode>) -> ExitCode {
    run_on(tokio::runtime::Builder::new_current_thread(), future)
}

/// Runs a command's future on a fresh runtime.
fn run(future: impl Future<Output = ExitCode>) -> ExitCode {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.worker_threads(2);
    run_on(builder, future)
}

/// Runs `future` on the runtime `builder` makes (with I/O and timers).
fn run_on(
    mut builder: tokio::runtime::Builder,
    future: impl Future<Output = ExitCode>,
) -> ExitCode {
    match builder.enable_all().build() {
        Ok(runtime) => runtime.block_on(future),
        Err(e) => {
            eprintln!("acp: cannot start the runtime: {e}");
            ExitCode::from(2)
        }
    }
}

async fn check_agent_command(args: AgentArgs) -> ExitCode {
    let Some(command) = PeerCommand::from_argv(&args.command) else {
        eprintln!("acp: no agent command given (after `--`)");
        return ExitCode::from(2);
    };
    let Some(timeout) = seconds(args.check.timeout, "--timeout") else {
        return ExitCode::from(2);
    };
    let mut opts = AgentCheck::new(command);
    opts.profile = match args.profile {
        ProfileArg::Core => Profile::Core,
        ProfileArg::Full => Profile::Full,
    };
    opts.framing = match args.framing {
        FramingArg::Ndjson => FramingMode::Ndjson,
        FramingArg::ContentLength => FramingMode::ContentLength,
        FramingArg::Auto => FramingMode::Auto,
    };
    opts.timeout = timeout;
    opts.prompt = args.prompt;
    opts.long_prompt = args.long_prompt;
    opts.progress = !args.check.quiet;
    opts.protocol = args.protocol.protocol();
    let report = check_agent(opts).await;
    finish(&report, args.check.json.as_deref())
}

/// Prints the table, writes the JSON report, and gives the exit status.
fn finish(report: &Report, json: Option<&std::path::Path>) -> ExitCode {
    let mut text = String::new();
    for (key, value) in &report.info {
        text.push_str(&format!("{key}: {value}\n"));
    }
    text.push_str(&report.table(colour_on_stdout()));
    emit(&text);
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("acp: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
