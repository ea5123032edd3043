//! The demo chain: the demo client → `acp conduct` → the example proxies of acp-proxy
//! (`policy`, `context`, `mcp_tool`) → the demo agent, as the README's "Chains of proxies"
//! runs it. The context line reaches the agent, and the policy refuses an edit outside its
//! directory without asking the editor, which would have allowed it.

#![cfg(unix)]

use std::path::PathBuf;

use crate::common::{Workdir, of, program, run_client, updates};

/// `target/<profile>`, where cargo puts the programs.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    exe.parent()
        .and_then(std::path::Path::parent)
        .expect("the test executable lives in target/<profile>/deps")
        .to_path_buf()
}

/// The `acp` tool and the example proxies (another package's programs: cargo builds them).
fn build_chain_programs() {
    acp_testkit::cargo_build(&[
        "-p",
        "acp-cli",
        "--bin",
        "acp",
        "-p",
        "acp-proxy",
        "--example",
        "context",
        "--example",
        "policy",
        "--example",
        "mcp_tool",
    ]);
}

fn example(name: &str) -> String {
    acp_testkit::example_binary(name).display().to_string()
}

#[test]
fn the_chain_adds_context_and_refuses_an_edit_outside_the_allowed_directory() {
    build_chain_programs();
    let work = Workdir::new("chain", "policy");
    let allowed = work.path().join("allowed");
    std::fs::create_dir_all(&allowed).expect("a directory");
    let acp = target_dir().join("acp").display().to_string();
    let policy = format!("{} {}", example("policy"), allowed.display());
    let context = format!(
        "{} 'Project context: the acp-rs demo chain.'",
        example("context")
    );
    let agent = program("agent").display().to_string();
    let run = run_client(
        work.path(),
        &[
            "--json",
            "--yes",
            "--prompt",
            "hello",
            "--prompt",
            "edit notes.txt",
            "--",
            &acp,
            "conduct",
            "--",
            &policy,
            &context,
            &example("mcp_tool"),
            &agent,
        ],
    );
    assert_eq!(
        run.code,
        Some(0),
        "the client ran the chain: {}",
        run.stderr
    );
    let events = run.events();
    let said: String = updates(&events, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert!(
        said.contains("Project context: the acp-rs demo chain."),
        "the agent read the context line: {said}"
    );
    // The agent took `edit notes.txt` as its command (the context line before it is not one):
    // it read the file to propose the edit.
    assert!(!of(&events, "fs_read").is_empty(), "the edit ran: {said}");
    // The editor allows everything (--yes), yet was never asked: the policy refused the edit
    // of a file outside `allowed`, which stays as it was.
    assert!(
        of(&events, "permission_request").is_empty(),
        "the policy answered the permission request itself"
    );
    assert!(of(&events, "fs_write").is_empty(), "nothing was written");
    assert!(
        work.read("notes.txt").contains("TODO: one"),
        "notes.txt is unchanged"
    );
}
