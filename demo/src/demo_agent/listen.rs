//! `--listen ADDR`: serving over Streamable HTTP and WebSocket (with `acp_http::server`), for
//! the `agent` program (the demo agent, one per connection) and the `bridge` program (any
//! stdio agent program, one process per connection).
//!
//! [`ListenArgs`] takes the server's flags from a command line and makes its
//! [`ServerOptions`]; [`bind`] opens the socket and says where it serves; [`serve_until_signal`]
//! serves until SIGINT or SIGTERM, then closes every connection (graceful shutdown: SSE
//! streams end, WebSockets close, bridged programs are stopped) and returns.
//!
//! ```no_run
//! use acp_demo::demo_agent::listen::{self, ListenArgs};
//! use acp_demo::demo_agent::{DemoAgent, Sessions};
//! use acp_http::server::AcpServer;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let args = ListenArgs {
//!     addr: Some("127.0.0.1:0".into()),
//!     ..ListenArgs::default()
//! };
//! let sessions = Sessions::default();
//! let server = AcpServer::new(
//!     move |client| DemoAgent::with_sessions(client, sessions.clone()),
//!     args.server_options().unwrap(),
//! );
//! let listener = listen::bind("agent", &args).await.unwrap();
//! std::process::exit(listen::serve_until_signal("agent", listener, server).await.into());
//! # }
//! ```

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use acp_http::server::{AcpServer, Observer, ServerOptions, serve};
use tokio::net::TcpListener;

use crate::demo_client::signals::Signals;
use crate::wire_log;

/// How long the connections get to close after the first signal before the program exits
/// anyway.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// The listening flags of a command line (`#[command(flatten)]` them into a program's
/// arguments); each line of a field's comment is a line of the program's `--help`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ListenArgs {
    /// Serve over the network instead of stdio: Streamable HTTP (http://ADDR/acp)
    /// and WebSocket (ws://ADDR/acp) on one endpoint, one agent per connection.
    /// `127.0.0.1:0` picks a free port; the URL is printed on stderr. Bind to
    /// 127.0.0.1 unless the agent must be reached from elsewhere (then set
    /// --token). SIGINT or SIGTERM closes every connection and exits (0).
    #[arg(long = "listen", value_name = "ADDR", verbatim_doc_comment)]
    pub addr: Option<String>,
    /// Let web pages of this origin call the endpoint, with credentials
    /// (repeatable; also sets CORS): `scheme://host[:port]` as browsers send it
    /// (`http://127.0.0.1:5173`, `https://app.example`: lower case, no path or
    /// trailing slash, no default port); `null` for sandboxed frames and file://
    /// pages; `*` for any page (dangerous without --token). Requests from other
    /// browser origins get 403; requests without an Origin (editors, tools) are
    /// always allowed.
    #[arg(long = "allow-origin", value_name = "URL", value_parser = origin, verbatim_doc_comment)]
    pub allowed_origins: Vec<String>,
    /// Accept requests whose Host is NAME (any port; repeatable), as behind a
    /// reverse proxy that keeps the public name. IP addresses and localhost are
    /// always accepted, other names get 421 (against DNS rebinding); `*` accepts
    /// any Host.
    #[arg(long = "allow-host", value_name = "NAME", value_parser = host, verbatim_doc_comment)]
    pub allowed_hosts: Vec<String>,
    /// Require `Authorization: Bearer TOKEN` on every request (401 without). A
    /// browser WebSocket sends it as a subprotocol: `new WebSocket(url, ["acp",
    /// "acp.bearer." + TOKEN])`, which needs a base64url or hex TOKEN. The token
    /// is visible to local users in the process list: prefer a wrapper that
    /// execs with it from a protected file.
    #[arg(long, value_name = "TOKEN", value_parser = token, verbatim_doc_comment)]
    pub token: Option<String>,
    /// Also serve the client_id profile of older remote agents:
    /// POST /acp/rpc?client_id=ID and GET /acp/sse?client_id=ID.
    #[arg(long, verbatim_doc_comment)]
    pub client_id_profile: bool,
    /// Start every connection id this server hands out with PREFIX (`a.` gives
    /// `a.6f1c…`), so that a load balancer in front of several servers routes
    /// each request by the Acp-Connection-Id header's prefix (README: Scaling
    /// out). 1-32 letters, digits, `.`, `-` or `_`.
    #[arg(long, value_name = "PREFIX", value_parser = connection_id_prefix, verbatim_doc_comment)]
    pub connection_id_prefix: Option<String>,
    /// Serve https:// and wss:// with this certificate chain (PEM, the server's
    /// certificate first) and --tls-key's private key. Both or neither; needs the
    /// demo built with `--features tls`.
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert's certificate.
    #[arg(long, value_name = "FILE", verbatim_doc_comment)]
    pub tls_key: Option<PathBuf>,
}

/// `--allow-origin`: an origin as browsers send it.
fn origin(origin: &str) -> Result<String, String> {
    ServerOptions::default()
        .try_allow_origin(origin)
        .map_err(|e| e.to_string())?;
    Ok(origin.to_owned())
}

/// `--allow-host`: a host name without a port.
fn host(host: &str) -> Result<String, String> {
    ServerOptions::default()
        .try_allow_host(host)
        .map_err(|e| e.to_string())?;
    Ok(host.to_owned())
}

/// `--token`: a non-empty token that fits in a header.
fn token(token: &str) -> Result<String, String> {
    if token.is_empty() || token.chars().any(char::is_control) {
        return Err("a non-empty token without control characters is needed".into());
    }
    Ok(token.to_owned())
}

/// `--connection-id-prefix`: a short prefix that is safe in a header and in a balancer's rule.
fn connection_id_prefix(prefix: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    if prefix.is_empty() || prefix.len() > 32 || !prefix.chars().all(allowed) {
        return Err("1-32 ASCII letters, digits, `.`, `-` or `_` are needed".into());
    }
    Ok(prefix.to_owned())
}

impl ListenArgs {
    /// Checks that the server's flags come with `--listen`.
    ///
    /// # Errors
    ///
    /// A message naming the flag that needs `--listen`.
    pub fn check(&self) -> Result<(), String> {
        let tls = self.tls_cert.is_some() || self.tls_key.is_some();
        if tls && (self.tls_cert.is_none() || self.tls_key.is_none()) {
            return Err("--tls-cert and --tls-key go together".into());
        }
        if tls && !cfg!(feature = "tls") {
            return Err(
                "--tls-cert needs the demo built with TLS: `cargo build -p acp-demo --features tls`"
                    .into(),
            );
        }
        if self.addr.is_some() {
            return Ok(());
        }
        let flag = if tls {
            "--tls-cert"
        } else if !self.allowed_origins.is_empty() {
            "--allow-origin"
        } else if !self.allowed_hosts.is_empty() {
            "--allow-host"
        } else if self.token.is_some() {
            "--token"
        } else if self.client_id_profile {
            "--client-id-profile"
        } else if self.connection_id_prefix.is_some() {
            "--connection-id-prefix"
        } else {
            return Ok(());
        };
        Err(format!("{flag} needs --listen ADDR"))
    }

    /// The server's options: the defaults of [`ServerOptions`] (every limit) with these flags.
    ///
    /// # Errors
    ///
    /// A message saying why the `--token` cannot be used.
    pub fn server_options(&self) -> Result<ServerOptions, String> {
        let mut options = ServerOptions::default().client_id_profile(self.client_id_profile);
        if let Some(prefix) = &self.connection_id_prefix {
            options = options.connection_id_prefix(prefix.clone());
        }
        for origin in &self.allowed_origins {
            options = options.allow_origin(origin.clone());
        }
        for host in &self.allowed_hosts {
            options = options.allow_host(host.clone());
        }
        if let Some(token) = &self.token {
            options = options
                .bearer_token(token)
                .map_err(|error| format!("--token: {error}"))?;
        }
        Ok(options)
    }
}

/// Records every message the server passes, one JSON text per line: those to the agents in
/// `PREFIX.recv`, those to the clients in `PREFIX.sent` (the files of [`wire_log::open`]), with
/// acp-rpc's [`Observer::write_lines`]. The messages of all connections go to the same two
/// files, in the order they passed.
///
/// # Errors
///
/// When a file cannot be created.
pub fn wire_tap(prefix: &Path) -> io::Result<Observer> {
    let (recv, sent) = wire_log::open(prefix)?;
    Ok(Observer::write_lines(recv, sent))
}

/// The bound `--listen` socket, and the TLS configuration to serve it with (`--tls-cert`).
#[derive(Debug)]
pub struct Bound {
    tcp: TcpListener,
    #[cfg(feature = "tls")]
    tls: Option<acp_http::server::rustls::ServerConfig>,
}

/// Binds the `--listen` address (and reads the `--tls-cert` files) and says on stderr where
/// the server is reached.
///
/// # Errors
///
/// A message when there is no `--listen` address, it cannot be bound, or the certificate or
/// key cannot be read.
#[allow(clippy::print_stderr)] // Stdout stays silent: where to connect goes to stderr.
pub async fn bind(program: &str, args: &ListenArgs) -> Result<Bound, String> {
    let Some(addr) = &args.addr else {
        return Err("no --listen address".into());
    };
    #[cfg(feature = "tls")]
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            let read =
                |path: &Path| std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
            let config = acp_http::server::tls_config_from_pem(&read(cert)?, &read(key)?)
                .map_err(|e| e.to_string())?;
            Some(config)
        }
        _ => None,
    };
    #[cfg(feature = "tls")]
    let secure = tls.is_some();
    #[cfg(not(feature = "tls"))]
    let secure = false;
    let tcp = acp_http::server::bind(addr.as_str())
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local: SocketAddr = tcp
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let (http, ws) = if secure {
        ("https", "wss")
    } else {
        ("http", "ws")
    };
    eprintln!(
        "{program}: serving ACP on {http}://{local}/acp (Streamable HTTP) and {ws}://{local}/acp \
         (WebSocket){}",
        if args.client_id_profile {
            format!("; client_id profile: {http}://{local}/acp/rpc and /acp/sse")
        } else {
            String::new()
        }
    );
    if args.allowed_origins.iter().any(|o| o == "*") && args.token.is_none() {
        eprintln!(
            "{program}: warning: --allow-origin '*' without --token: any web page the user opens can drive the agent"
        );
    }
    Ok(Bound {
        tcp,
        #[cfg(feature = "tls")]
        tls,
    })
}

/// Serves `server` on `listener` until SIGINT or SIGTERM; then every connection ends (open
/// SSE streams end, WebSockets close, bridged agent programs are stopped) and the listener
/// closes. Returns the exit code: 0 after a graceful shutdown; 1 when the listener failed or
/// the connections did not close within [`SHUTDOWN_GRACE`]; 130 or 143 when a second signal
/// ended the program at once.
#[allow(clippy::print_stderr)] // The program's own messages.
pub async fn serve_until_signal(program: &str, bound: Bound, server: AcpServer) -> u8 {
    let mut signals = Signals::new();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async {
        let _ = stopped.await;
    };
    #[cfg(feature = "tls")]
    let mut served: std::pin::Pin<Box<dyn Future<Output = io::Result<()>> + Send>> = match bound.tls
    {
        Some(config) => Box::pin(acp_http::server::serve_tls(
            bound.tcp, config, server, shutdown,
        )),
        None => Box::pin(serve(bound.tcp, server, shutdown)),
    };
    #[cfg(not(feature = "tls"))]
    let mut served = Box::pin(serve(bound.tcp, server, shutdown));
    let report = |result: io::Result<()>| match result {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("{program}: the server failed: {error}");
            1
        }
    };
    let signal = tokio::select! {
        result = &mut served => return report(result),
        signal = signals.recv() => signal,
    };
    eprintln!(
        "{program}: {}: closing every connection (a second signal exits at once)",
        signal.name()
    );
    let _ = stop.send(());
    tokio::select! {
        result = &mut served => report(result),
        second = signals.recv() => {
            eprintln!("{program}: {}: exiting at once", second.name());
            second.exit_code()
        }
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {
            eprintln!("{program}: the connections did not close within {SHUTDOWN_GRACE:?}: exiting");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    /// A command line of the listening flags alone.
    #[derive(Debug, clap::Parser)]
    struct Flags {
        #[command(flatten)]
        listen: ListenArgs,
    }

    fn parsed(flags: &[&str]) -> Result<ListenArgs, String> {
        let flags = Flags::try_parse_from(std::iter::once("agent").chain(flags.iter().copied()))
            .map_err(|e| e.to_string())?;
        flags.listen.check().map(|()| flags.listen)
    }

    #[test]
    fn origins_and_hosts_no_browser_sends_are_refused_with_a_clear_message() {
        let slash = parsed(&[
            "--listen",
            "127.0.0.1:0",
            "--allow-origin",
            "http://a.test/",
        ]);
        let error = slash.unwrap_err();
        assert!(error.contains("'--allow-origin <URL>'"), "{error}");
        assert!(error.contains("write `http://a.test`"), "{error}");
        let port = parsed(&["--listen", "127.0.0.1:0", "--allow-host", "a.test:8443"]);
        assert!(port.unwrap_err().contains("write `a.test`"));
        let ok = parsed(&[
            "--listen",
            "127.0.0.1:0",
            "--allow-origin",
            "*",
            "--allow-host",
            "agent.example.com",
        ])
        .unwrap();
        let options = ok.server_options().unwrap();
        assert_eq!(options.allowed_origins, ["*"]);
        assert_eq!(options.allowed_hosts, ["agent.example.com"]);
        assert_eq!(options.validate(), Ok(()));
        let alone = parsed(&["--allow-host", "agent.example.com"]);
        assert_eq!(alone.unwrap_err(), "--allow-host needs --listen ADDR");
        let token = parsed(&["--listen", "127.0.0.1:0", "--token", ""]).unwrap_err();
        assert!(token.contains("a non-empty token"), "{token}");
    }

    #[test]
    fn the_tls_flags_go_together_with_listen_and_a_tls_build() {
        let both = [
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            "c.pem",
            "--tls-key",
            "k.pem",
        ];
        assert_eq!(parsed(&both).is_ok(), cfg!(feature = "tls"));
        let alone = parsed(&["--listen", "127.0.0.1:0", "--tls-cert", "c.pem"]);
        assert_eq!(alone.unwrap_err(), "--tls-cert and --tls-key go together");
        if cfg!(feature = "tls") {
            let no_listen = parsed(&["--tls-cert", "c.pem", "--tls-key", "k.pem"]);
            assert_eq!(no_listen.unwrap_err(), "--tls-cert needs --listen ADDR");
        }
    }

    #[test]
    fn a_connection_id_prefix_is_short_and_safe_in_a_header() {
        let options = parsed(&["--listen", "127.0.0.1:0", "--connection-id-prefix", "a."])
            .unwrap()
            .server_options()
            .unwrap();
        assert_eq!(options.connection_id_prefix, "a.");
        for bad in ["", "a b", "a\u{e9}", "a:b", &"x".repeat(33)] {
            let error = parsed(&["--listen", "127.0.0.1:0", "--connection-id-prefix", bad]);
            assert!(error.unwrap_err().contains("1-32 ASCII letters"), "{bad:?}");
        }
        let alone = parsed(&["--connection-id-prefix", "a."]);
        assert_eq!(
            alone.unwrap_err(),
            "--connection-id-prefix needs --listen ADDR"
        );
    }
}
