//! The reasons parser's wordings as `explain` lists them: each pattern's text
//! (values as UPPERCASE placeholders), its versions and its cause.

use super::{Cause, Matcher, PATTERNS, ReasonKind};

/// One wording kube-apiserver prints, as `explain` lists it: the text (values
/// as UPPERCASE placeholders), the versions that print it, and its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wording {
    pub kind: ReasonKind,
    pub cause: Cause,
    pub era: &'static str,
    pub text: &'static str,
}

/// Every wording this parser knows, in its matching order. A JWT
/// authenticator's rules are listed with their placeholders by
/// `diagnosis::wordings`, and the catch-all `oidc: ` is no wording.
pub fn wordings() -> impl Iterator<Item = Wording> {
    PATTERNS
        .iter()
        .filter(|p| {
            !matches!(
                p.kind,
                ReasonKind::JwtAuthenticatorRule | ReasonKind::JwtAuthenticatorOther
            )
        })
        .map(|p| Wording {
            kind: p.kind,
            cause: p.cause,
            era: p.era,
            text: match p.matcher {
                Matcher::Literal(text)
                | Matcher::Prefix(text)
                | Matcher::Uid(text)
                | Matcher::Custom(_, text) => text,
            },
        })
}
