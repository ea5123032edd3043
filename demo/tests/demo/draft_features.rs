//! The draft (unstable) protocol features of the demo agent and client, end to end as real
//! processes: the client drives the agent through session fork, LLM providers, plan operations
//! and token usage; the tests assert on the client's
//! `--json` transcript, and every message on the wire (the agent's `--wire-log`) is checked
//! against the official draft schema (`schema.unstable.json`, or the repository's generated
//! `schema/acp.unstable.schema.json` without it).
#![cfg(feature = "unstable")]

use serde_json::Value;

use crate::wired::{Run, run};

/// The draft schema every message is checked against.
fn check_wire(run: &Run) -> std::collections::BTreeSet<String> {
    run.check_wire(acp_testkit::Spec::load_unstable())
}

#[test]
fn the_client_drives_every_draft_feature_of_the_agent() {
    let run = run(
        "all",
        &["--yes", "--draft"],
        &[
            "edit notes.txt",
            "title Drafts",
            ":fork",
            "hello from the fork",
            ":load #2",
            ":providers",
            ":providers set main openai https://llm.example/v1",
            ":providers disable embeddings",
            ":providers disable main",
            ":providers",
        ],
    );
    // `:providers disable main` fails (a required provider), so the client reports a failure.
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    let methods = check_wire(&run);
    for method in [
        "session/fork",
        "providers/list",
        "providers/set",
        "providers/disable",
    ] {
        assert!(methods.contains(method), "{method} not on the wire");
    }

    // Capabilities, both ways.
    let caps = &run.received[0]["params"]["clientCapabilities"];
    assert!(caps["plan"].is_object(), "{caps}");
    let agent = &run.of("initialized")[0]["agentCapabilities"];
    assert!(agent["sessionCapabilities"]["fork"].is_object(), "{agent}");
    assert!(agent["providers"].is_object(), "{agent}");

    // Plan operations: the edit's plan by id, step by step, then removed; no stable `plan`.
    assert!(run.updates("plan").is_empty());
    let plans = run.updates("plan_update");
    assert!(plans.len() >= 3, "{plans:?}");
    assert!(plans.iter().all(|p| p["plan"]["planId"] == "plan-1"));
    let last = &plans.last().unwrap()["plan"]["entries"];
    assert!(
        last.as_array()
            .unwrap()
            .iter()
            .all(|e| e["status"] == "completed")
    );
    assert_eq!(run.updates("plan_removed")[0]["planId"], "plan-1");

    // Token usage on every prompt answer, consistent.
    let results = run.of("prompt_result");
    assert_eq!(results.len(), 3);
    for result in &results {
        let usage = &result["usage"];
        let (total, input, output) = (
            usage["totalTokens"].as_u64().unwrap(),
            usage["inputTokens"].as_u64().unwrap(),
            usage["outputTokens"].as_u64().unwrap(),
        );
        assert_eq!(total, input + output, "{usage}");
        assert!(output > 0, "{usage}");
    }

    // The fork: a new session, current for the next prompt, with the original's history.
    let fork = run.of("session_fork")[0];
    let first = &run.of("session_new")[0]["sessionId"];
    assert_eq!(fork["sessionId"], *first);
    assert_ne!(fork["forkId"], *first);
    assert!(
        fork["forkId"].as_str().unwrap().starts_with("sess-"),
        "{fork}"
    );
    assert_eq!(results[2]["sessionId"], fork["forkId"]);
    assert_eq!(run.of("session_load")[0]["sessionId"], fork["forkId"]);
    let replayed: Vec<&str> = run
        .events
        .iter()
        .filter(|e| e["replay"] == true && e["update"]["sessionUpdate"] == "user_message_chunk")
        .filter_map(|e| e["update"]["content"]["text"].as_str())
        .collect();
    assert_eq!(
        replayed,
        ["edit notes.txt", "title Drafts", "hello from the fork"]
    );

    // Providers: listed, set, disabled; a required one cannot be disabled.
    let lists = run.of("providers");
    assert_eq!(lists.len(), 2);
    let provider = |list: &Value, id: &str| {
        list["providers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["providerId"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        provider(lists[0], "main")["current"]["apiType"],
        "anthropic"
    );
    assert_eq!(provider(lists[0], "main")["required"], true);
    assert!(provider(lists[0], "embeddings")["current"].is_null());
    let main = provider(lists[1], "main");
    assert_eq!(main["current"]["apiType"], "openai");
    assert_eq!(main["current"]["baseUrl"], "https://llm.example/v1");
    assert_eq!(run.of("provider_set").len(), 1);
    assert_eq!(run.of("provider_disabled").len(), 1);
    let error = run.of("error");
    assert_eq!(error.len(), 1, "{error:?}");
    assert_eq!(error[0]["during"], "providers/disable");
    assert!(
        error[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be disabled")
    );
}

#[test]
fn without_draft_capabilities_the_agent_sends_only_what_the_client_advertised() {
    let run = run("stable-client", &["--yes"], &["edit notes.txt"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    check_wire(&run);
    let caps = &run.received[0]["params"]["clientCapabilities"];
    assert!(caps.get("plan").is_none(), "{caps}");
    // The stable `plan` instead of plan operations.
    assert!(!run.updates("plan").is_empty());
    assert!(run.updates("plan_update").is_empty());
    assert!(run.updates("plan_removed").is_empty());
    // Usage needs no capability.
    assert!(
        run.of("prompt_result")
            .iter()
            .all(|r| r["usage"].is_object())
    );
}

#[test]
fn fork_and_providers_fail_cleanly_on_bad_input() {
    let run = run(
        "bad-input",
        &[],
        &[
            ":fork sess-404",
            ":providers set nobody openai https://x.example",
            ":providers set embeddings anthropic https://x.example",
        ],
    );
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    check_wire(&run);
    let during: Vec<&str> = run
        .of("error")
        .iter()
        .map(|e| e["during"].as_str().unwrap())
        .collect();
    assert_eq!(during, ["session/fork", "providers/set", "providers/set"]);
}
