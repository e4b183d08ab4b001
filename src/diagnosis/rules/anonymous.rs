//! No token reached the server. A request without credentials is
//! `system:anonymous`: 403 when anonymous authentication is on, 401 when it is
//! off. A token that arrives but is invalid always gets 401 and never becomes
//! anonymous (k8s.io/apiserver request/union and anonymous authenticators), so a
//! 403 as `system:anonymous` proves the header did not arrive as a bearer token.

use crate::diagnosis::Cause;
use crate::diagnosis::case::{Answer, BearerSeen, Case, TokenSent};
use crate::diagnosis::cause::CauseDef;
use crate::diagnosis::classification::Classification as C;
use crate::diagnosis::forbidden::ANONYMOUS;
use crate::diagnosis::merge::{Confidence, Findings};
use crate::diagnosis::next::NextStep;
use crate::diagnosis::support::{Support, SupportKind};

pub const TOKEN_NOT_SENT: CauseDef = CauseDef {
    code: "token-not-sent",
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
    confirm,
    fix,
    sources: &[
        "k8s.io/apiserver pkg/authentication/request/bearertoken/bearertoken.go",
        "k8s.io/apiserver pkg/authentication/request/anonymous",
    ],
};

fn confirm(case: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::run(
        "send one request by hand and read the request line: a client that sends no header, or a proxy, ingress or service mesh that drops or rewrites Authorization, shows there",
        super::commands::curl_version(case, &["-H", "Authorization: Bearer TOKEN"]),
    )]
}

fn fix(_: &Case<'_>) -> Vec<NextStep> {
    vec![NextStep::say(
        "make the client send the header exactly as Authorization: Bearer <token> (one space, no newline); check its kubeconfig user or token-file setting, and any proxy or ingress that strips Authorization",
    )]
}

/// Anonymous 403s, and 401s whose request carried no credentials.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    match case.classification() {
        C::Forbidden => {
            let anonymous = match case.forbidden() {
                Some(d) => d.is_anonymous(),
                None => case.user.as_deref() == Some(ANONYMOUS),
            };
            if !anonymous {
                return;
            }
            let mut support = Vec::new();
            if let Answer::Http(h) = &case.answer
                && let Some(m) = &h.message
            {
                support.push(Support::new(
                    SupportKind::Answer,
                    format!("{}: {m}", super::answer::shown_request(case)),
                ));
            }
            support.push(Support::new(
                SupportKind::Answer,
                if case.token_sent == TokenSent::Yes && case.bearer.is_none() {
                    "the request carried the token, yet the server saw system:anonymous: the Authorization header did not arrive as a bearer token (a present but invalid token always gets 401, never anonymous)"
                } else {
                    "the request was anonymous (User \"system:anonymous\"): no token reached the server; a token that is sent but invalid always gets 401, never anonymous"
                },
            ));
            if case.bearer == Some(BearerSeen::Empty) {
                support.push(Support::new(
                    SupportKind::Answer,
                    "the Authorization header carries no token after \"Bearer\" (an empty token or two spaces count as none)",
                ));
            }
            if case.token_sent == TokenSent::Assumed
                && let Some(sub) = case.token.and_then(|t| t.claims.subject.as_deref())
            {
                support.push(Support::new(
                    SupportKind::Token,
                    format!("your token ({sub}) was not sent with this request"),
                ));
            }
            f.add(Cause::TokenNotSent, Confidence::High, support);
        }
        C::Unauthorized if case.reasons.is_empty() => {
            if let Answer::Http(h) = &case.answer
                && let Some(m) = h
                    .message
                    .as_deref()
                    .filter(|m| m.contains("no credentials provided"))
            {
                f.add(
                    Cause::TokenNotSent,
                    Confidence::High,
                    vec![Support::new(
                        SupportKind::Audit,
                        format!(
                            "audit: \"{m}\": the request carried no credentials and anonymous access is off"
                        ),
                    )],
                );
            }
            match &case.bearer {
                Some(BearerSeen::Absent) => f.add(
                    Cause::TokenNotSent,
                    Confidence::High,
                    vec![Support::new(
                        SupportKind::Answer,
                        "the request lines show no Authorization header, and anonymous access is off (or not allowed on this path)",
                    )],
                ),
                Some(BearerSeen::Empty) => f.add(
                    Cause::TokenNotSent,
                    Confidence::High,
                    vec![Support::new(
                        SupportKind::Answer,
                        "the Authorization header has no token after \"Bearer\" (or two spaces): kube-apiserver treats that as no credentials",
                    )],
                ),
                Some(BearerSeen::NoneExpected(why)) => f.add(
                    Cause::TokenNotSent,
                    Confidence::Medium,
                    vec![Support::new(
                        SupportKind::Answer,
                        format!("{why}: with anonymous access off (or not allowed on this path) such a request gets 401"),
                    )],
                ),
                _ => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let c = case(
            http(401, Some("Authentication failed: no credentials provided")),
            None,
        );
        assert_eq!(run(&c), (Cause::TokenNotSent, Confidence::High));
        // A plain 401 says nothing about the header.
        let c = case(http(401, None), None);
        assert_eq!(run(&c).0, Cause::Unknown);
    }
}
