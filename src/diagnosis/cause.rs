//! The registry of causes: every cause the tool can name, each defined once as a
//! [`CauseDef`] beside the rule that detects it (`rules/*.rs`), the way ruff
//! keeps a rule's text next to its code and rustc keeps one page per error code.
//!
//! The [`causes!`] list below is the only place that enumerates them: the
//! [`Cause`] enum, [`Cause::ALL`], the JSON names, the JSON Schema's enum, the
//! cause table in docs/causes.md and `kubectl satoken explain` all come from it
//! (tests fail when the docs or the schema drift).

use std::fmt;
use std::str::FromStr;

use super::case::Case;
use super::classification::Classification;
use super::next::{Command, NextStep};
use super::rules;
use crate::wire::string_codes;

/// Everything said about one cause, in one place.
#[derive(Debug)]
pub struct CauseDef {
    /// Stable kebab-case code (JSON, `explain CODE`).
    pub code: &'static str,
    /// A few words, for headings.
    pub title: &'static str,
    /// One line: what it means for the user.
    pub summary: &'static str,
    /// The answers it explains (401, 403, no answer…).
    pub explains: &'static [Classification],
    /// The long explanation: why it happens and how kube-apiserver decides it
    /// (paragraphs separated by blank lines; `explain` wraps them).
    pub explanation: &'static str,
    /// Steps that confirm it.
    pub confirm: Steps,
    /// Steps that fix it.
    pub fix: Steps,
    /// Upstream sources (Kubernetes files, KEPs, go-jose) the rule follows.
    pub sources: &'static [&'static str],
}

impl CauseDef {
    /// Confirm, then fix: what a diagnosis lists for this cause.
    pub fn next(&self, case: &Case<'_>) -> Vec<NextStep> {
        let mut steps = self.confirm.for_case(case);
        steps.extend(self.fix.for_case(case));
        steps
    }
}

/// A cause's `confirm` or `fix`.
#[derive(Debug, Clone, Copy)]
pub enum Steps {
    /// Nothing to say.
    None,
    /// One step in words, the same for every case.
    Say(&'static str),
    /// One step, its words the same for every case, its command filled in
    /// from the case.
    Run(&'static str, fn(&Case<'_>) -> Command),
    /// These steps, in order.
    All(&'static [Steps]),
    /// Steps filled in from the case (placeholders where unknown).
    For(fn(&Case<'_>) -> Vec<NextStep>),
    /// The one step the case calls for, if any; these steps otherwise.
    Or(fn(&Case<'_>) -> Option<NextStep>, &'static Steps),
}

impl Steps {
    /// The steps for `case`.
    pub fn for_case(self, case: &Case<'_>) -> Vec<NextStep> {
        match self {
            Steps::None => Vec::new(),
            Steps::Say(why) => vec![NextStep::say(why)],
            Steps::Run(why, command) => vec![NextStep::run(why, command(case))],
            Steps::All(steps) => steps.iter().flat_map(|s| s.for_case(case)).collect(),
            Steps::For(steps) => steps(case),
            Steps::Or(step, otherwise) => {
                step(case).map_or_else(|| otherwise.for_case(case), |s| vec![s])
            }
        }
    }
}

macro_rules! causes {
    ($($variant:ident => $def:path,)+) => {
        /// Why: a cause, with a stable kebab-case code (its [`CauseDef`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Cause {
            $(
                #[doc = concat!("See `", stringify!($def), "`.")]
                $variant,
            )+
        }

        impl Cause {
            /// Every cause, in the registry's order.
            pub const ALL: &'static [Cause] = &[$(Cause::$variant,)+];

            /// The one definition of this cause.
            pub fn def(self) -> &'static CauseDef {
                match self {
                    $(Cause::$variant => &$def,)+
                }
            }
        }
    };
}

causes! {
    None => rules::answer::NONE,
    ClockSkew => rules::time::CLOCK_SKEW,
    Expired => rules::time::EXPIRED,
    KeyMismatch => rules::keys::KEY_MISMATCH,
    SignatureInvalid => rules::keys::SIGNATURE_INVALID,
    IssuerMismatch => rules::keys::ISSUER_MISMATCH,
    AudienceMismatch => rules::keys::AUDIENCE_MISMATCH,
    TokenMalformed => rules::keys::TOKEN_MALFORMED,
    JwtAuthenticatorRejected => rules::authn_config::JWT_AUTHENTICATOR_REJECTED,
    JwtIssuerUnreachable => rules::server_setup::JWT_ISSUER_UNREACHABLE,
    ServiceAccountDeleted => rules::bindings::SERVICE_ACCOUNT_DELETED,
    ServiceAccountRecreated => rules::bindings::SERVICE_ACCOUNT_RECREATED,
    PodDeleted => rules::bindings::POD_DELETED,
    SecretDeleted => rules::bindings::SECRET_DELETED,
    NodeDeleted => rules::bindings::NODE_DELETED,
    NodeRecreated => rules::bindings::NODE_RECREATED,
    LegacyTokenInvalidated => rules::bindings::LEGACY_TOKEN_INVALIDATED,
    StaleToken => rules::audit::STALE_TOKEN,
    LegacyTokenInUse => rules::audit::LEGACY_TOKEN_IN_USE,
    TokenNotSent => rules::anonymous::TOKEN_NOT_SENT,
    AnonymousForbidden => rules::anonymous::ANONYMOUS_FORBIDDEN,
    AnonymousRefused => rules::anonymous::ANONYMOUS_REFUSED,
    KubeletTokenNotReviewed => rules::anonymous::KUBELET_TOKEN_NOT_REVIEWED,
    RbacDenied => rules::rbac::RBAC_DENIED,
    RbacRoleMissing => rules::rbac::RBAC_ROLE_MISSING,
    NodeAudienceNotAllowed => rules::image_pull::NODE_AUDIENCE_NOT_ALLOWED,
    CredentialProviderConfigInvalid => rules::server_setup::CREDENTIAL_PROVIDER_CONFIG_INVALID,
    CredentialSourceFailed => rules::server_setup::CREDENTIAL_SOURCE_FAILED,
    NonRbacAuthorizerDenied => rules::rbac::NON_RBAC_AUTHORIZER_DENIED,
    ServiceAccountAdmission => rules::admission::SERVICE_ACCOUNT_ADMISSION,
    PodSecurityDenied => rules::admission::POD_SECURITY_DENIED,
    NodeRestrictionDenied => rules::admission::NODE_RESTRICTION_DENIED,
    WebhookDenied => rules::admission::WEBHOOK_DENIED,
    QuotaExceeded => rules::admission::QUOTA_EXCEEDED,
    AdmissionDenied => rules::admission::ADMISSION_DENIED,
    CheckerUnauthorized => rules::checker::CHECKER_UNAUTHORIZED,
    CheckerUnreachable => rules::checker::CHECKER_UNREACHABLE,
    CheckerPolicyDenied => rules::services::CHECKER_POLICY_DENIED,
    CloudFederationMismatch => rules::services::CLOUD_FEDERATION_MISMATCH,
    CloudOidcProviderMissing => rules::services::CLOUD_OIDC_PROVIDER_MISSING,
    CloudTrustPolicyDenied => rules::services::CLOUD_TRUST_POLICY_DENIED,
    CloudCallerDenied => rules::services::CLOUD_CALLER_DENIED,
    CloudOidcDiscoveryFailed => rules::services::CLOUD_OIDC_DISCOVERY_FAILED,
    CloudClientNotFound => rules::services::CLOUD_CLIENT_NOT_FOUND,
    PodIdentityAssociationMissing => rules::services::POD_IDENTITY_ASSOCIATION_MISSING,
    ClientCertificateExpired => rules::client_cert::CLIENT_CERTIFICATE_EXPIRED,
    ClientCertificateUntrusted => rules::client_cert::CLIENT_CERTIFICATE_UNTRUSTED,
    ObjectNotFound => rules::answer::OBJECT_NOT_FOUND,
    ApiNotServed => rules::answer::API_NOT_SERVED,
    Redirected => rules::answer::REDIRECTED,
    Throttled => rules::answer::THROTTLED,
    ServerError => rules::answer::SERVER_ERROR,
    NotApiServer => rules::answer::NOT_API_SERVER,
    TlsUntrustedCa => rules::transport::TLS_UNTRUSTED_CA,
    TlsNameMismatch => rules::transport::TLS_NAME_MISMATCH,
    TlsCertificateExpired => rules::transport::TLS_CERTIFICATE_EXPIRED,
    TlsCertificateNotYetValid => rules::transport::TLS_CERTIFICATE_NOT_YET_VALID,
    TlsOther => rules::transport::TLS_OTHER,
    DnsFailure => rules::transport::DNS_FAILURE,
    ConnectionRefused => rules::transport::CONNECTION_REFUSED,
    Timeout => rules::transport::TIMEOUT,
    Unknown => rules::answer::UNKNOWN,
}

impl Cause {
    /// Stable kebab-case code, as in JSON.
    pub fn as_str(self) -> &'static str {
        self.def().code
    }

    /// The one-line summary.
    pub fn summary(self) -> &'static str {
        self.def().summary
    }

    /// A TLS handshake failure.
    pub fn is_tls(self) -> bool {
        matches!(
            self,
            Cause::TlsUntrustedCa
                | Cause::TlsNameMismatch
                | Cause::TlsCertificateExpired
                | Cause::TlsCertificateNotYetValid
                | Cause::TlsOther
        )
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

string_codes!(Cause, with ALL and as_str);

/// `explain` with a code that is not a cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no cause is called {0:?} (kubectl satoken explain lists them)")]
pub struct UnknownCause(pub String);

impl FromStr for Cause {
    type Err = UnknownCause;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Cause::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownCause(s.chars().take(64).collect()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn codes_are_unique_kebab_case_and_round_trip() {
        let mut seen = BTreeSet::new();
        for &cause in Cause::ALL {
            let code = cause.as_str();
            assert!(seen.insert(code), "duplicate code {code}");
            assert!(
                code.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{code}"
            );
            assert_eq!(code.parse::<Cause>(), Ok(cause));
            assert_eq!(serde_json::to_value(cause).unwrap(), code);
        }
        assert!("no-such-cause".parse::<Cause>().is_err());
    }

    #[test]
    fn every_definition_is_complete() {
        let empty = Case::default();
        for &cause in Cause::ALL {
            let def = cause.def();
            assert!(!def.title.is_empty() && !def.summary.is_empty(), "{cause}");
            assert!(
                !def.summary.ends_with('.'),
                "{cause}: a summary is one line without a final period"
            );
            assert!(def.explanation.len() > 80, "{cause}: explain it");
            assert!(!def.explains.is_empty(), "{cause}: which answers");
            if !matches!(cause, Cause::None) {
                assert!(!def.next(&empty).is_empty(), "{cause}: no steps at all");
            }
        }
    }
}
