//! The demo client against an agent that requires signing in: it shows the agent's
//! authentication methods, and a `session/new` refused with `auth_required` (-32000) ends the run
//! with the methods and a hint; `--auth` signs in first, by `authenticate` (an `agent` method,
//! an `env_var` one once its variables are checked) or by running the agent's own terminal
//! login and connecting again (a `terminal` method, never passed to `authenticate`).
#![cfg(unix)]

use std::process::{Command, Stdio};

use crate::common::{Run, Workdir, of, program, stop_reasons, wait};
use serde_json::Value;

/// The variable of the fake agent's `env_var` method.
const KEY_VAR: &str = "ACP_EXAMPLES_AUTH_TEST_KEY";

/// A fake ACP agent in `sh` that requires signing in. It logs every line it reads to
/// `agent.log`, and offers three methods:
/// - `login` (`agent`): `authenticate` signs in;
/// - `key` (`env_var`, reads `$ACP_EXAMPLES_AUTH_TEST_KEY`): `authenticate` signs in when the
///   agent's own environment has the variable;
/// - `tty` (`terminal`, args `--login`, env `LOGIN_MODE=tty`): run as `fake-agent --login`
///   with that variable, it creates `logged-in` and exits 0 (3 when `refuse-login` exists).
///
/// `session/new` fails with -32000 until signed in (or `logged-in` exists); a prompt gets a
/// chunk `signed in` and ends the turn.
const FAKE_AGENT: &str = r#"
if [ "$1" = "--login" ]; then
  echo "login: ${LOGIN_MODE:-none}"
  [ -e refuse-login ] && exit 3
  [ "$LOGIN_MODE" = tty ] && : > logged-in
  exit 0
fi
authed=no
[ -e logged-in ] && authed=yes
while IFS= read -r line; do
  printf '%s\n' "$line" >> agent.log
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"authMethods":[{"id":"login","name":"Agent login","description":"The agent signs you in"},{"id":"key","name":"API key","type":"env_var","vars":[{"name":"ACP_EXAMPLES_AUTH_TEST_KEY"}]},{"id":"tty","name":"Terminal login","type":"terminal","args":["--login"],"env":{"LOGIN_MODE":"tty"}}]}}\n' "$id";;
    *'"method":"authenticate"'*)
      method=$(printf '%s' "$line" | sed -n 's/.*"methodId":"\([^"]*\)".*/\1/p')
      if [ "$method" = login ] || { [ "$method" = key ] && [ -n "$ACP_EXAMPLES_AUTH_TEST_KEY" ]; }; then
        authed=yes
        printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
      else
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"cannot sign in with %s"}}\n' "$id" "$method"
      fi;;
    *'"method":"session/new"'*)
      if [ "$authed" = yes ]; then
        printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}\n' "$id"
      else
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"Authentication required"}}\n' "$id"
      fi;;
    *'"method":"session/prompt"'*)
      printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"signed in"}}}}\n'
      printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id";;
  esac
done
"#;

/// Runs the client with `flags` and `--prompt hi` against the fake agent in `dir`, with
/// `key` as the value of the `env_var` method's variable (`None`: unset), to the end.
fn run(dir: &Workdir, flags: &[&str], key: Option<&str>) -> Run {
    let mut command = Command::new(program("client"));
    command
        .args(flags)
        .args(["--prompt", "hi", "--", "sh", "-c", FAKE_AGENT, "fake-agent"])
        .current_dir(dir.path())
        .env_remove("LOGIN_MODE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match key {
        Some(key) => command.env(KEY_VAR, key),
        None => command.env_remove(KEY_VAR),
    };
    wait(command.spawn().expect("start the client"), |_| {})
}

/// The messages the fake agent received, by method.
fn received(dir: &Workdir) -> Vec<Value> {
    let log = std::fs::read_to_string(dir.path().join("agent.log")).unwrap_or_default();
    log.lines()
        .map(|line| serde_json::from_str(line).expect("the client sends JSON"))
        .collect()
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect()
}

#[test]
fn without_auth_the_refused_session_lists_the_methods_and_a_hint() {
    let dir = Workdir::new("auth", "none");
    let run = run(&dir, &[], None);
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    // On connecting, and again with the refusal.
    for shown in [
        "login (agent): Agent login - The agent signs you in",
        "key (env_var): API key [reads ACP_EXAMPLES_AUTH_TEST_KEY]",
        "tty (terminal): Terminal login [runs the agent with --login]",
    ] {
        assert!(run.stdout.contains(shown), "stdout: {}", run.stdout);
        assert!(run.stderr.contains(shown), "stderr: {}", run.stderr);
    }
    assert!(
        run.stderr.contains("session/new failed")
            && run.stderr.contains("-32000")
            && run
                .stderr
                .contains("Run again with --auth ID (e.g. --auth login)"),
        "stderr: {}",
        run.stderr
    );
    let messages = received(&dir);
    // No prompt without a session; the terminal login offered, since there is a command.
    assert_eq!(methods(&messages), ["initialize", "session/new"]);
    assert_eq!(
        messages[0]["params"]["clientCapabilities"]["auth"]["terminal"],
        true
    );
}

#[test]
fn the_refusal_is_in_the_json_transcript_with_the_methods() {
    let dir = Workdir::new("auth", "json");
    let run = run(&dir, &["--json"], None);
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    let events = run.events();
    let required = of(&events, "auth_required");
    assert_eq!(required.len(), 1, "{events:?}");
    let ids: Vec<(&str, &str)> = required[0]["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_str().unwrap(), m["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ids,
        [("login", "agent"), ("key", "env_var"), ("tty", "terminal")]
    );
    let errors = of(&events, "error");
    assert_eq!(errors[0]["during"], "session/new");
    assert_eq!(errors[0]["code"], -32000);
}

#[test]
fn an_agent_method_authenticates_before_the_session_and_the_prompt_works() {
    let dir = Workdir::new("auth", "agent");
    let run = run(&dir, &["--json", "--auth", "login"], None);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    let signed_in = of(&events, "authenticated");
    assert_eq!(signed_in.len(), 1, "{events:?}");
    assert_eq!(signed_in[0]["methodId"], "login");
    assert_eq!(stop_reasons(&events), ["end_turn"]);
    let messages = received(&dir);
    assert_eq!(
        methods(&messages),
        [
            "initialize",
            "authenticate",
            "session/new",
            "session/prompt"
        ]
    );
    assert_eq!(messages[1]["params"]["methodId"], "login");
}

#[test]
fn an_env_var_method_without_its_variable_is_a_clear_error() {
    let dir = Workdir::new("auth", "env-missing");
    let run = run(&dir, &["--auth", "key"], None);
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert!(
        run.stderr.contains(
            "authenticate failed: `key` reads its credentials from the environment: set \
             ACP_EXAMPLES_AUTH_TEST_KEY"
        ),
        "stderr: {}",
        run.stderr
    );
    // Nothing was asked of the agent with the credentials missing.
    assert_eq!(methods(&received(&dir)), ["initialize"]);
    // Set but empty is missing too.
    let run_empty = self::run(&dir, &["--auth", "key"], Some(""));
    assert_eq!(run_empty.code, Some(1), "stderr: {}", run_empty.stderr);
}

#[test]
fn an_env_var_method_with_its_variable_reaches_the_agent() {
    let dir = Workdir::new("auth", "env-set");
    let run = run(&dir, &["--json", "--auth", "key"], Some("secret"));
    // The fake agent signs in only when its own environment has the key.
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = run.events();
    assert_eq!(of(&events, "authenticated")[0]["kind"], "env_var");
    assert_eq!(stop_reasons(&events), ["end_turn"]);
}

#[test]
fn a_terminal_method_runs_the_login_then_connects_again_without_authenticate() {
    let dir = Workdir::new("auth", "terminal");
    // `--json`: the login's output goes to stderr, the transcript stays JSON.
    let run = run(&dir, &["--json", "--auth", "tty"], None);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    // The login ran with the method's arguments and environment.
    assert!(dir.path().join("logged-in").exists());
    assert!(run.stderr.contains("login: tty"), "stderr: {}", run.stderr);
    let events = run.events();
    assert_eq!(of(&events, "initialized").len(), 2, "{events:?}");
    assert_eq!(stop_reasons(&events), ["end_turn"]);
    // Never `authenticate` for a terminal method (the spec forbids it).
    assert_eq!(
        methods(&received(&dir)),
        ["initialize", "initialize", "session/new", "session/prompt"]
    );
}

#[test]
fn a_failed_terminal_login_stops_with_how_it_ended() {
    let dir = Workdir::new("auth", "terminal-fails");
    dir.write("refuse-login", "");
    let run = run(&dir, &["--auth", "tty"], None);
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert!(
        run.stderr
            .contains("terminal login failed: the login `sh -c")
            && run.stderr.contains("--login` exited with code 3"),
        "stderr: {}",
        run.stderr
    );
    assert_eq!(methods(&received(&dir)), ["initialize"]);
}

#[test]
fn an_unknown_method_is_refused_with_the_ones_offered() {
    let dir = Workdir::new("auth", "unknown");
    let run = run(&dir, &["--auth", "passkey"], None);
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert!(
        run.stderr
            .contains("the agent offers no sign-in method `passkey` (it offers: login, key, tty)"),
        "stderr: {}",
        run.stderr
    );
    assert_eq!(methods(&received(&dir)), ["initialize"]);
}
