//! A parsed JWT: typed header and claims, the raw JSON kept for display, and the
//! signature's length only (its bytes are never kept).

pub mod claims;
pub mod kind;
pub mod parse;

pub use claims::{Claims, ObjectRef};
pub use kind::{Binding, TokenKind};
pub use parse::parse;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// JOSE header fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Header {
    /// `alg`, or null.
    pub alg: Option<String>,
    /// `kid`, or null.
    pub kid: Option<String>,
    /// `typ`, or null.
    pub typ: Option<String>,
}

/// A structurally valid JWT.
#[derive(Debug, Clone)]
pub struct Token {
    pub header: Header,
    pub claims: Claims,
    /// The payload exactly as decoded, for `-o json` and for unknown claims.
    pub raw_claims: Map<String, Value>,
    /// Decoded signature length in bytes; 0 means unsigned.
    pub signature_len: usize,
    /// Some segment carried `=` padding, which kube-apiserver's issuer pre-check
    /// rejects (it decodes with unpadded base64url only).
    pub padded: bool,
    /// First 8 hex digits of SHA-256 of the token text.
    pub fingerprint: String,
}

/// Lifetime the kubelet requests for projected tokens; kube-apiserver extends such
/// tokens to a year and sets `warnafter = iat + 3607`. Source: claims.go, token.go.
pub const KUBELET_TOKEN_SECONDS: i64 = 3607;

impl Token {
    /// The kubelet's own token (pod-bound, for the API server: `aud` carries the
    /// issuer, the default API audience) issued for at most the 3607 s it asks,
    /// with no `warnafter`: kube-apiserver did not extend it to a year. Its
    /// lifetime in seconds, or `None` for any other token.
    pub fn kubelet_lifetime_without_grace(&self, kind: TokenKind, binding: Binding) -> Option<i64> {
        let claims = &self.claims;
        let api_audience = claims
            .issuer
            .as_deref()
            .is_some_and(|iss| claims.audiences.iter().any(|a| a == iss));
        if kind != TokenKind::Projected
            || binding != Binding::Pod
            || claims.extended()
            || !api_audience
        {
            return None;
        }
        let lifetime = claims.lifetime()?;
        (lifetime <= KUBELET_TOKEN_SECONDS).then_some(lifetime)
    }
}
