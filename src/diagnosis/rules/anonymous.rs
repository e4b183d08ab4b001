//! No token reached the server. A request without credentials is
//! `system:anonymous`: 403 when anonymous authentication is on, 401 when it is
//! off. A token that arrives but is invalid always gets 401 and never becomes
//! anonymous (k8s.io/apiserver request/union and anonymous authenticators), so a
//! 403 as `system:anonymous` proves the header did not arrive as a bearer token.
//!
//! `probe --anonymous` with no token asks on purpose what an anonymous request
//! gets; its answers are [`ANONYMOUS_FORBIDDEN`] and [`ANONYMOUS_REFUSED`], not
//! a token that went missing.

use super::prelude::*;
use crate::diagnosis::facts::{BearerSeen, TokenSent};
use crate::diagnosis::forbidden::ANONYMOUS;

pub const TOKEN_NOT_SENT: CauseDef = CauseDef {
    title: "No token reached the server",
    summary: "The request arrived without a usable bearer token, so the server saw system:anonymous",
    explains: &[C::Forbidden, C::Unauthorized],
    explanation: "\
kube-apiserver treats a request without credentials as the user system:anonymous: it gets \
403 when anonymous authentication is on (the default), 401 when it is off. A token that \
arrives, even an invalid one, is always judged and rejected with 401, never turned into \
anonymous. So system:anonymous in a 403 means the Authorization header did not arrive as \
\"Bearer <token>\": the client sent none (wrong kubeconfig user, empty token file, the \
token read before it was mounted), sent it malformed (two spaces after Bearer, a newline \
inside), or a proxy or ingress removed it on the way.",
    confirm: Steps::Or(
        credential_source,
        &Steps::Run(
            "send one request by hand and read the request line: a client that sends no header, or a proxy, ingress or service mesh that drops or rewrites Authorization, shows there",
            |case| super::commands::curl_version(case, &["-H", "Authorization: Bearer TOKEN"]),
        ),
    ),
    fix: Steps::Say(
        "make the client send the header exactly as Authorization: Bearer <token> (one space, no newline); check its kubeconfig user or token-file setting, and any proxy or ingress that strips Authorization",
    ),
    sources: &[
        "k8s.io/apiserver pkg/authentication/request/bearertoken/bearertoken.go",
        "k8s.io/apiserver pkg/authentication/request/anonymous",
    ],
};

/// A debug trace without the header: where the kubeconfig user's token
/// comes from tells whether one was added beneath the trace.
fn credential_source(case: &Case<'_>) -> Option<NextStep> {
    (case.bearer == Some(BearerSeen::NotInTrace)).then(|| NextStep::run(
        "the kubeconfig user's credential source: exec: or auth-provider: adds the Authorization header beneath the client's trace (it was sent: the token itself was refused); token: or tokenFile: shows in the trace, so with neither nothing was sent",
        // The user as the kubeconfig defines it: `exec:`, `auth-provider:`,
        // `token:`, `tokenFile:`.
        super::commands::kubeconfig_view("jsonpath={.users[0].user}"),
    ))
}

pub const KUBELET_TOKEN_NOT_REVIEWED: CauseDef = CauseDef {
    title: "The kubelet did not review the token",
    summary: "The kubelet answered as if no token were sent: it does not authenticate bearer tokens, or could not review this one",
    explains: &[C::Forbidden, C::Unauthorized],
    explanation: "\
The kubelet's own API (metrics, logs, exec through its port 10250) authenticates a bearer \
token only when its authentication.webhook is enabled (--authentication-token-webhook): it \
then asks kube-apiserver with a TokenReview. Without it, a request without a client \
certificate is system:anonymous whatever token it carries: 403 \"Forbidden \
(user=system:anonymous, …)\" from the kubelet's authorizer, or 401 with anonymous \
authentication off. So system:anonymous from a kubelet after a request that carried a \
token says nothing of the token: the kubelet never looked at it.",
    confirm: Steps::Run(
        "the kubelet's authentication settings (webhook.enabled false: bearer tokens are not reviewed)",
        |_| {
            crate::diagnosis::next::Command::kubectl()
                .words(&["get", "--raw", "/api/v1/nodes/NODE/proxy/configz"])
                .with_placeholders()
                .pipe_into(
                    crate::diagnosis::next::Command::new("jq")
                        .word(".kubeletconfig.authentication"),
                )
        },
    ),
    fix: Steps::Say(
        "enable the kubelet's token authentication (authentication.webhook.enabled: true in its configuration, or --authentication-token-webhook) and restart it; kubeadm sets it, some distributions do not",
    ),
    sources: &[
        "k8s.io/kubernetes pkg/kubelet/server/auth.go",
        "k8s.io/kubelet config/v1beta1 KubeletAuthentication (webhook.enabled)",
    ],
};

pub const ANONYMOUS_FORBIDDEN: CauseDef = CauseDef {
    title: "Anonymous requests are on, and this one is not allowed",
    summary: "No token was sent (--anonymous): the server takes anonymous requests as system:anonymous, and authorisation refuses this one",
    explains: &[C::Forbidden],
    explanation: "\
probe --anonymous with no token sends every request without credentials, to show what an \
anonymous request gets. A 403 naming system:anonymous means anonymous authentication is on \
(kube-apiserver's default, --anonymous-auth=true): the request got past authentication as \
system:anonymous (group system:unauthenticated), and authorisation (RBAC) does not allow \
this request. Anonymous requests may do what roles bound to system:anonymous or \
system:unauthenticated allow: by default only /version and the health endpoints \
(system:public-info-viewer).",
    confirm: ANONYMOUS_CONFIRM,
    fix: Steps::None,
    sources: &[
        "k8s.io/apiserver pkg/authentication/request/anonymous",
        "k8s.io/apiserver pkg/authentication/user (system:anonymous, system:unauthenticated)",
    ],
};

pub const ANONYMOUS_REFUSED: CauseDef = CauseDef {
    title: "This server refuses anonymous requests",
    summary: "No token was sent (--anonymous): anonymous authentication is off, so every request without credentials gets 401",
    explains: &[C::Unauthorized],
    explanation: "\
probe --anonymous with no token sends every request without credentials, to show what an \
anonymous request gets. A 401 to a request that carried no credentials means anonymous \
authentication is off (--anonymous-auth=false, or an AuthenticationConfiguration that \
allows anonymous requests only on other paths): this server refuses anonymous requests, \
and only a token or a client certificate gets an answer.",
    confirm: ANONYMOUS_CONFIRM,
    fix: Steps::None,
    sources: &[
        "k8s.io/apiserver pkg/authentication/request/anonymous",
        "k8s.io/apiserver pkg/endpoints/filters/authentication.go",
    ],
};

const ANONYMOUS_CONFIRM: Steps = Steps::Run(
    "see whether the server takes requests without credentials: /version answers 200 when anonymous authentication is on, 401 when it is off",
    |case| super::commands::curl_version(case, &[]),
);

/// Anonymous 403s, and 401s whose request carried no credentials.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    if case.token_sent == TokenSent::No {
        return asked_anonymously(case, f);
    }
    match case.classification() {
        C::Forbidden => {
            let anonymous = case
                .forbidden()
                .map_or(case.user.as_deref() == Some(ANONYMOUS), |d| {
                    d.is_anonymous()
                });
            // A 403 that names nobody, to a request shown to carry no
            // token: the server can only have seen system:anonymous.
            let unnamed_to_none = case.forbidden().is_none()
                && case.user.is_none()
                && matches!(case.bearer, Some(BearerSeen::Absent | BearerSeen::Empty));
            if !anonymous && !unnamed_to_none {
                return;
            }
            if case.forbidden().is_some_and(|d| d.kubelet) {
                return kubelet_anonymous(case, f);
            }
            let mut support: Vec<Support> = super::answer::request_message(case)
                .map(Support::answer)
                .into_iter()
                .collect();
            support.push(Support::answer(if !anonymous {
                "the request carried no token, so kube-apiserver saw system:anonymous: this 403, which names no user, is the refusal of an anonymous request"
            } else if case.token_sent == TokenSent::Yes && case.bearer.is_none() {
                "the request carried the token, yet the server saw system:anonymous: the Authorization header did not arrive as a bearer token (a present but invalid token always gets 401, never anonymous)"
            } else {
                "the request was anonymous (User \"system:anonymous\"): no token reached the server; a token that is sent but invalid always gets 401, never anonymous"
            }));
            if case.bearer == Some(BearerSeen::Empty) {
                support.push(Support::answer(
                    "the Authorization header carries no token after \"Bearer\" (an empty token or two spaces count as none)",
                ));
            }
            if case.token_sent == TokenSent::Assumed
                && let Some(sub) = case.token.and_then(|t| t.claims.subject.as_deref())
            {
                support.push(Support::token(format!(
                    "your token ({sub}) was not sent with this request"
                )));
            }
            let basis = if anonymous {
                Basis::Said
            } else {
                Basis::Inferred
            };
            f.add(Cause::TokenNotSent, basis, support);
        }
        C::Unauthorized if case.reasons.is_empty() => {
            let (basis, text) = match &case.bearer {
                // The request's own lines (curl -v, the command line) show
                // every header it carried.
                Some(BearerSeen::Absent) => (
                    Basis::Proven,
                    "the request lines show no Authorization header, and anonymous access is off (or not allowed on this path)".to_owned(),
                ),
                Some(BearerSeen::Empty) => (
                    Basis::Proven,
                    "the Authorization header has no token after \"Bearer\" (or two spaces): kube-apiserver treats that as no credentials".to_owned(),
                ),
                Some(BearerSeen::NoneExpected(why)) => (
                    Basis::Inferred,
                    format!("{why}: with anonymous access off (or not allowed on this path) such a request gets 401"),
                ),
                // A client's debug trace is taken above the layers that add
                // credentials (client-go's exec plugins and auth providers):
                // no header there proves nothing.
                Some(BearerSeen::NotInTrace) => (
                    Basis::Possible,
                    "the client's trace shows no Authorization header; client-go adds credentials from exec plugins and auth providers below the layer that traces, so this does not show that none was sent".to_owned(),
                ),
                _ => return,
            };
            f.add_fact(Cause::TokenNotSent, basis, SupportKind::Answer, text);
            if let Some(step) = credential_source(case) {
                // Sent beneath the trace, the token itself was refused.
                f.tell_apart(
                    &[
                        Cause::TokenNotSent,
                        Cause::Expired,
                        Cause::KeyMismatch,
                        Cause::IssuerMismatch,
                        Cause::AudienceMismatch,
                    ],
                    step,
                );
            }
        }
        _ => {}
    }
}

/// The kubelet named the user system:anonymous: after a request that
/// carried a token, the kubelet never reviewed it.
fn kubelet_anonymous(case: &Case<'_>, f: &mut Findings) {
    let carried =
        case.token_sent == TokenSent::Yes || matches!(case.bearer, Some(BearerSeen::Token(_)));
    if carried {
        f.add(
            Cause::KubeletTokenNotReviewed,
            Basis::Proven,
            super::answer::shown_meaning(
                case,
                "the request carried a token, and the kubelet refused it as system:anonymous: the kubelet did not review the token (its token webhook is off), which says nothing of the token itself",
            ),
        );
        return;
    }
    f.add(
        Cause::TokenNotSent,
        Basis::Inferred,
        super::answer::shown_meaning(
            case,
            "the kubelet saw system:anonymous: no token reached it, or it does not review tokens",
        ),
    );
    f.add_fact(
        Cause::KubeletTokenNotReviewed,
        Basis::Inferred,
        SupportKind::Answer,
        "a kubelet without its token webhook treats every token as absent",
    );
}

/// `probe --anonymous` with no token: what the server does with anonymous
/// requests (a 2xx needs no cause: anonymous requests may do this).
fn asked_anonymously(case: &Case<'_>, f: &mut Findings) {
    let (cause, meaning) = match case.classification() {
        C::Forbidden => {
            let user = case
                .forbidden()
                .map(|d| d.user.clone())
                .or_else(|| case.user.clone());
            let meaning = match user.as_deref() {
                Some(ANONYMOUS) => "no token was sent and the server named the user system:anonymous: anonymous authentication is on, and this request is not allowed to anonymous users".to_owned(),
                Some(other) => format!("no token was sent, yet the 403 names the user {other}: something between here and the server adds credentials"),
                None => "no token was sent and the server answered 403: anonymous requests get past authentication here, and this one is not allowed".to_owned(),
            };
            (Cause::AnonymousForbidden, meaning)
        }
        C::Unauthorized => (
            Cause::AnonymousRefused,
            "no token was sent and the server answered 401: this server refuses anonymous requests (anonymous authentication is off)".to_owned(),
        ),
        _ => return,
    };
    let mut support = match &case.answer {
        Answer::Http(_) => vec![Support::answer(
            super::answer::request_message(case).unwrap_or_else(|| super::answer::shown(case)),
        )],
        _ => Vec::new(),
    };
    support.push(Support::answer(meaning));
    f.add(cause, Basis::Observed, support);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, http, run};

    #[test]
    fn no_token_reached_the_server() {
        let anonymous = r#"forbidden: User "system:anonymous" cannot get path "/api""#;
        let c = case(http(403, Some(anonymous)), None);
        assert_eq!(run(&c), (Cause::TokenNotSent, Confidence::High));
        for bearer in [BearerSeen::Absent, BearerSeen::Empty] {
            let mut c = case(http(401, None), None);
            c.bearer = Some(bearer);
            assert_eq!(run(&c), (Cause::TokenNotSent, Confidence::High));
        }
        // A plain 401 says nothing about the header.
        let c = case(http(401, None), None);
        assert_eq!(run(&c).0, Cause::Unknown);
    }

    #[test]
    fn a_403_naming_nobody_to_a_request_without_a_token_is_anonymous_s() {
        for bearer in [BearerSeen::Absent, BearerSeen::Empty] {
            let mut c = case(http(403, Some("unknown")), None);
            c.bearer = Some(bearer);
            assert_eq!(run(&c), (Cause::TokenNotSent, Confidence::Medium));
        }
        // A client that sends none on such requests (a kubelet's probe) may
        // have asked anything, not kube-apiserver.
        let mut c = case(http(403, Some("unknown")), None);
        c.bearer = Some(BearerSeen::NoneExpected("a probe".to_owned()));
        assert_ne!(run(&c).0, Cause::TokenNotSent);
        // One that names its user is that user's refusal.
        let rbac = r#"pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "x""#;
        let mut c = case(http(403, Some(rbac)), None);
        c.bearer = Some(BearerSeen::Absent);
        assert_ne!(run(&c).0, Cause::TokenNotSent);
        // Without the fact, a bare 403 is no anonymous one.
        let c = case(http(403, Some("unknown")), None);
        assert_ne!(run(&c).0, Cause::TokenNotSent);
    }

    #[test]
    fn asked_without_a_token_on_purpose() {
        let anonymous = r#"forbidden: User "system:anonymous" cannot get path "/api""#;
        let mut c = case(http(403, Some(anonymous)), None);
        c.token_sent = TokenSent::No;
        assert_eq!(run(&c), (Cause::AnonymousForbidden, Confidence::High));
        let mut c = case(http(401, None), None);
        c.token_sent = TokenSent::No;
        assert_eq!(run(&c), (Cause::AnonymousRefused, Confidence::High));
        let mut c = case(http(200, None), None);
        c.token_sent = TokenSent::No;
        assert_eq!(run(&c).0, Cause::None);
    }
}
