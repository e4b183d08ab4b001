//! Services that judge a ServiceAccount token themselves, without asking
//! kube-apiserver: the clouds' token exchanges (AWS STS for IRSA, Microsoft
//! Entra ID for Azure workload identity) check the token's issuer, subject
//! and audience against their own federation settings; Vault's Kubernetes
//! auth method checks a reviewed token's ServiceAccount against its role.
//! Their refusal names a setting of that service, not a fault of the token.

use super::prelude::*;
use crate::vocabulary::clouds::Cloud;

pub const CLOUD_FEDERATION_MISMATCH: CauseDef = CauseDef {
    title: "The cloud's federation settings do not match the token",
    summary: "A cloud's token exchange (AWS STS, Microsoft Entra ID, Google Cloud STS) refused the ServiceAccount token: its issuer, subject or audience matches no federated credential, role trust or pool provider",
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
issuer, audience or subject alone does not match. Google Cloud STS answers invalid_grant \
when the token's audience or issuer is not the workload identity pool provider's, and \
unauthorized_client when the provider's attribute condition rejects its claims. The \
token is fine for Kubernetes; the fix is the federation setting or the token's audience \
and ServiceAccount.",
    confirm: DECODE,
    fix: Steps::Say(
        "make the role's trust policy (AWS), the federated identity credential (Azure) or the workload identity pool provider's issuer, allowed audiences and attribute condition (Google) admit the token's issuer, subject system:serviceaccount:NAMESPACE:NAME and audience, or project the token with the audience they expect",
    ),
    sources: &[
        "AWS STS API reference: AssumeRoleWithWebIdentity errors (InvalidIdentityToken)",
        "Microsoft Entra authentication and authorization error codes (AADSTS70021, AADSTS700211-700213)",
        "Azure workload identity: federated identity credentials",
        "Google Cloud: troubleshooting workload identity federation",
    ],
};

pub const CLOUD_OIDC_PROVIDER_MISSING: CauseDef = CauseDef {
    title: "The cloud account does not know the cluster's issuer",
    summary: "AWS STS found no OpenID Connect provider for the token's issuer in the account: the cluster's OIDC issuer was never registered (or was deleted)",
    explains: &[C::OtherStatus, C::Unauthorized, C::Forbidden],
    explanation: "\
IRSA asks AWS STS to trust tokens signed by the cluster: the account needs an IAM OpenID \
Connect provider whose URL is the cluster's issuer (the token's iss). Without it STS \
answers \"InvalidIdentityToken: No OpenIDConnect provider found in your account for \
ISSUER\": a new cluster without `eksctl utils associate-iam-oidc-provider`, a recreated \
cluster with a new issuer, a role in another account.",
    confirm: Steps::All(&[
        DECODE,
        Steps::Run(
            "the account's OIDC providers: one must have the token's iss as its URL",
            |_| Command::new("aws").words(&["iam", "list-open-id-connect-providers"]),
        ),
    ]),
    fix: Steps::Run(
        "register the cluster's issuer as an IAM OIDC provider",
        |_| {
            Command::new("eksctl")
                .words(&["utils", "associate-iam-oidc-provider", "--cluster"])
                .value(None, "CLUSTER")
                .word("--approve")
        },
    ),
    sources: &["AWS STS API reference: AssumeRoleWithWebIdentity errors (InvalidIdentityToken)"],
};

pub const CLOUD_TRUST_POLICY_DENIED: CauseDef = CauseDef {
    title: "The role's trust policy does not admit this token",
    summary: "AWS refused to let the ServiceAccount token assume the role: the role's trust policy (its OIDC principal, or its condition on sub or aud) does not match",
    explains: &[C::OtherStatus, C::Forbidden],
    explanation: "\
IRSA's AssumeRoleWithWebIdentity (and EKS Pod Identity's AssumeRoleForPodIdentity) hands \
the projected token to AWS, which checks it against the role's trust policy. \"AccessDenied: \
Not authorized to perform sts:AssumeRoleWithWebIdentity\" means the token itself was \
accepted (issuer known, audience right) and the trust policy did not admit it: its \
Federated principal names another OIDC provider (another cluster, a typo in the ARN), or \
its Condition on \"ISSUER:sub\" names another namespace or ServiceAccount (the most common \
mistake), or its condition on aud expects another audience. A wrong or deleted role ARN \
in the ServiceAccount's eks.amazonaws.com/role-arn annotation answers the same.",
    confirm: Steps::All(&[
        DECODE,
        Steps::Run(
            "the role's trust policy: its Federated principal and its sub and aud conditions must match the token",
            |_| {
                Command::new("aws")
                    .words(&["iam", "get-role", "--role-name"])
                    .value(None, "ROLE")
                    .words(&["--query", "Role.AssumeRolePolicyDocument"])
            },
        ),
    ]),
    fix: Steps::Say(
        "make the trust policy's condition name the token's sub (system:serviceaccount:NAMESPACE:NAME) and aud (sts.amazonaws.com), and its Federated principal the cluster's OIDC provider; or fix the role ARN in the ServiceAccount's eks.amazonaws.com/role-arn annotation",
    ),
    sources: &[
        "AWS STS API reference: AssumeRoleWithWebIdentity errors (AccessDenied)",
        "Amazon EKS: IAM roles for service accounts, configuring the trust policy",
    ],
};

pub const CLOUD_CALLER_DENIED: CauseDef = CauseDef {
    title: "The cloud identity may not make this call",
    summary: "The cloud identity the workload has (or is) may not perform the call it made: a missing IAM permission, not a token problem",
    explains: &[C::OtherStatus, C::Forbidden],
    explanation: "\
After a token exchange succeeds, the workload calls the cloud with the identity it got; \
that identity's own permissions decide. AWS says \"User: ARN is not authorized to \
perform: ACTION on resource: RESOURCE\" (an IAM policy allows no such action, for example \
eks:DescribeCluster for aws eks update-kubeconfig, or sts:AssumeRole from a root \
account: \"Roles may not be assumed by root accounts\"); Google says \"Permission 'PERMISSION' \
denied on resource\". The ServiceAccount token did its part; the fix is a permission of \
the cloud identity.",
    confirm: Steps::Or(
        caller_elsewhere,
        &Steps::Run(
            "who the workload is to AWS (the ARN the refusal names)",
            |_| Command::new("aws").words(&["sts", "get-caller-identity"]),
        ),
    ),
    fix: Steps::Say(
        "grant that identity the action the refusal names (an IAM policy on the role or user; a Google IAM role binding; an Azure role assignment), or make the call with an identity that has it",
    ),
    sources: &[
        "AWS IAM: troubleshooting access denied error messages",
        "Google Cloud IAM: permission denied errors",
    ],
};

pub const CLOUD_OIDC_DISCOVERY_FAILED: CauseDef = CauseDef {
    title: "The cloud cannot read the cluster's issuer",
    summary: "The cloud's token exchange could not fetch the cluster issuer's discovery document or keys, so it cannot verify the token",
    explains: &[C::OtherStatus, C::Unauthorized],
    explanation: "\
To verify a projected ServiceAccount token, the cloud fetches the issuer's \
/.well-known/openid-configuration and its jwks_uri from the public internet. A \
private issuer URL (the API server's own address), a bucket or endpoint that was \
deleted, or a firewall in front of it make the exchange fail before any trust is \
checked: Entra ID's AADSTS501661 (\"Request to External OIDC endpoint failed\"), AWS \
STS's \"Couldn't retrieve verification key from your identity provider\".",
    confirm: Steps::All(&[
        DECODE,
        Steps::Run(
            "the discovery document must answer from the public internet at the token's iss",
            |_| {
                Command::new("curl")
                    .words(&["-sS"])
                    .value(None, "ISSUER/.well-known/openid-configuration")
            },
        ),
    ]),
    fix: Steps::Say(
        "publish the issuer's discovery document and keys where the cloud can read them (the service account issuer discovery URL, a public bucket), and set --service-account-issuer to that URL",
    ),
    sources: &[
        "Microsoft Entra authentication and authorization error codes (AADSTS501661)",
        "AWS STS API reference: AssumeRoleWithWebIdentity errors (IDPCommunicationError)",
    ],
};

pub const CLOUD_CLIENT_NOT_FOUND: CauseDef = CauseDef {
    title: "The cloud identity named does not exist",
    summary: "The token exchange names an application or identity the cloud does not know: a wrong client ID (Entra AADSTS700016)",
    explains: &[C::OtherStatus, C::Unauthorized],
    explanation: "\
Azure workload identity sends the projected token with a client ID (the \
azure.workload.identity/client-id annotation, AZURE_CLIENT_ID): the application or \
user-assigned managed identity whose federated credentials should admit it. AADSTS700016 \
(\"Application with identifier 'ID' was not found in the directory\") means no such client \
in that tenant: a resource ID or object ID given where the client ID belongs, another \
tenant, or a deleted identity.",
    confirm: Steps::Run("the ServiceAccount's client ID annotation", |_| {
        super::commands::serviceaccount_field(
            "{.metadata.annotations.azure\\.workload\\.identity/client-id}",
        )
    }),
    fix: Steps::Say(
        "set the client ID (not the resource or object ID) of the managed identity or application in the tenant the token is sent to",
    ),
    sources: &["Microsoft Entra authentication and authorization error codes (AADSTS700016)"],
};

pub const CLOUD_ROLE_ARN_INVALID: CauseDef = CauseDef {
    title: "The role ARN the workload names is not an ARN",
    summary: "AWS STS refused the request before judging the token: the role ARN it was given is malformed (ValidationError: Request ARN is invalid)",
    explains: &[C::OtherStatus],
    explanation: "\
IRSA's SDKs send STS the role to assume with the projected token: AWS_ROLE_ARN, which EKS's \
webhook copies from the ServiceAccount's eks.amazonaws.com/role-arn annotation (a \
controller's ProviderConfig may name it instead). STS checks that parameter before the \
token, and answers ValidationError \"Request ARN is invalid\" (or a constraint on roleArn) \
when it is not of the form arn:aws:iam::ACCOUNT:role/NAME: a role name or a policy ARN \
where the role's ARN belongs, a space or quote copied with it, a missing account ID, an \
unfilled template. The token is not at fault and the trust policy was not read.",
    confirm: Steps::Run("the role ARN the ServiceAccount gives its pods", |_| {
        super::commands::serviceaccount_field(
            "{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}",
        )
    }),
    fix: Steps::Say(
        "set the role's full ARN (aws iam get-role --role-name ROLE --query Role.Arn) in the annotation, or wherever the workload takes it from, then restart the pods so that the webhook injects it again",
    ),
    sources: &[
        "AWS STS API reference: AssumeRoleWithWebIdentity errors (ValidationError, the RoleArn parameter's constraints)",
    ],
};

pub const POD_IDENTITY_ASSOCIATION_MISSING: CauseDef = CauseDef {
    title: "No EKS Pod Identity association for this ServiceAccount",
    summary: "EKS Pod Identity has no association for the pod's namespace and ServiceAccount, so the agent gets no credentials for it",
    explains: &[C::OtherStatus, C::Forbidden],
    explanation: "\
EKS Pod Identity's agent (a DaemonSet) trades the pod's projected token for credentials \
with the EKS Auth API (AssumeRoleForPodIdentity). The role comes from a pod identity \
association for the cluster, namespace and ServiceAccount; without one the call fails \
with ResourceNotFoundException. An association made for another namespace or \
ServiceAccount name, or in another cluster, answers the same.",
    confirm: Steps::Run(
        "the cluster's pod identity associations: one must name the pod's namespace and ServiceAccount",
        |_| {
            Command::new("aws")
                .words(&["eks", "list-pod-identity-associations", "--cluster-name"])
                .value(None, "CLUSTER")
        },
    ),
    fix: Steps::Say(
        "create a pod identity association for the pod's namespace and ServiceAccount (aws eks create-pod-identity-association), with a role whose trust policy allows pods.eks.amazonaws.com",
    ),
    sources: &["Amazon EKS Auth API reference: AssumeRoleForPodIdentity errors"],
};

pub const CHECKER_POLICY_DENIED: CauseDef = CauseDef {
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
    confirm: Steps::All(&[
        DECODE,
        Steps::Run("the names and namespaces the role allows", |_| {
            Command::new("vault")
                .words(&["read"])
                .value(None, "auth/kubernetes/role/ROLE")
        }),
    ]),
    fix: Steps::Say(
        "add the ServiceAccount's name and namespace to the role's bound_service_account_names and bound_service_account_namespaces, or log in with the role meant for it",
    ),
    sources: &["hashicorp/vault-plugin-auth-kubernetes path_login.go"],
};

/// What every federation cause confirms first.
const DECODE: Steps = Steps::Run(
    "the token's iss, sub and aud are what the federation setting must match",
    |_| super::commands::decode_token(),
);

/// Who the workload is to the cloud that refused the call, when it is not
/// AWS (whose step is the default).
fn caller_elsewhere(case: &Case<'_>) -> Option<NextStep> {
    let (why, command) = match case.answer.http()?.verdict.as_ref()?.cloud? {
        Cloud::Aws => return None,
        Cloud::Google => (
            "who the workload is to Google Cloud (the service account its calls are made as)",
            Command::new("gcloud").words(&["auth", "list"]),
        ),
        Cloud::Azure => (
            "who the caller is to Azure (the account or identity the refusal names)",
            Command::new("az").words(&["account", "show"]),
        ),
    };
    Some(NextStep::run(why, command))
}

/// Whether a service's answer says it refused: a cause it names, or a client
/// error but a 404. Words that name no cause, a 404 (a metadata server's
/// `not defined`) or a 5xx are only its answer.
pub fn refused(v: &crate::diagnosis::facts::ServiceVerdict, code: Option<u16>) -> bool {
    v.cause != Cause::Unknown || code.is_some_and(|c| (400..500).contains(&c) && c != 404)
}

/// A service that judged the token said why it refused it.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Some((v, code)) = case
        .answer
        .http()
        .and_then(|h| Some((h.verdict.as_ref()?, h.code())))
    else {
        return;
    };
    let refusal = refused(v, code);
    let why = match v.cause {
        Cause::Unknown if !refusal => {
            "the answer is the service's own, not kube-apiserver's: its words say what it judged, and no cause here fits them"
        }
        Cause::Expired => "the token was outside its validity window when the exchange judged it",
        Cause::CheckerPolicyDenied => {
            "the token was reviewed; the checker's own role does not allow its ServiceAccount"
        }
        Cause::Unknown => {
            "the service judged it by its own settings: its words say what it refused, and no cause here fits them"
        }
        Cause::CloudCallerDenied => {
            "the cloud knew the caller; its policy does not allow the call (not a fault of the token)"
        }
        Cause::WrongEndpoint => {
            "a login goes to a path where no auth method is mounted in that namespace (or the request was no login, and carried no token of the service's own); the ServiceAccount token was never looked at"
        }
        _ => {
            "the exchange judged the token against its own federation settings, not kube-apiserver"
        }
    };
    // A caller denied got past the token: the call was refused.
    let what = if matches!(v.cause, Cause::CloudCallerDenied | Cause::WrongEndpoint) {
        "the call"
    } else {
        "the token"
    };
    let refused = if refusal {
        format!("{} refused {what}: {}", v.service, v.detail)
    } else {
        format!("{} answered: {}", v.service, v.detail)
    };
    let mut support = vec![Support::answer(refused), Support::answer(why)];
    // Google's refusal says itself that the resource may not exist: the
    // caller may be allowed and the name wrong.
    let basis = if matches!(v.cause, Cause::Unknown | Cause::WrongEndpoint) {
        // The service refused without saying what of the token or of its
        // federation it refused, or where the request should have gone.
        Basis::Inferred
    } else if v.cause == Cause::CloudCallerDenied && v.cloud == Some(Cloud::Google) {
        support.push(Support::answer(
            "Google answers the same when the resource does not exist: check its name as well as the caller's role",
        ));
        Basis::Inferred
    } else {
        Basis::Said
    };
    f.add(v.cause, basis, support);
    for &cause in v.alternatives {
        f.add_fact(
            cause,
            Basis::Possible,
            SupportKind::Answer,
            v.detail.clone(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::artefact::ServiceVerdict;
    use crate::diagnosis::facts::HttpAnswer;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, run};

    /// Vault's `missing client token` for a login where nothing is mounted;
    /// a request that is no login says the same, so it is not certain.
    #[test]
    fn vault_s_missing_client_token_is_a_wrong_endpoint_not_certain() {
        let verdict =
            crate::diagnosis::extract::exchange::find(r#"{"errors":["missing client token"]}"#)
                .unwrap();
        let answer = Answer::Http(HttpAnswer {
            verdict: Some(verdict),
            ..HttpAnswer::relayed("Vault", None, 1)
        });
        assert_eq!(
            run(&case(answer, None)),
            (Cause::WrongEndpoint, Confidence::Medium)
        );
    }

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
                        cloud: None,
                        alternatives: &[],
                        detail: "no".into(),
                    }),
                    ..HttpAnswer::default()
                }),
                None,
            );
            assert_eq!(run(&c), (cause, Confidence::High), "{status:?}");
        }
        // Google's "denied on resource (or it may not exist)" fits a wrong
        // name too.
        let c = case(
            Answer::Http(HttpAnswer {
                relay_status: Some(403),
                verdict: Some(ServiceVerdict {
                    cause: Cause::CloudCallerDenied,
                    service: crate::vocabulary::clouds::GOOGLE_IAM,
                    cloud: Some(Cloud::Google),
                    alternatives: &[],
                    detail: "denied on resource (or it may not exist).".into(),
                }),
                ..HttpAnswer::default()
            }),
            None,
        );
        assert_eq!(run(&c), (Cause::CloudCallerDenied, Confidence::Medium));
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

    /// The cloud that refused the call decides how to ask who the caller is.
    #[test]
    fn the_caller_is_asked_of_the_cloud_that_refused() {
        for (cloud, program) in [
            (None, "aws"),
            (Some(Cloud::Aws), "aws"),
            (Some(Cloud::Google), "gcloud"),
            (Some(Cloud::Azure), "az"),
        ] {
            let c = case(
                Answer::Http(HttpAnswer {
                    relay_status: Some(403),
                    verdict: Some(ServiceVerdict {
                        cause: Cause::CloudCallerDenied,
                        service: "X",
                        cloud,
                        alternatives: &[],
                        detail: "does not have authorization to perform action".into(),
                    }),
                    ..HttpAnswer::default()
                }),
                None,
            );
            let steps = CLOUD_CALLER_DENIED.confirm.for_case(&c);
            let argv = &steps[0].command.as_ref().unwrap().argv;
            assert_eq!(argv[0], program, "{cloud:?}");
        }
    }
}
