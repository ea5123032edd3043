//! The rule that a session's working directory is an absolute path (spec chapter "Session
//! Setup": `cwd` MUST be absolute), applied to every request that opens a session before the
//! [`Agent`](crate::Agent) sees it (see [`AgentOptions::require_absolute_cwd`](crate::AgentOptions::require_absolute_cwd)).

use std::path::Path;

use acp_types::{ClientRequestParams, ErrorObject};
use serde_json::json;

/// Refuses a request whose `cwd` or `additionalDirectories` holds a relative path: `-32602`
/// naming the field (in the message and in `data.field`).
pub(crate) fn check(params: &ClientRequestParams) -> Result<(), ErrorObject> {
    let (cwd, more) = match params {
        ClientRequestParams::NewSession(r) => (&r.cwd, &r.additional_directories),
        ClientRequestParams::LoadSession(r) => (&r.cwd, &r.additional_directories),
        ClientRequestParams::ResumeSession(r) => (&r.cwd, &r.additional_directories),
        #[cfg(feature = "unstable_session_fork")]
        ClientRequestParams::ForkSession(r) => (&r.cwd, &r.additional_directories),
        _ => return Ok(()),
    };
    absolute("cwd", cwd)?;
    for (i, directory) in more.iter().flatten().enumerate() {
        absolute(&format!("additionalDirectories[{i}]"), directory)?;
    }
    Ok(())
}

fn absolute(field: &str, path: &str) -> Result<(), ErrorObject> {
    if Path::new(path).is_absolute() {
        return Ok(());
    }
    Err(ErrorObject::invalid_params_with(
        format_args!("`{field}` must be an absolute path, not `{path}`"),
        json!({ "field": field, "value": path }),
    ))
}

#[cfg(test)]
mod tests {
    use acp_types::*;

    use super::*;

    fn new_session(cwd: &str, more: &[&str]) -> ClientRequestParams {
        let mut request = NewSessionRequest::new(cwd, Vec::<McpServer>::new());
        if !more.is_empty() {
            request.additional_directories = Some(more.iter().map(|d| (*d).to_owned()).collect());
        }
        ClientRequestParams::NewSession(request)
    }

    #[cfg(unix)]
    #[test]
    fn relative_paths_are_refused_naming_the_field() {
        assert!(check(&new_session("/work", &["/other"])).is_ok());
        let error = check(&new_session("work", &[])).unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error.message.contains("`cwd` must be an absolute path"),
            "{}",
            error.message
        );
        assert_eq!(error.data.as_ref().unwrap()["field"], "cwd");
        let error = check(&new_session("/work", &["/a", "../b"])).unwrap_err();
        assert_eq!(
            error.data.as_ref().unwrap()["field"],
            "additionalDirectories[1]"
        );
        let load = LoadSessionRequest::new("s", "./x", Vec::<McpServer>::new());
        assert!(check(&ClientRequestParams::LoadSession(load)).is_err());
        let resume = ResumeSessionRequest::new("s", "");
        assert!(check(&ClientRequestParams::ResumeSession(resume)).is_err());
        // Requests without a cwd pass.
        let prompt = PromptRequest::new("s", vec!["hi".into()]);
        assert!(check(&ClientRequestParams::Prompt(prompt)).is_ok());
    }
}
