//! The `--profile full` cases of `acp check agent`: each optional feature the agent
//! advertises, exercised.

use crate::check_agent::{CaseResultOf, Ctx, fail};
use crate::conn::Conn;

/// The full-profile cases, in order.
pub(crate) const FULL_CASES: &[&str] = &[];

pub(crate) async fn dispatch(_ctx: &Ctx, name: &str, _c: &mut Conn) -> CaseResultOf {
    Err(fail(format!("no case is named `{name}`")))
}
