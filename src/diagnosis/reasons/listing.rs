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
                Matcher::Literal(text) | Matcher::Prefix(text) => text,
                Matcher::Custom(_) => template(p.kind, p.era),
            },
        })
}

/// The shape of a structured message, for people.
fn template(kind: ReasonKind, era: &str) -> &'static str {
    let old = era.starts_with('≤');
    match kind {
        ReasonKind::IssuerInvalid => "token issuer \"ISSUER\" is invalid",
        ReasonKind::AudienceInvalid => {
            "token audiences [\"AUD\"] is invalid for the target audiences [\"API_AUD\"]"
        }
        ReasonKind::ServiceAccountNotFound => "serviceaccounts \"NAME\" not found",
        ReasonKind::ServiceAccountUidMismatch if old => {
            "ServiceAccount UID (LIVE) does not match claim (CLAIM)"
        }
        ReasonKind::ServiceAccountUidMismatch => {
            "service account UID (LIVE) does not match claim (CLAIM)"
        }
        ReasonKind::ServiceAccountDeleted if old => {
            "ServiceAccount NAMESPACE/NAME has been deleted"
        }
        ReasonKind::ServiceAccountDeleted => "service account NAMESPACE/NAME has been deleted",
        ReasonKind::PodUidMismatch if old => "Pod UID (LIVE) does not match claim (CLAIM)",
        ReasonKind::PodUidMismatch => {
            "pod UID (LIVE) does not match service account pod ref claim (CLAIM)"
        }
        ReasonKind::SecretUidMismatch if old => "Secret UID (LIVE) does not match claim (CLAIM)",
        ReasonKind::SecretUidMismatch => {
            "secret UID (LIVE) does not match service account secret ref claim (CLAIM)"
        }
        ReasonKind::NodeUidMismatch => {
            "node UID (LIVE) does not match service account node ref claim (CLAIM)"
        }
        ReasonKind::LegacyTokenMarkedInvalid => {
            "the token in secret NAMESPACE/SECRET for service account NAMESPACE/NAME has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token"
        }
        ReasonKind::LegacyClaimInvalid => "CLAIM claim is missing (or: CLAIM claim is invalid)",
        _ => "",
    }
}
