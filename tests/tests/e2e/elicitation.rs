//! Shows elicitation end to end: a form filled in, a URL visited, the completion notification;
//! and the agent library refusing to request a mode the client did not advertise.

use crate::common;

use acp_e2e::{
    ClientEvent, Direction, Duplex, ELICITATION_ID, Wiring, all_client_capabilities, form_answers,
    script, within,
};
use acp_types::*;
use common::{duplex, prompt};

#[tokio::test(flavor = "current_thread")]
async fn a_form_and_a_url_elicitation_make_the_round_trip() {
    for wiring in [Wiring::NDJSON, Wiring::CONTENT_LENGTH] {
        let mut h = Duplex::start(duplex(wiring));
        h.initialize(all_client_capabilities()).await;
        let session = h.new_session().await;
        let done = within("prompt", h.agent.prompt(prompt(&session, script::ELICIT)))
            .await
            .expect("prompt");
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        let answers = serde_json::to_string(&form_answers()).expect("serializable");
        assert_eq!(
            h.editor.messages_of(&session),
            [
                format!("form: accept {answers}"),
                "url: Accept(ElicitationAcceptAction { content: None, extras: Extras })".to_owned(),
                "complete: ok".to_owned(),
            ]
        );
        match h.client_event().await {
            ClientEvent::ElicitationCompleted(id) => assert_eq!(id.as_str(), ELICITATION_ID),
            other => panic!("expected the completion, got {other:?}"),
        }
        let asked = h.editor.elicitations();
        assert!(matches!(asked[0].mode, ElicitationMode::Form(_)));
        assert!(matches!(asked[1].mode, ElicitationMode::Url(_)));
        assert_eq!(
            asked[0].scope(),
            &ElicitationScope::Session(ElicitationSessionScope::new(session.clone()))
        );
        let wire = h.shutdown(10).await;
        let created = wire.calls(Direction::AgentToClient, "elicitation/create");
        assert_eq!(created[0]["params"]["mode"], "form");
        assert_eq!(created[0]["params"]["sessionId"], session.as_str());
        assert_eq!(
            created[0]["params"]["requestedSchema"]["properties"]["strategy"]["enum"],
            serde_json::json!(["conservative", "bold"])
        );
        assert_eq!(created[1]["params"]["mode"], "url");
        let answer = wire
            .response_to(Direction::ClientToAgent, &created[0]["id"])
            .expect("answered");
        assert_eq!(answer["result"]["action"], "accept");
        assert_eq!(answer["result"]["content"]["passes"], 2);
        let complete = wire.calls(Direction::AgentToClient, "elicitation/complete");
        assert_eq!(complete[0]["params"]["elicitationId"], ELICITATION_ID);
    }
}

async fn gated_report(capabilities: ClientCapabilities) -> Vec<String> {
    let h = Duplex::start(duplex(Wiring::NDJSON));
    h.initialize(capabilities).await;
    let session = h.new_session().await;
    within(
        "prompt",
        h.agent.prompt(prompt(&session, script::TRY_GATED_CALLS)),
    )
    .await
    .expect("prompt");
    let report = h.editor.messages_of(&session);
    h.shutdown(4).await;
    report
        .into_iter()
        .filter(|line| line.starts_with("elicitation/"))
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn only_advertised_elicitation_modes_are_requested() {
    let form_only = ClientCapabilities::new()
        .elicitation(ElicitationCapabilities::new().form(ElicitationFormCapabilities::new()));
    assert_eq!(
        gated_report(form_only).await,
        [
            "elicitation/create form: ok",
            "elicitation/create url: not advertised (elicitation.url)",
            "elicitation/complete: not advertised (elicitation.url)",
        ]
    );
    let url_only = ClientCapabilities::new()
        .elicitation(ElicitationCapabilities::new().url(ElicitationUrlCapabilities::new()));
    assert_eq!(
        gated_report(url_only).await,
        [
            "elicitation/create form: not advertised (elicitation.form)",
            "elicitation/create url: ok",
            "elicitation/complete: ok",
        ]
    );
    // The spec: `{}` advertises no mode at all.
    let no_mode = ClientCapabilities::new().elicitation(ElicitationCapabilities::new());
    assert_eq!(
        gated_report(no_mode).await,
        [
            "elicitation/create form: not advertised (elicitation.form)",
            "elicitation/create url: not advertised (elicitation.url)",
            "elicitation/complete: not advertised (elicitation.url)",
        ]
    );
}
