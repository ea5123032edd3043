//! `--help` and `--version` of the example programs: printed on stdout, and a reader that went
//! away (`agent --help | head -1`) is no error (it used to be a panic of `println!`).

use std::process::{Command, Stdio};

use acp_testkit::example_binary;

#[test]
fn help_and_version_go_to_stdout_and_a_closed_pipe_is_no_error() {
    for program in ["agent", "client", "bridge"] {
        let flags: &[&str] = if program == "client" {
            &["--help"]
        } else {
            &["--help", "--version"]
        };
        for flag in flags {
            let shown = Command::new(example_binary(program))
                .arg(flag)
                .output()
                .unwrap();
            assert!(shown.status.success(), "{program} {flag}: {shown:?}");
            assert!(!shown.stdout.is_empty(), "{program} {flag}");

            // Nobody reads: the write fails with EPIPE (Rust ignores SIGPIPE).
            let (reader, writer) = rustix::pipe::pipe().unwrap();
            drop(reader);
            let closed = Command::new(example_binary(program))
                .arg(flag)
                .stdout(Stdio::from(writer))
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&closed.stderr);
            assert!(
                closed.status.success() && !stderr.contains("panicked"),
                "{program} {flag} into a closed pipe: {:?} {stderr}",
                closed.status
            );
        }
    }
}
