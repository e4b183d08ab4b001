//! 403 from RBAC: the token was accepted and the authoriser said no. The 403
//! message names the user, verb, resource, group and namespace
//! (`diagnosis::forbidden` reads it), which is exactly the grant to make; a
//! SelfSubjectAccessReview's "not allowed" is the same answer.
//!
//! Never tell the user to grant RBAC unless RBAC (or an access review) said no:
//! a 403 without RBAC's `User "…" cannot …` text is admission or another
//! authoriser, and stays `unknown` here.

use super::prelude::*;
use crate::diagnosis::extract::denial::{Authorizer, Denial};
use crate::diagnosis::forbidden::{Forbidden, GrantRisk};

pub const RBAC_DENIED: CauseDef = CauseDef {
    title: "RBAC grants nothing for this request",
    summary: "The token works; no Role or ClusterRole bound to this identity allows the request",
    explains: &[C::Forbidden],
    explanation: "\
A 403 means authentication succeeded: the API server knows who the token belongs to, and \
authorisation (RBAC) found no rule that allows this verb on this resource for that user. \
The message names all of it: User \"system:serviceaccount:NAMESPACE:NAME\" cannot VERB \
resource \"RESOURCE\" in API group \"GROUP\" in the namespace \"NAMESPACE\".

The fix is a Role (or ClusterRole, for cluster-scoped resources and non-resource URLs) \
with that verb on that resource, bound to the ServiceAccount. Check the identity in the \
message first: if it is not the one you expect, the client sends another token than you \
think.",
    confirm: Steps::For(denied_confirm),
    fix: Steps::For(denied_fix),
    sources: &[
        "k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go",
        "k8s.io/apimachinery pkg/api/errors NewForbidden",
    ],
};

pub const RBAC_ROLE_MISSING: CauseDef = CauseDef {
    title: "A binding names a role that does not exist",
    summary: "The token works; a RoleBinding refers to a Role or ClusterRole that does not exist",
    explains: &[C::Forbidden],
    explanation: "\
The RBAC authoriser appends its own reason to the 403 when a binding for this user names \
a role that is not there: RBAC: role.rbac.authorization.k8s.io \"NAME\" not found. The \
binding exists, so the intent was to allow the request; the role was deleted, renamed, \
created in another namespace, or is a ClusterRole referenced as a Role.",
    confirm: Steps::All(&[
        Steps::Run("find the bindings and the roles they name", |_| {
            Command::kubectl().words(&[
                "get",
                "rolebindings,clusterrolebindings",
                "-A",
                "-o",
                "wide",
            ])
        }),
        Steps::For(denied_confirm),
    ]),
    fix: Steps::All(&[
        Steps::Say("create the missing role, or point the binding's roleRef at one that exists"),
        Steps::For(denied_fix),
    ]),
    sources: &["k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac"],
};

pub const NON_RBAC_AUTHORIZER_DENIED: CauseDef = CauseDef {
    title: "Refused by an authorizer other than RBAC",
    summary: "The Node authorizer, or a webhook, ABAC or managed-cluster authorizer, refused; an RBAC grant may not help",
    explains: &[C::Forbidden],
    explanation: "\
kube-apiserver asks its authorizers in the order of --authorization-mode (for example \
Node,RBAC, or a cloud's webhook first) and answers 403 when none allows the request. The \
403's text is the same whoever refused; the reason after it says who:

- \"no relationship found between node 'N' and this object\" (1.18+; \"no path found to \
object\" before): the Node authorizer. A kubelet (system:node:N) may read only the \
Secrets, ConfigMaps, volumes and ServiceAccount tokens of pods bound to its node; the \
object is not (yet) referenced by such a pod, which is usual for a moment while a pod is \
being scheduled, and a bug when it persists.
- \"Unknown user …\", \"No policy matched\" and other texts come from ABAC or a webhook \
authorizer (GKE, EKS, AKS add their own).

Granting RBAC to a node identity to work around the Node authorizer defeats its purpose.",
    confirm: Steps::Or(node_pods, &Steps::For(denied_confirm)),
    fix: Steps::Say(
        "for the Node authorizer: make sure the pod that uses the object is bound to that node (a refusal during scheduling clears by itself); for another authorizer: change its policy (the cloud's IAM mapping, the ABAC file), not RBAC",
    ),
    sources: &[
        "k8s.io/kubernetes plugin/pkg/auth/authorizer/node/node_authorizer.go",
        "k8s.io/apiserver pkg/authorization/union",
    ],
};

/// A node refused by the Node authorizer: the pods bound to it.
fn node_pods(case: &Case<'_>) -> Option<NextStep> {
    let node = case.forbidden()?.node()?;
    Some(NextStep::run(
        "the pods bound to this node (the Node authorizer follows their references)",
        Command::kubectl()
            .words(&["get", "pods", "-A", "-o", "wide"])
            .flag_value(
                "--field-selector",
                Some(&format!("spec.nodeName={node}")),
                "spec.nodeName=NODE",
            ),
    ))
}

/// The denied request as a [`Forbidden`]: from the 403 message, or from the
/// access review's question and the user.
fn denied(case: &Case<'_>) -> Option<Forbidden> {
    if let Some(f) = case.forbidden() {
        return Some(f.clone());
    }
    let Answer::Access(verdict) = &case.answer else {
        return None;
    };
    let user = case
        .user
        .clone()
        .or_else(|| case.token.and_then(|t| t.claims.subject.clone()))
        .unwrap_or_default();
    Some(Forbidden {
        user,
        request: case.request.clone().unwrap_or_default(),
        reason: verdict.reason.clone(),
        kubelet: false,
    })
}

fn denied_confirm(case: &Case<'_>) -> Vec<NextStep> {
    match denied(case).and_then(|f| f.can_i()) {
        Some(c) => vec![NextStep::run(
            "re-check exactly this request as this user (after a grant it prints yes)",
            c,
        )],
        None => vec![NextStep::run(
            "list what this identity may do",
            Command::kubectl()
                .words(&["auth", "can-i", "--list"])
                .flag_value("--as", case.user.as_deref(), "USER")
                .namespace(case.namespace()),
        )],
    }
}

fn denied_fix(case: &Case<'_>) -> Vec<NextStep> {
    let denied = denied(case);
    let mut steps = Vec::new();
    match denied.as_ref().and_then(Forbidden::grant_risk) {
        Some(GrantRisk::Wildcard(what)) => {
            return vec![NextStep::say(format!(
                "no grant: the request was for `*`, and RBAC reads a grant of `*` as {what}, secrets included; grant only the verbs and resources the workload needs, named one by one"
            ))];
        }
        Some(GrantRisk::Escalation(e)) => {
            let (gives, instead) = e.words();
            steps.push(NextStep::say(format!(
                "warning, privilege escalation: {gives}; {instead}"
            )));
        }
        None => {}
    }
    let grants = denied.map(|f| f.grant_commands()).unwrap_or_default();
    if grants.is_empty() {
        steps.push(NextStep::say(
            "grant the verb on the resource to the user with a Role (or ClusterRole) and a binding",
        ));
        return steps;
    }
    steps.extend(grants.into_iter().enumerate().map(|(i, c)| {
        NextStep::run(
            if i == 0 {
                "grant: a role allowing exactly this request"
            } else {
                "grant: bind it to the identity"
            },
            c,
        )
    }));
    steps
}

/// 403 and access reviews that say no (anonymous 403s are `rules::anonymous`).
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    if case.classification() != C::Forbidden {
        return;
    }
    let subject = case.token.and_then(|t| t.claims.subject.clone());
    if let Answer::Access(verdict) = &case.answer {
        access_review(case, verdict, f);
        return;
    }
    let h = case.answer.http();
    let message = h.and_then(|h| h.message.clone());
    let relayed = h.is_some_and(|h| h.relay_only().is_some());
    let (d, by) = match case.refusal.clone() {
        Some(Denial::Authorizer { forbidden, by }) => (forbidden, by),
        // Admission or quota: `rules::admission`.
        Some(_) => return,
        None if case.user.as_deref() == Some(crate::diagnosis::forbidden::ANONYMOUS) => return,
        None => {
            unnamed_refusal(message, relayed, f);
            return;
        }
    };
    if d.is_anonymous() {
        return;
    }
    let mut support = super::answer::shown_meaning(
        case,
        format!(
            "the token was accepted (user {}); authorization allows no {} {}",
            d.user,
            d.verb(),
            d.request.target()
        ),
    );
    // A kubelet's own requests are the Node authorizer's to judge, not a grant's.
    match d.grant_risk().filter(|_| d.node().is_none()) {
        Some(GrantRisk::Wildcard(what)) => {
            support.push(Support::answer(format!("the request was for `*`: {what}")))
        }
        Some(GrantRisk::Escalation(e)) => support.push(Support::answer(format!(
            "the request asks for a privilege few workloads need: {}",
            e.words().0
        ))),
        None => {}
    }
    if let Some(sub) = subject.as_deref().filter(|s| *s != d.user) {
        support.push(Support::token(format!(
            "the 403 names {}, but your token is for {sub}: this request was not made with your token",
            d.user
        )));
    }
    // A reason that is not RBAC's is another authorizer's: it denied the
    // request, or had no opinion before RBAC refused. The text does not say
    // which; `kubectl auth can-i` after a grant does.
    let (cause, basis, also): (_, _, Option<(_, _, String)>) = match by {
        Authorizer::Rbac(reason) => {
            support.push(Support::answer(format!("RBAC's reason: {reason}")));
            (Cause::RbacDenied, Basis::Said, None)
        }
        Authorizer::RoleMissing(reason) => {
            support.push(Support::answer(format!(
                "a binding names a role that does not exist: {reason}"
            )));
            (Cause::RbacRoleMissing, Basis::Said, None)
        }
        Authorizer::Node(reason) => {
            support.push(Support::answer(format!(
                "the Node authorizer's reason: {reason}"
            )));
            support.push(Support::answer(
                "a node may read only what pods bound to it reference; an RBAC grant does not change the Node authorizer's answer",
            ));
            (Cause::NonRbacAuthorizerDenied, Basis::Said, None)
        }
        Authorizer::Other(reason) => {
            support.push(Support::answer(format!(
                "the reason \"{reason}\" is not RBAC's: another authorizer (a managed cluster's, a webhook, ABAC) answered this request"
            )));
            let rbac = "RBAC had no rule for it either: a grant allows the request if the other authorizer had no opinion, and changes nothing if it denied";
            let also = (Cause::RbacDenied, Basis::Inferred, rbac.to_owned());
            (Cause::NonRbacAuthorizerDenied, Basis::Inferred, Some(also))
        }
        Authorizer::NoOpinion(reason) => {
            support.push(Support::answer(format!(
                "\"{reason}\" is another authorizer having no opinion on this identity; RBAC then found no rule that allows the request"
            )));
            let other = format!("the other authorizer may refuse as well: \"{reason}\"");
            let also = (Cause::NonRbacAuthorizerDenied, Basis::Possible, other);
            (Cause::RbacDenied, Basis::Inferred, Some(also))
        }
        Authorizer::Unnamed => {
            let other = "the 403 does not name the authorizer: RBAC's refusals carry no reason, and neither do those of some webhook authorizers";
            let also = (
                Cause::NonRbacAuthorizerDenied,
                Basis::Possible,
                other.to_owned(),
            );
            (Cause::RbacDenied, Basis::Inferred, Some(also))
        }
    };
    f.add(cause, basis, support);
    if let Some((cause, basis, text)) = also {
        f.add_fact(cause, basis, SupportKind::Answer, text);
        tell_rbac_apart(&d, f);
    }
}

/// A SelfSubjectAccessReview's denial: authorization's own verdict.
fn access_review(
    case: &Case<'_>,
    verdict: &crate::diagnosis::facts::AccessVerdict,
    f: &mut Findings,
) {
    let Some(d) = denied(case) else { return };
    let mut support = vec![Support::answer(format!(
        "SelfSubjectAccessReview: {} may not {} {}{}",
        d.user,
        d.verb(),
        d.request.target(),
        verdict
            .reason
            .as_deref()
            .filter(|r| !r.is_empty())
            .map(|r| format!(" (reason: {r})"))
            .unwrap_or_default()
    ))];
    if let Some(e) = verdict
        .evaluation_error
        .as_deref()
        .filter(|e| !e.is_empty())
    {
        support.push(Support::answer(format!("evaluation error: {e}")));
    }
    f.add(Cause::RbacDenied, Basis::Said, support);
}

/// `kubectl auth can-i` asks the same authorizers as the request did.
fn tell_rbac_apart(d: &Forbidden, f: &mut Findings) {
    if let Some(can_i) = d.can_i() {
        f.tell_apart(
            &[Cause::RbacDenied, Cause::NonRbacAuthorizerDenied],
            NextStep::run(
                "kubectl auth can-i asks the same authorizers: after an RBAC grant it says yes unless another authorizer refuses",
                can_i,
            ),
        );
    }
}

/// A 403 whose message names no authorizer, or no message at all. A relay's
/// own 403 (Vault's, a checker's) is its status, not kube-apiserver's: an
/// authorizer's refusal behind it is only a possibility.
fn unnamed_refusal(message: Option<String>, relayed: bool, f: &mut Findings) {
    match message.filter(|m| !m.trim().is_empty()) {
        // The relay's own words: what it refused is its own (`rules::answer`).
        Some(_) if relayed => {}
        Some(m) => f.add_fact(
            Cause::Unknown,
            Basis::Inferred,
            SupportKind::Answer,
            format!(
                "a 403 without RBAC's \"User … cannot …\" text: \"{m}\": refused by admission, another authorizer, or something in front of kube-apiserver"
            ),
        ),
        None => {
            f.add_fact(
                Cause::RbacDenied,
                if relayed {
                    Basis::Possible
                } else {
                    Basis::Inferred
                },
                SupportKind::Answer,
                "403: the token was accepted and authorization said no (the message, which would name the user and the request, is not in the evidence)",
            );
            f.add_fact(
                Cause::TokenNotSent,
                Basis::Possible,
                SupportKind::Answer,
                "an anonymous request (no token sent) also gets 403; the message would say User \"system:anonymous\"",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::{AccessVerdict, HttpAnswer, RequestInfo};
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, has_words, http, pod_bound, run};

    const DENIED: &str = r#"pods is forbidden: User "system:serviceaccount:shop:web" cannot list resource "pods" in API group "" in the namespace "shop""#;

    #[test]
    fn who_said_no_decides_the_cause() {
        let missing =
            format!("{DENIED}: RBAC: role.rbac.authorization.k8s.io \"reader\" not found");
        use Confidence::{High, Medium};
        let table = [
            // The 403 does not name the authorizer: RBAC, most likely.
            (Some(DENIED.to_owned()), Cause::RbacDenied, Medium),
            (Some(missing), Cause::RbacRoleMissing, High),
            (
                Some(format!(
                    "{DENIED}: RBAC: clusterrole.rbac.authorization.k8s.io \"x\" is being deleted"
                )),
                Cause::RbacDenied,
                High,
            ),
            // "RBAC" elsewhere in the text is not RBAC's own reason: another
            // authorizer gave it.
            (
                Some(format!("{DENIED}: webhook RBAC-sync: not found")),
                Cause::NonRbacAuthorizerDenied,
                Medium,
            ),
            (
                Some(format!(
                    "{DENIED}: no relationship found between node 'n' and this object"
                )),
                Cause::NonRbacAuthorizerDenied,
                High,
            ),
            (
                Some(
                    "pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\""
                        .to_owned(),
                ),
                Cause::PodSecurityDenied,
                High,
            ),
            (Some("permission denied".to_owned()), Cause::Unknown, Medium),
            (None, Cause::RbacDenied, Medium),
        ];
        for (message, cause, confidence) in table {
            let c = case(http(403, message.as_deref()), None);
            assert_eq!(run(&c), (cause, confidence), "{message:?}");
        }
    }

    #[test]
    fn a_relay_s_own_bare_403_is_its_status_and_rbac_only_a_possibility() {
        let answer = Answer::Http(HttpAnswer::relayed("Vault", Some(403), 1));
        let d = diagnosed(&case(answer, None));
        assert_eq!(
            (d.cause(), d.confidence()),
            (Cause::Unknown, Confidence::Medium)
        );
        let rbac = d.candidates.iter().find(|c| c.cause == Cause::RbacDenied);
        assert_eq!(rbac.map(|c| c.confidence), Some(Confidence::Low));
    }

    #[test]
    fn an_access_review_that_says_no() {
        let token = pod_bound(-60, 3600);
        let mut c = case(
            Answer::Access(AccessVerdict {
                allowed: false,
                ..AccessVerdict::default()
            }),
            Some(&token),
        );
        c.request = Some(RequestInfo {
            verb: Some("get".into()),
            resource: Some("pods".into()),
            subresource: Some("log".into()),
            namespace: Some("shop".into()),
            name: Some("web-0".into()),
            ..RequestInfo::default()
        });
        let d = diagnosed(&c);
        assert_eq!(d.cause(), Cause::RbacDenied);
        let shells: Vec<String> = d
            .top()
            .next
            .iter()
            .filter_map(|n| n.command.as_ref())
            .map(|c| c.shell())
            .collect();
        assert_eq!(
            shells[0],
            "kubectl auth can-i get pods/web-0 --subresource=log -n shop --as=system:serviceaccount:shop:web"
        );
    }

    #[test]
    fn no_grant_for_star_and_a_warning_before_an_escalating_one() {
        let steps = |message: &str| {
            let d = diagnosed(&case(http(403, Some(message)), None));
            assert_eq!(d.cause(), Cause::RbacDenied, "{message}");
            d.top().next.clone()
        };
        let star = steps(
            r#"User "system:serviceaccount:shop:web" cannot list resource "*" in API group "*" at the cluster scope"#,
        );
        assert!(
            star.iter()
                .filter_map(|n| n.command.as_ref())
                .all(|c| !has_words(c, &["create"])),
            "{star:?}"
        );
        assert!(
            star.iter()
                .any(|n| n.why.starts_with("no grant: the request was for `*`"))
        );
        let proxy = steps(
            r#"User "system:serviceaccount:shop:web" cannot get resource "nodes/proxy" in API group "" at the cluster scope"#,
        );
        let warning = proxy
            .iter()
            .position(|n| n.why.starts_with("warning, privilege escalation"))
            .expect("a warning");
        let grant = proxy
            .iter()
            .position(|n| {
                n.command
                    .as_ref()
                    .is_some_and(|c| has_words(c, &["create", "clusterrole"]))
            })
            .expect("the exact grant");
        assert!(warning < grant, "{proxy:?}");
    }
}
