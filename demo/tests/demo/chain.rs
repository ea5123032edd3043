//! The demo chain: the demo client → `acp conduct` → the example proxies of acp-proxy
//! (`policy`, `context`, `mcp_tool`) → the demo agent, as the README's "Chains of proxies"
//! runs it. The context line reaches the agent, and the policy refuses an edit outside its
//! directory without asking the editor, which would have allowed it. And the MCP tool of
//! `mcp_tool` reaches an agent through the command, over ACP or through the conductor's HTTP
//! bridge.

#![cfg(unix)]

use std::path::PathBuf;

use crate::common::{RUN_TIMEOUT, Workdir, of, program, run_client, updates};

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

/// The texts of the agent's message chunks in a transcript.
fn said(events: &[serde_json::Value]) -> String {
    updates(events, "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_mcp_tool_proxy_reaches_agents_with_and_without_mcp_over_acp_through_acp_conduct() {
    build_chain_programs();
    // The agent of the conductor's MCP tests: `acp` takes MCP over ACP, `http` only Streamable
    // HTTP (the conductor bridges).
    acp_testkit::cargo_build(&["-p", "acp-conductor", "--example", "mcp_agent"]);
    let acp = target_dir().join("acp").display().to_string();
    for transport in ["acp", "http"] {
        let work = Workdir::new("chain-mcp", transport);
        std::fs::create_dir_all(work.path().join("sub")).expect("a directory");
        for file in ["a.rs", "b.rs"] {
            work.write(file, "x");
        }
        // The editor's hop, recorded by `acp tap`, then validated against the schema.
        let log = work.path().join("sub").join("editor-hop.jsonl");
        let log_arg = log.display().to_string();
        let agent = format!("{} {transport}", example("mcp_agent"));
        let run = run_client(
            work.path(),
            &[
                "--json",
                "--prompt",
                "How big is the project?",
                "--",
                &acp,
                "tap",
                "--log",
                &log_arg,
                "--",
                &acp,
                "conduct",
                "--",
                &example("mcp_tool"),
                &agent,
            ],
        );
        assert_eq!(
            run.code,
            Some(0),
            "{transport}: the client ran the chain: {}",
            run.stderr
        );
        let said = said(&run.events());
        assert!(
            said.contains("tools: project_info"),
            "{transport}: the agent listed the proxy's tool: {said}"
        );
        // notes.txt, a.rs, b.rs (the subdirectory and its log are not counted).
        let expected = format!("project_info: {} holds 3 files", work.path().display());
        assert!(
            said.contains(&expected),
            "{transport}: the agent called the tool for its session's directory: {said}"
        );

        let mut validate = std::process::Command::new(&acp);
        validate
            .args(["validate", &log_arg])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = validate.spawn().expect("start acp validate");
        let status = acp_testkit::wait_with_deadline(&mut child, RUN_TIMEOUT);
        let mut report = String::new();
        if let Some(mut out) = child.stdout.take() {
            let _ = std::io::Read::read_to_string(&mut out, &mut report);
        }
        assert_eq!(
            status.code(),
            Some(0),
            "{transport}: the editor's hop is valid: {report}"
        );
    }
}
