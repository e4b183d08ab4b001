//! Refusals that are not authorization: admission plugins (ServiceAccount,
//! Pod Security, NodeRestriction, webhooks, any other) and ResourceQuota.
//! Each has its own message (`extract::denial` reads them) and its own fix;
//! none of them is about a token, and none is fixed by an RBAC grant.

use super::prelude::*;
use crate::diagnosis::extract::denial::Denial;

pub const SERVICE_ACCOUNT_ADMISSION: CauseDef = CauseDef {
    title: "The pod's ServiceAccount does not exist (yet)",
    summary: "Admission refused the pod: its ServiceAccount (before 1.24 also its token Secret) does not exist yet; no token was judged",
    explains: &[C::Forbidden, C::OtherStatus],
    explanation: "\
The ServiceAccount admission plugin runs when a pod is created. It looks up the \
ServiceAccount the pod names (spec.serviceAccountName, \"default\" when unset) in the \
pod's namespace and refuses the pod when it is not there: \"error looking up service \
account NS/NAME: serviceaccount \\\"NAME\\\" not found\" (1.9+), \"service account NS/NAME \
was not found, retry after the service account is created\" (before), OpenShift's \
\"Missing service account\". The ServiceAccount is missing, misspelt, in another \
namespace, or created after the workload (a chart applied in the wrong order; a new \
namespace whose \"default\" ServiceAccount kube-controller-manager has not made yet).

Before 1.24 the plugin also waited for the token Secret: \"no API token found for \
service account …, retry after the token is automatically created and added to the \
service account\" (a 403; before 1.6 a 504 ServerTimeout). The ServiceAccount exists but \
kube-controller-manager has not created its token: it is not running, or runs without \
--service-account-private-key-file.

No token was rejected and RBAC was not asked: the request that failed is the creation of \
the pod, by a controller or by you.",
    confirm: Steps::For(sa_confirm),
    fix: Steps::For(sa_fix),
    sources: &[
        "k8s.io/kubernetes plugin/pkg/admission/serviceaccount/admission.go",
        "k8s.io/kubernetes pkg/controller/serviceaccount/tokens_controller.go (before 1.24)",
    ],
};

/// `kubectl VERB serviceaccount NAME -n NAMESPACE` for the ServiceAccount
/// admission looked for, and whether it waited for its token Secret instead.
fn on_service_account(case: &Case<'_>, verb: &str) -> (Command, bool) {
    let (namespace, name, no_token) = match &case.refusal {
        Some(Denial::ServiceAccount {
            namespace,
            name,
            no_token,
            ..
        }) => (namespace.as_deref(), name.as_deref(), *no_token),
        _ => (None, None, false),
    };
    let command = Command::kubectl()
        .words(&[verb, "serviceaccount"])
        .value(name, "NAME")
        .namespace(namespace.or(case.namespace()));
    (command, no_token)
}

fn sa_confirm(case: &Case<'_>) -> Vec<NextStep> {
    let (get, no_token) = on_service_account(case, "get");
    let mut steps = vec![NextStep::run(
        "does the ServiceAccount exist in the pod's namespace?",
        get,
    )];
    if no_token {
        steps.push(NextStep::run(
            "before 1.24 kube-controller-manager creates the token Secret: is it running, with --service-account-private-key-file?",
            Command::kubectl()
                .words(&["get", "pods"])
                .namespace(Some("kube-system"))
                .words(&["-l", "component=kube-controller-manager"]),
        ));
    }
    steps
}

fn sa_fix(case: &Case<'_>) -> Vec<NextStep> {
    let (create, no_token) = on_service_account(case, "create");
    if no_token {
        return vec![NextStep::say(
            "start kube-controller-manager with --service-account-private-key-file (the key matching the API server's --service-account-key-file); the pod is admitted once the token Secret exists",
        )];
    }
    vec![
        NextStep::run(
            "create the ServiceAccount (or correct serviceAccountName and the namespace in the workload)",
            create,
        ),
        NextStep::say(
            "the controller (ReplicaSet, StatefulSet, Job) retries by itself once the ServiceAccount exists",
        ),
    ]
}

pub const POD_SECURITY_DENIED: CauseDef = CauseDef {
    title: "Pod Security admission refused the pod",
    summary: "The namespace enforces a Pod Security level the pod does not meet; no token was judged and RBAC is not involved",
    explains: &[C::Forbidden],
    explanation: "\
Pod Security admission (1.22+, on by default since 1.25) checks every pod against the \
level its namespace enforces (the pod-security.kubernetes.io/enforce label, or the \
cluster's default): privileged, baseline or restricted. \"violates PodSecurity \
\\\"restricted:latest\\\": …\" lists each setting that fails the level; a controller's \
pods are refused one by one (FailedCreate events), a kubectl create directly.

The fix is in the pod's securityContext, or (for a workload that needs more) in the \
namespace's level; RBAC and tokens have nothing to do with it.",
    confirm: Steps::Run(
        "the level the namespace enforces (pod-security.kubernetes.io/enforce)",
        |case| {
            Command::kubectl()
                .words(&["get", "namespace"])
                .value(case.namespace(), "NAMESPACE")
                .word("--show-labels")
        },
    ),
    fix: Steps::All(&[
        Steps::Say(
            "set what the message lists in the pod's securityContext (allowPrivilegeEscalation: false, capabilities.drop: [ALL], runAsNonRoot: true, seccompProfile.type: RuntimeDefault)",
        ),
        Steps::Run(
            "or, for a workload that needs more, enforce a lower level on its namespace",
            |case| {
                Command::kubectl()
                    .words(&["label", "namespace"])
                    .value(case.namespace(), "NAMESPACE")
                    .words(&["pod-security.kubernetes.io/enforce=baseline", "--overwrite"])
            },
        ),
    ]),
    sources: &["k8s.io/pod-security-admission (staging/src/k8s.io/pod-security-admission)"],
};

pub const NODE_RESTRICTION_DENIED: CauseDef = CauseDef {
    title: "NodeRestriction refused a kubelet's request",
    summary: "The NodeRestriction admission plugin limits what a kubelet may change; this request was outside those limits",
    explains: &[C::Forbidden],
    explanation: "\
A kubelet authenticates as system:node:NAME. The NodeRestriction admission plugin lets it \
change only its own Node and the pods bound to it, and only labels outside the \
reserved prefixes: a kubelet (or a tool running with its credentials, such as Talos' \
node controller) may not set node-role.kubernetes.io/* or other labels it does not own \
(\"is not allowed to modify labels\"). For ServiceAccount tokens it requires the \
TokenRequest to name the live pod: \"the UID in the bound object reference (…) does not \
match the UID in record\" means the pod was deleted and recreated while the kubelet \
still asked for the old one (it settles once the kubelet sees the new pod).

No token was rejected and RBAC cannot grant this: the limit is admission's.",
    confirm: Steps::Run("the node's labels as they are", |_| {
        Command::kubectl()
            .words(&["get", "node"])
            .value(None, "NODE")
            .word("--show-labels")
    }),
    fix: Steps::All(&[
        Steps::Run(
            "set a reserved label with an administrator's credentials, not the kubelet's (or use kubelet --node-labels with an allowed prefix)",
            |_| {
                Command::kubectl()
                    .words(&["label", "node"])
                    .value(None, "NODE")
                    .value(None, "KEY=VALUE")
            },
        ),
        Steps::Say(
            "a bound-object UID mismatch clears when the kubelet picks up the recreated pod; delete the pod if it persists",
        ),
    ]),
    sources: &["k8s.io/kubernetes plugin/pkg/admission/noderestriction/admission.go"],
};

pub const WEBHOOK_DENIED: CauseDef = CauseDef {
    title: "An admission webhook refused the request",
    summary: "A validating or mutating admission webhook said no; its message says why, and no token was judged",
    explains: &[C::Forbidden, C::OtherStatus],
    explanation: "\
kube-apiserver sends objects to the admission webhooks registered in \
ValidatingWebhookConfigurations and MutatingWebhookConfigurations (Gatekeeper, Kyverno, \
your own). \"admission webhook \\\"NAME\\\" denied the request: REASON\" is that webhook's \
answer (HTTP 400 unless the webhook chose a code): the object breaks a policy it enforces. \
Authentication and RBAC had already allowed the request.",
    confirm: Steps::For(webhook_confirm),
    fix: Steps::Say(
        "change the object to satisfy the policy in the message, or exempt it in the webhook's configuration (namespaceSelector, objectSelector) or in the policy engine",
    ),
    sources: &["k8s.io/apiserver pkg/admission/plugin/webhook/errors/statuserror.go"],
};

fn webhook_confirm(case: &Case<'_>) -> Vec<NextStep> {
    let name = match &case.refusal {
        Some(Denial::Webhook { webhook, .. }) => webhook.as_str(),
        _ => "the webhook",
    };
    vec![NextStep::run(
        format!("find the configuration that registers {name}"),
        Command::kubectl().words(&[
            "get",
            "validatingwebhookconfigurations,mutatingwebhookconfigurations",
        ]),
    )]
}

pub const QUOTA_EXCEEDED: CauseDef = CauseDef {
    title: "A ResourceQuota has no room",
    summary: "A ResourceQuota in the namespace would be exceeded by the request; no token was judged and RBAC is not involved",
    explains: &[C::Forbidden],
    explanation: "\
ResourceQuota admission adds up what the namespace already uses and refuses a request \
that would go over a quota: \"exceeded quota: NAME, requested: X, used: Y, limited: Z\". \
Smaller requests still pass, which is why it fails only for some pods or sizes.",
    confirm: Steps::Run("what the quotas allow and what is used", |case| {
        Command::kubectl()
            .words(&["describe", "resourcequota"])
            .namespace(case.namespace())
    }),
    fix: Steps::Say("lower the request (or free what others use), or raise the quota"),
    sources: &["k8s.io/apiserver pkg/admission/plugin/resourcequota"],
};

pub const ADMISSION_DENIED: CauseDef = CauseDef {
    title: "An admission plugin refused the request",
    summary: "An admission plugin (not RBAC) refused the request; its message says why, and an RBAC grant will not help",
    explains: &[C::Forbidden, C::OtherStatus],
    explanation: "\
After authentication and authorization, admission plugins check (and may refuse) every \
write: \"KIND \\\"NAME\\\" is forbidden: REASON\" without RBAC's \"User … cannot …\" is one \
of them (LimitRanger, NamespaceLifecycle, PodNodeSelector, an OpenShift or vendor \
plugin). The text after \"is forbidden:\" is the plugin's reason.",
    confirm: Steps::Say(
        "read the plugin's reason after \"is forbidden:\"; the kube-apiserver flag --enable-admission-plugins lists the plugins in play",
    ),
    fix: Steps::Say(
        "change the request to meet the plugin's condition; do not grant RBAC for it, authorization already said yes",
    ),
    sources: &["k8s.io/apiserver pkg/admission"],
};

/// Admission and quota refusals, whatever the status (a webhook's 400, an old
/// ServerTimeout, kubectl's `Error from server:` without one).
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Some(denial) = case.refusal.clone() else {
        return;
    };
    // A refused token audience has its own cause (`rules::image_pull`).
    if matches!(denial, Denial::NodeRestriction { .. }) && case.node_audience.is_some() {
        return;
    }
    let (cause, confidence, text) = match &denial {
        Denial::ServiceAccount {
            namespace,
            name,
            no_token,
            message,
        } => {
            let who = match (namespace, name) {
                (Some(ns), Some(n)) => format!("{ns}/{n}"),
                (None, Some(n)) => n.clone(),
                _ => "the pod's ServiceAccount".to_owned(),
            };
            let why = if *no_token {
                format!(
                    "the ServiceAccount admission plugin waits for {who}'s token Secret (before 1.24): \"{message}\""
                )
            } else {
                format!(
                    "the ServiceAccount admission plugin found no ServiceAccount {who}: \"{message}\""
                )
            };
            (Cause::ServiceAccountAdmission, Basis::Said, why)
        }
        Denial::PodSecurity { policy, message } => (
            Cause::PodSecurityDenied,
            Basis::Said,
            format!("Pod Security admission enforces {policy}: \"{message}\""),
        ),
        Denial::NodeRestriction { message } => (
            Cause::NodeRestrictionDenied,
            Basis::Said,
            format!("the NodeRestriction admission plugin: \"{message}\""),
        ),
        Denial::Webhook { webhook, message } => (
            Cause::WebhookDenied,
            Basis::Said,
            format!("admission webhook {webhook}: \"{message}\""),
        ),
        Denial::Quota { message } => (
            Cause::QuotaExceeded,
            Basis::Said,
            format!("ResourceQuota admission: \"{message}\""),
        ),
        Denial::Other { message } => (
            Cause::AdmissionDenied,
            Basis::Inferred,
            format!(
                "refused without RBAC's \"User … cannot …\" text: an admission plugin (or another authorizer) said \"{message}\""
            ),
        ),
        Denial::Authorizer { .. } => return,
    };
    let mut support = super::answer::shown_meaning(case, text);
    support.push(Support::answer(
        "no token was rejected and no RBAC grant will change this",
    ));
    f.add(cause, confidence, support);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, http, run};

    #[test]
    fn each_refusal_its_own_cause() {
        for (status, message, cause) in [
            (
                403,
                r#"pods "p" is forbidden: error looking up service account ns/sa: serviceaccount "sa" not found"#,
                Cause::ServiceAccountAdmission,
            ),
            (
                504,
                r#"No API token found for service account "default", retry after the token is automatically created and added to the service account"#,
                Cause::ServiceAccountAdmission,
            ),
            (
                403,
                r#"pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged"#,
                Cause::PodSecurityDenied,
            ),
            (
                403,
                r#"nodes "w" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker"#,
                Cause::NodeRestrictionDenied,
            ),
            (
                400,
                r#"admission webhook "x.example" denied the request: no"#,
                Cause::WebhookDenied,
            ),
            (
                403,
                r#"pods "p" is forbidden: exceeded quota: q, requested: limits.cpu=3"#,
                Cause::QuotaExceeded,
            ),
        ] {
            let c = case(http(status, Some(message)), None);
            assert_eq!(run(&c), (cause, Confidence::High), "{message}");
        }
        let c = case(http(403, Some(r#"pods "x" is forbidden: not today"#)), None);
        assert_eq!(run(&c), (Cause::AdmissionDenied, Confidence::Medium));
    }
}
