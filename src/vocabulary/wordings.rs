//! What components other than the ServiceAccount authenticator say about
//! tokens, in their exact words and versions: kube-apiserver's TokenRequest
//! warning when it shortens a lifetime, the NodeRestriction refusal of a
//! kubelet's token audience, the kubelet's own log line, the JWT
//! authenticators of a structured authentication configuration, and an
//! external signer's refusal. The authenticators' own messages are
//! [`super::authenticators`] (read by `diagnosis::reasons`).
//!
//! [`WORDINGS`] is their table, one of [`TABLES`] (every table of [`Wording`]
//! rows, which `explain` and the prefilter read); the parsers below turn one
//! message into the typed artefact a rule reads
//! ([`NodeAudienceRefusal`], [`JwtRejection`]), for whichever extractor finds
//! the text; [`LifetimeShortened`] words the warning for `decode`.
//!
//! Sources (each entry names its file): pkg/registry/core/serviceaccount/
//! storage/token.go, plugin/pkg/admission/noderestriction/admission.go (and
//! test/integration/auth/node_test.go for the full text),
//! pkg/credentialprovider/plugin/plugin.go, staging/src/k8s.io/apiserver/
//! plugin/pkg/authenticator/token/oidc/oidc.go, pkg/serviceaccount/externaljwt/
//! plugin/plugin.go.

use serde::Serialize;

use super::row::Cause;
pub use super::row::Wording;
use super::row::w;
use super::{checkers, clouds, refusals, transport};

const APISERVER_WARNING: &str = "kube-apiserver (a warning on its answer)";
const NODE_RESTRICTION_PLUGIN: &str = "the NodeRestriction admission plugin";
const KUBELET: &str = "the kubelet";
const JWT_AUTHENTICATOR: &str = "a JWT authenticator (--authentication-config)";
const EXTERNAL_SIGNER: &str = "kube-apiserver with an external signer";

const TOKEN_GO: &str = "pkg/registry/core/serviceaccount/storage/token.go";
const NODE_RESTRICTION: &str = "plugin/pkg/admission/noderestriction/admission.go";
const KUBELET_PLUGIN: &str = "pkg/credentialprovider/plugin/plugin.go";
const OIDC_GO: &str = "staging/src/k8s.io/apiserver/plugin/pkg/authenticator/token/oidc/oidc.go";
const KUBERUNTIME: &str = "pkg/kubelet/kuberuntime/kuberuntime_manager.go";
const EXTERNAL_JWT: &str = "pkg/serviceaccount/externaljwt/plugin/plugin.go";

/// The TokenRequest warning when `--service-account-max-token-expiration` (or a
/// managed cluster's cap) shortens a requested lifetime.
pub const LIFETIME_SHORTENED: Wording = w(
    APISERVER_WARNING,
    "requested expiration of REQUESTED seconds shortened to ISSUED seconds",
    // The clamp exists since 1.11 (PR #63653); the warning is seen from 1.24
    // (GKE 1.24.7 prints it); older servers shorten silently.
    "1.24+; the cap itself since 1.11, silent before",
    // A capped token expires before its client expects: listed under expired.
    Some(Cause::Expired),
    TOKEN_GO,
);

/// Every known wording, grouped by who says it.
#[rustfmt::skip]
pub const WORDINGS: &[Wording] = &[
    LIFETIME_SHORTENED,
    w(NODE_RESTRICTION_PLUGIN, "serviceaccounts \"SERVICE_ACCOUNT\" is forbidden: audience \"AUDIENCE\" not found in pod spec volume, system:node:NODE is not authorized to request tokens for this audience", "1.32+ with ServiceAccountNodeAudienceRestriction (alpha 1.32, beta and on by default 1.33)", Some(Cause::NodeAudienceNotAllowed), NODE_RESTRICTION),
    w(NODE_RESTRICTION_PLUGIN, "node may only request 0 or 1 audiences", "1.32+ with ServiceAccountNodeAudienceRestriction", Some(Cause::NodeAudienceNotAllowed), NODE_RESTRICTION),
    w(KUBELET, "Error getting service account token NAMESPACE/SERVICE_ACCOUNT: REASON", "1.33+ with KubeletServiceAccountTokenForCredentialProviders (alpha 1.33, beta 1.34)", Some(Cause::NodeAudienceNotAllowed), KUBELET_PLUGIN),
    w(JWT_AUTHENTICATOR, "oidc: verify token: oidc: expected audience in [\"AUDIENCE\"] got [\"TOKEN_AUDIENCE\"]", "1.30+ (structured authentication configuration)", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: required claim CLAIM not present in ID token", "1.29+", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: required claim CLAIM value does not match. Got = VALUE, want = REQUIRED", "1.29+", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: error evaluating claim validation expression: validation expression 'EXPRESSION' failed: MESSAGE", "1.30+", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: claim validation expression failed: MESSAGE", "1.29 (v1alpha1)", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: error evaluating user info validation rule: validation expression 'EXPRESSION' failed: MESSAGE", "1.30+", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: error evaluating username claim expression: ERROR", "1.29+", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: empty username via CEL expression is not allowed", "1.29+", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: parse username claims \"CLAIM\": claim not present", "all", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(JWT_AUTHENTICATOR, "oidc: email not verified", "all", Some(Cause::JwtAuthenticatorRejected), OIDC_GO),
    w(EXTERNAL_SIGNER, "failed to generate token: while validating header: key used for signing JWT (kid: KID) is excluded from OIDC discovery docs", "1.32+ with ExternalServiceAccountTokenSigner (alpha 1.32, beta 1.34)", None, EXTERNAL_JWT),
];

/// Every table of [`Wording`] rows, with what it holds (a heading of
/// `explain --wordings`): what other components say, the authorizers' and
/// admission plugins' refusals, the services that review a token,
/// kube-apiserver's onward calls, transport failures, the clouds' token
/// exchanges. `explain` and the prefilter read them all through [`all`].
#[rustfmt::skip]
pub const TABLES: &[(&str, &[Wording])] = &[
    ("kube-apiserver's warnings, NodeRestriction, the kubelet, JWT authenticators", WORDINGS),
    ("a program's own setup that failed before any request", SETUP_FAILURES),
    ("RBAC's reasons", refusals::RBAC_REASONS),
    ("the Node authorizer's reasons", refusals::NODE_AUTHORIZER_REASONS),
    ("an authorizer with no opinion before RBAC", refusals::NO_OPINION_REASONS),
    ("the ServiceAccount admission plugin: no token yet", refusals::SERVICE_ACCOUNT_NO_TOKEN),
    ("the ServiceAccount admission plugin: no ServiceAccount", refusals::SERVICE_ACCOUNT_MISSING),
    ("the ServiceAccount admission plugin before 1.9", &[refusals::SERVICE_ACCOUNT_NOT_FOUND_RETRY]),
    ("the NodeRestriction admission plugin", refusals::NODE_RESTRICTION),
    ("the ResourceQuota admission plugin", refusals::QUOTA_EXCEEDED),
    ("admission webhooks and PodSecurity", &[refusals::ADMISSION_WEBHOOK, refusals::POD_SECURITY, refusals::POD_SECURITY_WARNING]),
    ("a mesh's review answered without a reason", checkers::NOT_AUTHENTICATED),
    ("a mesh's own review refused", checkers::MESH_REVIEW_REFUSED),
    ("Vault's review", &[checkers::VAULT_REVIEW_REFUSED, checkers::VAULT_NOT_AUTHENTICATED, checkers::VAULT_API_ERROR]),
    ("the Linkerd proxy's identity client", &[checkers::LINKERD_UNCERTIFIED]),
    ("a webhook token authenticator's review", &[checkers::WEBHOOK_REVIEW_FAILED]),
    ("kube-apiserver's onward calls", ONWARD_CALLS),
    ("kube-apiserver's onward call with nothing to call", ONWARD_NOTHING_THERE),
    ("a webhook token authenticator's verdict", TOKEN_VERDICTS),
    ("transport failures before any answer", transport::TRANSPORT),
    ("curl's exit codes", transport::CURL_CODES),
    ("texts with a failure's words that are no failure", transport::NOT_A_FAILURE),
    ("the clouds' token exchanges", clouds::EXCHANGES),
    ("the cloud SDKs' printing of a cloud API's answer", clouds::ENVELOPES),
    ("services that judge a token themselves", SERVICES),
    ("a container image registry's refusal of a node's pull", REGISTRY_DENIALS),
    ("a node's image pull, where the line states the registry's status", IMAGE_PULLS),
];

/// Every wording of [`TABLES`], in their order.
pub fn all() -> impl Iterator<Item = &'static Wording> {
    TABLES.iter().flat_map(|(_, rows)| rows.iter())
}

/// The wordings that mean `cause`.
pub fn for_cause(cause: Cause) -> impl Iterator<Item = &'static Wording> {
    all().filter(move |w| w.cause == Some(cause))
}

/// Terraform's warning that a ServiceAccount's `default_secret_name` is empty
/// on 1.24+: it comes with every ServiceAccount the provider manages, whether
/// or not anything reads that name.
pub const SECRET_NAME_WARNING: Wording = w(
    TERRAFORM_KUBERNETES,
    "default_secret_name … is no longer applicable for Kubernetes v1.24.0 and above",
    "2.12+ (a warning: the attribute is empty)",
    Some(Cause::LegacyTokenNotGenerated),
    "github.com/hashicorp/terraform-provider-kubernetes kubernetes/resource_kubernetes_service_account.go",
);

/// Why that warning alone does not make the missing Secret the cause.
pub const SECRET_NAME_DOUBT: &str = "Terraform warns on every ServiceAccount it manages on 1.24+: the missing Secret is the cause only if something reads default_secret_name (a kubernetes_secret data source, a kubeconfig built from it)";

/// The Azure Identity libraries' credentials that found nothing to use:
/// workload identity's variables not injected (a pod the webhook did not
/// mutate), or a managed identity the node's instance metadata does not have
/// (IMDS's 400) or cannot be reached. Each is one credential of a chain
/// (DefaultAzureCredential, ChainedTokenCredential), which goes on to the
/// next: the client had none only when every one failed. A credential that
/// was refused instead (Entra's AADSTS code) stops the chain, and its words
/// are read as the exchange's answer. The AWS SDK for Java's providers of
/// its default chain are the same: each says why it had nothing, and the
/// chain goes on (the web identity provider without the sts module warns so
/// in a pod set up for IRSA, then the node's instance profile may answer).
#[rustfmt::skip]
pub const CHAIN_MEMBERS: [Wording; 13] = [
    w(AZURE_IDENTITY, "WorkloadIdentityCredential: no … specified", "Go azidentity 1.3+ (client ID, tenant ID, token file or token source)", Some(Cause::CredentialSourceFailed), AZIDENTITY_GO),
    w(AZURE_IDENTITY, "ManagedIdentityCredential … assigned to this resource", "all (Go: no default identity, the requested identity isn't; Python, .NET: no identity has been, the requested identity has not been)", Some(Cause::CredentialSourceFailed), AZURE_MANAGED_IDENTITY),
    w(AZURE_IDENTITY, "WorkloadIdentityCredential authentication unavailable", "Python, .NET and Java Azure Identity (the workload options are not fully configured)", Some(Cause::CredentialSourceFailed), AZURE_IDENTITY_OTHERS),
    w(AZURE_IDENTITY, "ManagedIdentityCredential authentication unavailable", "Python, .NET and Java Azure Identity (no identity assigned, no IMDS response, no endpoint)", Some(Cause::CredentialSourceFailed), AZURE_IDENTITY_OTHERS),
    w(AZURE_IDENTITY, "WorkloadIdentityCredential: is unavailable", "JavaScript @azure/identity 3.x-4.x", Some(Cause::CredentialSourceFailed), "github.com/Azure/azure-sdk-for-js sdk/identity/identity/src/credentials/workloadIdentityCredential.ts"),
    w(AWS_SDK_JAVA, "To use web identity tokens, the 'sts' service module must be on the class path", "2.x (WebIdentityTokenCredentialsProvider, logged at WARN)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-java-v2 core/auth/src/main/java/software/amazon/awssdk/auth/credentials/internal/WebIdentityCredentialsUtils.java"),
    w(AWS_SDK_JAVA, "AWS_WEB_IDENTITY_TOKEN_FILE or the javaproperty aws.webIdentityTokenFile must be set", "2.x (WebIdentityTokenFileCredentialsProvider: `Either the environment variable …`, no IRSA token file set)", Some(Cause::CredentialSourceFailed), JAVA_V2_CREDENTIALS),
    w(AWS_SDK_JAVA, "Cannot fetch credentials from container - neither", "2.x (ContainerCredentialsProvider: no AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI; aws-sdk-net says the same)", Some(Cause::CredentialSourceFailed), JAVA_V2_CREDENTIALS),
    w(AWS_SDK_JAVA, "Failed to load credentials from IMDS", "2.x (InstanceProfileCredentialsProvider)", Some(Cause::CredentialSourceFailed), JAVA_V2_CREDENTIALS),
    w(AWS_SDK_JAVA, "Unable to load credentials from service endpoint", "1.x (EC2CredentialsFetcher: the instance metadata or container endpoint)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-java aws-java-sdk-core/src/main/java/com/amazonaws/auth/EC2CredentialsFetcher.java"),
    // The chain's other usual members, in a pod where none of them is set up.
    w(AZURE_IDENTITY, "AzureCLICredential: Azure CLI not found on path", "Go azidentity 1.x; Python (AzureCliCredential, the same words case aside)", Some(Cause::CredentialSourceFailed), "github.com/Azure/azure-sdk-for-go sdk/azidentity/azure_cli_credential.go; azure-sdk-for-python azure/identity/_credentials/azure_cli.py"),
    w(AZURE_IDENTITY, "EnvironmentCredential: missing environment variable", "Go azidentity 1.x", Some(Cause::CredentialSourceFailed), "github.com/Azure/azure-sdk-for-go sdk/azidentity/environment_credential.go (NewEnvironmentCredential; the chain names its member)"),
    w(AZURE_IDENTITY, "EnvironmentCredential authentication unavailable", "Python, .NET and Java Azure Identity (the environment variables are not fully configured)", Some(Cause::CredentialSourceFailed), AZURE_IDENTITY_OTHERS),
];

/// Why a chain member's failure leaves the client's credential in doubt.
pub const CHAIN_MEMBER_DOUBT: &str = "this is one credential of a chain, which goes on to the next: the client had no credential only if every one failed (DefaultAzureCredential's `failed to retrieve a token` and the AWS SDK for Java's `Unable to load credentials from any of the providers in the chain` list them all)";

/// Why a plugin's exit leaves its reason in doubt.
pub const PLUGIN_EXIT_DOUBT: &str = "why it failed is not in these words: the plugin's own output (printed before them) says; an expired login, a workload identity not set up for this pod (its SDK then falls back to instance metadata, often out of a pod's reach, and times out) and wrong arguments read the same here";

/// client-go's words for an exec plugin that failed, which do not say why:
/// one that exited non-zero (its reason is its own output, printed before
/// them), and the round-tripper's wrapping of any failure (the rows before
/// it in [`SETUP_FAILURES`] read the failures that say why).
#[rustfmt::skip]
pub const PLUGIN_EXITED: [Wording; 3] = [
    w(CLIENT_GO, "exec: executable … failed with exit code", "1.19+ (exec.ExitError)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    w(CLIENT_GO, "getting credentials: exec: exit status …", "1.10-1.18 (Go os/exec's ExitError)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    w(CLIENT_GO, "getting credentials: exec: …", "1.10+ (any failure to run the plugin)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
];

/// A program's own setup that failed before any request had an answer: a
/// server's part that cannot start (its requests fail until it does), or a
/// client's credential source that gave it nothing to send. Each row's parts
/// (` … ` between them) stand in this order in a line, in either case; a
/// row that ends in ` …` is followed by the error itself. The first row a
/// line holds wins.
#[rustfmt::skip]
pub const SETUP_FAILURES: &[Wording] = &[
    w("kube-apiserver", "oidc authenticator: initializing plugin: …", "all (kube-apiserver's log, retried every 10 seconds)", Some(Cause::JwtIssuerUnreachable), OIDC_GO),
    w("kubelet", "Failed to register CRI auth plugins …", "1.20+ (image credential providers; the kubelet then exits)", Some(Cause::CredentialProviderConfigInvalid), KUBERUNTIME),
    // client-go's exec credential plugin (kubectl, helm, every Go client):
    // not on the PATH, exited non-zero, or its ExecCredential is not one
    // client-go takes. A plugin that exited non-zero printed its reason on
    // the lines before: a cloud's refusal there is the answer, and the exit
    // is not read after it.
    w(CLIENT_GO, "exec: executable … not found", "1.19+ (exec.Error; then `It looks like you are trying to use a client-go credential plugin that is not installed.`)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    w(CLIENT_GO, "getting credentials: exec: … executable file not found", "1.10-1.18 (Go os/exec's ErrNotFound)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    PLUGIN_EXITED[0],
    PLUGIN_EXITED[1],
    // The oidc auth-provider of client-go 1.6-1.9 (go-oidc v1) could not
    // refresh the kubeconfig's expired ID token.
    w(CLIENT_GO, "could not refresh token: …", "1.6-1.9 (the oidc auth-provider)", Some(Cause::CredentialSourceFailed), CLIENT_GO_OIDC),
    w(CLIENT_GO, "No valid id-token, and cannot refresh without refresh-token", "1.6+ (the oidc auth-provider)", Some(Cause::CredentialSourceFailed), CLIENT_GO_OIDC),
    // An auth-provider the kubeconfig names that the program was built
    // without (client-go 1.26 dropped the gcp and azure providers: their
    // kubeconfigs need the exec plugins that replaced them).
    w(CLIENT_GO, "no Auth Provider found for name", "all (rest.GetAuthProvider)", Some(Cause::CredentialSourceFailed), "k8s.io/client-go rest/plugin.go (GetAuthProvider)"),
    // Its rewrite (1.10) refreshes with golang.org/x/oauth2 after reading
    // the issuer's discovery document (its `failed to refresh token: ` around
    // the token endpoint's answer is read by that answer, the exchange's).
    w(CLIENT_GO, "oidc: failed to query metadata endpoint", "1.10+ (the oidc auth-provider)", Some(Cause::CredentialSourceFailed), CLIENT_GO_OIDC_NEW),
    w(CLIENT_GO, "oidc: discovery object doesn't contain a token_endpoint", "1.10+ (the oidc auth-provider)", Some(Cause::CredentialSourceFailed), CLIENT_GO_OIDC_NEW),
    w(CLIENT_GO, "token response did not contain an id_token", "1.10+ (the oidc auth-provider)", Some(Cause::CredentialSourceFailed), CLIENT_GO_OIDC_NEW),
    // The exec authenticator's round-tripper wraps every failure of its
    // plugin in these words; its own errors start `exec: `.
    PLUGIN_EXITED[2],
    w(CLIENT_GO, "getting credentials: decoding stdout: …", "1.10+ (the plugin printed no ExecCredential client-go decodes)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    w(CLIENT_GO, "exec plugin: invalid apiVersion …", "1.10+ (client.authentication.k8s.io/v1alpha1 is refused since 1.24)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    w(CLIENT_GO, "exec plugin is configured to use API version … plugin returned version …", "1.10+", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    w(CLIENT_GO, "exec plugin didn't return a …", "1.10+ (a token; a token or cert/key pair since 1.11; a status field)", Some(Cause::CredentialSourceFailed), CLIENT_GO_EXEC),
    // The kubeconfig itself: none found (no KUBECONFIG, no ~/.kube/config,
    // not in a pod), unreadable, or naming a context or cluster it lacks.
    w(CLIENT_GO, "no configuration has been provided", "all (clientcmd ErrEmptyConfig; `, try setting KUBERNETES_MASTER environment variable` since 1.5)", Some(Cause::CredentialSourceFailed), CLIENTCMD),
    w(CLIENT_GO, "error loading config file \" … \": …", "all (clientcmd LoadFromFile)", Some(Cause::CredentialSourceFailed), CLIENTCMD),
    w(CLIENT_GO, "context was not found for specified context", "all (clientcmd validation)", Some(Cause::CredentialSourceFailed), CLIENTCMD),
    w(CLIENT_GO, "cluster has no server defined", "all (clientcmd ErrEmptyCluster)", Some(Cause::CredentialSourceFailed), CLIENTCMD),
    // Terraform's kubernetes provider plans a kubernetes_manifest with no
    // client configuration (its provider block's values not known yet, or
    // none given): `│ Error: Failed to construct REST client` above it.
    w(TERRAFORM_KUBERNETES, "cannot create REST client: no client config", "2.4+ (kubernetes_manifest)", Some(Cause::CredentialSourceFailed), "github.com/hashicorp/terraform-provider-kubernetes manifest/provider/clients.go (getRestClient)"),
    // In a pod, the in-cluster configuration: the API server's address from
    // the environment, the ServiceAccount token from its mounted file (none
    // with automountServiceAccountToken: false).
    w(CLIENT_GO, "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined", "1.4+ (rest.ErrNotInCluster)", Some(Cause::CredentialSourceFailed), "k8s.io/client-go rest/config.go (InClusterConfig)"),
    // The ServiceAccount volume (token, ca.crt, namespace) not there or not
    // readable, in each runtime's words for a file it could not open: the
    // pod mounts no token (automountServiceAccountToken: false, no
    // ServiceAccount), or its user may not read it.
    w(CLIENT_GO, "open /var/run/secrets/kubernetes.io/serviceaccount/", "all (InClusterConfig's os.ReadFile: Go's os.PathError)", Some(Cause::CredentialSourceFailed), "k8s.io/client-go rest/config.go (InClusterConfig)"),
    w(JAVA_K8S, "NoSuchFileException: /var/run/secrets/kubernetes.io/serviceaccount/", "all (ClientBuilder.cluster's Files.readAllBytes)", Some(Cause::CredentialSourceFailed), "github.com/kubernetes-client/java util/src/main/java/io/kubernetes/client/util/ClientBuilder.java (cluster)"),
    w(JAVA_K8S, "/var/run/secrets/kubernetes.io/serviceaccount/ … (No such file or directory)", "all (java.io.FileNotFoundException: PATH (REASON))", Some(Cause::CredentialSourceFailed), "OpenJDK java/io/FileInputStream.java (open: FileNotFoundException)"),
    w(PYTHON, "No such file or directory: '/var/run/secrets/kubernetes.io/serviceaccount/", "Python 3 (open()'s FileNotFoundError: `[Errno 2] No such file or directory: 'PATH'`)", Some(Cause::CredentialSourceFailed), "CPython Objects/exceptions.c (OSError.__str__)"),
    w(NODE, "no such file or directory, open '/var/run/secrets/kubernetes.io/serviceaccount/", "all (fs: `ENOENT: no such file or directory, open 'PATH'`; client-node's loadFromCluster)", Some(Cause::CredentialSourceFailed), "nodejs/node lib/internal/errors.js (uvException)"),
    w(RUBY, "No such file or directory @ rb_sysopen - /var/run/secrets/kubernetes.io/serviceaccount/", "Ruby 2.x-3.x (Errno::ENOENT)", Some(Cause::CredentialSourceFailed), "ruby/ruby io.c (rb_sysopen)"),
    w(DOTNET, "Could not find file '/var/run/secrets/kubernetes.io/serviceaccount/", "all (FileNotFoundException)", Some(Cause::CredentialSourceFailed), DOTNET_IO),
    w(DOTNET, "Could not find a part of the path '/var/run/secrets/kubernetes.io/serviceaccount/", "all (DirectoryNotFoundException: no volume at all)", Some(Cause::CredentialSourceFailed), DOTNET_IO),
    w(RUST, "/var/run/secrets/kubernetes.io/serviceaccount/ … (os error ", "all (std::io::Error's Display: `MESSAGE (os error N)`; kube's in-cluster configuration)", Some(Cause::CredentialSourceFailed), "rust-lang/rust library/std/src/io/error.rs"),
    w(DOTNET_K8S, "Unable to load in-cluster configuration. Missing environment variables", "all (KubeConfigException: no KUBERNETES_SERVICE_HOST/PORT or no token)", Some(Cause::CredentialSourceFailed), "github.com/kubernetes-client/csharp src/KubernetesClient/KubernetesClientConfiguration.InCluster.cs"),
    w(KUBE_RS, "failed to read an incluster environment variable", "kube 0.64+ (InClusterError::ReadEnvironmentVariable: not in a pod)", Some(Cause::CredentialSourceFailed), "github.com/kube-rs/kube kube-client/src/config/incluster_config.rs (Error)"),
    w(PYTHON_K8S, "Service token file does not exist", "all (`does not exists.` in most releases)", Some(Cause::CredentialSourceFailed), PYTHON_INCLUSTER),
    w(PYTHON_K8S, "Token file exists but empty", "all", Some(Cause::CredentialSourceFailed), PYTHON_INCLUSTER),
    w(PYTHON_K8S, "Service certification file does not exist", "all", Some(Cause::CredentialSourceFailed), PYTHON_INCLUSTER),
    w(PYTHON_K8S, "Cert file exists but empty", "all", Some(Cause::CredentialSourceFailed), PYTHON_INCLUSTER),
    w(PYTHON_K8S, "Service host/port is not set", "all (KUBERNETES_SERVICE_HOST/PORT missing: not in a pod)", Some(Cause::CredentialSourceFailed), PYTHON_INCLUSTER),
    // The Python client runs the kubeconfig's exec plugin itself
    // (ExecProvider) and logs any failure at ERROR from kube_config.py
    // (_load_from_exec_plugin: `logging.error(str(e))`), then goes on
    // without a token.
    w(PYTHON_K8S, "exec: process returned …", "8.0+ (the plugin exited non-zero; its stderr after)", Some(Cause::CredentialSourceFailed), PYTHON_EXEC),
    w(PYTHON_K8S, "exec: failed to decode process output", "8.0+", Some(Cause::CredentialSourceFailed), PYTHON_EXEC),
    w(PYTHON_K8S, "exec: malformed response. missing key", "8.0+", Some(Cause::CredentialSourceFailed), PYTHON_EXEC),
    w(PYTHON_K8S, "exec: plugin api version … does not match", "8.0+", Some(Cause::CredentialSourceFailed), PYTHON_EXEC),
    w(PYTHON_K8S, "exec: missing token field in plugin output", "8.0+", Some(Cause::CredentialSourceFailed), PYTHON_KUBE_CONFIG),
    w(PYTHON_K8S, "kube_config.py: … ERROR", "8.0+ (any other failure to run the plugin, logged with its file name: Airflow's `{kube_config.py:N} ERROR - `)", Some(Cause::CredentialSourceFailed), PYTHON_KUBE_CONFIG),
    w(PYTHON_K8S, "Invalid kube-config file", "all (load_kube_config: a missing or malformed kubeconfig)", Some(Cause::CredentialSourceFailed), "github.com/kubernetes-client/python kubernetes/base/config/kube_config.py"),
    // kube-rs runs the kubeconfig's exec plugin itself: it could not start
    // it (not on the PATH it runs with), or the plugin exited non-zero (its
    // status and output are what it said; the command, which may hold a
    // secret, only when a long one wraps before the status).
    w(KUBE_RS, "unable to run auth exec: …", "kube 0.64+ (Error::AuthExecStart)", Some(Cause::CredentialSourceFailed), KUBE_RS_AUTH),
    w(KUBE_RS, "auth exec command ' … ' failed with status …", "kube 0.64+ (Error::AuthExecRun)", Some(Cause::CredentialSourceFailed), KUBE_RS_AUTH),
    w(KUBE_RS, "auth exec command ' …", "kube 0.64+ (Error::AuthExecRun, its status wrapped to another line)", Some(Cause::CredentialSourceFailed), KUBE_RS_AUTH),
    // The AWS SDKs' credential provider chains found no credentials: none of
    // the pod's sources (IRSA's token file, EKS Pod Identity's endpoint)
    // was one the SDK reads, or it refused the endpoint's address.
    w(AWS_SDK_GO, "NoCredentialProviders: no valid providers in chain", "v1 (all)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/chain_provider.go"),
    w(AWS_SDK_GO, "Ignoring, HTTP credential provider …", "v1.8.13+ (the host checked since v1.12.48: `only loopback hosts are allowed` until v1.47.11, which allows EKS Pod Identity's 169.254.170.23)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/defaults/defaults.go (localHTTPCredProvider)"),
    w(AWS_SDK_JS, "Missing credentials in config, if using AWS_CONFIG_FILE", "v2.640.0+ (CredentialsError; `Missing credentials in config` alone before)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-js lib/event_listeners.js (VALIDATE_CREDENTIALS)"),
    // The JS SDK's container provider accepted only ECS's addresses before
    // it learned EKS Pod Identity's 169.254.170.23.
    w(AWS_SDK_JS, "is not a valid container metadata service hostname", "v3 (smithy credential-provider-imds, before it allowed 169.254.170.23)", Some(Cause::CredentialSourceFailed), "github.com/smithy-lang/smithy-typescript packages/credential-provider-imds/src/fromContainerMetadata.ts (getCmdsUri)"),
    w(AWS_SDK_JS, "Could not load credentials from any providers", "v3 (CredentialsProviderError)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-js-v3 packages/credential-provider-node/src/defaultProvider.ts"),
    // IRSA's token file (AWS_WEB_IDENTITY_TOKEN_FILE) not there: the pod was
    // not mutated, or its projected volume is not mounted.
    w(AWS_SDK_GO, "WebIdentityErr: unable to read file at", "v1 (all)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/stscreds/web_identity_provider.go (FetchTokenPath)"),
    w(AWS_SDK_GO, "no EC2 IMDS role found", "v2 (the chain's last source: the node's instance metadata, no role)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go-v2 credentials/ec2rolecreds/provider.go"),
    w(BOTOCORE, "Unable to locate credentials", "all (NoCredentialsError; the AWS CLI says the same)", Some(Cause::CredentialSourceFailed), "github.com/boto/botocore botocore/exceptions.py (NoCredentialsError)"),
    w(AWS_SDK_JAVA, "Unable to load AWS credentials from any provider in the chain", "1.x", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-java aws-java-sdk-core/src/main/java/com/amazonaws/auth/AWSCredentialsProviderChain.java"),
    w(AWS_SDK_JAVA, "Unable to load credentials from any of the providers in the chain", "2.x (SdkClientException)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-java-v2 core/auth/src/main/java/software/amazon/awssdk/auth/credentials/AwsCredentialsProviderChain.java"),
    w(AWS_SDK_RUST, "no providers in chain provided credentials", "aws-config 0.x-1.x (CredentialsError::CredentialsNotLoaded)", Some(Cause::CredentialSourceFailed), "github.com/awslabs/aws-sdk-rust aws-config src/meta/credentials/chain.rs"),
    // One credential source of the AWS SDKs (and the AWS CLI, `aws eks
    // get-token`, aws-iam-authenticator's `token`) that gave nothing, in a
    // pod or behind a kubeconfig's exec plugin: IRSA's token file or role ARN
    // not set or unreadable, EKS Pod Identity's endpoint refused (an SDK
    // older than its 169.254.170.23) or its token file unreadable, the node's
    // instance metadata with no role or out of reach, a profile, an SSO or
    // `aws login` session that expired. An expired SSO session is the
    // caller's own login, never the ServiceAccount token. A source that
    // quotes a service's refusal is read as that refusal. The wrappers that
    // say only that a source failed (botocore's `Error when retrieving
    // credentials from container-role`, aws-sdk-go's `CredentialsEndpointError`,
    // aws-sdk-go-v2's `failed to refresh cached credentials`) have no row:
    // what they wrap is an STS or EKS Auth refusal, read as the service's, or
    // a call that got no answer, read with the endpoint it names.
    w(BOTOCORE, "The config profile ( … ) could not be found", "all (ProfileNotFound)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Partial credentials found in …", "0.62+ (PartialCredentialsError: a source with some of its keys)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "assume role with web identity but has no role ARN configured", "1.12.200+ (InvalidConfigError: a token file without AWS_ROLE_ARN)", Some(Cause::CredentialSourceFailed), BOTOCORE_CREDENTIALS),
    w(BOTOCORE, "Infinite loop in credential configuration detected", "1.8+ (InfiniteLoopConfigError)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Cannot refresh credentials: MFA token required", "1.3.15+ (RefreshWithMFAUnsupportedError: an assumed role's MFA, asked again when its session ends)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Unsupported host … Can only retrieve metadata from", "1.5.27+ (the container endpoint's host; before 1.32.0 not EKS Pod Identity's 169.254.170.23)", Some(Cause::CredentialSourceFailed), "github.com/boto/botocore botocore/utils.py (ContainerMetadataFetcher)"),
    w(AWS_SDKS, "The SSO session associated with this profile", "botocore 1.17+ and the AWS CLI (`has expired or is otherwise invalid`: UnauthorizedSSOTokenError), aws-sdk-js 3.x (`is invalid`, `has expired`)", Some(Cause::CredentialSourceFailed), "github.com/boto/botocore botocore/exceptions.py (UnauthorizedSSOTokenError); github.com/aws/aws-sdk-js-v3 packages/credential-provider-sso/src/resolveSSOCredentials.ts"),
    w(BOTOCORE, "Error loading SSO Token: …", "1.17+ (SSOTokenLoadError: no cached token, or an expired one)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Please reauthenticate using 'aws login'", "1.41+ (LoginRefreshRequired)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Error when retrieving token from …", "1.27.60+ (TokenRetrievalError: an SSO session's token that could not be refreshed)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "Error when retrieving credentials from custom-process: …", "1.4.37+ (CredentialRetrievalError: credential_process failed, its stderr after)", Some(Cause::CredentialSourceFailed), BOTOCORE_EXCEPTIONS),
    w(BOTOCORE, "No credentials found in credential_source referenced in profile", "1.8+ (CredentialRetrievalError)", Some(Cause::CredentialSourceFailed), BOTOCORE_CREDENTIALS),
    w(AWS_SDK_GO, "role ARN is not set", "v1 1.21+ (WebIdentityErr), v2 (config: a token file without AWS_ROLE_ARN)", Some(Cause::CredentialSourceFailed), GO_SESSION_CREDENTIALS),
    w(AWS_SDK_GO, "token file path is not set", "v1 1.21+ (WebIdentityErr), v2 (config)", Some(Cause::CredentialSourceFailed), GO_SESSION_CREDENTIALS),
    w(AWS_SDK_GO, "WebIdentityErr: failed fetching WebIdentity token", "v1 1.30.12+", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/stscreds/web_identity_provider.go"),
    w(AWS_SDK_GO, "failed to retrieve jwt from provide source", "v2 (WebIdentityRoleProvider: the token file unreadable)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go-v2 credentials/stscreds/web_identity_provider.go"),
    w(AWS_SDK_GO, "invalid endpoint host, … only loopback", "v1 1.12.48+ and v2 (`only loopback hosts are allowed` before EKS Pod Identity's 169.254.170.23 was, v1 1.47.11; then `only loopback/ecs/eks hosts are allowed`)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/defaults/defaults.go (localHTTPCredProvider); github.com/aws/aws-sdk-go-v2 config/resolve_credentials.go (resolveLocalHTTPCredProvider)"),
    w(AWS_SDK_GO, "failed to read authorization token from", "v1 1.47.11+, v2 (AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE unreadable)", Some(Cause::CredentialSourceFailed), GO_ENDPOINT_CREDENTIALS),
    w(AWS_SDK_GO, "EC2RoleRequestError: no EC2 instance role found", "v1 (the node's instance metadata: no role, or out of the pod's reach)", Some(Cause::CredentialSourceFailed), GO_V1_EC2ROLE),
    w(AWS_SDK_GO, "EmptyEC2RoleList: empty EC2 Role list", "v1", Some(Cause::CredentialSourceFailed), GO_V1_EC2ROLE),
    w(AWS_SDK_GO, "empty EC2 IMDS role list", "v2 (`unexpected empty EC2 IMDS role list`)", Some(Cause::CredentialSourceFailed), GO_V2_EC2ROLE),
    w(AWS_SDK_GO, "failed to get … EC2 IMDS role credentials", "v2", Some(Cause::CredentialSourceFailed), GO_V2_EC2ROLE),
    w(AWS_SDK_GO, "the SSO session has expired or is invalid", "v1 1.37+ (SSOProviderInvalidToken), v2 (InvalidTokenError)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/ssocreds/provider.go; github.com/aws/aws-sdk-go-v2 credentials/ssocreds/sso_credentials_provider.go"),
    w(AWS_SDK_GO, "cached SSO token is expired, or not present, and cannot be refreshed", "v1 1.44.298+, v2", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/ssocreds/token_provider.go; github.com/aws/aws-sdk-go-v2 credentials/ssocreds/sso_token_provider.go"),
    w(AWS_SDK_GO, "SharedConfigProfileNotExistsError: failed to get profile", "v1", Some(Cause::CredentialSourceFailed), GO_V1_SHARED_CONFIG),
    w(AWS_SDK_GO, "SharedConfigAssumeRoleError: failed to load assume role for", "v1 (the source profile has no credentials)", Some(Cause::CredentialSourceFailed), GO_V1_SHARED_CONFIG),
    w(AWS_SDK_GO, "assume role with MFA enabled, but", "v1 1.7+ (AssumeRoleTokenNotAvailable), v2 (AssumeRoleTokenProviderNotSetError)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/stscreds/assume_role_provider.go; github.com/aws/aws-sdk-go-v2 config/resolve_credentials.go"),
    w(AWS_SDK_GO, "ProcessProviderExecutionError: error in credential_process", "v1 1.16+", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-go aws/credentials/processcreds/provider.go"),
    w(AWS_SDK_JS, "No HTTP credential provider host provided", "v3 (credential-provider-http: no AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI)", Some(Cause::CredentialSourceFailed), JS_HTTP_PROVIDER),
    w(AWS_SDK_JS, "URL not accepted. It must either be HTTPS or match one of the following", "v3 (credential-provider-http)", Some(Cause::CredentialSourceFailed), JS_HTTP_PROVIDER),
    w(AWS_SDK_JS, "HTTP credential provider response not of the required format", "v3 (credential-provider-http)", Some(Cause::CredentialSourceFailed), JS_HTTP_PROVIDER),
    w(AWS_SDK_JS, "CredentialsProviderError: Server responded with status: ", "v3 (credential-provider-http: the container endpoint's refusal, its Code and Message beneath)", Some(Cause::CredentialSourceFailed), JS_HTTP_PROVIDER),
    w(AWS_SDK_JS, "Unable to connect to instance metadata service", "v3 (smithy credential-provider-imds, for instance metadata and ECS's container endpoint alike)", Some(Cause::CredentialSourceFailed), JS_IMDS),
    w(AWS_SDK_JS, "TimeoutError from instance metadata service", "v3", Some(Cause::CredentialSourceFailed), JS_IMDS),
    w(AWS_SDK_JS, "Error response received from instance metadata service", "v3", Some(Cause::CredentialSourceFailed), JS_IMDS),
    w(AWS_SDK_JS, "AWS EC2 Metadata v1 fallback has been blocked", "v3", Some(Cause::CredentialSourceFailed), "github.com/smithy-lang/smithy-typescript packages/credential-provider-imds/src/fromInstanceMetadata.ts"),
    w(AWS_SDK_JS, "could not be found or parsed in shared credentials file", "v3 (credential-provider-ini: `Profile NAME could not …`)", Some(Cause::CredentialSourceFailed), "github.com/aws/aws-sdk-js-v3 packages/credential-provider-ini/src/resolveProfileData.ts"),
    w(AWS_SDK_JAVA, "Host should resolve to a loopback address or have the full URI be HTTPS", "1.x, 2.x (ContainerCredentialsProvider: `… has an invalid host.`, AWS_CONTAINER_CREDENTIALS_FULL_URI's, before EKS Pod Identity's 169.254.170.23 was allowed)", Some(Cause::CredentialSourceFailed), JAVA_V2_CREDENTIALS),
    w(AWS_SDK_RUST, "invalid full URI for ECS provider", "aws-config 0.x-1.x (AWS_CONTAINER_CREDENTIALS_FULL_URI's host not allowed)", Some(Cause::CredentialSourceFailed), "github.com/smithy-lang/smithy-rs aws/rust-runtime/aws-config/src/ecs.rs"),
    // A wrapper of any source's failure, after the rows that say which.
    w(AWS_IAM_AUTHENTICATOR, "could not get token: …", "all (the `token` command, the exec plugin: it signs with the caller's credentials, so any failure before is theirs)", Some(Cause::CredentialSourceFailed), "github.com/kubernetes-sigs/aws-iam-authenticator cmd/aws-iam-authenticator/token.go, pkg/token/token.go"),
    // Google's auth libraries found no Application Default Credentials (no
    // GOOGLE_APPLICATION_CREDENTIALS, no metadata server: a pod outside
    // Workload Identity, a credential configuration file not mounted).
    w(GOOGLE_AUTH, "google: could not find default credentials", "all (golang.org/x/oauth2/google)", Some(Cause::CredentialSourceFailed), "golang.org/x/oauth2 google/default.go (FindDefaultCredentials)"),
    w(GOOGLE_AUTH, "Could not automatically determine credentials", "google-auth-library-python before 2.16.2 (DefaultCredentialsError)", Some(Cause::CredentialSourceFailed), GOOGLE_AUTH_PYTHON_DEFAULT),
    w(GOOGLE_AUTH, "Your default credentials were not found", "google-auth-library-python 2.16.2+, google-auth-library-java 1.17+", Some(Cause::CredentialSourceFailed), "github.com/googleapis/google-auth-library-python google/auth/_default.py (_CLOUD_SDK_MISSING_CREDENTIALS); google-auth-library-java oauth2_http/java/com/google/auth/oauth2/DefaultCredentialsProvider.java (CLOUDSDK_MISSING_CREDENTIALS)"),
    w(GOOGLE_AUTH, "The Application Default Credentials are not available", "google-auth-library-java before 1.17", Some(Cause::CredentialSourceFailed), "github.com/googleapis/google-auth-library-java oauth2_http/java/com/google/auth/oauth2/DefaultCredentialsProvider.java"),
    w(GOOGLE_AUTH, "Could not load the default credentials", "google-auth-library-nodejs (all)", Some(Cause::CredentialSourceFailed), "github.com/googleapis/google-auth-library-nodejs src/auth/googleauth.ts (getApplicationDefaultAsync)"),
    // GOOGLE_APPLICATION_CREDENTIALS names a file that is not there or not
    // a credential (a Secret or credential configuration not mounted).
    w(GOOGLE_AUTH, "google: error getting credentials using … environment variable: …", "golang.org/x/oauth2 0.1+", Some(Cause::CredentialSourceFailed), X_OAUTH2_DEFAULT),
    w(GOOGLE_AUTH, "DefaultCredentialsError: File … was not found", "google-auth-library-python 1.x-2.x", Some(Cause::CredentialSourceFailed), GOOGLE_AUTH_PYTHON_DEFAULT),
    // Workload identity federation's credential configuration: its
    // credential_source (the projected ServiceAccount token file, a URL, an
    // executable) gave no subject token to exchange.
    w(GOOGLE_AUTH, "oauth2/google/externalaccount: failed to open credential file", "golang.org/x/oauth2 0.18+", Some(Cause::CredentialSourceFailed), "golang.org/x/oauth2 google/externalaccount/filecredsource.go"),
    w(GOOGLE_AUTH, "oauth2/google: failed to open credential file", "golang.org/x/oauth2 0.1-0.17 (google/internal/externalaccount)", Some(Cause::CredentialSourceFailed), "golang.org/x/oauth2 google/internal/externalaccount/filecredsource.go"),
    w(GOOGLE_AUTH, "oauth2/google/externalaccount: …", "golang.org/x/oauth2 0.18+ (its credential source or configuration: a file, a URL's answer, an executable)", Some(Cause::CredentialSourceFailed), "golang.org/x/oauth2 google/externalaccount/basecredentials.go, filecredsource.go, urlcredsource.go, executablecredsource.go"),
    w(GOOGLE_AUTH, "RefreshError: File ' … ' was not found", "google-auth-library-python 2.x (identity_pool: the credential_source file)", Some(Cause::CredentialSourceFailed), GOOGLE_AUTH_PYTHON_POOL),
    w(GOOGLE_AUTH, "Unable to retrieve Identity Pool subject token", "google-auth-library-python 2.x (identity_pool: the credential_source URL's answer)", Some(Cause::CredentialSourceFailed), GOOGLE_AUTH_PYTHON_POOL),
    w(GOOGLE_AUTH, "Missing subject_token in the credential_source file", "google-auth-library-python 2.x", Some(Cause::CredentialSourceFailed), GOOGLE_AUTH_PYTHON_POOL),
    // The metadata server (a node's, or GKE's metadata server for Workload
    // Identity) could not be reached. A status it answered is its answer
    // (read with the clouds' exchanges), like a refusal it relays.
    w(GOOGLE_AUTH, "oauth2/google: can't get a token from the metadata service; not running on GCE", "golang.org/x/oauth2 0.1+ (ComputeTokenSource)", Some(Cause::CredentialSourceFailed), "golang.org/x/oauth2 google/google.go (computeSource.Token)"),
    w(GOOGLE_AUTH, "Compute Engine Metadata server unavailable. Last exception: …", "google-auth-library-python 2.x (TransportError after its retries got no answer)", Some(Cause::CredentialSourceFailed), "github.com/googleapis/google-auth-library-python google/auth/compute_engine/_metadata.py (get)"),
    w(GOOGLE_AUTH, "ComputeEngineCredentials cannot find the metadata server", "google-auth-library-java 1.x", Some(Cause::CredentialSourceFailed), GOOGLE_AUTH_JAVA_GCE),
    // gcloud, run by a kubeconfig's gke-gcloud-auth-plugin (or `gcloud
    // config config-helper`): its login expired or was revoked, or it has
    // no account. Its words stand inside the plugin's, so they come first.
    w(GCLOUD, "There was a problem refreshing your current auth tokens", "all (TokenRefreshError)", Some(Cause::CredentialSourceFailed), GCLOUD_EXCEPTIONS),
    w(GCLOUD, "There was a problem refreshing auth tokens for account", "recent releases (TokenRefreshError with the account)", Some(Cause::CredentialSourceFailed), GCLOUD_EXCEPTIONS),
    w(GCLOUD, "Reauthentication failed. cannot prompt during non-interactive execution", "all (google-auth's ReauthFailError, raised by gcloud's credentials)", Some(Cause::CredentialSourceFailed), "google-cloud-sdk lib/googlecloudsdk/core/credentials/google_auth_credentials.py; google-auth-library-python google/auth/exceptions.py (ReauthFailError)"),
    w(GCLOUD, "You do not currently have an active account selected", "all (NoActiveAccountException)", Some(Cause::CredentialSourceFailed), GCLOUD_EXCEPTIONS),
    w(GCLOUD, "Your current active account [ … ] does not have any valid credentials", "all (NoCredentialsForAccountException)", Some(Cause::CredentialSourceFailed), "google-cloud-sdk lib/googlecloudsdk/core/credentials/store.py"),
    w(GKE_AUTH_PLUGIN, "print credential failed with error: …", "cloud-provider-gcp (klog.Exit: gcloud's error, or ADC's with --use_application_default_credentials)", Some(Cause::CredentialSourceFailed), GKE_AUTH_PLUGIN_SOURCE),
    w(GKE_AUTH_PLUGIN, "unable to retrieve access token for GKE", "its first releases (a panic)", Some(Cause::CredentialSourceFailed), "kubernetes/cloud-provider-gcp cmd/gke-gcloud-auth-plugin/main.go"),
    w(GKE_AUTH_PLUGIN, "gcloud config config-helper returned an empty access token", "cloud-provider-gcp", Some(Cause::CredentialSourceFailed), "kubernetes/cloud-provider-gcp cmd/gke-gcloud-auth-plugin/gcloud_token_provider.go"),
    // Azure workload identity's webhook sets these in a pod that asks for it
    // (label azure.workload.identity/use, the ServiceAccount's client-id
    // annotation); its sample clients stop when one is missing.
    w(AZURE_WORKLOAD_IDENTITY, "AZURE_CLIENT_ID environment variable is not set", "all (examples/msal-go)", Some(Cause::CredentialSourceFailed), AZWI_SAMPLE),
    w(AZURE_WORKLOAD_IDENTITY, "AZURE_TENANT_ID environment variable is not set", "all (examples/msal-go)", Some(Cause::CredentialSourceFailed), AZWI_SAMPLE),
    w(AZURE_WORKLOAD_IDENTITY, "AZURE_FEDERATED_TOKEN_FILE environment variable is not set", "all (examples/msal-go)", Some(Cause::CredentialSourceFailed), AZWI_SAMPLE),
    // The Azure Identity libraries' chains after every credential failed
    // (each one's words follow, on the lines below or after `\n\t`): the
    // client had no credential. Before the members' rows, which doubt.
    w(AZURE_IDENTITY, "DefaultAzureCredential: failed to acquire a token", "Go azidentity 1.x", Some(Cause::CredentialSourceFailed), AZIDENTITY_CHAIN),
    w(AZURE_IDENTITY, "ChainedTokenCredential: failed to acquire a token", "Go azidentity 1.x", Some(Cause::CredentialSourceFailed), AZIDENTITY_CHAIN),
    w(AZURE_IDENTITY, "failed to retrieve a token from the included credentials", "Python azure-identity 1.x, .NET Azure.Identity 1.x, JavaScript @azure/identity (DefaultAzureCredential, ChainedTokenCredential)", Some(Cause::CredentialSourceFailed), "github.com/Azure/azure-sdk-for-python sdk/identity/azure-identity azure/identity/_credentials/chained.py; azure-sdk-for-net sdk/identity/Azure.Identity/src/Credentials/ChainedTokenCredential.cs"),
    // Azure/kubelogin, the kubeconfig's exec plugin for AKS: a login it could
    // not set up (its workload identity's token file, its Azure CLI, its
    // arguments). Its wrapper of every failure (`failed to get token: `) is
    // too common a phrase to name a cause; an Entra refusal inside is read
    // as the answer.
    w(KUBELOGIN_AZURE, "either ACTIONS_ID_TOKEN_REQUEST_TOKEN and ACTIONS_ID_TOKEN_REQUEST_URL environment variables have to be set or federated token file has to be provided", "v0.0.34-v0.1.x (workloadidentity: no AZURE_FEDERATED_TOKEN_FILE)", Some(Cause::CredentialSourceFailed), "github.com/Azure/kubelogin pkg/internal/token/federatedIdentity.go"),
    w(KUBELOGIN_AZURE, "failed to read signed assertion from token file", "v0.0.12-v0.0.33 (workloadidentity)", Some(Cause::CredentialSourceFailed), "github.com/Azure/kubelogin pkg/token/federatedIdentity.go"),
    w(KUBELOGIN_AZURE, "failed to create workload identity credential: …", "v0.2.0+", Some(Cause::CredentialSourceFailed), "github.com/Azure/kubelogin pkg/internal/token/workloadidentitycredential.go"),
    w(KUBELOGIN_AZURE, "expected an empty error but received: …", "v0.0.9-v0.1.x (azurecli, azd, interactive)", Some(Cause::CredentialSourceFailed), "github.com/Azure/kubelogin pkg/internal/token/azurecli.go, azuredevelopercli.go, interactive.go"),
    w(KUBELOGIN_AZURE, "is not a supported login method. Supported method is one of", "all (the kubeconfig's --login)", Some(Cause::CredentialSourceFailed), "github.com/Azure/kubelogin pkg/internal/token/options.go (Validate)"),
    // int128/kubelogin (kubectl oidc-login get-token): its OpenID Connect
    // provider's discovery, the login itself, or the ID token it got.
    // A failed refresh is not here: it logs it and logs in again.
    w(OIDC_LOGIN, "oidc discovery error: …", "1.17.1+", Some(Cause::CredentialSourceFailed), "github.com/int128/kubelogin pkg/oidc/client/factory.go (pkg/adaptors/oidcclient/factory.go in 1.20)"),
    w(OIDC_LOGIN, "get-token: authentication error: …", "1.17.1+", Some(Cause::CredentialSourceFailed), OIDC_LOGIN_GET_TOKEN),
    w(OIDC_LOGIN, "get-token: you got an invalid token: …", "1.22+", Some(Cause::CredentialSourceFailed), OIDC_LOGIN_GET_TOKEN),
    w(OIDC_LOGIN, "invalid token cache (you may need to remove)", "1.17.1+", Some(Cause::CredentialSourceFailed), OIDC_LOGIN_GET_TOKEN),
    // Tools that read a ServiceAccount's token Secret, which 1.24+ no longer
    // creates (the ServiceAccount's secrets field is empty).
    SECRET_NAME_WARNING,
    w("Argo Workflows", "expected at least one secret for SSO RBAC service account", "3.x (argo-server's SSO RBAC)", Some(Cause::LegacyTokenNotGenerated), "github.com/argoproj/argo-workflows server/auth/gatekeeper.go (getServiceAccountToken)"),
    w("Cartographer", "does not have any token secrets", "0.x", Some(Cause::LegacyTokenNotGenerated), "github.com/vmware-tanzu/cartographer pkg/repository/repository.go (GetServiceAccountSecret)"),
    w("Kubermatic", "no Secret associated with ServiceAccount", "2.x (the seed proxy controller)", Some(Cause::LegacyTokenNotGenerated), "github.com/kubermatic/kubermatic pkg/controller/seed-proxy (the ServiceAccount's first secret)"),
    // Argo CD's `cluster add` polls the manager ServiceAccount for its token
    // Secret (2.4+ creates the Secret and waits for the token controller to
    // fill it), then gives up.
    w("Argo CD", "Failed to wait for service account secret", "1.x-2.x (argocd cluster add)", Some(Cause::LegacyTokenNotGenerated), "github.com/argoproj/argo-cd util/clusterauth/clusterauth.go (GetServiceAccountBearerToken)"),
    w("Argo CD", "did not have a token", "1.x-2.x (argocd cluster add: the Secret's token field is empty)", Some(Cause::LegacyTokenNotGenerated), "github.com/argoproj/argo-cd util/clusterauth/clusterauth.go (GetServiceAccountBearerToken)"),
    w("vault-secret (maupu.org)", "No secret associated with the service account", "all", Some(Cause::LegacyTokenNotGenerated), "github.com/nmaupu/vault-secret pkg/k8sutils (GetTokenFromSA)"),
    w("Infinispan Operator", "could not find a service account token secret", "2.x (LookupServiceAccountTokenSecret)", Some(Cause::LegacyTokenNotGenerated), "github.com/infinispan/infinispan-operator pkg/kubernetes (LookupServiceAccountTokenSecret)"),
    w("Operator Lifecycle Manager", "the service account does not have any API secret", "0.x (an operator group's ServiceAccount: its scoped client)", Some(Cause::LegacyTokenNotGenerated), "github.com/operator-framework/operator-lifecycle-manager pkg/lib/scoped (BearerTokenRetriever.Retrieve)"),
    w("Operator Lifecycle Manager", "the secret does not have any API token", "0.x (the Secret's token field is empty)", Some(Cause::LegacyTokenNotGenerated), "github.com/operator-framework/operator-lifecycle-manager pkg/lib/scoped (BearerTokenRetriever.Retrieve)"),
    CHAIN_MEMBERS[0],
    CHAIN_MEMBERS[1],
    CHAIN_MEMBERS[2],
    CHAIN_MEMBERS[3],
    CHAIN_MEMBERS[4],
    CHAIN_MEMBERS[5],
    CHAIN_MEMBERS[6],
    CHAIN_MEMBERS[7],
    CHAIN_MEMBERS[8],
    CHAIN_MEMBERS[9],
    CHAIN_MEMBERS[10],
    CHAIN_MEMBERS[11],
    CHAIN_MEMBERS[12],
    // The Azure CLI's own words (after the chain's members, where Azure
    // Identity's AzureCLICredential quotes them).
    w(AZURE_CLI, "Please run 'az login' to setup account.", "2.x", Some(Cause::CredentialSourceFailed), "github.com/Azure/azure-cli src/azure-cli-core/azure/cli/core/_profile.py (_AZ_LOGIN_MESSAGE)"),
    w(AZURE_CLI, "does not exist in MSAL token cache", "2.30+ (`User 'NAME' does not exist in MSAL token cache. Run `az login`.`)", Some(Cause::CredentialSourceFailed), "github.com/Azure/azure-cli src/azure-cli-core/azure/cli/core/auth/msal_credentials.py (UserCredential)"),
];

const CLIENT_GO: &str = "client-go";
const TERRAFORM_KUBERNETES: &str = "Terraform's kubernetes provider";
const CLIENTCMD: &str = "k8s.io/client-go tools/clientcmd/validation.go and loader.go";
const CLIENT_GO_EXEC: &str = "k8s.io/client-go plugin/pkg/client/auth/exec/exec.go (1.10-1.36)";
const CLIENT_GO_OIDC: &str =
    "k8s.io/client-go plugin/pkg/client/auth/oidc/oidc.go (1.6-1.9, idToken)";
const PYTHON_K8S: &str = "python-kubernetes";
const PYTHON: &str = "Python";
const NODE: &str = "Node.js";
const RUBY: &str = "Ruby";
const RUST: &str = "Rust";
const DOTNET: &str = ".NET";
const DOTNET_K8S: &str = "kubernetes-client-csharp";
const DOTNET_IO: &str = "dotnet/runtime System.Private.CoreLib (System.IO errors)";
const JAVA_K8S: &str = "the Java client";
const PYTHON_EXEC: &str = "github.com/kubernetes-client/python kubernetes/base/config/exec_provider.py (ExecProvider.run)";
const PYTHON_KUBE_CONFIG: &str = "github.com/kubernetes-client/python kubernetes/base/config/kube_config.py (_load_from_exec_plugin)";
const PYTHON_INCLUSTER: &str =
    "github.com/kubernetes-client/python kubernetes/base/config/incluster_config.py";
const KUBE_RS: &str = "kube-rs";
const KUBE_RS_AUTH: &str = "github.com/kube-rs/kube kube-client/src/client/auth/mod.rs (Error)";
const AWS_SDK_GO: &str = "aws-sdk-go";
const AWS_SDK_JS: &str = "aws-sdk-js";
const AWS_SDK_JAVA: &str = "aws-sdk-java";
const AWS_SDK_RUST: &str = "aws-sdk-rust";
const BOTOCORE: &str = "botocore";
const AWS_SDKS: &str = "the AWS SDKs";
const BOTOCORE_EXCEPTIONS: &str = "github.com/boto/botocore botocore/exceptions.py";
const BOTOCORE_CREDENTIALS: &str =
    "github.com/boto/botocore botocore/credentials.py (InvalidConfigError)";
const GO_SESSION_CREDENTIALS: &str = "github.com/aws/aws-sdk-go aws/session/credentials.go; github.com/aws/aws-sdk-go-v2 config/resolve_credentials.go (assumeWebIdentity)";
const GO_ENDPOINT_CREDENTIALS: &str = "github.com/aws/aws-sdk-go aws/defaults/defaults.go, aws/credentials/endpointcreds/provider.go; github.com/aws/aws-sdk-go-v2 credentials/endpointcreds/provider.go";
const GO_V1_EC2ROLE: &str =
    "github.com/aws/aws-sdk-go aws/credentials/ec2rolecreds/ec2_role_provider.go";
const GO_V2_EC2ROLE: &str = "github.com/aws/aws-sdk-go-v2 credentials/ec2rolecreds/provider.go";
const GO_V1_SHARED_CONFIG: &str = "github.com/aws/aws-sdk-go aws/session/shared_config.go";
const JS_HTTP_PROVIDER: &str = "github.com/aws/aws-sdk-js-v3 packages/credential-provider-http/src/fromHttp/ (fromHttp.ts, checkUrl.ts, requestHelpers.ts)";
const JS_IMDS: &str = "github.com/smithy-lang/smithy-typescript packages/credential-provider-imds/src/remoteProvider/httpRequest.ts";
const JAVA_V2_CREDENTIALS: &str = "github.com/aws/aws-sdk-java-v2 core/auth/src/main/java/software/amazon/awssdk/auth/credentials/ (WebIdentityTokenFileCredentialsProvider, ContainerCredentialsProvider, InstanceProfileCredentialsProvider; aws-sdk-java ContainerCredentialsProvider.java)";
const AZURE_WORKLOAD_IDENTITY: &str = "azure-workload-identity";
const GOOGLE_AUTH: &str = "Google's auth libraries";
const GOOGLE_AUTH_PYTHON_DEFAULT: &str =
    "github.com/googleapis/google-auth-library-python google/auth/_default.py";
const GOOGLE_AUTH_PYTHON_POOL: &str =
    "github.com/googleapis/google-auth-library-python google/auth/identity_pool.py";
const GOOGLE_AUTH_JAVA_GCE: &str = super::clouds::GOOGLE_AUTH_JAVA_GCE;
const X_OAUTH2_DEFAULT: &str =
    "golang.org/x/oauth2 google/default.go (FindDefaultCredentialsWithParams)";
const GCLOUD: &str = "gcloud";
const GCLOUD_EXCEPTIONS: &str =
    "google-cloud-sdk lib/googlecloudsdk/core/credentials/exceptions.py";
const GKE_AUTH_PLUGIN: &str = "gke-gcloud-auth-plugin";
const GKE_AUTH_PLUGIN_SOURCE: &str =
    "kubernetes/cloud-provider-gcp cmd/gke-gcloud-auth-plugin/cred.go (main)";
const AZIDENTITY_CHAIN: &str = "github.com/Azure/azure-sdk-for-go sdk/azidentity/chained_token_credential.go (createChainedErrorMessage: `NAME: failed to acquire a token.\\nAttempted credentials:`)";
const KUBELOGIN_AZURE: &str = "kubelogin (Azure)";
const AZURE_CLI: &str = "the Azure CLI (az)";
const OIDC_LOGIN: &str = "kubelogin (kubectl oidc-login)";
const OIDC_LOGIN_GET_TOKEN: &str =
    "github.com/int128/kubelogin pkg/usecases/credentialplugin/get_token.go, pkg/cmd/get_token.go";
const CLIENT_GO_OIDC_NEW: &str =
    "k8s.io/client-go plugin/pkg/client/auth/oidc/oidc.go (1.10+, idToken and tokenEndpoint)";
const AZWI_SAMPLE: &str = "github.com/Azure/azure-workload-identity examples/msal-go/main.go";
/// Who prints the Azure Identity libraries' errors (a chain's and its
/// credentials').
pub const AZURE_IDENTITY: &str = "Azure Identity";
const AZIDENTITY_GO: &str = "github.com/Azure/azure-sdk-for-go sdk/azidentity/workload_identity.go (NewWorkloadIdentityCredential)";
const AZURE_MANAGED_IDENTITY: &str = "github.com/Azure/azure-sdk-for-go sdk/azidentity/managed_identity_client.go (authenticate: IMDS's 400); azure-sdk-for-python sdk/identity/azure-identity azure/identity/_credentials/imds.py (_request_token)";
const AZURE_IDENTITY_OTHERS: &str = "github.com/Azure/azure-sdk-for-python sdk/identity/azure-identity azure/identity/_credentials/imds.py, workload_identity.py; azure-sdk-for-net sdk/identity/Azure.Identity/src/Credentials/WorkloadIdentityCredential.cs; azure-sdk-for-java sdk/identity/azure-identity WorkloadIdentityCredential.java";

/// A webhook token authenticator's log line for a token it judged: its
/// TokenReview answer to kube-apiserver, `none` for a token it authenticated
/// (`username` names the user), `unknown` for one it denied (its `error`
/// field says why; kube-apiserver answers the client 401).
#[rustfmt::skip]
pub const TOKEN_VERDICTS: &[Wording] = &[
    // logrus's text and JSON formats of `Info("access granted")`.
    w(AWS_IAM_AUTHENTICATOR, "msg=\"access granted\"", "all (logrus text)", Some(Cause::None), AWS_IAM_AUTHENTICATOR_SERVER),
    w(AWS_IAM_AUTHENTICATOR, "\"msg\":\"access granted\"", "all (logrus JSON)", Some(Cause::None), AWS_IAM_AUTHENTICATOR_SERVER),
    // `Warn("access denied")` for a token it could not verify or map
    // (`… because role is not mapped` before the mapper's `ARN is not mapped`).
    w(AWS_IAM_AUTHENTICATOR, "msg=\"access denied", "all (logrus text)", Some(Cause::Unknown), AWS_IAM_AUTHENTICATOR_SERVER),
    w(AWS_IAM_AUTHENTICATOR, "\"msg\":\"access denied", "all (logrus JSON)", Some(Cause::Unknown), AWS_IAM_AUTHENTICATOR_SERVER),
];

const AWS_IAM_AUTHENTICATOR: &str = "aws-iam-authenticator";
const AWS_IAM_AUTHENTICATOR_SERVER: &str =
    "github.com/kubernetes-sigs/aws-iam-authenticator pkg/server/server.go (ServeHTTP)";

/// How kube-apiserver's own call found nothing to call: its Service lister
/// and resolver, for an admission webhook's or an APIService's Service.
#[rustfmt::skip]
pub const ONWARD_NOTHING_THERE: &[Wording] = &[
    w("kube-apiserver", "service \" … \" not found", "all (the lister's NotFound for the webhook's or APIService's Service)", Some(Cause::WrongEndpoint), RESOLVER),
    w("kube-apiserver", "no service port … found for service", "all", Some(Cause::WrongEndpoint), RESOLVER),
];

const RESOLVER: &str = "k8s.io/apiserver pkg/util/proxy/proxy.go (ResolveEndpoint: the Service from its lister, then its port)";

/// kube-apiserver's words for a call of its own that failed (to an admission
/// webhook, to a kubelet, to an aggregated API): the client's request was
/// accepted, and the server's onward call is what failed.
#[rustfmt::skip]
pub const ONWARD_CALLS: &[Wording] = &[
    w("kube-apiserver", "failed calling webhook", "all", None, "k8s.io/apiserver pkg/admission/plugin/webhook/errors"),
    w("kube-apiserver", "error dialing backend", "all", None, "k8s.io/apiserver proxy (exec, logs, port-forward to a kubelet)"),
    w("kube-apiserver", "error trying to reach service", "all", None, "k8s.io/apiserver proxy (aggregated APIs, services/proxy)"),
    w("kube-apiserver", PROXY_TARGET, "all", None, "k8s.io/apimachinery pkg/util/proxy/transport.go (services, pods and nodes proxy: a 503 whose body is `Error: 'ERR'` and `Trying to reach: 'URL'`)"),
    AGGREGATOR_BAD_STATUS,
];

/// kube-apiserver's availability check of an aggregated API (an APIService):
/// the status its backend answered, `bad status from URL: CODE`.
pub const AGGREGATOR_BAD_STATUS: Wording = w(
    "kube-apiserver",
    "bad status from ",
    "all (after `failing or missing response from URL: `)",
    None,
    "k8s.io/kube-aggregator pkg/controllers/status/available_controller.go (\"bad status from %v: %v\")",
);

/// The second line of kube-apiserver's proxy error body
/// (k8s.io/apimachinery pkg/util/proxy/transport.go), after `Error: 'ERR'`.
pub const PROXY_TARGET: &str = "Trying to reach: '";

/// Services other than kube-apiserver and the clouds that judge a
/// ServiceAccount token and say why they refused it: Vault's role bindings
/// (the clouds' token exchanges are [`super::clouds::EXCHANGES`]). The first a
/// line contains wins.
#[rustfmt::skip]
pub const SERVICES: &[Wording] = &[
    // Vault's role: bound_service_account_names / _namespaces.
    w(VAULT, "service account name not authorized", "all", Some(Cause::CheckerPolicyDenied), VAULT_LOGIN),
    w(VAULT, "namespace not authorized", "all", Some(Cause::CheckerPolicyDenied), VAULT_LOGIN),
    // A login to a path where no auth method is mounted is no login: Vault
    // asks for a token of its own (400 since 1.5, 500 before).
    w(VAULT, "missing client token", "all", Some(Cause::WrongEndpoint), "hashicorp/vault vault/request_handling.go (a path that is not a login path needs a client token)"),
    // Vault's JWT auth method (a ServiceAccount token as a JWT, its role's
    // bound_claims such as /kubernetes.io/namespace).
    w(VAULT, "does not match any associated bound claim values", "vault-plugin-auth-jwt 0.6+ (error validating claims: claim \"CLAIM\" does not match …)", Some(Cause::CheckerPolicyDenied), "hashicorp/vault-plugin-auth-jwt claims.go (validateBoundClaims)"),
    // Envoy answers for a mesh itself, in its own words as the body: its
    // RBAC filter (an Istio AuthorizationPolicy, not Kubernetes RBAC) and its
    // jwt_authn filter (a RequestAuthentication), which judges the JWT itself.
    w(ENVOY_RBAC, "RBAC: access denied", "all", Some(Cause::Unknown), "envoyproxy/envoy source/extensions/filters/http/rbac/rbac_filter.cc"),
    w(ENVOY_JWT, "Jwt is expired", "all", Some(Cause::Expired), JWT_VERIFY_LIB),
    w(ENVOY_JWT, "Jwt not yet valid", "all", Some(Cause::ClockSkew), JWT_VERIFY_LIB),
    w(ENVOY_JWT, "Jwt is missing", "all", Some(Cause::TokenNotSent), JWT_VERIFY_LIB),
    // The keys, issuers and audiences it judges by are the RequestAuthentication's
    // jwtRules, not kube-apiserver's: the causes named so would point at the
    // cluster's keys and flags, so these name none and quote the words.
    w(ENVOY_JWT, "Jwt verification fails", "all", Some(Cause::Unknown), JWT_VERIFY_LIB),
    w(ENVOY_JWT, "Jwks doesn't have key to match kid or alg from Jwt", "all", Some(Cause::Unknown), JWT_VERIFY_LIB),
    w(ENVOY_JWT, "Jwt issuer is not configured", "all", Some(Cause::Unknown), JWT_VERIFY_LIB),
    w(ENVOY_JWT, "Audiences in Jwt are not allowed", "all (HTTP 403)", Some(Cause::Unknown), JWT_VERIFY_LIB),
    w(ENVOY_JWT, "Jwks remote fetch is failed", "all", Some(Cause::Unknown), JWT_VERIFY_LIB),
    // Its own 503 when the service behind it cannot be reached.
    w(ENVOY, "upstream connect error or disconnect/reset before headers", "all", Some(Cause::Unknown), "envoyproxy/envoy source/common/router/router.cc"),
    w(ENVOY, "no healthy upstream", "all", Some(Cause::Unknown), "envoyproxy/envoy source/common/router/router.cc"),
];

/// A container image registry refusing a node's pull: judged by the pod's
/// imagePullSecrets or the node's registry credentials, never by a
/// ServiceAccount token or kube-apiserver.
#[rustfmt::skip]
pub const REGISTRY_DENIALS: &[Wording] = &[
    w(REGISTRY, "pull access denied", "containerd 1.5+, Docker 1.13+", Some(Cause::Unknown), "containerd remotes/docker/resolver.go (\"pull access denied, repository does not exist or may require authorization\"); moby distribution/errors.go (\"pull access denied for %s, repository does not exist or may require 'docker login'\")"),
    w(REGISTRY, "requested access to the resource is denied", "all (the registry's DENIED error code)", Some(Cause::Unknown), "distribution/distribution registry/api/errcode/register.go (ErrorCodeDenied)"),
];

/// The container runtimes' and the kubelet's wrappers of a pull's failure:
/// a registry's answer where the line states its status.
#[rustfmt::skip]
pub const IMAGE_PULLS: &[Wording] = &[
    w(REGISTRY, "failed to fetch anonymous token", "containerd 1.3+", Some(Cause::Unknown), CONTAINERD_AUTH),
    w(REGISTRY, "failed to fetch oauth token", "containerd 1.3+", Some(Cause::Unknown), CONTAINERD_AUTH),
    w(REGISTRY, "failed to pull and unpack image", "containerd 1.2+ (CRI)", Some(Cause::Unknown), "containerd pkg/cri/server/image_pull.go (PullImage: \"failed to pull and unpack image %q: %w\")"),
    w(REGISTRY, "Failed to pull image", "all (the kubelet's event)", Some(Cause::Unknown), "kubernetes pkg/kubelet/images/image_manager.go (\"Failed to pull image %q: %v\")"),
];

const REGISTRY: &str = "a container image registry (the node's image pull)";
const CONTAINERD_AUTH: &str = "containerd remotes/docker/authorizer.go (doBearerAuth)";

const ENVOY: &str = "Envoy (an Istio sidecar or gateway)";
const ENVOY_RBAC: &str = "Envoy's RBAC filter (an Istio AuthorizationPolicy)";
const ENVOY_JWT: &str = "Envoy's jwt_authn filter (an Istio RequestAuthentication)";
const JWT_VERIFY_LIB: &str =
    "google/jwt_verify_lib src/status.cc (the body Envoy's jwt_authn filter answers with)";

const VAULT: &str = "Vault";
const VAULT_LOGIN: &str = "hashicorp/vault-plugin-auth-kubernetes path_login.go";

/// kube-apiserver's warning that it shortened a TokenRequest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LifetimeShortened {
    pub requested_seconds: u64,
    pub issued_seconds: u64,
}

impl LifetimeShortened {
    /// The warning, as kube-apiserver words it ([`LIFETIME_SHORTENED`]).
    pub fn text(&self) -> String {
        let (requested, issued) = (self.requested_seconds, self.issued_seconds);
        format!("requested expiration of {requested} seconds shortened to {issued} seconds")
    }
}

/// NodeRestriction refused a kubelet's TokenRequest for an audience (the
/// kubelet then pulls without credentials: ImagePullBackOff).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeAudienceRefusal {
    /// The ServiceAccount the token was for.
    pub service_account: Option<String>,
    /// The audience asked for.
    pub audience: Option<String>,
    /// The node (from `system:node:NODE`).
    pub node: Option<String>,
    /// The kubelet asked for several audiences at once.
    pub several_audiences: bool,
}

impl NodeAudienceRefusal {
    /// Reads the refusal from a message (the 403's message, or the kubelet's
    /// log line that carries it).
    pub fn parse(text: &str) -> Option<NodeAudienceRefusal> {
        if text.contains("node may only request 0 or 1 audiences") {
            return Some(NodeAudienceRefusal {
                service_account: quoted_after(text, "serviceaccounts \""),
                audience: None,
                node: None,
                several_audiences: true,
            });
        }
        let end = text.find(" is not authorized to request tokens for this audience")?;
        let head = &text[..end];
        let node = head
            .rfind("system:node:")
            .map(|i| head[i + "system:node:".len()..].to_owned());
        Some(NodeAudienceRefusal {
            service_account: quoted_after(text, "serviceaccounts \""),
            audience: quoted_after(head, "audience \""),
            node,
            several_audiences: false,
        })
    }
}

/// What a JWT authenticator of a structured authentication configuration
/// rejected a token for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum JwtRejection {
    /// No audience in common with `issuer.audiences` (MatchAny).
    Audience {
        expected: Vec<String>,
        got: Vec<String>,
    },
    /// A `claimValidationRules` entry with `claim`/`requiredValue`.
    RequiredClaim {
        claim: String,
        /// `None`: absent; else the value found.
        found: Option<String>,
        required: Option<String>,
    },
    /// A `claimValidationRules` expression was false (or failed).
    ClaimRule {
        expression: Option<String>,
        message: String,
    },
    /// A `userValidationRules` expression was false (or failed).
    UserRule {
        expression: Option<String>,
        message: String,
    },
    /// A claim mapping (username, groups, uid, extra) could not be built.
    Mapping { what: String, detail: String },
    /// `username.claim: email` with `email_verified: false`.
    EmailNotVerified,
}

impl JwtRejection {
    /// Reads one JWT authenticator reason (`oidc: …`).
    pub fn parse(message: &str) -> Option<JwtRejection> {
        let m = message.trim();
        let rest = m.strip_prefix("oidc: ")?;
        // Verification errors come wrapped: `oidc: verify token: oidc: …`.
        if let Some(inner) = rest.strip_prefix("verify token: ") {
            return JwtRejection::parse(inner);
        }
        if rest == "email not verified" {
            return Some(JwtRejection::EmailNotVerified);
        }
        if let Some(r) = rest.strip_prefix("expected audience in ") {
            let (expected, got) = r.split_once(" got ")?;
            return Some(JwtRejection::Audience {
                expected: go_list(expected),
                got: go_list(got),
            });
        }
        if let Some(r) = rest.strip_prefix("required claim ") {
            if let Some(claim) = r.strip_suffix(" not present in ID token") {
                return Some(JwtRejection::RequiredClaim {
                    claim: claim.to_owned(),
                    found: None,
                    required: None,
                });
            }
            let (claim, r) = r.split_once(" value does not match. Got = ")?;
            let (found, required) = r.split_once(", want = ")?;
            return Some(JwtRejection::RequiredClaim {
                claim: claim.to_owned(),
                found: Some(found.to_owned()),
                required: Some(required.to_owned()),
            });
        }
        for (open, user) in [
            ("error evaluating claim validation expression: ", false),
            ("claim validation expression failed: ", false),
            ("error evaluating user info validation rule: ", true),
        ] {
            if let Some(r) = rest.strip_prefix(open) {
                let (expression, message) = validation_failure(r);
                return Some(if user {
                    JwtRejection::UserRule {
                        expression,
                        message,
                    }
                } else {
                    JwtRejection::ClaimRule {
                        expression,
                        message,
                    }
                });
            }
        }
        for (open, what) in [
            ("error evaluating username claim expression: ", "username"),
            ("error evaluating group claim expression: ", "groups"),
            ("error evaluating uid claim expression: ", "uid"),
            ("error evaluating extra claim expression: ", "extra"),
        ] {
            if let Some(r) = rest.strip_prefix(open) {
                return Some(JwtRejection::Mapping {
                    what: what.to_owned(),
                    detail: r.to_owned(),
                });
            }
        }
        if rest == "empty username via CEL expression is not allowed" {
            return Some(JwtRejection::Mapping {
                what: "username".to_owned(),
                detail: "the expression gave an empty username".to_owned(),
            });
        }
        if let Some(r) = rest.strip_prefix("parse username claims ") {
            return Some(JwtRejection::Mapping {
                what: "username".to_owned(),
                detail: format!("claim {r}"),
            });
        }
        None
    }

    /// In words, for evidence lines.
    pub fn describe(&self) -> String {
        match self {
            JwtRejection::Audience { expected, got } => format!(
                "no audience in common: the authenticator wants one of [{}], the token has [{}]",
                expected.join(", "),
                got.join(", ")
            ),
            JwtRejection::RequiredClaim {
                claim, found: None, ..
            } => format!("the required claim {claim} is missing"),
            JwtRejection::RequiredClaim {
                claim,
                found: Some(found),
                required,
            } => format!(
                "claim {claim} is {found:?}, the rule requires {:?}",
                required.as_deref().unwrap_or("")
            ),
            JwtRejection::ClaimRule {
                expression,
                message,
            } => rule_words("claim validation rule", expression, message),
            JwtRejection::UserRule {
                expression,
                message,
            } => rule_words("user validation rule", expression, message),
            JwtRejection::Mapping { what, detail } => {
                format!("the {what} mapping failed: {detail}")
            }
            JwtRejection::EmailNotVerified => {
                "the username comes from the email claim and email_verified is false".to_owned()
            }
        }
    }
}

fn rule_words(what: &str, expression: &Option<String>, message: &str) -> String {
    match expression {
        Some(e) => format!("{what} `{e}` failed: {message}"),
        None => format!("{what} failed: {message}"),
    }
}

/// `validation expression 'EXPR' failed: MESSAGE`, or just a message.
fn validation_failure(text: &str) -> (Option<String>, String) {
    if let Some(r) = text.strip_prefix("validation expression '")
        && let Some(at) = r.rfind("' failed: ")
    {
        return (Some(r[..at].to_owned()), r[at + 10..].to_owned());
    }
    (None, text.to_owned())
}

/// Go's `%q` of a string slice: `["a" "b"]`.
fn go_list(text: &str) -> Vec<String> {
    let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
    inner
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect()
}

fn quoted_after(text: &str, open: &str) -> Option<String> {
    let at = text.find(open)?;
    let rest = &text[at + open.len()..];
    rest.split_once('"').map(|(v, _)| v.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wording_has_its_parser() {
        // Each table entry, filled in, is read back by its parser.
        let node = "serviceaccounts \"builder\" is forbidden: audience \"registry.example\" not found in pod spec volume, system:node:node-a is not authorized to request tokens for this audience";
        let r = NodeAudienceRefusal::parse(node).unwrap();
        assert_eq!(r.audience.as_deref(), Some("registry.example"));
        assert_eq!(r.node.as_deref(), Some("node-a"));
        assert_eq!(r.service_account.as_deref(), Some("builder"));
        let kubelet = format!("Error getting service account token shop/builder: {node}");
        assert_eq!(NodeAudienceRefusal::parse(&kubelet), Some(r));
        assert!(
            NodeAudienceRefusal::parse("node may only request 0 or 1 audiences")
                .unwrap()
                .several_audiences
        );
        let warning =
            "Warning: requested expiration of 31536000 seconds shortened to 172800 seconds";
        let s = LifetimeShortened {
            requested_seconds: 31_536_000,
            issued_seconds: 172_800,
        };
        assert!(warning.ends_with(&s.text()));
        for (text, want) in [
            (
                "oidc: verify token: oidc: expected audience in [\"a\" \"b\"] got [\"c\"]",
                JwtRejection::Audience {
                    expected: vec!["a".into(), "b".into()],
                    got: vec!["c".into()],
                },
            ),
            (
                "oidc: error evaluating claim validation expression: validation expression 'claims.hd == \"example.com\"' failed: hd must be example.com",
                JwtRejection::ClaimRule {
                    expression: Some("claims.hd == \"example.com\"".into()),
                    message: "hd must be example.com".into(),
                },
            ),
            (
                "oidc: claim validation expression failed: hd must be example.com",
                JwtRejection::ClaimRule {
                    expression: None,
                    message: "hd must be example.com".into(),
                },
            ),
            (
                "oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith('system:')' failed: no system users",
                JwtRejection::UserRule {
                    expression: Some("!user.username.startsWith('system:')".into()),
                    message: "no system users".into(),
                },
            ),
            (
                "oidc: required claim hd value does not match. Got = other.com, want = example.com",
                JwtRejection::RequiredClaim {
                    claim: "hd".into(),
                    found: Some("other.com".into()),
                    required: Some("example.com".into()),
                },
            ),
            ("oidc: email not verified", JwtRejection::EmailNotVerified),
        ] {
            assert_eq!(JwtRejection::parse(text), Some(want), "{text}");
        }
        assert_eq!(JwtRejection::parse("invalid bearer token"), None);
    }

    #[test]
    fn every_cause_named_is_listed_in_explain() {
        for w in WORDINGS {
            assert!(!w.text.is_empty() && !w.versions.is_empty() && !w.source.is_empty());
        }
        assert!(for_cause(Cause::NodeAudienceNotAllowed).count() >= 2);
        assert!(for_cause(Cause::JwtAuthenticatorRejected).count() >= 5);
    }
}
