//! `--help`, `--version` and usage errors of the demo programs: the help and the version are
//! printed on stdout (exit code 0) and say what the programs take, a reader that went away
//! (`agent --help | head -1`) is no error (it used to be a panic of `println!`), and a bad
//! command line is refused on stderr with exit code 2.

use std::process::{Command, Stdio};

use crate::common::program;

#[test]
fn help_and_version_go_to_stdout_and_a_closed_pipe_is_no_error() {
    for name in ["agent", "client", "bridge"] {
        let flags: &[&str] = if name == "client" {
            &["--help"]
        } else {
            &["--help", "--version"]
        };
        for flag in flags {
            let shown = Command::new(program(name)).arg(flag).output().unwrap();
            assert!(shown.status.success(), "{name} {flag}: {shown:?}");
            assert!(!shown.stdout.is_empty(), "{name} {flag}");

            // Nobody reads: the write fails with EPIPE (Rust ignores SIGPIPE).
            let (reader, writer) = rustix::pipe::pipe().unwrap();
            drop(reader);
            let closed = Command::new(program(name))
                .arg(flag)
                .stdout(Stdio::from(writer))
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&closed.stderr);
            assert!(
                closed.status.success() && !stderr.contains("panicked"),
                "{name} {flag} into a closed pipe: {:?} {stderr}",
                closed.status
            );
        }
    }
}

/// The standard output of `name --help`.
fn help(name: &str) -> String {
    let shown = Command::new(program(name)).arg("--help").output().unwrap();
    assert!(shown.status.success(), "{name} --help: {shown:?}");
    String::from_utf8(shown.stdout).unwrap()
}

#[test]
fn the_help_names_every_flag_and_what_follows_it() {
    let listening = [
        "--listen <ADDR>",
        "--allow-origin <URL>",
        "--allow-host <NAME>",
        "--token <TOKEN>",
        "--client-id-profile",
        "--connection-id-prefix <PREFIX>",
        "--tls-cert <FILE>",
        "--tls-key <FILE>",
    ];
    let agent = help("agent");
    for said in listening.iter().chain(&[
        "--framing <MODE>",
        "-V, --version",
        "RUST_LOG",
        "Prompt commands:",
        "stream [N [MS]]",
    ]) {
        assert!(agent.contains(said), "agent --help lacks {said}:\n{agent}");
    }
    let bridge = help("bridge");
    for said in listening
        .iter()
        .chain(&["--framing <MODE>", "AGENT_COMMAND"])
    {
        assert!(
            bridge.contains(said),
            "bridge --help lacks {said}:\n{bridge}"
        );
    }
    let client = help("client");
    for said in [
        "--prompt <TEXT>",
        "--interactive",
        "--yes",
        "--no",
        "--cancel-after <DUR>",
        "--timeout <DUR>",
        "--mode <ID>",
        "--auth <ID>",
        "--json",
        "--cwd <DIR>",
        "--read-only",
        "--no-fs",
        "--no-terminal",
        "--framing <MODE>",
        "--url <URL>",
        "--tls-ca <FILE>",
        "--token <TOKEN>",
        "--client-id-profile",
        "AGENT_COMMAND",
        "Client commands",
        ":load ID",
        "Exit status",
    ] {
        assert!(
            client.contains(said),
            "client --help lacks {said}:\n{client}"
        );
    }
    for hidden in [&agent, &bridge, &client] {
        assert!(!hidden.contains("--wire-log"), "a test flag in:\n{hidden}");
    }
}

#[test]
fn a_bad_command_line_is_refused_with_exit_code_2_and_says_why() {
    for (name, args, why) in [
        (
            "agent",
            &["--allow-host", "a.test"][..],
            "--allow-host needs --listen ADDR",
        ),
        ("agent", &["--framing", "lsp"], "unknown framing mode"),
        (
            "agent",
            &["--listen", "127.0.0.1:0", "--framing", "auto"],
            "--framing",
        ),
        (
            "agent",
            &[
                "--listen",
                "127.0.0.1:0",
                "--allow-origin",
                "http://a.test/",
            ],
            "write `http://a.test`",
        ),
        ("agent", &["--unknown"], "--unknown"),
        ("bridge", &["--", "agent"], "--listen ADDR is required"),
        ("bridge", &["--listen", "127.0.0.1:0"], "AGENT_COMMAND"),
        ("client", &["--token", "t"], "--token needs --url"),
        ("client", &["--cancel-after", "soon"], "is not a duration"),
        (
            "client",
            &["--prompt", "hi", "--"],
            "must be followed by the agent command",
        ),
        (
            "client",
            &["--url", "http://127.0.0.1:1/acp", "--", "agent"],
            "exclude each other",
        ),
    ] {
        let refused = Command::new(program(name))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{name} {args:?}: {stderr}");
        assert!(stderr.contains(why), "{name} {args:?}: {stderr}");
        assert!(refused.stdout.is_empty(), "{name} {args:?}");
    }
}
