//! The token as a secret value. From the moment it is read it lives in a
//! [`SecretToken`], whose `Debug` and `Display` never show it; code that needs the
//! text calls [`SecretToken::expose`], which is easy to grep for.

use std::fmt;

/// A bearer token that must never be printed in full.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretToken(String);

impl SecretToken {
    /// Wraps token text (already trimmed of surrounding whitespace and prefixes),
    /// and registers it with the output redactor ([`crate::redact`]): from here
    /// on, no output can show it.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        crate::redact::register_token(&text);
        Self(text)
    }

    /// The raw token, for parsing and for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A short, stable, non-reversible name for the token: the first 8 hex digits
    /// of SHA-256 over the token text. Enough to tell two tokens apart, e.g. what a
    /// client sends against what the kubelet mounted.
    pub fn fingerprint(&self) -> String {
        fingerprint(self.0.as_bytes())
    }
}

pub use crate::redact::fingerprint;

impl fmt::Debug for SecretToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretToken(redacted, sha256:{})", self.fingerprint())
    }
}

impl fmt::Display for SecretToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(token sha256:{})", self.fingerprint())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_token() {
        let token = SecretToken::new("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln");
        for shown in [format!("{token:?}"), format!("{token}")] {
            assert!(!shown.contains("eyJ"), "{shown}");
            assert!(shown.contains(&token.fingerprint()));
        }
    }

    #[test]
    fn fingerprint_is_sha256_prefix() {
        // SHA-256("abc") = ba7816bf…
        assert_eq!(fingerprint(b"abc"), "ba7816bf");
    }
}
