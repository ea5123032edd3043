//! Shows the agent using the client's file system and terminals end to end: reading (whole
//! and by line), writing, errors passed through, and a terminal's whole life (create, output,
//! wait for exit, kill, release).

use crate::common;

use acp_e2e::{Direction, Duplex, Wiring, all_client_capabilities, script, within};
use acp_types::*;
use common::{duplex, prompt, remote_code};

#[tokio::test(flavor = "current_thread")]
async fn files_are_read_and_written_through_the_client() {
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let h = Duplex::start(duplex(wiring));
        h.initialize(all_client_capabilities()).await;
        h.editor.put_file("/work/notes.txt", "one\ntwo\nthree\n");
        let session = h.new_session().await;
        let text = format!("{} /work/notes.txt /work/out.txt", script::READ_WRITE_FILE);
        let done = within("prompt", h.agent.prompt(prompt(&session, &text)))
            .await
            .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        assert_eq!(
            h.editor.messages_of(&session),
            [
                "read: one\ntwo\nthree\n",
                "line 2: two\n",
                "wrote: /work/out.txt"
            ]
        );
        assert_eq!(
            h.editor.file("/work/out.txt").as_deref(),
            Some("ONE\nTWO\nTHREE\n")
        );
        let wire = h.shutdown(12).await;
        let reads = wire.calls(Direction::AgentToClient, "fs/read_text_file");
        assert_eq!(reads.len(), 2);
        assert_eq!(reads[1]["params"]["line"], 2);
        assert_eq!(reads[1]["params"]["limit"], 1);
        let writes = wire.calls(Direction::AgentToClient, "fs/write_text_file");
        assert_eq!(writes[0]["params"]["content"], "ONE\nTWO\nTHREE\n");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_clients_error_for_a_missing_file_fails_the_turn() {
    let h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(all_client_capabilities()).await;
    let session = h.new_session().await;
    let text = format!(
        "{} /work/missing.txt /work/out.txt",
        script::READ_WRITE_FILE
    );
    let failed = within("prompt", h.agent.prompt(prompt(&session, &text))).await;
    // The agent passed the client's "resource not found" on as it was.
    assert_eq!(remote_code(failed), -32002);
    assert_eq!(h.editor.file("/work/out.txt"), None);
    let wire = h.shutdown(6).await;
    let read = &wire.calls(Direction::AgentToClient, "fs/read_text_file")[0];
    let answer = wire
        .response_to(Direction::ClientToAgent, &read["id"])
        .expect("answered");
    assert_eq!(answer["error"]["code"], -32002);
}

#[tokio::test(flavor = "current_thread")]
async fn a_terminals_whole_life_goes_through_the_client() {
    for wiring in [Wiring::NDJSON, Wiring::AUTO_CONTENT_LENGTH] {
        let h = Duplex::start(duplex(wiring));
        h.initialize(all_client_capabilities()).await;
        let session = h.new_session().await;
        let done = within("prompt", h.agent.prompt(prompt(&session, script::TERMINAL)))
            .await
            .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        assert_eq!(
            h.editor.messages_of(&session),
            [
                r#"echo: output "hello\n", exit code Some(0), reported Some(0)"#,
                r#"sleep: running true, killed by Some("SIGKILL"), output "ted\n" truncated true"#,
                "after release: error -32002",
            ],
            "{wiring}"
        );
        assert_eq!(h.editor.open_terminals(), 0, "every terminal was released");
        let wire = h.shutdown(20).await;
        for (method, count) in [
            ("terminal/create", 2),
            ("terminal/output", 4),
            ("terminal/wait_for_exit", 2),
            ("terminal/kill", 1),
            ("terminal/release", 2),
        ] {
            assert_eq!(
                wire.calls(Direction::AgentToClient, method).len(),
                count,
                "{method}"
            );
        }
        let create = &wire.calls(Direction::AgentToClient, "terminal/create")[1];
        assert_eq!(create["params"]["outputByteLimit"], 4);
    }
}
