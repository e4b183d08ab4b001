//! What the services that judge a ServiceAccount token with a TokenReview of
//! their own print: the meshes' identity services (istiod's
//! KubeJWTAuthenticator, Linkerd's identity controller) and Vault's
//! Kubernetes auth method. `diagnosis::extract::mesh` and `checker` read a
//! line by these rows; `explain` lists them under their causes. Vault's
//! role bindings are [`super::wordings::SERVICES`], its own claim checks
//! [`super::authenticators::MESSAGES`].

use super::row::Cause;
use super::row::{Wording, w};

const ISTIOD: &str = "istiod";
const LINKERD: &str = "Linkerd identity";
const VAULT: &str = "Vault";

const ISTIO_TOKENREVIEW: &str = "istio/istio security/pkg/k8s/tokenreview/k8sauthn.go; security/pkg/server/ca/authenticate/kubeauth/kube_jwt.go (failed to validate the JWT from cluster \"CLUSTER\": …)";
const LINKERD_IDENTITY: &str = "linkerd/linkerd2's identity controller (its TokenReview validator)";
const VAULT_LOGIN: &str = "hashicorp/vault-plugin-auth-kubernetes path_login.go";

/// A mesh's review that answered "not authenticated" with no reason: the
/// caller's token was rejected, and kube-apiserver's own log line says why.
#[rustfmt::skip]
pub const NOT_AUTHENTICATED: &[Wording] = &[
    w(ISTIOD, "the token is not authenticated", "all", Some(Cause::Unknown), ISTIO_TOKENREVIEW),
    w(LINKERD, "authentication token could not be authenticated", "all", Some(Cause::Unknown), LINKERD_IDENTITY),
];

/// Vault's review answered "not authenticated" with no reason.
pub const VAULT_NOT_AUTHENTICATED: Wording = w(
    VAULT,
    "lookup failed: service account jwt not valid",
    "all",
    Some(Cause::Unknown),
    VAULT_LOGIN,
);

/// The mesh's own review refused: istiod (before 1.8) checks the status
/// itself; later releases and Linkerd return client-go's error, whose text
/// after the cluster or identity is the bare reason phrase.
#[rustfmt::skip]
pub const MESH_REVIEW_REFUSED: &[Wording] = &[
    w(ISTIOD, "invalid review response status code 401", "before 1.8", Some(Cause::CheckerUnauthorized), ISTIO_TOKENREVIEW),
    w(ISTIOD, "invalid review response status code 403", "before 1.8", Some(Cause::CheckerUnauthorized), ISTIO_TOKENREVIEW),
    w(ISTIOD, "\": Unauthorized", "1.8+ (failed to validate the JWT from cluster \"CLUSTER\": Unauthorized)", Some(Cause::CheckerUnauthorized), ISTIO_TOKENREVIEW),
    w(LINKERD, "error validating token for ", "all (IDENTITY: Unauthorized or … is forbidden: …)", Some(Cause::CheckerUnauthorized), LINKERD_IDENTITY),
];

/// A webhook token authenticator's review that failed (kube-apiserver's
/// `--authentication-token-webhook`, and every proxy built on the same
/// package: kube-rbac-proxy, oauth-proxy): refused, or unanswered, as ERROR
/// says.
pub const WEBHOOK_REVIEW_FAILED: Wording = w(
    "a webhook token authenticator",
    "Failed to make webhook authenticator request: ERROR",
    "all",
    None,
    "k8s.io/apiserver plugin/pkg/authenticator/token/webhook/webhook.go",
);

/// Vault's API client's error for an answer with a status (`URL: PUT …`
/// above it, `* REASON` items below).
pub const VAULT_API_ERROR: Wording = w(
    VAULT,
    "Code: CODE. Errors:",
    "all",
    None,
    "hashicorp/vault api/response.go (ResponseError.Error: \"Code: %d. Errors:\\n\\n\")",
);

/// Vault's errors for a login that name no cause of their own, with what
/// each means for a ServiceAccount token; those that do are in
/// [`super::wordings::SERVICES`].
#[rustfmt::skip]
pub const VAULT_REQUEST_ERRORS: &[(&str, &str, &str)] = &[
    ("invalid role name", "the role the login names does not exist in this auth mount (vault list auth/kubernetes/role); the ServiceAccount token was never looked at", VAULT_LOGIN),
    ("permission denied", "Vault refused the login without saying why: a failed TokenReview (the token rejected, or Vault's reviewer token refused), a signature it could not verify, or a bound CIDR; Vault's log says which (`login unauthorized`, at debug level since plugin 0.13)", VAULT_LOGIN),
];

/// The Linkerd proxy's identity client got no certificate from the identity
/// controller: unanswered where [`UNANSWERED`] words say so.
pub const LINKERD_UNCERTIFIED: Wording = w(
    "the Linkerd proxy",
    "Failed to obtain identity",
    "all",
    None,
    "linkerd/linkerd2-proxy linkerd/proxy/identity-client/src/certify.rs (Certify::run)",
);

/// Words that say a checker's call found no service to answer it: the
/// Linkerd proxy's (linkerd/stack/src/failfast.rs FailFastError, `SCOPE
/// service in fail-fast`) and gRPC's status code `Unavailable`.
pub const UNANSWERED: &[&str] = &["service in fail-fast", "Unavailable"];

/// Words that say a line is a mesh identity service's about a review.
pub const MESH_MARKS: &[&str] = &[
    "KubeJWTAuthenticator",
    "failed to validate the JWT",
    "invalid review response",
    "serviceaccount.identity.",
];

/// Vault's own TokenReview got 401 (its reviewer token, or the ServiceAccount
/// of Vault's pod, was refused).
pub const VAULT_REVIEW_REFUSED: Wording = w(
    VAULT,
    "service account unauthorized; this could mean it has been deleted or recreated",
    "all (… with a new token)",
    Some(Cause::CheckerUnauthorized),
    VAULT_LOGIN,
);

/// Vault's claim checks: older releases check with go-jose (the
/// [`super::authenticators::MESSAGES`] rows), newer ones with hashicorp/cap;
/// each wording read as the go-jose message it stands for.
#[rustfmt::skip]
pub const VAULT_CLAIMS: &[(&str, &str)] = &[
    ("claim \"iss\" is invalid", "claim \"iss\" is invalid"),
    ("claim \"aud\" is invalid", "claim \"aud\" is invalid"),
    ("invalid issuer (iss) claim", "claim \"iss\" is invalid"),
    ("invalid audience (aud) claim", "claim \"aud\" is invalid"),
];

/// Who passes kube-apiserver's aggregate on, by the words before it (Vault's
/// path_login.go, istiod's KubeJWTAuthenticator, kube-rbac-proxy's log, a
/// TokenReview's `status.error`): first match in this order.
pub const AGGREGATE_RELAYS: &[(&str, &str)] = &[
    ("lookup failed", VAULT),
    ("login unauthorized", VAULT),
    (
        "the service account authentication returns an error",
        ISTIOD,
    ),
    ("KubeJWTAuthenticator", ISTIOD),
    ("kube-rbac-proxy", "kube-rbac-proxy"),
    ("TokenReview", "a TokenReview caller"),
];

/// The checker a line names, by a word in it: first match in this order.
#[rustfmt::skip]
pub const CHECKER_NAMES: &[(&str, &str)] = &[
    ("auth.kubernetes", VAULT),
    ("auth/kubernetes", VAULT),
    ("Error making API request", VAULT),
    ("vault", VAULT),
    ("Vault", VAULT),
    ("KubeJWTAuthenticator", ISTIOD),
    ("istio", ISTIOD),
    ("linkerd", "Linkerd"),
    ("kube-rbac-proxy", "kube-rbac-proxy"),
    ("webhook authenticator", "a webhook token authenticator"),
];
