//! One file per cause family: each defines its causes ([`crate::diagnosis::cause::CauseDef`])
//! beside the rule that finds them. A rule reads a typed
//! [`crate::diagnosis::facts::Case`] and writes [`crate::diagnosis::merge::Findings`];
//! none reads raw text, prints, or decides the final ranking.

pub mod admission;
pub mod anonymous;
pub mod answer;
pub mod audit;
pub mod authn;
pub mod authn_config;
pub mod bindings;
pub mod checker;
pub mod client_cert;
pub mod commands;
pub mod image_pull;
pub mod keys;
pub mod rbac;
pub mod server_setup;
pub mod servers;
pub mod services;
pub mod time;
pub mod transport;

/// Whether an OIDC (JWT) authenticator rejected the token: its keys, issuer,
/// audiences and lifetimes are the identity provider's and its own
/// configuration's, not the ServiceAccount authenticator's.
fn by_jwt_authenticator(case: &prelude::Case<'_>) -> bool {
    case.rejected_by() == Some(crate::diagnosis::reasons::Authenticator::Jwt)
}

/// What every rule file names: the case it reads, the findings it writes, the
/// causes it defines and their steps.
mod prelude {
    pub use crate::diagnosis::Cause;
    pub use crate::diagnosis::cause::{CauseDef, Steps};
    pub use crate::diagnosis::classification::Classification as C;
    pub use crate::diagnosis::facts::{Answer, Case, TransportFailure};
    pub use crate::diagnosis::merge::Findings;
    pub use crate::diagnosis::next::{Command, NextStep};
    pub use crate::diagnosis::policy::{Basis, When};
    pub use crate::diagnosis::support::{Support, SupportKind};
}
