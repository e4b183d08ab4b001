//! Services other than kube-apiserver that judge a ServiceAccount token and
//! say why they refused it, found anywhere in a line: the clouds' token
//! exchanges (AWS STS `AssumeRoleWithWebIdentity`, Microsoft Entra ID's
//! federated credentials, `AADSTS…` codes) and Vault's Kubernetes auth role
//! bindings. Their reason is specific enough to name the cause; the status,
//! when the text shows one, is read by the other extractors.
//!
//! Wordings: [`crate::vocabulary::clouds::EXCHANGES`] and the cloud SDKs'
//! envelopes (each row cites its API reference or source file) and Vault's role bindings
//! ([`crate::vocabulary::wordings::SERVICES`]).

use std::sync::LazyLock;

use super::super::artefact::ServiceVerdict;
use super::excerpt;
use super::needles::{Needles, parts_in_order};
use crate::vocabulary::clouds::{ENVELOPES, EXCHANGES, UNDECIDED, cloud_of};
use crate::vocabulary::wordings::{IMAGE_PULLS, REGISTRY_DENIALS, SERVICES, Wording};

/// The rows in the order they are read, each with whether it counts only
/// where the line states a status.
fn rows() -> impl Iterator<Item = (&'static Wording, bool)> {
    let named = EXCHANGES.iter().chain(SERVICES).chain(REGISTRY_DENIALS);
    let enveloped = ENVELOPES.iter().chain(IMAGE_PULLS).map(|w| (w, true));
    named.map(|w| (w, false)).chain(enveloped)
}

pub fn find(line: &str) -> Option<ServiceVerdict> {
    static ANY: LazyLock<Needles> = LazyLock::new(|| {
        Needles::new(
            rows().map(|(w, _)| w.text.split(" … ").next().unwrap_or(w.text)),
            false,
        )
    });
    if !ANY.any(line) {
        return None;
    }
    rows().find_map(|(w, needs_status)| {
        let at = holds(line, w.text)?;
        if needs_status && super::status::stated_code(line).is_none() {
            return None;
        }
        Some(ServiceVerdict {
            cause: w.cause?,
            service: w.printed_by,
            cloud: cloud_of(w.printed_by),
            alternatives: UNDECIDED
                .iter()
                .find(|(r, _)| r == w)
                .map_or(&[], |(_, c)| c),
            detail: excerpt(&line[at..]),
        })
    })
}

/// Where `line` holds the row `text`: an Entra row by its code, any other by
/// its parts in order.
fn holds(line: &str, text: &str) -> Option<usize> {
    if let Some(code) = entra_code(text) {
        return line
            .match_indices(ENTRA_PREFIX)
            .map(|(i, _)| i)
            .find(|&i| entra_code(&line[i..]) == Some(code));
    }
    parts_in_order(line, text, false).map(|(at, _)| at)
}

const ENTRA_PREFIX: &str = "AADSTS";

/// The digits of the first `AADSTSNNN` in `text`.
fn entra_code(text: &str) -> Option<&str> {
    let (_, rest) = text.split_once(ENTRA_PREFIX)?;
    let digits = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    (!digits.is_empty()).then_some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::cause::Cause;

    #[test]
    fn exchanges_and_role_bindings() {
        for (line, service, cause) in [
            // The GKE metadata server could not impersonate the Google
            // service account; any other Google API's answer is Google's.
            (
                "googleapi: Error 403: Unable to generate access token; IAM returned 403 Forbidden: The caller does not have permission",
                "Google Cloud IAM",
                Cause::CloudCallerDenied,
            ),
            (
                "googleapi: Error 404: The resource 'projects/x' was not found, notFound",
                "a Google Cloud API",
                Cause::Unknown,
            ),
            (
                r#"{"error":{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED"}}"#,
                "a Google Cloud API",
                Cause::Unknown,
            ),
            (
                "failed to refresh token: oauth2: cannot fetch token: 400 Bad Request",
                "an OAuth 2.0 token endpoint",
                Cause::Unknown,
            ),
            // Envoy's own bodies: an AuthorizationPolicy is not Kubernetes RBAC.
            (
                "RBAC: access denied",
                "Envoy's RBAC filter (an Istio AuthorizationPolicy)",
                Cause::Unknown,
            ),
            (
                "Jwt is expired",
                "Envoy's jwt_authn filter (an Istio RequestAuthentication)",
                Cause::Expired,
            ),
            // Its audiences are the RequestAuthentication's: no cause whose
            // steps are the cluster's.
            (
                "Audiences in Jwt are not allowed",
                "Envoy's jwt_authn filter (an Istio RequestAuthentication)",
                Cause::Unknown,
            ),
            // The pool provider's attribute condition is a federation
            // setting, not an AWS role's trust policy (whose steps are AWS's).
            (
                r#"{"error":"unauthorized_client","error_description":"The given credential is rejected by the attribute condition."}"#,
                "Google Cloud STS",
                Cause::CloudFederationMismatch,
            ),
            (
                r#"{"error":"invalid_target","error_description":"The target service indicated by the \"audience\" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn't exist."}"#,
                "Google Cloud STS",
                Cause::Unknown,
            ),
            // A node's image pull: the registry judged the pod's pull
            // secrets, not a ServiceAccount token.
            (
                "failed to resolve reference \"r.example/app:1\": failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized",
                "a container image registry (the node's image pull)",
                Cause::Unknown,
            ),
            (
                "Error response from daemon: pull access denied for app, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
                "a container image registry (the node's image pull)",
                Cause::Unknown,
            ),
            (
                "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
                "Envoy (an Istio sidecar or gateway)",
                Cause::Unknown,
            ),
            (
                "An error occurred (InvalidIdentityToken) when calling the AssumeRoleWithWebIdentity operation: Incorrect token audience",
                "AWS STS",
                Cause::CloudFederationMismatch,
            ),
            (
                "    <Message>Incorrect token audience</Message>",
                "AWS STS",
                Cause::CloudFederationMismatch,
            ),
            (
                "caused by: InvalidIdentityToken: No OpenIDConnect provider found in your account for https://oidc.eks.eu-west-1.amazonaws.com/id/X",
                "AWS STS",
                Cause::CloudOidcProviderMissing,
            ),
            (
                r#"{"error":"invalid_client","error_description":"AADSTS700211: No matching federated identity record found for presented assertion issuer 'https://x'."}"#,
                "Microsoft Entra ID",
                Cause::CloudFederationMismatch,
            ),
            (
                "invalid_client: 700024 - [2023-01-10 14:09:13Z]: AADSTS700024: Client assertion is not within its valid time range.",
                "Microsoft Entra ID",
                Cause::Expired,
            ),
            (
                "Code: 403. Errors:\n\n* service account name not authorized",
                "Vault",
                Cause::CheckerPolicyDenied,
            ),
            // The EKS Pod Identity Agent's own checks of the token, with
            // kube-apiserver's keys.
            (
                r#"level=error msg="Error fetching credentials: JWT signature validation failed: cryptographic validation failed: no matching key found for kid: 0123456789abcdef0123456789abcdef01234567""#,
                "the EKS Pod Identity Agent",
                Cause::KeyMismatch,
            ),
            (
                r#"level=error msg="Error fetching credentials: JWT signature validation failed: cryptographic validation failed: token has invalid claims: token is expired""#,
                "the EKS Pod Identity Agent",
                Cause::Expired,
            ),
            (
                r#"level=error msg="Error fetching credentials: Service account token failed claim validations: invalid audience: expected pods.eks.amazonaws.com""#,
                "the EKS Pod Identity Agent",
                Cause::Unknown,
            ),
            (
                r#"level=error msg="Error fetching credentials: Access Denied. Called agent through invalid address, please use either [169.254.170.23 fd00:ec2::23] address not 10.0.0.1""#,
                "the EKS Pod Identity Agent",
                Cause::Unknown,
            ),
        ] {
            let v = find(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!((v.service, v.cause), (service, cause), "{line}");
        }
        // Entra's refusal without a cause of the token's: the app's secret.
        assert_eq!(
            find("AADSTS7000215: Invalid client secret provided").map(|v| v.cause),
            Some(Cause::Unknown)
        );
        assert!(find("error: You must be logged in to the server (Unauthorized)").is_none());
        // A pull that failed without the registry's answer is no refusal.
        assert!(find("Failed to pull image \"app:1\": context deadline exceeded").is_none());
    }
}
