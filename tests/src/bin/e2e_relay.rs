//! A recording relay between a client and an agent process, for the child-process tests.
//!
//! ```text
//! e2e_relay --log DIR -- PROGRAM [ARGS...]
//! ```
//!
//! Starts PROGRAM with piped stdin and stdout (stderr is shared), copies our stdin to its stdin
//! and its stdout to our stdout, and appends the bytes of each direction to
//! `DIR/client-to-agent.bin` and `DIR/agent-to-client.bin` *before* forwarding them. When our
//! stdin ends, PROGRAM's stdin is closed; when PROGRAM's stdout ends, the relay exits with
//! PROGRAM's status (128 + the signal if it was killed by one).

// A program, not a library: exiting (and, for the crash script, aborting) is how it ends.
#![allow(clippy::disallowed_methods)]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

fn usage(problem: &str) -> ! {
    let _ = writeln!(
        std::io::stderr(),
        "e2e_relay: {problem}\nusage: e2e_relay --log DIR -- PROGRAM [ARGS...]"
    );
    std::process::exit(2)
}

/// Copies `from` to `to`, logging every chunk first; ends at end of input or a failed write.
async fn tee(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut log: std::fs::File,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if log.write_all(&buf[..n]).is_err() {
            return;
        }
        if to.write_all(&buf[..n]).await.is_err() || to.flush().await.is_err() {
            return;
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let dir = match (args.next().as_deref(), args.next()) {
        (Some("--log"), Some(dir)) => PathBuf::from(dir),
        _ => usage("--log DIR comes first"),
    };
    if args.next().as_deref() != Some("--") {
        usage("-- PROGRAM expected");
    }
    let program = args.next().unwrap_or_else(|| usage("no program"));
    let create = |name: &str| {
        std::fs::File::create(dir.join(name))
            .unwrap_or_else(|e| usage(&format!("cannot create {name}: {e}")))
    };
    let up_log = create("client-to-agent.bin");
    let down_log = create("agent-to-client.bin");
    let mut child = tokio::process::Command::new(&program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| usage(&format!("cannot start {program}: {e}")));
    let child_in = child.stdin.take().expect("piped stdin");
    let child_out = child.stdout.take().expect("piped stdout");
    // Dropping `child_in` when our stdin ends closes the agent's stdin.
    let up = tee(tokio::io::stdin(), child_in, up_log);
    let down = tee(child_out, tokio::io::stdout(), down_log);
    tokio::pin!(up, down);
    tokio::select! {
        () = &mut down => {}
        () = &mut up => down.await,
    }
    let code = match child.wait().await {
        Ok(status) => status.code().unwrap_or_else(|| {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt as _;
                128 + status.signal().unwrap_or(0)
            }
            #[cfg(not(unix))]
            {
                1
            }
        }),
        Err(_) => 1,
    };
    // Exit at once: the runtime would otherwise wait for the thread blocked reading stdin.
    std::process::exit(code)
}
