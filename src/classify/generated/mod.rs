//! Generated from the vocabulary tables, not collected: every answer and
//! failure the producers can word, as each client prints it, is read with its
//! class and cause ([`statuses`]: kube-apiserver's Status in every client's
//! rendering; [`transports`]: curl and the TLS stacks, the clouds' token
//! exchanges); and texts that only look like one never are.

use chrono::TimeDelta;

use super::Context;

mod aws;
mod statuses;
mod transports;

/// The context every generated case is read in: no token, a fixed instant.
pub(super) fn ctx() -> Context<'static> {
    Context {
        token: None,
        at: None,
        now: crate::timefmt::parse_instant("2026-01-01T00:00:00Z").unwrap(),
        leeway: TimeDelta::seconds(60),
    }
}
