//! The kubelet asks for a token the pod never sees: image pulls with
//! ServiceAccount tokens (KEP-4412, credential provider `tokenAttributes`) and
//! CSI drivers' `tokenRequests`. With ServiceAccountNodeAudienceRestriction
//! (beta, on by default since 1.33) NodeRestriction lets a node request only
//! audiences that its pods' volumes name, or that RBAC grants with the
//! `request-serviceaccounts-token-audience` verb; anything else is a 403 on the
//! kubelet's TokenRequest, logged by the kubelet, and the image is pulled
//! without credentials (ImagePullBackOff).

use super::prelude::*;

/// The RBAC verb that lets a node request a token for an audience its pods do
/// not name (the resource is the audience itself, in the core group).
pub const AUDIENCE_VERB: &str = "request-serviceaccounts-token-audience";

pub const NODE_AUDIENCE_NOT_ALLOWED: CauseDef = CauseDef {
    title: "The kubelet may not request a token for this audience",
    summary: "NodeRestriction refused the kubelet a ServiceAccount token for a registry's (or driver's) audience: the image is pulled without credentials",
    explains: &[C::Forbidden],
    explanation: "\
With image pulls by ServiceAccount token (KEP-4412: the kubelet's credential provider \
config sets tokenAttributes.serviceAccountTokenAudience; alpha 1.33, beta 1.34) the \
kubelet requests a token for the pod's ServiceAccount with the registry's audience and \
passes it to the credential provider in a CredentialProviderRequest (serviceAccountToken). \
Since ServiceAccountNodeAudienceRestriction (alpha 1.32, beta and on by default 1.33) the \
NodeRestriction admission plugin lets a node request only the audiences its pods' \
projected volumes or CSI drivers name, or that RBAC grants to the node with the verb \
request-serviceaccounts-token-audience on the audience as a resource in the core group.

Anything else is a 403 on the kubelet's TokenRequest (\"audience … not found in pod spec \
volume, system:node:NODE is not authorized to request tokens for this audience\"); the \
kubelet logs \"Error getting service account token\", skips the provider, pulls without \
credentials and the pod goes to ImagePullBackOff with a generic \"pull access denied\" or \
\"unauthorized\" from the registry. The same applies to a node asking for two audiences \
at once (\"node may only request 0 or 1 audiences\").",
    confirm: Steps::Run(
        "ask the authorizer what NodeRestriction asks: may the node request a token for this audience? (false: the grant is missing)",
        ask_review,
    ),
    fix: Steps::All(&[
        Steps::Run(
            "grant the nodes this audience (kubectl create clusterrole refuses the verb, so apply the objects; add resourceNames to allow only some ServiceAccounts)",
            grant,
        ),
        Steps::Say(
            "or name the audience in the pod's own spec (a projected serviceAccountToken volume with that audience), which NodeRestriction accepts without RBAC",
        ),
    ]),
    sources: &[
        "k8s.io/kubernetes plugin/pkg/admission/noderestriction/admission.go (ServiceAccountNodeAudienceRestriction)",
        "k8s.io/kubernetes test/integration/auth/node_test.go (the message in full)",
        "k8s.io/kubernetes pkg/credentialprovider/plugin/plugin.go (getServiceAccountToken)",
        "KEP-4412 keps/sig-node/4412-projected-service-account-tokens-for-kubelet-image-credential-providers",
        "k8s.io/kubernetes pkg/features/kube_features.go (ServiceAccountNodeAudienceRestriction, KubeletServiceAccountTokenForCredentialProviders)",
    ],
};

/// The SubjectAccessReview the NodeRestriction plugin asks, put to the
/// authorizer.
fn ask_review(case: &Case<'_>) -> Command {
    let refusal = case.node_audience.as_ref();
    let mut placeholders = false;
    let mut pick = |v: Option<&str>, p: &'static str| {
        placeholders |= fits_json(v).is_none();
        fits_json(v).unwrap_or(p).to_owned()
    };
    let node = pick(refusal.and_then(|r| r.node.as_deref()), "NODE");
    let audience = pick(refusal.and_then(|r| r.audience.as_deref()), "AUDIENCE");
    let sa = case
        .service_account()
        .or_else(|| refusal.and_then(|r| r.service_account.clone()));
    let sa = pick(sa.as_deref(), "SERVICE_ACCOUNT");
    let ns = pick(case.namespace(), "NAMESPACE");
    let review = format!(
        r#"{{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{{"user":"system:node:{node}","groups":["system:nodes","system:authenticated"],"resourceAttributes":{{"verb":"{AUDIENCE_VERB}","group":"","resource":"{audience}","namespace":"{ns}","name":"{sa}"}}}}}}"#
    );
    let mut command = Command::new("echo")
        .value(Some(&review), "SUBJECT_ACCESS_REVIEW_JSON")
        .pipe_into(Command::kubectl().words(&[
            "create",
            "-f",
            "-",
            "-o",
            "jsonpath={.status.allowed}",
        ]))
        .expecting("true");
    command.placeholders |= placeholders;
    command
}

/// A value that can stand in the JSON written below as it is: not empty, no
/// quote or backslash to escape.
fn fits_json(v: Option<&str>) -> Option<&str> {
    v.filter(|s| !s.is_empty() && !s.contains(['"', '\\']))
}

/// The ClusterRole and binding that grant the nodes the audience, applied.
fn grant(case: &Case<'_>) -> Command {
    let audience = case
        .node_audience
        .as_ref()
        .and_then(|r| fits_json(r.audience.as_deref()));
    let placeholders = audience.is_none();
    let audience = audience.unwrap_or("AUDIENCE");
    let grant = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{{"name":"kubelet-token-audiences"}},"rules":[{{"apiGroups":[""],"resources":["{audience}"],"verbs":["{AUDIENCE_VERB}"]}}]}},{{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{{"name":"kubelet-token-audiences"}},"roleRef":{{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"kubelet-token-audiences"}},"subjects":[{{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:nodes"}}]}}]}}"#
    );
    let mut command = Command::new("echo")
        .value(Some(&grant), "GRANT_JSON")
        .pipe_into(Command::kubectl().words(&["apply", "-f", "-"]));
    command.placeholders |= placeholders;
    command
}

/// NodeRestriction refused the kubelet a token audience.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Some(refusal) = &case.node_audience else {
        return;
    };
    let text = if refusal.several_audiences {
        "NodeRestriction refused the kubelet's TokenRequest: \"node may only request 0 or 1 audiences\"".to_owned()
    } else {
        format!(
            "NodeRestriction refused {} a token for audience {}{}: the node is not granted {AUDIENCE_VERB} on it and no pod volume on the node names it",
            refusal
                .node
                .as_deref()
                .map(|n| format!("node {n}"))
                .unwrap_or_else(|| "the node".to_owned()),
            refusal.audience.as_deref().unwrap_or("(unknown)"),
            refusal
                .service_account
                .as_deref()
                .map(|s| format!(" (ServiceAccount {s})"))
                .unwrap_or_default(),
        )
    };
    f.add(
        Cause::NodeAudienceNotAllowed,
        Basis::Said,
        vec![
            Support::server_reason(text),
            Support::new(
                SupportKind::Context,
                "the kubelet then pulls the image without credentials: expect ImagePullBackOff with the registry's \"unauthorized\" or \"pull access denied\"",
            ),
        ],
    );
    // The refusal names its admission plugin: not an unknown one.
    f.rule_out(Cause::Unknown);
    f.rule_out(Cause::AdmissionDenied);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::Answer;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, http};
    use crate::diagnosis::wordings::NodeAudienceRefusal;

    #[test]
    fn a_refused_audience_names_the_grant() {
        let message = "serviceaccounts \"builder\" is forbidden: audience \"registry.example\" not found in pod spec volume, system:node:node-a is not authorized to request tokens for this audience";
        let mut c = case(http(403, Some(message)), None);
        c.node_audience = NodeAudienceRefusal::parse(message);
        let d = diagnosed(&c);
        assert_eq!(d.cause(), Cause::NodeAudienceNotAllowed);
        assert_eq!(d.confidence(), Confidence::High);
        let shell: Vec<String> = d
            .top()
            .next
            .iter()
            .filter_map(|s| s.command.as_ref().map(|c| c.shell()))
            .collect();
        assert!(
            shell[0].contains("system:node:node-a") && shell[0].contains("registry.example"),
            "{shell:?}"
        );
        assert!(shell[1].contains(AUDIENCE_VERB) && shell[1].ends_with("kubectl apply -f -"));
        assert_eq!(d.candidates.len(), 1, "{:?}", d.candidates);
        // An audience the refusal left empty is a placeholder in both commands.
        let message = message.replace("\"registry.example\"", "\"\"");
        let mut c = case(http(403, Some(&message)), None);
        c.node_audience = NodeAudienceRefusal::parse(&message);
        assert_eq!(
            c.node_audience.as_ref().unwrap().audience.as_deref(),
            Some("")
        );
        for step in diagnosed(&c)
            .top()
            .next
            .iter()
            .filter_map(|s| s.command.as_ref())
        {
            assert!(
                step.placeholders && step.shell().contains("AUDIENCE"),
                "{step:?}"
            );
        }
        // Without the refusal, a 403 of this shape is not this cause.
        let plain = case(Answer::Nothing, None);
        assert_ne!(diagnosed(&plain).cause(), Cause::NodeAudienceNotAllowed);
    }
}
