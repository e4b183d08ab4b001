//! Services that judge a ServiceAccount token themselves, without asking
//! kube-apiserver: the clouds' token exchanges (AWS STS for IRSA, Microsoft
//! Entra ID for Azure workload identity) check the token's issuer, subject
//! and audience against their own federation settings; Vault's Kubernetes
//! auth method checks a reviewed token's ServiceAccount against its role.
//! Their refusal names a setting of that service, not a fault of the token.

use crate::diagnosis::Cause;
use crate::diagnosis::case::{Answer, Case};
use crate::diagnosis::cause::CauseDef;
use crate::diagnosis::classification::Classification as C;
use crate::diagnosis::merge::Findings;
use crate::diagnosis::next::{Command, NextStep};
use crate::diagnosis::policy::Basis;
use crate::diagnosis::support::{Support, SupportKind};

pub const CLOUD_FEDERATION_MISMATCH: CauseDef = CauseDef {
    code: "cloud-federation-mismatch",
    title: "The cloud's federation settings do not match the token",
    summary: "A cloud's token exchange (AWS STS, Microsoft Entra ID) refused the ServiceAccount token: its issuer, subject or audience matches no federated credential or role trust",
    explains: &[C::OtherStatus, C::Unauthorized, C::Forbidden],
    explanation: "\
Workload identity trades a projected ServiceAccount token for cloud credentials: AWS STS \
(AssumeRoleWithWebIdentity, for IRSA and EKS Pod Identity's predecessors) and Microsoft \
Entra ID (federated identity credentials, for Azure workload identity) check the token \
themselves, against the cluster's OIDC issuer they were told to trust.

AWS answers \"InvalidIdentityToken: Incorrect token audience\" when the token's aud is \
not a client ID of the account's OIDC provider (sts.amazonaws.com unless configured \
otherwise). Entra ID answers AADSTS70021 when no federated identity credential of the \
application matches the token's issuer, subject (system:serviceaccount:NAMESPACE:NAME) \
and audience (api://AzureADTokenExchange), and AADSTS700211/700212/700213 when the \
issuer, audience or subject alone does not match. The token is fine for Kubernetes; the \
fix is the federation setting or the token's audience and ServiceAccount.",
    confirm: federation_confirm,
    fix: federation_fix,
    sources: &[
        "AWS STS API reference: AssumeRoleWithWebIdentity errors (InvalidIdentityToken)",
        "Microsoft Entra authentication and authorization error codes (AADSTS70021, AADSTS700211-700213)",
        "Azure workload identity: federated identity credentials",
    ],
};

pub const CLOUD_OIDC_PROVIDER_MISSING: CauseDef = CauseDef {
    code: "cloud-oidc-provider-missing",
    title: "The cloud account does not know the cluster's issuer",
    summary: "AWS STS found no OpenID Connect provider for the token's issuer in the account: the cluster's OIDC issuer was never registered (or was deleted)",
    explains: &[C::OtherStatus, C::Unauthorized, C::Forbidden],
    explanation: "\
IRSA asks AWS STS to trust tokens signed by the cluster: the account needs an IAM OpenID \
Connect provider whose URL is the cluster's issuer (the token's iss). Without it STS \
answers \"InvalidIdentityToken: No OpenIDConnect provider found in your account for \
ISSUER\": a new cluster without `eksctl utils associate-iam-oidc-provider`, a recreated \
cluster with a new issuer, a role in another account.",
    confirm: provider_confirm,
    fix: provider_fix,
    sources: &["AWS STS API reference: AssumeRoleWithWebIdentity errors (InvalidIdentityToken)"],
};

pub const CHECKER_POLICY_DENIED: CauseDef = CauseDef {
    code: "checker-policy-denied",
    title: "The checker's role does not allow this ServiceAccount",
    summary: "A token checker accepted the token but its own policy does not allow the ServiceAccount (Vault's role binds other names or namespaces)",
    explains: &[C::OtherStatus, C::Forbidden, C::Unauthorized],
    explanation: "\
Vault's Kubernetes auth method first has kube-apiserver review the token, then checks \
the ServiceAccount it belongs to against the role the client logs in with: \
bound_service_account_names and bound_service_account_namespaces. \"service account \
name not authorized\" and \"namespace not authorized\" mean the token is valid and the \
role does not list that name or namespace: the fix is the role (or logging in with \
another role), not the token.",
    confirm: policy_confirm,
    fix: policy_fix,
    sources: &["hashicorp/vault-plugin-auth-kubernetes path_login.go"],
};

fn decode_step() -> NextStep {
    NextStep::run(
        "the token's iss, sub and aud are what the federation setting must match",
        Command::satoken()
            .words(&["decode", "-f", "TOKEN_FILE"])
            .with_placeholders(),
    )
}

fn federation_confirm(_: &Case<'_>) -> Vec<NextStep> {
    vec![decode_step()]
}

fn federation_fix(_: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::say(
        "make the role's trust policy (AWS) or the federated identity credential (Azure) name the token's issuer, subject system:serviceaccount:NAMESPACE:NAME and audience, or project the token with the audience they expect",
    )]
}

fn provider_confirm(_: &Case<'_>) -> Vec<NextStep> {
    vec![
        decode_step(),
        NextStep::run(
            "the account's OIDC providers: one must have the token's iss as its URL",
            Command::new("aws").words(&["iam", "list-open-id-connect-providers"]),
        ),
    ]
}

fn provider_fix(_: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::run(
        "register the cluster's issuer as an IAM OIDC provider",
        Command::new("eksctl")
            .words(&["utils", "associate-iam-oidc-provider", "--cluster"])
            .value(None, "CLUSTER")
            .word("--approve"),
    )]
}

fn policy_confirm(_: &Case<'_>) -> Vec<NextStep> {
    vec![
        decode_step(),
        NextStep::run(
            "the names and namespaces the role allows",
            Command::new("vault")
                .words(&["read"])
                .value(None, "auth/kubernetes/role/ROLE"),
        ),
    ]
}

fn policy_fix(_: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::say(
        "add the ServiceAccount's name and namespace to the role's bound_service_account_names and bound_service_account_namespaces, or log in with the role meant for it",
    )]
}

/// A service that judged the token said why it refused it.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Answer::Http(h) = &case.answer else {
        return;
    };
    let Some(v) = &h.verdict else {
        return;
    };
    let why = match v.cause {
        Cause::Expired => "the token was outside its validity window when the exchange judged it",
        Cause::CheckerPolicyDenied => {
            "the token was reviewed; the checker's own role does not allow its ServiceAccount"
        }
        _ => {
            "the exchange judged the token against its own federation settings, not kube-apiserver"
        }
    };
    f.add(
        v.cause,
        Basis::Said,
        vec![
            Support::new(
                SupportKind::Answer,
                format!("{} refused the token: {}", v.service, v.detail),
            ),
            Support::new(SupportKind::Answer, why),
        ],
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::artefact::ServiceVerdict;
    use crate::diagnosis::case::HttpAnswer;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, run};

    #[test]
    fn the_services_reason_names_the_cause() {
        for (status, cause) in [
            (None, Cause::CloudFederationMismatch),
            (Some(401), Cause::CloudFederationMismatch),
            (Some(400), Cause::CloudOidcProviderMissing),
            (Some(403), Cause::CheckerPolicyDenied),
            (None, Cause::Expired),
        ] {
            let c = case(
                Answer::Http(HttpAnswer {
                    status,
                    verdict: Some(ServiceVerdict {
                        cause,
                        service: "X",
                        detail: "no".into(),
                    }),
                    ..HttpAnswer::default()
                }),
                None,
            );
            assert_eq!(run(&c), (cause, Confidence::High), "{status:?}");
        }
        // Without a verdict, a 400 says nothing of the kind.
        let c = case(
            Answer::Http(HttpAnswer {
                status: Some(400),
                ..HttpAnswer::default()
            }),
            None,
        );
        assert_ne!(run(&c).1, Confidence::High);
    }
}
