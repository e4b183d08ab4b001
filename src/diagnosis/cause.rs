//! The registry of causes: every cause the tool can name, each defined once as a
//! [`CauseDef`] beside the rule that detects it (`rules/*.rs`), the way ruff
//! keeps a rule's text next to its code and rustc keeps one page per error code.
//!
//! The [`Cause`] enum (the codes) lives in the vocabulary, beneath everything;
//! [`Cause::def`] below ties each code to its definition, and the compiler
//! checks that none is left out. [`Cause::ALL`], the JSON names, the JSON
//! Schema's enum, the cause table in docs/causes.md and `kubectl satoken
//! explain` all come from the two (tests fail when the docs or the schema
//! drift).

use std::fmt;

use super::classification::Classification;
use super::facts::Case;
use super::next::{Command, NextStep};
use super::rules;
pub use crate::vocabulary::cause::Cause;
use crate::wire::string_codes;

/// Everything said about one cause, in one place.
#[derive(Debug)]
pub struct CauseDef {
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
    /// The first steps when the case is so, the second otherwise.
    If(fn(&Case<'_>) -> bool, &'static Steps, &'static Steps),
}

impl Steps {
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
            Steps::If(so, then, otherwise) => {
                if so(case) { then } else { otherwise }.for_case(case)
            }
        }
    }
}

impl Cause {
    /// The one definition of this cause.
    pub fn def(self) -> &'static CauseDef {
        match self {
            Cause::None => &rules::answer::NONE,
            Cause::ClockSkew => &rules::time::CLOCK_SKEW,
            Cause::Expired => &rules::time::EXPIRED,
            Cause::KeyMismatch => &rules::keys::KEY_MISMATCH,
            Cause::SignatureInvalid => &rules::keys::SIGNATURE_INVALID,
            Cause::IssuerMismatch => &rules::keys::ISSUER_MISMATCH,
            Cause::AudienceMismatch => &rules::keys::AUDIENCE_MISMATCH,
            Cause::TokenMalformed => &rules::keys::TOKEN_MALFORMED,
            Cause::JwtAuthenticatorRejected => &rules::authn_config::JWT_AUTHENTICATOR_REJECTED,
            Cause::JwtIssuerUnreachable => &rules::server_setup::JWT_ISSUER_UNREACHABLE,
            Cause::ServiceAccountDeleted => &rules::bindings::SERVICE_ACCOUNT_DELETED,
            Cause::ServiceAccountRecreated => &rules::bindings::SERVICE_ACCOUNT_RECREATED,
            Cause::PodDeleted => &rules::bindings::POD_DELETED,
            Cause::SecretDeleted => &rules::bindings::SECRET_DELETED,
            Cause::NodeDeleted => &rules::bindings::NODE_DELETED,
            Cause::NodeRecreated => &rules::bindings::NODE_RECREATED,
            Cause::LegacyTokenInvalidated => &rules::bindings::LEGACY_TOKEN_INVALIDATED,
            Cause::StaleToken => &rules::audit::STALE_TOKEN,
            Cause::LegacyTokenInUse => &rules::audit::LEGACY_TOKEN_IN_USE,
            Cause::LegacyTokenNotGenerated => &rules::server_setup::LEGACY_TOKEN_NOT_GENERATED,
            Cause::TokenNotSent => &rules::anonymous::TOKEN_NOT_SENT,
            Cause::AnonymousForbidden => &rules::anonymous::ANONYMOUS_FORBIDDEN,
            Cause::AnonymousRefused => &rules::anonymous::ANONYMOUS_REFUSED,
            Cause::KubeletTokenNotReviewed => &rules::anonymous::KUBELET_TOKEN_NOT_REVIEWED,
            Cause::RbacDenied => &rules::rbac::RBAC_DENIED,
            Cause::RbacRoleMissing => &rules::rbac::RBAC_ROLE_MISSING,
            Cause::NodeAudienceNotAllowed => &rules::image_pull::NODE_AUDIENCE_NOT_ALLOWED,
            Cause::CredentialProviderConfigInvalid => {
                &rules::server_setup::CREDENTIAL_PROVIDER_CONFIG_INVALID
            }
            Cause::CredentialSourceFailed => &rules::server_setup::CREDENTIAL_SOURCE_FAILED,
            Cause::NonRbacAuthorizerDenied => &rules::rbac::NON_RBAC_AUTHORIZER_DENIED,
            Cause::ServiceAccountAdmission => &rules::admission::SERVICE_ACCOUNT_ADMISSION,
            Cause::PodSecurityDenied => &rules::admission::POD_SECURITY_DENIED,
            Cause::NodeRestrictionDenied => &rules::admission::NODE_RESTRICTION_DENIED,
            Cause::WebhookDenied => &rules::admission::WEBHOOK_DENIED,
            Cause::QuotaExceeded => &rules::admission::QUOTA_EXCEEDED,
            Cause::AdmissionDenied => &rules::admission::ADMISSION_DENIED,
            Cause::CheckerUnauthorized => &rules::checker::CHECKER_UNAUTHORIZED,
            Cause::CheckerUnreachable => &rules::checker::CHECKER_UNREACHABLE,
            Cause::CheckerPolicyDenied => &rules::services::CHECKER_POLICY_DENIED,
            Cause::CloudFederationMismatch => &rules::services::CLOUD_FEDERATION_MISMATCH,
            Cause::CloudOidcProviderMissing => &rules::services::CLOUD_OIDC_PROVIDER_MISSING,
            Cause::CloudTrustPolicyDenied => &rules::services::CLOUD_TRUST_POLICY_DENIED,
            Cause::CloudCallerDenied => &rules::services::CLOUD_CALLER_DENIED,
            Cause::CloudOidcDiscoveryFailed => &rules::services::CLOUD_OIDC_DISCOVERY_FAILED,
            Cause::CloudClientNotFound => &rules::services::CLOUD_CLIENT_NOT_FOUND,
            Cause::CloudRoleArnInvalid => &rules::services::CLOUD_ROLE_ARN_INVALID,
            Cause::PodIdentityAssociationMissing => {
                &rules::services::POD_IDENTITY_ASSOCIATION_MISSING
            }
            Cause::ClientCertificateExpired => &rules::client_cert::CLIENT_CERTIFICATE_EXPIRED,
            Cause::ClientCertificateUntrusted => &rules::client_cert::CLIENT_CERTIFICATE_UNTRUSTED,
            Cause::ObjectNotFound => &rules::answer::OBJECT_NOT_FOUND,
            Cause::ApiNotServed => &rules::answer::API_NOT_SERVED,
            Cause::Redirected => &rules::answer::REDIRECTED,
            Cause::Throttled => &rules::answer::THROTTLED,
            Cause::ServerError => &rules::answer::SERVER_ERROR,
            Cause::NotApiServer => &rules::answer::NOT_API_SERVER,
            Cause::WrongEndpoint => &rules::answer::WRONG_ENDPOINT,
            Cause::TlsUntrustedCa => &rules::transport::TLS_UNTRUSTED_CA,
            Cause::TlsNameMismatch => &rules::transport::TLS_NAME_MISMATCH,
            Cause::TlsCertificateExpired => &rules::transport::TLS_CERTIFICATE_EXPIRED,
            Cause::TlsCertificateNotYetValid => &rules::transport::TLS_CERTIFICATE_NOT_YET_VALID,
            Cause::TlsOther => &rules::transport::TLS_OTHER,
            Cause::DnsFailure => &rules::transport::DNS_FAILURE,
            Cause::ConnectionRefused => &rules::transport::CONNECTION_REFUSED,
            Cause::NetworkUnreachable => &rules::transport::NETWORK_UNREACHABLE,
            Cause::Timeout => &rules::transport::TIMEOUT,
            Cause::Unknown => &rules::answer::UNKNOWN,
        }
    }

    pub fn summary(self) -> &'static str {
        self.def().summary
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

string_codes!(Cause);

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
