//! Findings: one thing a subcommand noticed, with a severity, a stable code and a
//! message. Codes are kebab-case and never change meaning once shipped; the list
//! with explanations is in docs/output.md.

use schemars::JsonSchema;
use serde::Serialize;
use strum::{EnumMessage, IntoStaticStr, VariantArray};

use crate::wire::string_codes;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Works now, but will break or is fragile.
    Warning,
    /// The API server rejects (or would reject) the token for this.
    Error,
}

/// Every finding code. Its stable text is its name in kebab-case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray, EnumMessage)]
#[strum(serialize_all = "kebab-case")]
pub enum Code {
    /// Past `exp` (+ leeway where the severity is error).
    Expired,
    /// Before `nbf` (- leeway where the severity is error).
    NotYetValid,
    /// `iat` later than now (+ leeway where the severity is error).
    IssuedInFuture,
    /// No `exp`: valid until its binding goes.
    NoExpiry,
    /// A legacy Secret-based token.
    LegacyToken,
    /// The kubelet's extended (one-year) projected token.
    ExtendedExpiry,
    /// Now past `warnafter`: accepted, but audited as stale.
    StaleToken,
    /// Expires within min(10 min, 20 % of its lifetime).
    ExpiresSoon,
    /// `alg: none`, or no `alg` at all.
    AlgNone,
    /// Empty signature segment.
    Unsigned,
    /// HMAC algorithm: never used for ServiceAccount tokens.
    HmacAlgorithm,
    /// Algorithm kube-apiserver does not sign with.
    UnusualAlgorithm,
    /// Not a Kubernetes ServiceAccount token.
    UnknownKind,
    /// base64 `=` padding: kube-apiserver decodes unpadded base64url only.
    PaddedBase64,
    /// `sub` is not `system:serviceaccount:<ns>:<name>` of its own claims.
    SubjectMismatch,
    /// Legacy claims with an issuer other than `kubernetes/serviceaccount`.
    LegacyIssuer,
    /// A legacy token lacks a claim the legacy validator requires.
    LegacyClaimsMissing,
    /// No `kid` in the header.
    NoKeyId,
    /// Bound token without `aud`.
    NoAudience,
    /// Unknown keys under `kubernetes.io`.
    NewerTokenFormat,
    /// A NumericDate with a fraction (truncated by the server).
    FractionalTimes,
    /// `Authorization: Bearer  x`: an extra space makes the request anonymous.
    BearerExtraSpace,
    /// Issued for less than was asked: `--service-account-max-token-expiration`
    /// or a managed cluster's cap shortened it.
    LifetimeShortened,
    /// A kubelet token without the one-year grace: clients that never re-read
    /// the file fail after an hour.
    NoExtendedExpiry,
    /// A legacy Secret's `kubernetes.io/legacy-token-last-used` label.
    LegacyTokenLastUsed,
    /// A legacy Secret's `kubernetes.io/legacy-token-invalid-since` label.
    LegacyTokenInvalidSince,
    /// A token the kubelet gave a CSI driver, with its audience.
    CsiToken,
    /// A CSI token whose `aud` does not carry the audience the map keys it by.
    CsiAudienceMismatch,
    /// A token the kubelet gave its image credential provider.
    ImagePullToken,
    // --authentication-config (decode, verify)
    /// The issuer routes to one JWT authenticator of the configuration.
    AuthnRouted,
    /// No JWT authenticator has the token's issuer.
    AuthnNoAuthenticator,
    /// A JWT authenticator's issuer is also the ServiceAccount issuer.
    AuthnIssuerCollision,
    /// No audience in common with the authenticator's audiences.
    AuthnAudienceMismatch,
    /// A `claimValidationRules` entry fails.
    AuthnClaimRuleFailed,
    /// A claim mapping cannot build the user.
    AuthnMappingFailed,
    /// A `userValidationRules` entry fails.
    AuthnUserRuleFailed,
    /// A CEL expression could not be evaluated here (unsupported, or over the bounds).
    AuthnNotEvaluated,
    // skew
    /// Two clocks are further apart than the leeway.
    ClockSkew,
    /// A clock's uncertainty straddles an edge of the token's window.
    VerdictUncertain,
    /// A kubelet's clock is further from its API server's than the leeway.
    KubeletClockSkew,
    /// A Lease or Node has not been renewed for long: the node is down, not skewed.
    NodeDown,
    /// An item of a Lease or Node list was unknown or incomplete and was skipped.
    ItemSkipped,
    /// Lease or Node JSON without managedFields (kubectl hides them by default).
    NoManagedFields,
    /// Node heartbeats place a clock only coarsely.
    CoarseClock,
    /// The issuing API server's clock was estimated from the token's own `iat`.
    IatEstimate,
    /// Every lease is stale: the snapshot is probably older than the reference time.
    SnapshotOld,
    /// No token: clocks are measured but nothing is judged.
    NoToken,
    /// Each kubelet's clock against the API server that stored its Lease or Node.
    KubeletOffsets,
    /// A `--server` could not be reached (network or TLS): its clock is unknown.
    ServerUnreachable,
    /// A `--server` answered without a usable `Date` header.
    NoDateHeader,
    // verify
    /// The signature verifies with no key of the right type.
    SignatureInvalid,
    /// The header's `kid` names no key in the set, and no key verifies the token.
    KidNotFound,
    /// The token verifies with a key other than the one its `kid` names.
    KidMismatch,
    /// No key in the set fits the token's algorithm.
    NoUsableKey,
    /// `iss` is not one of the expected issuers.
    IssuerMismatch,
    /// No audience in common with the expected audiences.
    AudienceMismatch,
    /// A JWKS key or PEM block that is not an RSA/EC signing key was skipped.
    KeySkipped,
    /// A published kid that is not the key's Kubernetes key id.
    KidNotKubernetes,
    /// Several keys answer to one kid.
    DuplicateKid,
    /// A private key was given; its public half is used.
    PrivateKeyGiven,
    /// An `RSA PUBLIC KEY` (PKCS#1) block, which kube-apiserver skips.
    Pkcs1PublicKey,
    /// Keys fetched from a URL (and the discovery document's issuer).
    KeysFetched,
    /// `iss` is not the issuer the cluster's discovery document names.
    IssuerNotDiscovered,
    /// A field of the token differs from what a cloud trust policy expects.
    TrustPolicyMismatch,
    /// The token matches what a cloud trust policy expects.
    TrustPolicyMatch,
}

string_codes!(Severity);
string_codes!(Code as "FindingCode");

/// One observation of a subcommand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Finding {
    /// info | warning | error.
    pub severity: Severity,
    /// Stable kebab-case code (docs/output.md lists them).
    pub code: Code,
    /// Human-readable explanation; the wording may change.
    pub message: String,
}

impl Finding {
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    pub fn info(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Info, code, message)
    }

    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Finding {
            severity,
            code,
            message: message.into(),
        }
    }
}

/// Most severe first, stable within a severity.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
}

/// The worst severity present, if any.
pub fn worst(findings: &[Finding]) -> Option<Severity> {
    findings.iter().map(|f| f.severity).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "duplicate {text}");
            assert!(
                text.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{text}"
            );
        }
    }

    #[test]
    fn sort_puts_errors_first() {
        let mut f = vec![
            Finding::info(Code::NoKeyId, ""),
            Finding::error(Code::Expired, ""),
            Finding::warning(Code::ExpiresSoon, ""),
        ];
        sort(&mut f);
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(worst(&f), Some(Severity::Error));
    }
}
