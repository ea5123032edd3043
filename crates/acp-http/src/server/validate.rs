//! Checking the guard's settings ([`ServerOptions::allowed_origins`],
//! [`ServerOptions::allowed_hosts`]) when they are given: a value no browser ever sends would
//! never match, and the page it was meant for would be refused without a word.
//!
//! [`ServerOptions::allowed_origins`]: crate::server::ServerOptions::allowed_origins
//! [`ServerOptions::allowed_hosts`]: crate::server::ServerOptions::allowed_hosts

use std::fmt;
use std::net::Ipv6Addr;

/// A setting of [`ServerOptions`](crate::server::ServerOptions) that can never work: an
/// allowed origin or host written in a form that no browser sends, or a bearer token no client
/// can send. Its message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    option: &'static str,
    value: String,
    reason: String,
}

impl ConfigError {
    fn new(option: &'static str, value: &str, reason: impl Into<String>) -> Self {
        // The operator's own value, but it may come from a command line: bounded, escaped.
        let mut shown: String = value.chars().take(MAX_SHOWN_CHARS).collect();
        if shown.len() < value.len() {
            shown.push('…');
        }
        Self {
            option,
            value: shown,
            reason: reason.into(),
        }
    }

    /// The setting: `allowed origin`, `allowed host` or `bearer token`.
    pub fn option(&self) -> &str {
        self.option
    }

    /// The value refused (at most 200 characters of it; `(not shown)` for a bearer token).
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Why, and what to write instead.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} `{}`: {}",
            self.option,
            self.value.escape_debug(),
            self.reason
        )
    }
}

impl std::error::Error for ConfigError {}

/// How much of a refused value an error shows.
const MAX_SHOWN_CHARS: usize = 200;

const ORIGIN: &str = "allowed origin";
const HOST: &str = "allowed host";
const BEARER: &str = "bearer token";

/// Checks the token of [`ServerOptions::bearer_token`](crate::server::ServerOptions::bearer_token):
/// one a client cannot send would lock every client out. The token, a secret, is not shown.
pub(crate) fn bearer_rule(token: &str) -> Result<(), ConfigError> {
    match crate::headers::bearer_token_problem(token) {
        Some(reason) => Err(ConfigError::new(BEARER, "(not shown)", reason)),
        None => Ok(()),
    }
}

/// An entry of the origin allow-list, once checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OriginRule {
    /// `*`: every origin but `null`.
    Any,
    /// One origin, exactly as browsers send it (`null` included, when named).
    Exact(String),
}

/// Checks an allowed origin: `*`, `null`, or `scheme://host[:port]` exactly as a browser sends
/// it in `Origin` (lower-case scheme and host, no path, no trailing slash, no default port,
/// IPv6 in brackets in its shortest form, international names in their `xn--` form).
pub(crate) fn origin_rule(value: &str) -> Result<OriginRule, ConfigError> {
    let fail = |reason: String| Err(ConfigError::new(ORIGIN, value, reason));
    match value {
        "*" => return Ok(OriginRule::Any),
        "null" => return Ok(OriginRule::Exact(value.to_owned())),
        "" => return fail("empty: an origin is `scheme://host[:port]`".into()),
        _ => {}
    }
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return fail("an origin has no spaces or control characters".into());
    }
    let Some((scheme, rest)) = value.split_once("://") else {
        return fail(format!(
            "not an origin: write `scheme://host[:port]`, as `http://{value}` or `https://{value}`"
        ));
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return fail(format!("`{scheme}` is not a URL scheme"));
    }
    if scheme.eq_ignore_ascii_case("file") {
        return fail(
            "pages opened from file:// send `Origin: null`: allow `null` (any local file, or a sandboxed frame, could then use the agent)"
                .into(),
        );
    }
    let lower_scheme = scheme.to_ascii_lowercase();
    if let Some(end) = rest.find(['/', '?', '#']) {
        return fail(format!(
            "an origin has no path, not even `/`: write `{lower_scheme}://{}`",
            &rest[..end]
        ));
    }
    if rest.contains('@') {
        return fail("an origin has no user name or password".into());
    }
    let (host, port) = if let Some(inside) = rest.strip_prefix('[') {
        let Some((literal, after)) = inside.split_once(']') else {
            return fail("an IPv6 address needs its closing `]`".into());
        };
        let Ok(address) = literal.parse::<Ipv6Addr>() else {
            return fail(format!("`{literal}` is not an IPv6 address"));
        };
        let canonical = address.to_string();
        if canonical != literal {
            return fail(format!(
                "browsers send the shortest lower-case form of an IPv6 address: write `{lower_scheme}://[{canonical}]{after}`"
            ));
        }
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(port) => Some(port),
                None => return fail("after `]` comes nothing or `:port`".into()),
            },
        };
        (None, port)
    } else {
        match rest.rsplit_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(rest), None),
        }
    };
    if let Some(host) = host {
        if host.is_empty() {
            return fail("an origin needs a host".into());
        }
        if !host.is_ascii() {
            return fail(
                "browsers send international names in their ASCII form: write the `xn--` form of the name"
                    .into(),
            );
        }
        if let Some(bad) = host
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
        {
            return fail(format!("`{bad}` cannot be in a host name"));
        }
    }
    if scheme != lower_scheme || host.is_some_and(|h| h.bytes().any(|b| b.is_ascii_uppercase())) {
        return fail(format!(
            "browsers send the scheme and the host in lower case: write `{}`",
            value.to_ascii_lowercase()
        ));
    }
    if let Some(port) = port {
        let digits = !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
        let number = port.parse::<u16>().ok().filter(|_| digits);
        let Some(number) = number.filter(|&n| n != 0) else {
            return fail(format!("`{port}` is not a port (1 to 65535)"));
        };
        let without = &value[..value.len() - port.len() - 1];
        if port.starts_with('0') {
            return fail(format!(
                "browsers send the port without leading zeros: write `{without}:{number}`"
            ));
        }
        let default = match scheme {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            _ => None,
        };
        if default == Some(number) {
            return fail(format!(
                "browsers leave out the default port of `{scheme}`: write `{without}`"
            ));
        }
    }
    Ok(OriginRule::Exact(value.to_owned()))
}

/// An entry of the host allow-list, once checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostRule {
    /// `*`: any `Host`.
    Any,
    /// One name (any port), lower case, without a trailing dot.
    Name(String),
}

/// Checks an allowed host: `*`, or a host name without scheme or port (`agent.example.com`:
/// every port of it is allowed). IP literals and `localhost` are always allowed.
pub(crate) fn host_rule(value: &str) -> Result<HostRule, ConfigError> {
    let fail = |reason: String| Err(ConfigError::new(HOST, value, reason));
    if value == "*" {
        return Ok(HostRule::Any);
    }
    if let Some((_, rest)) = value.split_once("://") {
        let host = rest.split(['/', ':']).next().unwrap_or_default();
        return fail(format!("a host has no scheme: write `{host}`"));
    }
    if value.starts_with('[') || value.parse::<std::net::IpAddr>().is_ok() {
        return fail("IP addresses are always allowed: no need to name them".into());
    }
    if let Some((host, _)) = value.split_once(':') {
        return fail(format!(
            "a host is named without its port (every port is allowed): write `{host}`"
        ));
    }
    if value.contains('/') {
        return fail("a host has no path".into());
    }
    if value.starts_with("*.") {
        return fail("only `*` alone is a wildcard: name each host".into());
    }
    let name = value.strip_suffix('.').unwrap_or(value);
    if name.is_empty() {
        return fail("empty: name a host, as `agent.example.com`".into());
    }
    if !name.is_ascii() {
        return fail(
            "browsers send international names in their ASCII form: write the `xn--` form of the name"
                .into(),
        );
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
    {
        return fail(format!("`{}` cannot be in a host name", bad.escape_debug()));
    }
    if name.split('.').any(str::is_empty) {
        return fail("a host name has no empty label (`..`)".into());
    }
    Ok(HostRule::Name(name.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin_error(value: &str) -> String {
        origin_rule(value).unwrap_err().to_string()
    }

    #[test]
    fn origins_are_taken_as_browsers_send_them() {
        for ok in [
            "http://localhost:3000",
            "https://app.example",
            "http://127.0.0.1:8123",
            "http://[::1]:8123",
            "chrome-extension://abcdefghijklmnop",
            "null",
            "https://xn--bcher-kva.example",
        ] {
            assert_eq!(origin_rule(ok), Ok(OriginRule::Exact(ok.into())), "{ok}");
        }
        assert_eq!(origin_rule("*"), Ok(OriginRule::Any));
    }

    #[test]
    fn origins_that_never_match_say_what_to_write() {
        let cases = [
            ("http://a.test/", "write `http://a.test`"),
            ("http://a.test/app", "write `http://a.test`"),
            ("not a url", "no spaces"),
            ("localhost", "`http://localhost`"),
            ("HTTP://A.test", "write `http://a.test`"),
            ("https://a.test:443", "write `https://a.test`"),
            ("http://a.test:80", "write `http://a.test`"),
            ("http://a.test:08080", "write `http://a.test:8080`"),
            ("http://a.test:99999", "not a port"),
            ("http://[0:0:0:0:0:0:0:1]:3000", "write `http://[::1]:3000`"),
            ("http://bücher.example", "`xn--`"),
            ("file:///home/me/page.html", "`Origin: null`"),
            ("http://user@a.test", "no user name"),
            ("", "empty"),
        ];
        for (value, expected) in cases {
            let error = origin_error(value);
            assert!(error.contains(expected), "{value}: {error}");
            assert!(error.starts_with("invalid allowed origin"), "{error}");
        }
    }

    #[test]
    fn hosts_are_names_without_scheme_or_port() {
        assert_eq!(host_rule("*"), Ok(HostRule::Any));
        assert_eq!(
            host_rule("Agent.Example.com."),
            Ok(HostRule::Name("agent.example.com".into()))
        );
        for (value, expected) in [
            ("https://agent.example.com/", "write `agent.example.com`"),
            ("agent.example.com:8443", "write `agent.example.com`"),
            ("127.0.0.1", "always allowed"),
            ("[::1]", "always allowed"),
            ("*.example.com", "only `*` alone"),
            ("a..b", "empty label"),
            ("", "empty"),
        ] {
            let error = host_rule(value).unwrap_err().to_string();
            assert!(error.contains(expected), "{value}: {error}");
        }
    }
}
