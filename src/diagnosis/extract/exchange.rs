//! Services other than kube-apiserver that judge a ServiceAccount token and
//! say why they refused it, found anywhere in a line: the clouds' token
//! exchanges (AWS STS `AssumeRoleWithWebIdentity`, Microsoft Entra ID's
//! federated credentials, `AADSTS…` codes) and Vault's Kubernetes auth role
//! bindings. Their reason is specific enough to name the cause; the status,
//! when the text shows one, is read by the other extractors.
//!
//! Wordings: AWS STS API reference (`InvalidIdentityToken`), Microsoft Entra
//! authentication error codes (AADSTS70021, 700211-700213, 700024),
//! hashicorp/vault-plugin-auth-kubernetes `path_login.go`.

use super::super::artefact::ServiceVerdict;
use super::super::cause::Cause;
use super::excerpt;

/// (text, service, cause): the first that a line contains wins.
const WORDINGS: &[(&str, &str, Cause)] = &[
    // AWS STS: the token's aud is not a client ID of the account's OIDC
    // provider (sts.amazonaws.com by default).
    (
        "Incorrect token audience",
        "AWS STS",
        Cause::CloudFederationMismatch,
    ),
    (
        "No OpenIDConnect provider found in your account",
        "AWS STS",
        Cause::CloudOidcProviderMissing,
    ),
    // Entra ID: no federated identity credential matches the token's
    // issuer, subject and audience (70021), or one of them (700211-700213).
    (
        "AADSTS70021:",
        "Microsoft Entra ID",
        Cause::CloudFederationMismatch,
    ),
    (
        "AADSTS700211:",
        "Microsoft Entra ID",
        Cause::CloudFederationMismatch,
    ),
    (
        "AADSTS700212:",
        "Microsoft Entra ID",
        Cause::CloudFederationMismatch,
    ),
    (
        "AADSTS700213:",
        "Microsoft Entra ID",
        Cause::CloudFederationMismatch,
    ),
    // The assertion (the projected token) is outside its nbf..exp.
    ("AADSTS700024:", "Microsoft Entra ID", Cause::Expired),
    // Vault's role: bound_service_account_names / _namespaces.
    (
        "service account name not authorized",
        "Vault",
        Cause::CheckerPolicyDenied,
    ),
    (
        "namespace not authorized",
        "Vault",
        Cause::CheckerPolicyDenied,
    ),
];

/// The refusal a line states, if any.
pub fn find(line: &str) -> Option<ServiceVerdict> {
    WORDINGS.iter().find_map(|(text, service, cause)| {
        let at = line.find(text)?;
        Some(ServiceVerdict {
            cause: *cause,
            service,
            detail: excerpt(&line[at..]),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchanges_and_role_bindings() {
        for (line, service, cause) in [
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
        ] {
            let v = find(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!((v.service, v.cause), (service, cause), "{line}");
        }
        assert!(find("AADSTS7000215: Invalid client secret provided").is_none());
        assert!(find("error: You must be logged in to the server (Unauthorized)").is_none());
    }
}
