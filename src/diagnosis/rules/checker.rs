//! A checker's own failure. Vault's Kubernetes auth method, kube-rbac-proxy,
//! istiod, webhook token authenticators and other services check a caller's
//! token by creating a TokenReview with credentials of their own. When that
//! request fails (refused, or no answer) they report an error although the
//! caller's token was never looked at: the fix is the checker's RBAC, token or
//! network, not the caller's token.

use super::prelude::*;
use crate::diagnosis::facts::CheckerCall;
use crate::diagnosis::forbidden::Forbidden;

pub const CHECKER_UNAUTHORIZED: CauseDef = CauseDef {
    title: "The checker's own credentials were refused",
    summary: "A token checker's own TokenReview (or SubjectAccessReview) was refused (it may not create them, or its own token was rejected): the caller's request was never judged",
    explains: &[C::CheckerFailure],
    explanation: "\
Vault, kube-rbac-proxy, istiod, webhook token authenticators and other services judge a \
caller's token by creating a TokenReview on kube-apiserver, authenticated as themselves: \
a reviewer token, their pod's ServiceAccount, a kubeconfig. When that request is \
refused, they report a failure although the caller's token was never looked at:

- 403 \"tokenreviews.authentication.k8s.io is forbidden: User … cannot create resource \
\\\"tokenreviews\\\"\": the checker's identity lacks the create verb on tokenreviews (the \
system:auth-delegator ClusterRole grants it); the same for subjectaccessreviews, which an \
aggregated API server or metrics-server creates to ask kube-apiserver whether its caller \
may make the request (delegated authorization, the same ClusterRole);
- 401 (\"Failed to make webhook authenticator request: Unauthorized\", Vault's \
\"service account unauthorized; this could mean it has been deleted or recreated with a \
new token\"): the checker's own token was rejected: expired, invalidated with the pod it \
was bound to, or from another cluster. Vault without a token_reviewer_jwt reviews with \
the caller's own JWT, so there that 401 can be the caller's token after all: classify \
reports both readings, and `vault read auth/kubernetes/config` (token_reviewer_jwt_set) \
tells them apart. istiod (\"invalid review response status code 401\", \"failed to \
validate the JWT from cluster …: Unauthorized\") and Linkerd's identity service (\"error \
validating token for …: Unauthorized\") review with their own ServiceAccount, so there the \
refused token is theirs.",
    confirm: Steps::For(unauthorized_confirm),
    fix: Steps::For(unauthorized_fix),
    sources: &[
        "k8s.io/apiserver plugin/pkg/authenticator/token/webhook/webhook.go",
        "hashicorp/vault-plugin-auth-kubernetes token_review.go",
        "istio/istio security/pkg/k8s/tokenreview",
        "linkerd/linkerd2 controller/identity/validator.go",
        "k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy (system:auth-delegator)",
    ],
};

/// The checker's identity, when a 403 about tokenreviews names it.
fn reviewer(case: &Case<'_>) -> Option<Forbidden> {
    let Answer::CheckerFailed(_) = &case.answer else {
        return None;
    };
    case.forbidden().filter(|f| !f.is_anonymous()).cloned()
}

fn unauthorized_confirm(case: &Case<'_>) -> Vec<NextStep> {
    let refused = reviewer(case);
    // The review the checker was refused: a TokenReview unless the 403 names
    // a SubjectAccessReview (delegated authorization).
    let sar = refused
        .as_ref()
        .is_some_and(|f| f.request.is_subject_access_review());
    let user = refused.map(|f| f.user);
    let mut steps = Vec::new();
    if let Answer::CheckerFailed(failure) = &case.answer
        && !failure.certain
    {
        // A 401 on the review itself: whose token was the bearer decides
        // between the reviewer's and the caller's.
        steps.push(NextStep::run(
            "which token Vault reviews with: token_reviewer_jwt_set true means its own reviewer JWT was refused; false (and no local pod token) means the caller's JWT was",
            Command::new("vault").words(&["read", "auth/kubernetes/config"]),
        ));
        steps.push(NextStep::run(
            "review the caller's (login) JWT yourself: authenticated means the reviewer's token is the one refused",
            Command::satoken()
                .words(&["probe", "-f", "LOGIN_JWT_FILE", "--token-review", "--audience", "AUDIENCE"])
                .with_placeholders(),
        ));
    }
    let (question, resource) = if sar {
        (
            "may the checker's identity create SubjectAccessReviews?",
            "subjectaccessreviews.authorization.k8s.io",
        )
    } else {
        (
            "may the checker's identity create TokenReviews?",
            "tokenreviews.authentication.k8s.io",
        )
    };
    steps.push(NextStep::run(
        question,
        Command::kubectl()
            .words(&["auth", "can-i", "create", resource])
            .flag_value("--as", user.as_deref(), "CHECKER_USER"),
    ));
    steps
}

fn unauthorized_fix(case: &Case<'_>) -> Vec<NextStep> {
    let Some(f) = reviewer(case) else {
        return vec![NextStep::say(
            "give the checker a token kube-apiserver accepts (Vault: a current token_reviewer_jwt, or none so that it uses its pod's projected token; a proxy: its pod's ServiceAccount), with create on tokenreviews (the system:auth-delegator ClusterRole)",
        )];
    };
    let sa = f.service_account();
    let name = sa.map(|(_, n)| format!("{n}-tokenreview"));
    let subject = sa.map(|(ns, n)| format!("{ns}:{n}"));
    vec![NextStep::run(
        "grant the checker's ServiceAccount the right to review tokens and access (system:auth-delegator)",
        Command::kubectl()
            .words(&["create", "clusterrolebinding"])
            .value(name.as_deref(), "CHECKER-tokenreview")
            .word("--clusterrole=system:auth-delegator")
            .flag_value("--serviceaccount", subject.as_deref(), "NAMESPACE:NAME"),
    )]
}

pub const CHECKER_UNREACHABLE: CauseDef = CauseDef {
    title: "The checker could not reach what it needs",
    summary: "A token checker could not reach kube-apiserver (for its TokenReview) or its identity service: the caller's token was never judged",
    explains: &[C::CheckerFailure],
    explanation: "\
A checker that reviews tokens needs an answer from kube-apiserver's TokenReview API (or, \
for a mesh's sidecar, from the identity service that does the review). A timeout, a \
refused connection, a TLS failure or a service without ready endpoints on that call \
(\"dial tcp …/tokenreviews: i/o timeout\", Linkerd's \"service in fail-fast\") means the \
caller's token was never looked at. The fix is the checker's configuration (Vault's \
kubernetes_host and kubernetes_ca_cert) or the network between them.",
    confirm: Steps::Run(
        "from the checker's pod, the API server must answer (any status; no answer is the failure)",
        |_| {
            Command::new("curl")
                .words(&["-sS", "--max-time", "5", "--cacert"])
                .value(None, "CA_FILE")
                .value(None, "https://KUBERNETES_HOST/version")
        },
    ),
    fix: Steps::Say(
        "point the checker at an address of the API server it can reach (Vault: kubernetes_host in auth/kubernetes/config) and open the path (NetworkPolicy, firewall); for a mesh, make the identity service ready",
    ),
    sources: &[
        "hashicorp/vault-plugin-auth-kubernetes token_review.go",
        "linkerd2-proxy identity client",
    ],
};

/// A checker that could not complete its review.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    let Answer::CheckerFailed(failure) = &case.answer else {
        return;
    };
    let who = failure.checker.unwrap_or("the checker");
    let mut support = vec![Support::answer(format!("{who}: {}", failure.detail))];
    // The checker's own call: a TLS failure is its trust setting (its CA),
    // no answer its network path, a refusal its credentials, a 404 an API
    // version the server no longer serves.
    let (cause, why) = match failure.call {
        CheckerCall::Refused => (
            Cause::CheckerUnauthorized,
            "the checker's own TokenReview was refused, so the token under review was never judged",
        ),
        CheckerCall::NotServed => (
            Cause::ApiNotServed,
            "the server does not serve the TokenReview version the checker asked for (authentication.k8s.io/v1beta1 went in 1.22), so the token under review was never judged",
        ),
        CheckerCall::Unanswered(Some(tls)) if tls.is_tls() => (
            tls,
            "the checker's own TLS handshake with the API server failed: its CA setting (Vault's kubernetes_ca_cert, the proxy's --kubeconfig or service account CA) does not fit the server's certificate, and the token under review was never judged",
        ),
        CheckerCall::ServerError => (
            Cause::Unknown,
            "the server answered the checker's own review with a failure of its own (5xx), so the token under review was never judged",
        ),
        CheckerCall::Unanswered(_) => (
            Cause::CheckerUnreachable,
            "the checker got no answer for its own review, so the token under review was never judged; no answer says why: a wrong address or port in the checker's configuration (Vault's kubernetes_host), a blocked path and a server that is down read the same",
        ),
    };
    support.push(Support::answer(why));
    let unanswered =
        matches!(failure.call, CheckerCall::Unanswered(c) if !c.is_some_and(Cause::is_tls));
    let confidence = if unanswered {
        Basis::Inferred
    } else if failure.certain {
        Basis::Said
    } else {
        support.push(Support::answer(
            "or, when the checker reviews with the caller's own token (Vault without a token_reviewer_jwt), this refusal is the caller's token being rejected: its cause is one of a 401's; the first step tells the two apart",
        ));
        Basis::Inferred
    };
    f.add(cause, confidence, support);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::CheckerFailure;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, run};

    #[test]
    fn a_checker_that_could_not_review() {
        let answer = Answer::CheckerFailed(CheckerFailure {
            call: CheckerCall::Refused,
            checker: Some("istiod"),
            detail: r#"tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:istio-system:reader" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope"#.into(),
            certain: true,
        });
        let c = case(answer, None);
        assert_eq!(c.classification(), C::CheckerFailure);
        assert_eq!(run(&c), (Cause::CheckerUnauthorized, Confidence::High));
        let d = diagnosed(&c);
        let shells: Vec<String> = d
            .top()
            .next
            .iter()
            .filter_map(|s| s.command.as_ref().map(Command::shell))
            .collect();
        assert!(
            shells.contains(&"kubectl create clusterrolebinding reader-tokenreview --clusterrole=system:auth-delegator --serviceaccount=istio-system:reader".to_owned()),
            "{shells:?}"
        );
        let answer = Answer::CheckerFailed(CheckerFailure {
            call: CheckerCall::Refused,
            checker: Some("Vault"),
            detail: "service account unauthorized".into(),
            certain: false,
        });
        assert_eq!(
            run(&case(answer, None)),
            (Cause::CheckerUnauthorized, Confidence::Medium)
        );
    }
}
