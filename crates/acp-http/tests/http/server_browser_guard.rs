//! The guard as browsers meet it, on real sockets: allowed origins (`*` included) and their
//! CORS answers with credentials, origins no browser sends refused at configuration time,
//! refusals logged, the `Host` check against DNS rebinding, and a bearer token carried by a
//! WebSocket subprotocol.

use crate::common;

use acp_http::server::{BEARER_SUBPROTOCOL_PREFIX, SUBPROTOCOL, ServerOptions};
use common::{Answer, Raw, TestServer, check, http_client, within};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
}

/// An `initialize` POST with `headers`.
async fn post_initialize(t: &TestServer, headers: &[(&str, &str)]) -> Answer {
    Raw::new(&t.url).post(initialize(), headers).await
}

/// Any request to the endpoint, with `headers`.
async fn send(t: &TestServer, method: reqwest::Method, headers: &[(&str, &str)]) -> Answer {
    let mut request = http_client().request(method, &t.url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = within("a request", request.send())
        .await
        .expect("the request");
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: within("a body", response.text()).await.unwrap_or_default(),
    }
}

/// The comma-separated items of a header, lower case.
fn items(answer: &Answer, name: &str) -> Vec<String> {
    answer
        .headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect()
}

#[tokio::test]
async fn any_origin_is_allowed_and_mirrored_without_credentials_unless_asked() {
    let t = TestServer::start(ServerOptions::default().allow_origin("*")).await;
    for origin in ["https://anywhere.example", "http://127.0.0.1:5173"] {
        let answer = post_initialize(&t, &[("origin", origin)]).await;
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.header("access-control-allow-origin"), Some(origin));
        assert!(
            items(&answer, "vary").contains(&"origin".to_owned()),
            "{answer:?}"
        );
        assert_eq!(answer.header("access-control-allow-credentials"), None);
    }
    let opaque = post_initialize(&t, &[("origin", "null")]).await;
    assert_eq!(opaque.status, 403, "`*` does not cover `null`: {opaque:?}");
    t.stop().await;

    let options = ServerOptions::default()
        .allow_origin("*")
        .any_origin_credentials(true);
    let t = TestServer::start(options).await;
    let answer = post_initialize(&t, &[("origin", "https://anywhere.example")]).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://anywhere.example")
    );
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        Some("true")
    );
    t.stop().await;
}

#[tokio::test]
async fn origins_no_browser_sends_are_refused_with_a_clear_error() {
    let error = ServerOptions::default()
        .try_allow_origin("http://a.test/")
        .unwrap_err();
    assert_eq!(error.option(), "allowed origin");
    assert_eq!(error.value(), "http://a.test/");
    assert!(
        error.to_string().contains("write `http://a.test`"),
        "{error}"
    );
    for (bad, says) in [
        ("not a url", "no spaces"),
        ("localhost", "write `scheme://host[:port]`"),
        ("https://A.test:443", "lower case"),
        ("https://a.test:443", "default port"),
    ] {
        let error = ServerOptions::default().try_allow_origin(bad).unwrap_err();
        assert!(error.to_string().contains(says), "{bad}: {error}");
    }
    let options = ServerOptions::default()
        .try_allow_origin("http://127.0.0.1:5173")
        .unwrap()
        .try_allow_origin("null")
        .unwrap()
        .try_allow_origin("*")
        .unwrap();
    assert_eq!(options.validate(), Ok(()));
    let host = ServerOptions::default()
        .try_allow_host("agent.example.com:8443")
        .unwrap_err();
    assert!(
        host.to_string().contains("write `agent.example.com`"),
        "{host}"
    );

    // Set without checking, the value is caught by `validate` and never matches, even for a
    // client that sends it verbatim.
    let unchecked = ServerOptions::default().allow_origin("http://a.test/");
    let error = unchecked.validate().unwrap_err();
    assert_eq!(error.value(), "http://a.test/");
    let t = TestServer::start(unchecked).await;
    let answer = post_initialize(&t, &[("origin", "http://a.test/")]).await;
    assert_eq!(answer.status, 403, "{answer:?}");
    assert_eq!(t.server.connection_count(), 0);
    t.stop().await;
}

/// The events of the test's thread, as `LEVEL field=value ...` lines.
#[tokio::test]
async fn a_host_that_does_not_name_this_server_gets_421() {
    let t = TestServer::start(ServerOptions::default()).await;
    let port = t.url.split(':').nth(2).unwrap().split('/').next().unwrap();
    // A page of evil.example rebound to 127.0.0.1: same-origin, so no `Origin` at all.
    let rebound = post_initialize(&t, &[("host", &format!("evil.example:{port}"))]).await;
    assert_eq!(rebound.status, 421, "{rebound:?}");
    assert_eq!(t.server.connection_count(), 0);
    let preflight = send(
        &t,
        reqwest::Method::OPTIONS,
        &[("host", "evil.example"), ("origin", "http://evil.example")],
    )
    .await;
    assert_eq!(preflight.status, 421, "{preflight:?}");
    for host in [
        format!("localhost:{port}"),
        format!("LocalHost.:{port}"),
        format!("app.localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "10.0.0.7".to_owned(),
    ] {
        let answer = post_initialize(&t, &[("host", &host)]).await;
        assert_eq!(answer.status, 200, "{host}: {answer:?}");
    }
    t.stop().await;

    let options = ServerOptions::default().allow_host("agent.example.com");
    let t = TestServer::start(options).await;
    let named = post_initialize(&t, &[("host", "Agent.Example.com:443")]).await;
    assert_eq!(named.status, 200, "{named:?}");
    let other = post_initialize(&t, &[("host", "example.com")]).await;
    assert_eq!(other.status, 421, "{other:?}");
    t.stop().await;

    let t = TestServer::start(ServerOptions::default().allow_host("*")).await;
    let any = post_initialize(&t, &[("host", "whatever.example")]).await;
    assert_eq!(any.status, 200, "{any:?}");
    t.stop().await;
}

#[tokio::test]
async fn allowed_origins_get_cors_with_credentials() {
    let page = "http://127.0.0.1:5173";
    let options = ServerOptions::default()
        .try_allow_origin(page)
        .unwrap()
        .bearer_token("s3cret")
        .unwrap();
    let t = TestServer::start(options).await;
    // The preflight of the official TypeScript SDK's POSTs (no credentials in a preflight).
    let preflight = send(
        &t,
        reqwest::Method::OPTIONS,
        &[
            ("origin", page),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "accept,acp-connection-id,acp-session-id,authorization,content-type",
            ),
        ],
    )
    .await;
    assert_eq!(preflight.status, 200, "{preflight:?}");
    assert_eq!(preflight.header("access-control-allow-origin"), Some(page));
    assert_eq!(
        preflight.header("access-control-allow-credentials"),
        Some("true")
    );
    let allowed = items(&preflight, "access-control-allow-headers");
    for name in [
        "accept",
        "acp-connection-id",
        "acp-session-id",
        "authorization",
        "content-type",
    ] {
        assert!(allowed.contains(&name.to_owned()), "{name}: {allowed:?}");
    }
    assert!(items(&preflight, "access-control-allow-methods").contains(&"post".to_owned()));
    assert!(items(&preflight, "vary").contains(&"origin".to_owned()));
    assert_eq!(preflight.header("access-control-max-age"), Some("600"));
    // Chromium's private network access: a listed page may reach an agent on this machine.
    let private = send(
        &t,
        reqwest::Method::OPTIONS,
        &[
            ("origin", page),
            ("access-control-request-method", "POST"),
            ("access-control-request-private-network", "true"),
        ],
    )
    .await;
    assert_eq!(
        private.header("access-control-allow-private-network"),
        Some("true")
    );

    let answer = post_initialize(&t, &[("origin", page), ("authorization", "Bearer s3cret")]).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.header("access-control-allow-origin"), Some(page));
    assert_eq!(
        answer.header("access-control-allow-credentials"),
        Some("true")
    );
    assert!(items(&answer, "vary").contains(&"origin".to_owned()));
    let exposed = items(&answer, "access-control-expose-headers");
    assert!(
        exposed.contains(&"acp-connection-id".to_owned()),
        "{exposed:?}"
    );
    assert!(
        exposed.contains(&"acp-session-id".to_owned()),
        "{exposed:?}"
    );
    // A refusal the page can read (the browser would otherwise hide it as a network error).
    let anonymous = post_initialize(&t, &[("origin", page)]).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(
        anonymous.header("access-control-allow-credentials"),
        Some("true")
    );

    let foreign = send(
        &t,
        reqwest::Method::OPTIONS,
        &[
            ("origin", "https://evil.example"),
            ("access-control-request-method", "POST"),
        ],
    )
    .await;
    assert_eq!(foreign.header("access-control-allow-origin"), None);
    assert_eq!(foreign.header("access-control-allow-credentials"), None);
    t.stop().await;
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens a WebSocket as a browser page would: `Origin`, and the subprotocols offered. `Ok`
/// with the selected subprotocol, or `Err` with the refusal's status.
async fn open(t: &TestServer, protocols: &str) -> Result<(Socket, Option<String>), u16> {
    let mut request = t
        .url
        .replace("http://", "ws://")
        .into_client_request()
        .unwrap();
    let headers = request.headers_mut();
    headers.insert("origin", "http://127.0.0.1:5173".parse().unwrap());
    headers.insert("sec-websocket-protocol", protocols.parse().unwrap());
    match within("the upgrade", tokio_tungstenite::connect_async(request)).await {
        Ok((socket, response)) => {
            let selected = response
                .headers()
                .get("sec-websocket-protocol")
                .map(|v| v.to_str().unwrap().to_owned());
            Ok((socket, selected))
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(other) => panic!("upgrade failed: {other}"),
    }
}

#[tokio::test]
async fn a_browser_websocket_carries_its_token_in_a_subprotocol() {
    let token = "dG9rZW4tZm9yLWEtYnJvd3Nlcg";
    let options = ServerOptions::default()
        .try_allow_origin("http://127.0.0.1:5173")
        .unwrap()
        .bearer_token(token)
        .unwrap();
    let t = TestServer::start(options).await;
    let offered = format!("{SUBPROTOCOL}, {BEARER_SUBPROTOCOL_PREFIX}{token}");
    let (mut socket, selected) = open(&t, &offered).await.unwrap();
    assert_eq!(
        selected.as_deref(),
        Some("acp"),
        "the token is never echoed"
    );
    let message = initialize();
    check(&message);
    within("a send", socket.send(Message::text(message.to_string())))
        .await
        .unwrap();
    let answer = loop {
        match within("the answer", socket.next()).await {
            Some(Ok(Message::Text(text))) => break serde_json::from_str::<Value>(&text).unwrap(),
            Some(Ok(_)) => {}
            other => panic!("no answer: {other:?}"),
        }
    };
    check(&answer);
    assert_eq!(answer["id"], 0, "{answer}");

    let wrong = format!("acp, {BEARER_SUBPROTOCOL_PREFIX}not-the-token");
    assert_eq!(open(&t, &wrong).await.err(), Some(401));
    assert_eq!(open(&t, "acp").await.err(), Some(401));
    let without_acp = format!("{BEARER_SUBPROTOCOL_PREFIX}{token}");
    assert_eq!(open(&t, &without_acp).await.err(), Some(400));
    assert_eq!(
        t.server.connection_count(),
        1,
        "only the authenticated socket"
    );
    drop(socket);
    t.stop().await;
}
