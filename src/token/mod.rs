//! A parsed JWT: typed header and claims, the raw JSON kept for display, and the
//! signature's length only (its bytes are never kept).

pub mod claims;
pub mod kind;
pub mod parse;

pub use claims::{Claims, ObjectRef};
pub use kind::{Binding, TokenKind};
pub use parse::parse;

use serde_json::{Map, Value};

/// JOSE header parameters we care about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    pub alg: Option<String>,
    pub kid: Option<String>,
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
