//! The short example programs at work, as real processes on 127.0.0.1: `remote_client` against
//! `remote_agent` over both transports (the streamed answer; ctrl-c cancelling the turn), and
//! against `toolkit_agent`, a stdio agent, behind `bridge`. Every wait has a deadline.

#![cfg(unix)]

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use acp_testkit::{
    ListeningProgram, example_binary as example, output_with_deadline, wait_with_deadline,
};

/// The bound of every wait: a server saying where it listens, a client's whole run, an exit.
const LIMIT: Duration = Duration::from_secs(30);

/// Ctrl-c: SIGINT to process `id`.
fn interrupt(id: u32) {
    let pid = i32::try_from(id)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    let pid = pid.expect("a process id");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("send SIGINT");
}

/// Starts a server program (`remote_agent`, `bridge`) on a free port of 127.0.0.1.
fn start_server(program: &str, args: &[&str]) -> ListeningProgram {
    let server = ListeningProgram::start(Command::new(example(program)).args(args), LIMIT);
    assert!(
        server.url().starts_with("http://127.0.0.1:"),
        "{}",
        server.url()
    );
    server
}

/// Ctrl-c to a server, and its exit status.
fn stop(server: ListeningProgram) -> ExitStatus {
    interrupt(server.id());
    server.wait(LIMIT)
}

/// Runs `remote_client URL PROMPT` in `cwd` to its end.
fn remote_client(cwd: &Path, url: &str, prompt: &str) -> Output {
    let mut command = Command::new(example("remote_client"));
    command.current_dir(cwd).arg(url).args(prompt.split(' '));
    output_with_deadline(&mut command, LIMIT)
}

/// The first line `remote_client` prints: the version it negotiated (v2 when built with the
/// feature `unstable_protocol_v2`, whose example agents serve it too).
const NEGOTIATED: &str = if cfg!(feature = "unstable_protocol_v2") {
    "[ACP v2]\n"
} else {
    "[ACP v1]\n"
};

/// Stdout of a run that must have succeeded.
fn succeeded(run: &Output) -> String {
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{}:\n{stdout}\n{stderr}", run.status);
    stdout
}

#[test]
fn the_remote_client_prints_what_the_remote_agent_streams_over_http_and_websocket() {
    let server = start_server("remote_agent", &["127.0.0.1:0"]);
    let cwd = std::env::temp_dir();
    for url in [server.url().to_owned(), server.ws_url()] {
        let stdout = succeeded(&remote_client(&cwd, &url, "hello remote world"));
        assert_eq!(
            stdout,
            format!(
                "{NEGOTIATED}(thinking: 3 word(s) to send back.)\nhello remote world \n[end_turn]\n"
            ),
            "{url}"
        );
    }
    // Ctrl-c closes the connections and exits cleanly.
    assert!(stop(server).success());
}

#[test]
fn ctrl_c_in_the_remote_client_cancels_the_turn() {
    let server = start_server("remote_agent", &["127.0.0.1:0"]);
    // 200 words at 50 ms each: ten seconds, unless cancelled.
    let words: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
    let mut child = Command::new(example("remote_client"))
        .arg(server.url())
        .args(&words)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start remote_client");
    let mut stdout = child.stdout.take().expect("a piped stdout");
    let (streamed_tx, streamed) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let (mut text, mut buffer) = (Vec::new(), [0; 4096]);
        while let Ok(n @ 1..) = stdout.read(&mut buffer) {
            text.extend_from_slice(&buffer[..n]);
            if text.windows(3).any(|w| w == b"w1 ") {
                let _ = streamed_tx.send(());
            }
        }
        String::from_utf8_lossy(&text).into_owned()
    });
    let started = streamed.recv_timeout(LIMIT);
    interrupt(child.id());
    let status = wait_with_deadline(&mut child, LIMIT);
    let stdout = reader.join().expect("the stdout reader");
    assert!(started.is_ok(), "the turn never streamed: {stdout}");
    assert!(status.success(), "{status}: {stdout}");
    assert!(stdout.ends_with("\n[cancelled]\n"), "{stdout}");
    assert!(!stdout.contains("w199"), "the whole turn ran: {stdout}");
}

#[test]
fn the_bridge_serves_a_stdio_agent_to_the_remote_client() {
    let toolkit_agent = example("toolkit_agent").display().to_string();
    let server = start_server("bridge", &["--listen", "127.0.0.1:0", "--", &toolkit_agent]);
    let cwd = std::env::temp_dir();
    for url in [server.url().to_owned(), server.ws_url()] {
        // The toolkit agent's turn: a plan, then a read through the client, which this client
        // does not offer (no `fs` capability): the read fails and the turn ends there.
        let stdout = succeeded(&remote_client(&cwd, &url, "fix the TODOs in notes.txt"));
        assert!(stdout.starts_with(NEGOTIATED), "{url}:\n{stdout}");
        for expected in ["[plan of 3 step(s)]", "[tool call: Read notes.txt]"] {
            assert!(
                stdout.contains(expected),
                "{url}: no {expected:?} in:\n{stdout}"
            );
        }
        assert!(
            !stdout.contains("[tool call: Edit"),
            "{url}: edited unread:\n{stdout}"
        );
        assert!(stdout.ends_with("\n[end_turn]\n"), "{url}:\n{stdout}");
    }
    assert!(stop(server).success());
}

#[test]
fn the_bridge_explains_its_command_line() {
    let help = succeeded(&output_with_deadline(
        Command::new(example("bridge")).arg("--help"),
        LIMIT,
    ));
    assert!(
        help.contains("Usage: bridge --listen ADDR -- AGENT_COMMAND"),
        "{help}"
    );
    for args in [&[][..], &["--listen", "127.0.0.1:0"], &["--", "agent"]] {
        let refused = output_with_deadline(Command::new(example("bridge")).args(args), LIMIT);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.starts_with("bridge: ") && stderr.contains("Usage:"),
            "{stderr}"
        );
    }
}

/// The fenced blocks of a Markdown text: (info string, code).
fn fenced_blocks(markdown: &str) -> Vec<(&str, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(&str, String)> = None;
    for line in markdown.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (open.take(), fence) {
            (None, Some(info)) => open = Some((info.trim(), String::new())),
            (None, None) => {}
            (Some(block), Some(_)) => blocks.push(block),
            (Some((info, mut code)), None) => {
                code.push_str(line);
                code.push('\n');
                open = Some((info, code));
            }
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    blocks
}

/// Whether rustdoc would compile a block with this info string (it takes unmarked blocks for
/// Rust, and skips `ignore`, `text` and `compile_fail` ones).
fn is_rust(info: &str) -> bool {
    let mut tags = info.split(',').map(str::trim);
    matches!(tags.next(), Some("" | "rust"))
        && !info
            .split(',')
            .any(|tag| matches!(tag.trim(), "ignore" | "text" | "compile_fail"))
}

/// The README promises that its Rust snippets build, as written, in a project of one's own
/// with the dependency block it shows. This makes that project in a temporary directory (the
/// block's `../acp-rs/` paths pointing at this workspace, one binary per snippet, the
/// workspace's lock file and profiles so that compiled dependencies are reused) and builds it
/// offline in the workspace's target directory.
#[test]
#[ignore = "builds the README's snippets in a new project; CI runs it"]
fn the_readme_snippets_build_in_a_project_of_their_own() {
    let root = acp_testkit::workspace_root();
    let read = |name: &str| std::fs::read_to_string(root.join(name)).expect(name);
    let readme = read("README.md");
    let blocks = fenced_blocks(&readme);
    let dependencies = blocks
        .iter()
        .find(|(info, code)| *info == "toml" && code.starts_with("[dependencies]"))
        .map(|(_, code)| code)
        .expect("the README shows a `[dependencies]` block");
    let clone = "\"../acp-rs/";
    assert!(
        dependencies.contains(clone),
        "paths into a clone of `acp-rs`: {dependencies}"
    );
    let dependencies = dependencies.replace(clone, &format!("\"{}/", root.display()));
    let snippets: Vec<&String> = blocks
        .iter()
        .filter(|(info, _)| is_rust(info))
        .map(|(_, code)| code)
        .collect();
    assert!(
        snippets.len() >= 3,
        "the agent, client and remote snippets: {}",
        snippets.len()
    );

    // The workspace's profiles (the same debug settings), so that its builds are reused.
    let manifest = read("Cargo.toml");
    let profiles = manifest
        .find("\n[profile.")
        .map_or("", |at| &manifest[at..]);
    let project = std::env::temp_dir().join(format!("acp-readme-snippets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(project.join("src/bin")).expect("the project directory");
    let cargo_toml = format!(
        "[package]\nname = \"readme-snippets\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
         publish = false\n\n[workspace]\n\n{dependencies}\n{profiles}"
    );
    std::fs::write(project.join("Cargo.toml"), cargo_toml).expect("Cargo.toml");
    std::fs::write(project.join("Cargo.lock"), read("Cargo.lock")).expect("Cargo.lock");
    for (i, snippet) in snippets.iter().enumerate() {
        let path = project.join(format!("src/bin/snippet_{i}.rs"));
        std::fs::write(path, snippet).expect("a snippet");
    }

    // `target/debug/deps/this-test` → `target`.
    let exe = std::env::current_exe().expect("the test's path");
    let target = exe.ancestors().nth(3).expect("a target directory");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = output_with_deadline(
        Command::new(cargo)
            .args(["build", "--offline", "--bins", "--manifest-path"])
            .arg(project.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", target),
        Duration::from_secs(1200),
    );
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(
        built.status.success(),
        "the README's snippets do not build ({}):\n{stderr}",
        project.display()
    );
    let _ = std::fs::remove_dir_all(&project);
}
