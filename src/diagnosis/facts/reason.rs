//! The authenticators' reasons, as facts: which known message each is, what
//! it means, the values it carries and which authenticator gave it
//! (`diagnosis::reasons` reads them from kube-apiserver's aggregate).

use serde::{Deserialize, Serialize};

use crate::vocabulary::authenticators::{MESSAGES, ReasonKind};
use crate::vocabulary::cause::Cause;
use crate::vocabulary::wordings::JwtRejection;
use crate::wire::string_codes;

string_codes!(ReasonKind);

/// Which authenticator a message is the answer of: the one whose keys,
/// issuer and audiences the steps must name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Authenticator {
    /// kube-apiserver's ServiceAccount token authenticator (its keys are
    /// `--service-account-key-file`, its issuers `--service-account-issuer`).
    ServiceAccount,
    /// An OIDC (JWT) authenticator, `--oidc-*` or a JWT authenticator of
    /// `--authentication-config`: its keys are the identity provider's.
    Jwt,
    /// The x509 client-certificate authenticator.
    ClientCertificate,
    /// A checker that validates the token itself (Vault's role).
    Checker,
    /// No single authenticator: the union's `invalid bearer token`, or a
    /// message nobody here knows.
    #[default]
    Any,
}

/// Values a message carries, where it carries them.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct ReasonValues {
    /// Namespace of the ServiceAccount (or of the Secret, legacy invalid-since).
    pub namespace: Option<String>,
    /// ServiceAccount name (not-found, deleted, invalid-since messages).
    pub name: Option<String>,
    /// Legacy invalid-since: the Secret's name.
    pub secret: Option<String>,
    /// UID mismatches: the uid of the object that exists now.
    pub live_uid: Option<String>,
    /// UID mismatches: the uid the token's claim names.
    pub claim_uid: Option<String>,
    /// `token issuer "…" is invalid`.
    pub issuer: Option<String>,
    /// Audience mismatch: what the token carries.
    pub token_audiences: Vec<String>,
    /// Audience mismatch: what the server accepts.
    pub target_audiences: Vec<String>,
    /// Trailing detail of open-ended messages (the go-jose error, the missing claim).
    pub detail: Option<String>,
}

/// One reason from kube-apiserver's authentication error, with the values it
/// carries (the same shape in `probe`'s TokenReview and in `classify`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Reason")]
pub struct AuthReason {
    /// Which known message this is.
    pub kind: ReasonKind,
    /// What the message means.
    pub cause: Cause,
    /// Which kube-apiserver versions print this exact wording (`1.23+`,
    /// `≤1.22`, `all`, `unknown`).
    // The path keeps serde from borrowing a `&str` from the input: eras
    // are this version's own, read back by `known_era`.
    #[serde(deserialize_with = "known_era")]
    pub era: &'static std::primitive::str,
    /// The message as it appeared.
    pub message: String,
    /// Values the message carries.
    pub values: ReasonValues,
    /// The authenticator that gave this reason.
    #[serde(skip)]
    pub authenticator: Authenticator,
    /// A JWT authenticator's own reason, read (`oidc: …`).
    #[serde(skip)]
    pub jwt: Option<JwtRejection>,
    /// The message is cut short in the evidence (the last of an aggregate
    /// whose end is missing), so its end, which would say more, is not known.
    #[serde(skip)]
    pub cut: bool,
}

/// An era this version knows, read back (another run's document names one).
fn known_era<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let words = String::deserialize(d)?;
    MESSAGES
        .iter()
        .map(|p| p.era)
        .chain(["all", "unknown"])
        .find(|era| *era == words)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown era `{words}`")))
}

impl AuthReason {
    /// The versions that print this wording, in words (`all` is every version).
    pub fn era_words(&self) -> &'static str {
        if self.era == "all" {
            "every version"
        } else {
            self.era
        }
    }

    /// A message the parser does not know, kept verbatim.
    pub fn unrecognised(message: &str) -> AuthReason {
        AuthReason {
            kind: ReasonKind::Unrecognised,
            cause: Cause::Unknown,
            era: "unknown",
            message: message.to_owned(),
            values: ReasonValues::default(),
            authenticator: Authenticator::Any,
            jwt: None,
            cut: false,
        }
    }

    /// Whether this is the loopback authenticator's `invalid bearer token`, which
    /// precedes every specific reason and adds nothing when one is present.
    pub fn is_generic(&self) -> bool {
        self.kind == ReasonKind::InvalidBearerToken
    }

    /// A failed signature in the wording of a server that tries every key
    /// (before the 1.31 kid lookup; dgrijalva/jwt-go before go-jose): an
    /// unknown kid and a bad signature read the same.
    pub fn tries_every_key(&self) -> bool {
        match self.kind {
            ReasonKind::RsaVerification => true,
            ReasonKind::CryptographicPrimitive => self.era.starts_with('≤'),
            _ => false,
        }
    }
}

/// The reasons that say something: the generic `invalid bearer token` is dropped
/// when a specific reason is present.
pub fn specific(reasons: &[AuthReason]) -> Vec<&AuthReason> {
    let any_specific = reasons.iter().any(|r| !r.is_generic());
    reasons
        .iter()
        .filter(|r| !any_specific || !r.is_generic())
        .collect()
}
