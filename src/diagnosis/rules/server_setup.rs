//! A server's own setup that failed, as the server logged it: no request's
//! answer, but every request that part of the server should serve fails until
//! it is fixed. kube-apiserver's OIDC (JWT) authenticator that cannot fetch its
//! issuer's discovery document or keys rejects every token of that issuer; a
//! kubelet that refuses its image credential provider configuration exits.
//!
//! The evidence is a typed [`ServerFailure`](crate::diagnosis::facts::ServerFailure)
//! (extraction reads the log lines); the 401 reason `oidc: authenticator not
//! initialized` comes through the reasons parser and names the same cause.

use super::prelude::*;

pub const JWT_ISSUER_UNREACHABLE: CauseDef = CauseDef {
    title: "kube-apiserver cannot fetch the JWT issuer's discovery document or keys",
    summary: "The API server's OIDC (JWT) authenticator has not loaded its issuer's discovery document and keys, so it rejects every token of that issuer",
    explains: &[C::Unauthorized, C::ServerConfig],
    explanation: "\
An OIDC authenticator (--oidc-issuer-url, or a JWT authenticator of --authentication-config) \
starts by fetching ISSUER/.well-known/openid-configuration and then the keys it points to \
(jwks_uri). Until that works, kube-apiserver logs \"oidc authenticator: initializing plugin: \
<error>\" and retries every 10 seconds, and every token whose iss is that issuer is \
rejected with \"oidc: authenticator not initialized\" (a 401 to the client; the \
ServiceAccount tokens of the cluster are not affected). A key fetch that fails later reads \
\"failed to verify signature: fetching keys …\".

The error after \"initializing plugin:\" says what is wrong, and it is seen from \
kube-apiserver's own network, not the user's: a 404 (the issuer URL is not the \
provider's issuer, or a path is missing or doubled), \"x509: certificate signed by unknown \
authority\" (the CA in --oidc-ca-file or issuer.certificateAuthority does not sign the \
provider's certificate), \"no such host\" (kube-apiserver runs with hostNetwork and \
cannot resolve cluster-internal Service names), connection refused or a timeout (the \
provider is down, or a network policy or firewall stops the API server), \"issuer did not \
match the issuer returned by provider\" (the document's issuer differs from the URL by \
even a trailing slash). No restart is needed once it is fixed: the next retry picks it up.",
    confirm: Steps::All(&[
        Steps::Run(
            "fetch the discovery document from where kube-apiserver runs (a control-plane node, its network): the error is the one to fix",
            |_| {
                Command::new("curl")
                    .words(&[
                        "-sS",
                        "--cacert",
                        "ISSUER_CA_FILE",
                        "ISSUER_URL/.well-known/openid-configuration",
                    ])
                    .with_placeholders()
            },
        ),
        Steps::Run(
            "the authenticator's last start-up error, in kube-apiserver's log",
            |_| {
                Command::kubectl()
                    .word("logs")
                    .namespace(Some("kube-system"))
                    .words(&["-l", "component=kube-apiserver", "--tail=2000"])
                    .pipe_into(Command::new("grep").words(&["oidc authenticator"]))
            },
        ),
    ]),
    fix: Steps::Say(
        "make the issuer reachable from kube-apiserver as it reports: the exact issuer URL (no trailing-slash difference), the CA that signs the provider's certificate, a name the API server's own resolver knows (it runs with hostNetwork); it retries by itself every 10 seconds",
    ),
    sources: &[
        "k8s.io/apiserver plugin/pkg/authenticator/token/oidc/oidc.go (initializing plugin, authenticator not initialized)",
        "github.com/coreos/go-oidc oidc.go (NewProvider: the discovery document and its issuer check)",
        "KEP-3331 keps/sig-auth/3331-structured-authentication-configuration",
    ],
};

pub const CREDENTIAL_PROVIDER_CONFIG_INVALID: CauseDef = CauseDef {
    title: "The kubelet refused its image credential provider configuration",
    summary: "The kubelet could not register its image credential providers (configuration invalid or a path missing) and exits at start-up",
    explains: &[C::ServerConfig],
    explanation: "\
With --image-credential-provider-config and --image-credential-provider-bin-dir the \
kubelet runs exec plugins that hand it registry credentials, since 1.33 optionally from a \
ServiceAccount token it requests for the pod (KEP-4412: tokenAttributes). At start-up it \
validates the CredentialProviderConfig and registers the plugins; any error is logged as \
\"Failed to register CRI auth plugins\" err=\"…\" and the kubelet exits, so the node goes \
NotReady (or, for a kubelet started by k3s/RKE2, the whole agent restarts in a loop).

The error lists what is wrong: a missing apiVersion or defaultCacheDuration, \
tokenAttributes with an API version older than credentialprovider.kubelet.k8s.io/v1, \
tokenAttributes without the KubeletServiceAccountTokenForCredentialProviders feature gate, \
a plugin binary directory or configuration file that does not exist, or a provider whose \
name has no binary in that directory.",
    confirm: Steps::Run("the kubelet's own words at start-up, on the node", |_| {
        Command::new("journalctl")
            .words(&["-u", "kubelet", "--since", "-15min", "--no-pager"])
            .pipe_into(Command::new("grep").words(&["CRI auth plugins"]))
    }),
    fix: Steps::Say(
        "correct the CredentialProviderConfig as the error lists (apiVersion credentialprovider.kubelet.k8s.io/v1 for tokenAttributes, defaultCacheDuration, each provider's name matching a binary in --image-credential-provider-bin-dir) and restart the kubelet",
    ),
    sources: &[
        "k8s.io/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go (Failed to register CRI auth plugins, os.Exit)",
        "k8s.io/kubernetes pkg/credentialprovider/plugin/config.go (validateCredentialProviderConfig)",
        "KEP-4412 keps/sig-node/4412-projected-service-account-tokens-for-kubelet-image-credential-providers",
    ],
};

pub const CREDENTIAL_SOURCE_FAILED: CauseDef = CauseDef {
    title: "The client got no credential from its credential source",
    summary: "The client's credential source (a kubeconfig exec plugin, the pod's mounted ServiceAccount token, a cloud SDK's provider chain, a workload identity webhook's variables) failed, so it had no credential to send",
    explains: &[C::ServerConfig],
    explanation: "\
A client that is not handed a token gets one from a credential source first: a kubeconfig \
user's exec plugin (aws eks get-token, kubelogin, gke-gcloud-auth-plugin) prints an \
ExecCredential; in a pod, the in-cluster configuration reads the ServiceAccount token \
mounted at /var/run/secrets/kubernetes.io/serviceaccount/token (none with \
automountServiceAccountToken: false); a cloud SDK walks its provider chain (IRSA's token file, EKS Pod Identity's \
endpoint, instance metadata); Azure workload identity's webhook injects AZURE_CLIENT_ID, \
AZURE_TENANT_ID and AZURE_FEDERATED_TOKEN_FILE. When the source fails, no request carries a \
token and no server judged one. Before any of these, the kubeconfig itself: none found \
(no KUBECONFIG, no ~/.kube/config, not in a pod: \"no configuration has been provided\"), \
unreadable, or naming a context or cluster it does not hold.

The error names the part: a plugin not on the PATH of the program that runs it (an IDE or \
a CI job has another PATH than the shell), an ExecCredential of another apiVersion, an SDK \
release that does not read the pod's source (the AWS SDK for Go refuses EKS Pod Identity's \
169.254.170.23 before v1.47.11), or a pod the webhook did not mutate.",
    confirm: Steps::Run(
        "the credential plugin the kubeconfig runs (for a pod, its environment: kubectl exec POD -- env)",
        |_| {
            Command::kubectl().words(&[
                "config",
                "view",
                "--minify",
                "-o",
                "jsonpath={.users[0].user.exec}",
            ])
        },
    ),
    fix: Steps::Say(
        "run that command by hand in the client's environment (its PATH, arguments and variables) until it prints an ExecCredential; in a pod, use an SDK release that reads the pod's credential source, check that the pod mounts its ServiceAccount token (automountServiceAccountToken) and the variables its webhook injects (AWS_CONTAINER_CREDENTIALS_FULL_URI, AWS_WEB_IDENTITY_TOKEN_FILE, AZURE_CLIENT_ID)",
    ),
    sources: &[
        "k8s.io/client-go plugin/pkg/client/auth/exec/exec.go (the exec credential protocol)",
        "k8s.io/client-go tools/clientcmd/validation.go, loader.go (the kubeconfig)",
        "github.com/kube-rs/kube kube-client/src/client/auth/mod.rs (AuthExecStart, AuthExecRun)",
        "github.com/aws/aws-sdk-go aws/credentials/chain_provider.go, aws/defaults/defaults.go",
        "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-minimum-sdk.html",
        "github.com/Azure/azure-workload-identity pkg/webhook/webhook.go (the injected variables)",
    ],
};

pub const LEGACY_TOKEN_NOT_GENERATED: CauseDef = CauseDef {
    title: "The ServiceAccount has no token Secret",
    summary: "A tool looked for the ServiceAccount's long-lived token Secret and found none: since 1.24 Kubernetes no longer creates one",
    explains: &[C::ServerConfig],
    explanation: "\
Before 1.24 the token controller created a Secret of type kubernetes.io/service-account-token \
for every ServiceAccount and listed it in the ServiceAccount's secrets field. From 1.24 \
(LegacyServiceAccountTokenNoAutoGeneration) it creates none: pods get projected, bound \
tokens instead. A tool that reads the ServiceAccount's first secret, or looks for its token \
Secrets, finds nothing: Terraform's default_secret_name is empty, and Argo Workflows' SSO \
RBAC, Cartographer and Kubermatic's seed proxy stop. No token was rejected; there is none \
to send.",
    confirm: Steps::Run(
        "the ServiceAccount's secrets field (empty since 1.24 unless someone filled it)",
        |_| super::commands::serviceaccount_field("{.secrets}"),
    ),
    fix: Steps::Say(
        "give the tool a bound token if it takes one (kubectl create token NAME, or a projected volume); otherwise create the Secret yourself, of type kubernetes.io/service-account-token with the annotation kubernetes.io/service-account.name: NAME (the token controller fills it), and point the tool at that Secret",
    ),
    sources: &[
        "kubernetes CHANGELOG-1.24 (urgent upgrade notes: LegacyServiceAccountTokenNoAutoGeneration)",
        "KEP-2799 keps/sig-auth/2799-reduction-of-secret-based-service-account-token",
    ],
};

/// A server logged that a part of its own setup failed.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Answer::ServerFailed(failure) = &case.answer else {
        return;
    };
    let what = match failure.cause {
        Cause::JwtIssuerUnreachable => {
            "its OIDC authenticator cannot load the issuer's discovery document; tokens of that issuer get 401 until it does"
        }
        Cause::CredentialProviderConfigInvalid => {
            "it could not register its image credential providers, and exits"
        }
        Cause::CredentialSourceFailed => {
            "it got no credential from its credential source, so no request carried one"
        }
        Cause::LegacyTokenNotGenerated => {
            "the ServiceAccount it reads a token Secret from has none"
        }
        _ => "a part of its setup failed",
    };
    let said = format!("{} logged: {what}: {}", failure.component, failure.detail);
    if let Some(doubt) = failure.doubt {
        let support = vec![Support::server_reason(said), Support::answer(doubt)];
        f.add(failure.cause, Basis::Inferred, support);
    } else {
        f.add_fact(failure.cause, Basis::Said, SupportKind::ServerReason, said);
    }
    f.rule_out(Cause::Unknown);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::ServerFailure;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::diagnosed;

    #[test]
    fn a_failed_setup_is_the_cause_in_its_servers_words() {
        // (cause, component, detail, the first support line starts with)
        for (cause, component, detail, said) in [
            (
                Cause::JwtIssuerUnreachable,
                "kube-apiserver",
                "404 Not Found",
                "kube-apiserver logged",
            ),
            (
                Cause::CredentialProviderConfigInvalid,
                "kubelet",
                "failed to validate credential provider config: [providers.apiVersion: Required value]",
                "kubelet logged",
            ),
        ] {
            let c = Case {
                answer: Answer::ServerFailed(ServerFailure {
                    cause,
                    component,
                    detail: detail.to_owned(),
                    doubt: None,
                }),
                ..Case::default()
            };
            let d = diagnosed(&c);
            assert_eq!(d.classification, C::ServerConfig, "{cause}");
            assert_eq!((d.cause(), d.confidence()), (cause, Confidence::High));
            let first = &d.top().support[0].text;
            assert!(first.starts_with(said) && first.contains(detail), "{first}");
        }
        // A credential plugin whose own call got no answer does not say why.
        let c = Case {
            answer: Answer::ServerFailed(ServerFailure {
                cause: Cause::CredentialSourceFailed,
                component: "client-go",
                detail: "exec: executable argocd-k8s-auth failed with exit code 20 (Client.Timeout exceeded while awaiting headers)".into(),
                doubt: Some(crate::vocabulary::wordings::PLUGIN_EXIT_DOUBT),
            }),
            ..Case::default()
        };
        let d = diagnosed(&c);
        assert_eq!(
            (d.cause(), d.confidence()),
            (Cause::CredentialSourceFailed, Confidence::Medium)
        );
    }
}
