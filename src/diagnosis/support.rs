//! The facts behind a candidate cause, typed by where they come from, so that
//! renderers and the merge can group and order them without reading the text.

use strum::{IntoStaticStr, VariantArray};

use crate::wire::string_codes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of evidence a sentence states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum SupportKind {
    /// The answer the client got (status, Status body, access review).
    Answer,
    /// The authenticator's own reason: a kube-apiserver log line, a
    /// TokenReview's `status.error`, or that text forwarded by another program.
    ServerReason,
    /// The token's time claims judged on the validating server's clock.
    TokenTimes,
    /// What the token itself says (kind, binding, issuer, audiences, kid).
    Token,
    /// An object the token is bound to, read from the API.
    Binding,
    /// The server's published keys, issuer and signature check.
    Keys,
    /// No answer: TLS, DNS, connection, timeout.
    Transport,
    /// Audit event annotations and user extra.
    Audit,
    /// Other servers or replicas answering the same token.
    Servers,
    /// What the same request got without the token (`--anonymous`).
    Anonymous,
    /// What the input looked like, and anything else noticed on the way.
    Context,
}

string_codes!(SupportKind);

/// One fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Support {
    /// Where the fact comes from.
    pub kind: SupportKind,
    /// The server the fact is about, when a run asked several; else null.
    pub server: Option<String>,
    /// The fact, in words.
    pub text: String,
}

impl Support {
    /// A fact about the run's only server (or no server).
    pub fn new(kind: SupportKind, text: impl Into<String>) -> Self {
        Support {
            kind,
            server: None,
            text: text.into(),
        }
    }

    /// What the answer says ([`SupportKind::Answer`]), the commonest fact.
    pub fn answer(text: impl Into<String>) -> Self {
        Support::new(SupportKind::Answer, text)
    }

    /// What the authenticator said ([`SupportKind::ServerReason`]).
    pub fn server_reason(text: impl Into<String>) -> Self {
        Support::new(SupportKind::ServerReason, text)
    }

    /// What the token says ([`SupportKind::Token`]).
    pub fn token(text: impl Into<String>) -> Self {
        Support::new(SupportKind::Token, text)
    }

    /// The same fact, attributed to `server`.
    pub fn about(mut self, server: &str) -> Self {
        self.server = Some(server.to_owned());
        self
    }
}
