//! kube-apiserver's refusals after authentication: the authorizers' reasons
//! (after `User "U" cannot VERB …: `) and the admission plugins' texts (after
//! `… is forbidden: `). `diagnosis::extract::denial` tells who refused by these
//! rows; `explain` lists them under their causes.
//!
//! The union authorizer returns a denying authorizer's reason alone, and the
//! reasons of every authorizer with no opinion joined, RBAC's empty one among
//! them (k8s.io/apiserver pkg/authorization/union/union.go).

use super::row::Cause;
use super::row::{Wording, w};

const RBAC: &str = "the RBAC authorizer";
const NODE: &str = "the Node authorizer";
const SA_ADMISSION: &str = "the ServiceAccount admission plugin";
const NODE_RESTRICTION_PLUGIN: &str = "the NodeRestriction admission plugin";
const QUOTA: &str = "the ResourceQuota admission plugin";

const RBAC_GO: &str = "k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go (RBAC: %v of the errors met resolving bindings)";
const NODE_AUTHORIZER_GO: &str =
    "k8s.io/kubernetes plugin/pkg/auth/authorizer/node/node_authorizer.go";
const SA_ADMISSION_GO: &str = "k8s.io/kubernetes plugin/pkg/admission/serviceaccount/admission.go";
const NODE_RESTRICTION_GO: &str =
    "k8s.io/kubernetes plugin/pkg/admission/noderestriction/admission.go";
/// The plugin is alpha since 1.7; the release that added each check is not
/// pinned here.
const NODE_RESTRICTION_VERSIONS: &str = "1.7+ (the plugin; each check's first release not pinned)";
const QUOTA_GO: &str = "k8s.io/apiserver pkg/admission/plugin/resourcequota/controller.go (exceeded quota: NAME, requested: …, failed quota: NAME: must specify …)";

/// RBAC's reasons, by their opening words.
#[rustfmt::skip]
pub const RBAC_REASONS: &[Wording] = &[
    w(RBAC, "RBAC:", "after 1.5 (the release is not pinned here); only when a binding could not be resolved, a plain deny has no reason", Some(Cause::RbacDenied), RBAC_GO),
    w(RBAC, "rules not allow", "1.5 (kubernetes#39193)", Some(Cause::RbacDenied), RBAC_GO),
    w("OpenShift 3's RBAC", "no RBAC policy matched", "OpenShift 3.x", Some(Cause::RbacDenied), "openshift/origin pkg/authorization (3.x)"),
];

/// The Node authorizer's reasons (a kubelet's `system:node:NAME` request
/// for an object no pod on its node references).
#[rustfmt::skip]
pub const NODE_AUTHORIZER_REASONS: &[Wording] = &[
    w(NODE, "no relationship found between node", "1.18+ (… 'NODE' and this object)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "no path found to object", "1.7–1.17", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    // Its checks of the request's form, before the graph: each leaves the
    // request to the next authorizer (no opinion), so RBAC refused it too.
    w(NODE, "unknown node for user", "1.7+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only get/update/patch this type", "1.11+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only update status subresource", "1.11+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only get individual resources of this type", "1.7+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "cannot get subresource", "1.7+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only read resources of this type", "1.9+ (secrets and configmaps: get, list, watch)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "cannot read subresource", "1.9+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only read namespaced object of this type", "1.9+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "No Object name found", "1.7+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only create tokens for individual service accounts", "1.10+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only create token subresource of serviceaccount", "1.10+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only get, create, update, patch, or delete a node lease", "1.12+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only access leases in the", "1.12+ (the kube-node-lease namespace)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only access node lease with the same name as the requesting node", "1.12+", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only get, create, update, patch, or delete a CSINode", "1.12+ (CSINodeInfo until 1.14)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "cannot authorize CSINode", "1.12+ (its subresources)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "can only access CSINode", "1.12+ (with the same name as the requesting node)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
    w(NODE, "disabled by feature gate", "1.9-1.2x (the graph's resource behind a gate)", Some(Cause::NonRbacAuthorizerDenied), NODE_AUTHORIZER_GO),
];

/// Reasons of an authorizer that had no opinion before RBAC refused: a grant
/// is what allows the request.
#[rustfmt::skip]
pub const NO_OPINION_REASONS: &[Wording] = &[
    // GKE's authorizer before RBAC, for identities it does not know.
    w("GKE's authorizer", "Unknown user", "GKE", Some(Cause::RbacDenied), "GKE's answers (its authorizer is not published)"),
];

/// The ServiceAccount admission plugin: the pod's ServiceAccount has no
/// token yet (≤1.23, a 403; ≤1.5 capitalised, a 504 ServerTimeout).
#[rustfmt::skip]
pub const SERVICE_ACCOUNT_NO_TOKEN: &[Wording] = &[
    w(SA_ADMISSION, "no API token found for service account ", "≤1.23 (NAMESPACE/NAME, retry after the token is automatically created and added to the service account)", Some(Cause::ServiceAccountAdmission), SA_ADMISSION_GO),
    NO_API_TOKEN_CAPITALISED,
];

/// ≤1.5's capitalised wording (a 504 ServerTimeout), which also opens a
/// refusal of its own.
pub const NO_API_TOKEN_CAPITALISED: Wording = w(
    SA_ADMISSION,
    "No API token found for service account ",
    "≤1.5 (\"NAME\", retry after …)",
    Some(Cause::ServiceAccountAdmission),
    SA_ADMISSION_GO,
);

/// The ServiceAccount admission plugin: the pod's ServiceAccount is missing.
#[rustfmt::skip]
pub const SERVICE_ACCOUNT_MISSING: &[Wording] = &[
    w(SA_ADMISSION, "error looking up service account ", "1.9+ (NAMESPACE/NAME: …)", Some(Cause::ServiceAccountAdmission), SA_ADMISSION_GO),
    w("OpenShift's ServiceAccount admission", "Missing service account ", "OpenShift 3.x (NAMESPACE/NAME)", Some(Cause::ServiceAccountAdmission), "openshift/origin pkg/serviceaccounts (3.x)"),
];

/// ≤1.8: `service account NAMESPACE/NAME was not found, retry after the
/// service account is created` (read after `service account `).
pub const SERVICE_ACCOUNT_NOT_FOUND_RETRY: Wording = w(
    SA_ADMISSION,
    " was not found, retry after the service account is created",
    "≤1.8 (service account NAMESPACE/NAME was not found, retry after …)",
    Some(Cause::ServiceAccountAdmission),
    SA_ADMISSION_GO,
);

/// The NodeRestriction admission plugin refusing a kubelet's own request.
#[rustfmt::skip]
pub const NODE_RESTRICTION: &[Wording] = &[
    w(NODE_RESTRICTION_PLUGIN, "is not allowed to modify labels", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "is not allowed to modify taints", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "is not allowed to set the following labels", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "does not match the UID in record", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "can only create pods with", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "can only create mirror pods", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "is not allowed to modify node", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "cannot modify node", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "is not allowed to delete pod", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
    w(NODE_RESTRICTION_PLUGIN, "can only update pod status for pods", NODE_RESTRICTION_VERSIONS, Some(Cause::NodeRestrictionDenied), NODE_RESTRICTION_GO),
];

/// The ResourceQuota admission plugin; capitalised before the Go convention
/// reached it (1.2-era servers, OpenShift 3.x).
#[rustfmt::skip]
pub const QUOTA_EXCEEDED: &[Wording] = &[
    w(QUOTA, "exceeded quota: ", "after 1.2", Some(Cause::QuotaExceeded), QUOTA_GO),
    w(QUOTA, "failed quota: ", "after 1.2", Some(Cause::QuotaExceeded), QUOTA_GO),
    w(QUOTA, "Exceeded quota: ", "1.2 and before, OpenShift 3.x", Some(Cause::QuotaExceeded), QUOTA_GO),
    w(QUOTA, "Failed quota: ", "1.2 and before, OpenShift 3.x", Some(Cause::QuotaExceeded), QUOTA_GO),
];

/// A validating or mutating admission webhook's refusal, as kube-apiserver
/// words it (`… without explanation` when the webhook gave none).
pub const ADMISSION_WEBHOOK: Wording = w(
    "kube-apiserver (an admission webhook's answer)",
    "admission webhook \"NAME\" denied the request: REASON",
    "1.9+ (admission webhooks)",
    Some(Cause::WebhookDenied),
    "k8s.io/apiserver pkg/admission/plugin/webhook/errors/statuserror.go (ToStatusErr)",
);

/// The PodSecurity admission plugin's refusal in enforce mode.
pub const POD_SECURITY: Wording = w(
    "the PodSecurity admission plugin",
    "violates PodSecurity \"LEVEL:VERSION\": REASONS",
    "1.22+",
    Some(Cause::PodSecurityDenied),
    "k8s.io/pod-security-admission admission/admission.go",
);

/// The PodSecurity admission plugin's warning in warn mode, in a response's
/// Warning header (client-go's `warnings.go`, kubectl's `Warning: `): it is
/// added only to a request the plugin admits, so it is no refusal.
pub const POD_SECURITY_WARNING: Wording = w(
    "the PodSecurity admission plugin (warn mode)",
    "would violate PodSecurity \"LEVEL:VERSION\": REASONS",
    "1.22+",
    Some(Cause::None),
    "k8s.io/pod-security-admission admission/admission.go (\"avoid adding warnings to a request we're already going to reject\")",
);

/// The words before the policy in [`POD_SECURITY_WARNING`].
pub fn pod_security_warning() -> &'static str {
    POD_SECURITY_WARNING
        .text
        .split(" \"")
        .next()
        .unwrap_or_default()
}

/// The words around an admission webhook's name in [`ADMISSION_WEBHOOK`]:
/// `admission webhook "` and `" denied the request`.
pub fn webhook_words() -> (&'static str, &'static str) {
    let (open, rest) = ADMISSION_WEBHOOK
        .text
        .split_once("NAME")
        .unwrap_or_default();
    (open, rest.split(':').next().unwrap_or(rest))
}

/// The words before the policy in [`POD_SECURITY`]: `violates PodSecurity "`.
pub fn pod_security_open() -> &'static str {
    POD_SECURITY.text.split("LEVEL").next().unwrap_or_default()
}
