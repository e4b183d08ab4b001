//! Findings: one thing a subcommand noticed, with a severity, a stable code and a
//! message. Codes are kebab-case and never change meaning once shipped; the list
//! with explanations is in docs/output.md.

use schemars::JsonSchema;
use serde::Serialize;

use crate::wire::string_codes;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Works now, but will break or is fragile.
    Warning,
    /// The API server rejects (or would reject) the token for this.
    Error,
}

impl Severity {
    /// Lowercase name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// Every finding code, with its stable text.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code { $($(#[$doc])* $variant,)* }

        impl Code {
            /// All codes, for documentation tests.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable kebab-case code.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $text,)* }
            }
        }
    };
}

codes! {
    /// Past `exp` (+ leeway where the severity is error).
    Expired => "expired",
    /// Before `nbf` (- leeway where the severity is error).
    NotYetValid => "not-yet-valid",
    /// `iat` later than now (+ leeway where the severity is error).
    IssuedInFuture => "issued-in-future",
    /// No `exp`: valid until its binding goes.
    NoExpiry => "no-expiry",
    /// A legacy Secret-based token.
    LegacyToken => "legacy-token",
    /// The kubelet's extended (one-year) projected token.
    ExtendedExpiry => "extended-expiry",
    /// Now past `warnafter`: accepted, but audited as stale.
    StaleToken => "stale-token",
    /// Expires within min(10 min, 20 % of its lifetime).
    ExpiresSoon => "expires-soon",
    /// `alg: none`, or no `alg` at all.
    AlgNone => "alg-none",
    /// Empty signature segment.
    Unsigned => "unsigned",
    /// HMAC algorithm: never used for ServiceAccount tokens.
    HmacAlgorithm => "hmac-algorithm",
    /// Algorithm kube-apiserver does not sign with.
    UnusualAlgorithm => "unusual-algorithm",
    /// Not a Kubernetes ServiceAccount token.
    UnknownKind => "unknown-kind",
    /// base64 `=` padding: kube-apiserver decodes unpadded base64url only.
    PaddedBase64 => "padded-base64",
    /// `sub` is not `system:serviceaccount:<ns>:<name>` of its own claims.
    SubjectMismatch => "subject-mismatch",
    /// Legacy claims with an issuer other than `kubernetes/serviceaccount`.
    LegacyIssuer => "legacy-issuer",
    /// A legacy token lacks a claim the legacy validator requires.
    LegacyClaimsMissing => "legacy-claims-missing",
    /// No `kid` in the header.
    NoKeyId => "no-key-id",
    /// Bound token without `aud`.
    NoAudience => "no-audience",
    /// Unknown keys under `kubernetes.io`.
    NewerTokenFormat => "newer-token-format",
    /// A NumericDate with a fraction (truncated by the server).
    FractionalTimes => "fractional-times",
    /// `Authorization: Bearer  x`: an extra space makes the request anonymous.
    BearerExtraSpace => "bearer-extra-space",
    /// Issued for less than was asked: `--service-account-max-token-expiration`
    /// or a managed cluster's cap shortened it.
    LifetimeShortened => "lifetime-shortened",
    /// A kubelet token without the one-year grace: clients that never re-read
    /// the file fail after an hour.
    NoExtendedExpiry => "no-extended-expiry",
    /// A legacy Secret's `kubernetes.io/legacy-token-last-used` label.
    LegacyTokenLastUsed => "legacy-token-last-used",
    /// A legacy Secret's `kubernetes.io/legacy-token-invalid-since` label.
    LegacyTokenInvalidSince => "legacy-token-invalid-since",
    /// A token the kubelet gave a CSI driver, with its audience.
    CsiToken => "csi-token",
    /// A CSI token whose `aud` does not carry the audience the map keys it by.
    CsiAudienceMismatch => "csi-audience-mismatch",
    /// A token the kubelet gave its image credential provider.
    ImagePullToken => "image-pull-token",
    // --authentication-config (decode, verify)
    /// The issuer routes to one JWT authenticator of the configuration.
    AuthnRouted => "authn-routed",
    /// No JWT authenticator has the token's issuer.
    AuthnNoAuthenticator => "authn-no-authenticator",
    /// A JWT authenticator's issuer is also the ServiceAccount issuer.
    AuthnIssuerCollision => "authn-issuer-collision",
    /// No audience in common with the authenticator's audiences.
    AuthnAudienceMismatch => "authn-audience-mismatch",
    /// A `claimValidationRules` entry fails.
    AuthnClaimRuleFailed => "authn-claim-rule-failed",
    /// A claim mapping cannot build the user.
    AuthnMappingFailed => "authn-mapping-failed",
    /// A `userValidationRules` entry fails.
    AuthnUserRuleFailed => "authn-user-rule-failed",
    /// A CEL expression could not be evaluated here (unsupported, or over the bounds).
    AuthnNotEvaluated => "authn-not-evaluated",
    // skew
    /// Two clocks are further apart than the leeway.
    ClockSkew => "clock-skew",
    /// A clock's uncertainty straddles an edge of the token's window.
    VerdictUncertain => "verdict-uncertain",
    /// A kubelet's clock is further from its API server's than the leeway.
    KubeletClockSkew => "kubelet-clock-skew",
    /// A Lease or Node has not been renewed for long: the node is down, not skewed.
    NodeDown => "node-down",
    /// An item of a Lease or Node list was unknown or incomplete and was skipped.
    ItemSkipped => "item-skipped",
    /// Lease or Node JSON without managedFields (kubectl hides them by default).
    NoManagedFields => "no-managed-fields",
    /// Node heartbeats place a clock only coarsely.
    CoarseClock => "coarse-clock",
    /// The issuing API server's clock was estimated from the token's own `iat`.
    IatEstimate => "iat-estimate",
    /// Every lease is stale: the snapshot is probably older than the reference time.
    SnapshotOld => "snapshot-old",
    /// No token: clocks are measured but nothing is judged.
    NoToken => "no-token",
    /// Each kubelet's clock against the API server that stored its Lease or Node.
    KubeletOffsets => "kubelet-offsets",
    /// A `--server` could not be reached (network or TLS): its clock is unknown.
    ServerUnreachable => "server-unreachable",
    /// A `--server` answered without a usable `Date` header.
    NoDateHeader => "no-date-header",
    // verify
    /// The signature verifies with no key of the right type.
    SignatureInvalid => "signature-invalid",
    /// The header's `kid` names no key in the set, and no key verifies the token.
    KidNotFound => "kid-not-found",
    /// The token verifies with a key other than the one its `kid` names.
    KidMismatch => "kid-mismatch",
    /// No key in the set fits the token's algorithm.
    NoUsableKey => "no-usable-key",
    /// `iss` is not one of the expected issuers.
    IssuerMismatch => "issuer-mismatch",
    /// No audience in common with the expected audiences.
    AudienceMismatch => "audience-mismatch",
    /// A JWKS key or PEM block that is not an RSA/EC signing key was skipped.
    KeySkipped => "key-skipped",
    /// A published kid that is not the key's Kubernetes key id.
    KidNotKubernetes => "kid-not-kubernetes",
    /// Several keys answer to one kid.
    DuplicateKid => "duplicate-kid",
    /// A private key was given; its public half is used.
    PrivateKeyGiven => "private-key-given",
    /// An `RSA PUBLIC KEY` (PKCS#1) block, which kube-apiserver skips.
    Pkcs1PublicKey => "pkcs1-public-key",
    /// Keys fetched from a URL (and the discovery document's issuer).
    KeysFetched => "keys-fetched",
    /// `iss` is not the issuer the cluster's discovery document names.
    IssuerNotDiscovered => "issuer-not-discovered",
    /// A field of the token differs from what a cloud trust policy expects.
    TrustPolicyMismatch => "trust-policy-mismatch",
    /// The token matches what a cloud trust policy expects.
    TrustPolicyMatch => "trust-policy-match",
}

string_codes!(Severity: Info, Warning, Error);
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

    fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
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
