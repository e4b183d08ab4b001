//! Answers that settle the question by themselves: 2xx (nothing wrong), 404
//! (authenticated and authorised: authorisation runs before routing in the
//! k8s.io/apiserver handler chain), redirects, throttling, server errors, and
//! answers that did not come from kube-apiserver at all. Also the definition
//! of `unknown`, the cause named when the evidence does not say.

use super::prelude::*;
use crate::diagnosis::facts::{AnswerOrigin, HttpAnswer, NotFound};

pub const NONE: CauseDef = CauseDef {
    title: "Nothing wrong",
    summary: "The token was accepted and the request allowed",
    explains: &[C::Ok],
    explanation: "\
The API server authenticated the token and authorised the request: a 2xx answer, a \
TokenReview with status.authenticated true, or a SelfSubjectAccessReview that allows the \
request.

If a workload still fails, it is not sending this token (compare fingerprints with \
kubectl satoken decode), or it fails later, in code that reads the answer.",
    confirm: Steps::None,
    fix: Steps::None,
    sources: &["k8s.io/apiserver pkg/endpoints/filters (authentication, authorization)"],
};

pub const OBJECT_NOT_FOUND: CauseDef = CauseDef {
    title: "The object does not exist",
    summary: "Authenticated and authorised; the object (or resource type) does not exist",
    explains: &[C::NotFound],
    explanation: "\
A 404 is never an authentication failure. kube-apiserver's handler chain runs \
authentication, then authorisation, then routes the request: a 404 means the token was \
accepted and RBAC allowed the request, and then the object, the namespace or the resource \
type was not there.

Look at the request itself: the name, the namespace and the API group in the path, and \
whether the resource type is served by this cluster (a CRD that is not installed, an API \
version that was removed).",
    confirm: Steps::Run(
        "check that the resource type is served by this cluster",
        |_| Command::kubectl().word("api-resources"),
    ),
    fix: Steps::Say(
        "the token and RBAC are fine: correct the name, namespace or API group in the request",
    ),
    sources: &["k8s.io/apiserver pkg/server/config.go DefaultBuildHandlerChain"],
};

pub const WRONG_ENDPOINT: CauseDef = CauseDef {
    title: "Sent where nothing serves it",
    summary: "The request went to an address with nothing behind it: a Service that does not exist or lacks that port, a path or namespace where nothing is mounted; the token was never judged",
    explains: &[C::OtherStatus],
    explanation: "\
A configuration names where a request goes, and nothing is there. kube-apiserver calls an \
admission webhook or an aggregated API at the Service its configuration names \
(clientConfig.service, an APIService's spec.service): when its lister finds no such \
Service, it answers 500 with `service \"NAME\" not found`; when the Service has no such \
port, `no service port N found for service`. A misspelt name, another namespace, or a \
Service not created yet (a chart installing its webhook configuration first) all read \
so. Vault asks for a Vault token (`missing client token`) when a login goes to a path no \
auth method is mounted at in that namespace: the mount path, or X-Vault-Namespace. Either \
way the ServiceAccount token was never looked at.",
    confirm: Steps::If(
        by_a_service,
        &Steps::Say(
            "the auth methods mounted in the namespace the login goes to (vault auth list, with VAULT_NAMESPACE or -namespace set as the client sets it), and the client's login path",
        ),
        &Steps::Run(
            "the Services webhook configurations and APIServices send to (name, namespace, port)",
            |_| {
                Command::kubectl().words(&[
                    "get",
                    "validatingwebhookconfigurations,mutatingwebhookconfigurations,apiservices",
                    "-o",
                    "yaml",
                ])
            },
        ),
    ),
    fix: Steps::If(
        by_a_service,
        &Steps::Say(
            "log in at the auth mount's path in its namespace (auth/MOUNT/login, X-Vault-Namespace)",
        ),
        &Steps::Say(
            "point the webhook's clientConfig.service or the APIService's spec.service (name, namespace, port) at a Service that exists, or create it",
        ),
    ),
    sources: &[
        "k8s.io/apiserver pkg/util/proxy/proxy.go (ResolveEndpoint)",
        "hashicorp/vault vault/request_handling.go",
    ],
};

/// A service (Vault) answered for itself, not kube-apiserver about a call.
fn by_a_service(case: &Case<'_>) -> bool {
    case.answer.http().is_some_and(|h| h.verdict.is_some())
}

pub const API_NOT_SERVED: CauseDef = CauseDef {
    title: "The API is not served",
    summary: "404 for the API itself, not for an object: this server does not serve the group, version or endpoint asked for",
    explains: &[C::NotFound, C::CheckerFailure],
    explanation: "\
A missing object gets a Status naming it (pods \"web-0\" not found). A request for an API \
the server does not serve gets a 404 without one, which clients print as \"the server \
could not find the requested resource\": the client asks for a group or version this \
server no longer (or not yet) serves, such as extensions/v1beta1 Deployments after 1.16 \
from an old kubectl or plugin; a CRD that is not installed; or an endpoint that is off, \
such as TokenRequest (serviceaccounts/token) on a server started without \
--service-account-issuer and --service-account-signing-key-file, which a kubelet mounting \
projected tokens then gets. A create (POST to a collection) that gets 404 is the same: \
there is no object yet that could be missing.

Authentication and authorization passed; the token is fine.",
    confirm: Steps::All(&[
        Steps::Run("the groups and versions this server serves", |_| {
            Command::kubectl().word("api-versions")
        }),
        Steps::Run(
            "client and server versions (a client far from the server asks for APIs it does not have)",
            |_| Command::kubectl().word("version"),
        ),
    ]),
    fix: Steps::Say(
        "use an API version the server serves (upgrade the client or plugin, migrate manifests to current versions), install the CRD, or enable the API on the server",
    ),
    sources: &[
        "k8s.io/apimachinery pkg/api/errors NewGenericServerResponse",
        "k8s.io/apiserver pkg/server/mux (NotFoundHandler)",
    ],
};

pub const REDIRECTED: CauseDef = CauseDef {
    title: "Redirected",
    summary: "The server answered with a redirect, which is never followed with a token",
    explains: &[C::OtherStatus],
    explanation: "\
kube-apiserver does not redirect API requests; a 3xx comes from something in front of it \
(a proxy or load balancer with a login page, an HTTP-to-HTTPS redirect). satoken never \
follows a redirect with the token, so the token was not sent to the new location, and \
neither should your client send it there.",
    confirm: Steps::Run("the API server URL your kubeconfig uses", |_| {
        super::commands::kubeconfig_view(super::commands::KUBECONFIG_SERVER)
    }),
    fix: Steps::Say(
        "point the client at the API server itself, not at a proxy or load balancer that redirects",
    ),
    sources: &["kubectl-satoken: tokens never cross a redirect (docs/probe.md)"],
};

pub const THROTTLED: CauseDef = CauseDef {
    title: "Throttled",
    summary: "429: the server asked the client to retry later (API Priority and Fairness, its watch cache not ready, or a proxy); the token is not judged",
    explains: &[C::OtherStatus],
    explanation: "\
A 429 Too Many Requests is not about the token: kube-apiserver's API Priority and \
Fairness rejected the request because its priority level was full (authentication had \
already succeeded by then), its watch cache was not ready yet (`storage is \
(re)initializing`, after a restart, with a Retry-After), or a proxy in front of it \
rate-limited the client.",
    confirm: Steps::Run("see which priority levels reject requests", |_| {
        Command::kubectl().words(&["get", "flowschemas,prioritylevelconfigurations"])
    }),
    fix: Steps::Say(
        "retry with backoff; reduce the client's request rate, or give it a FlowSchema with more concurrency",
    ),
    sources: &[
        "k8s.io/apiserver pkg/util/flowcontrol",
        "k8s.io/apiserver pkg/storage/cacher (cacher.go, ready.go: storage is (re)initializing)",
    ],
};

pub const SERVER_ERROR: CauseDef = CauseDef {
    title: "Server error",
    summary: "5xx: the API server (or a proxy or aggregated API in front of it) failed; the token is not the problem",
    explains: &[C::OtherStatus],
    explanation: "\
A 5xx answer means the server side failed: kube-apiserver itself (etcd unavailable, a \
webhook that times out), an aggregated API server, or a proxy or load balancer in front of \
it. Authentication problems are always 401, never 5xx.",
    confirm: Steps::Run("ask the API server which of its checks fail", |_| {
        Command::kubectl().words(&["get", "--raw", "/readyz?verbose"])
    }),
    fix: Steps::Say(
        "read the kube-apiserver log (and the aggregated API's or proxy's) at the time of the request",
    ),
    sources: &["k8s.io/apiserver pkg/endpoints/handlers/responsewriters"],
};

pub const NOT_API_SERVER: CauseDef = CauseDef {
    title: "Not the API server answering",
    summary: "Something other than kube-apiserver answered; its status says nothing about the token",
    explains: &[C::NotKubernetes],
    explanation: "\
kube-apiserver answers errors with a Kubernetes Status object (JSON with kind Status), \
and its discovery and review APIs with JSON of a known shape. This answer was something \
else: an HTML page, a proxy's own 401 (WWW-Authenticate: Basic), a web application \
firewall's 403, or a web server that answers 200 on every path. Such an answer says \
nothing about whether the token is valid, and the token may have gone to the wrong \
service.

Check the URL: the port, a path prefix, and whatever sits between the client and the API \
server (ingress, auth proxy, load balancer).",
    confirm: Steps::Run(
        "a real API server answers /version with its gitVersion (no token needed)",
        |case| super::commands::curl_version(case, &[]),
    ),
    fix: Steps::Say(
        "point the client at the API server itself (the kubeconfig's cluster.server, or https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT in a pod)",
    ),
    sources: &[
        "k8s.io/apimachinery pkg/apis/meta/v1 Status",
        "kubectl-satoken docs/probe.md",
    ],
};

pub const UNKNOWN: CauseDef = CauseDef {
    title: "The evidence does not say",
    summary: "The evidence does not say which cause; the candidates below all fit",
    explains: &[
        C::Unauthorized,
        C::Forbidden,
        C::OtherStatus,
        C::NetworkError,
    ],
    explanation: "\
A 401 body is always the same generic Status (\"Unauthorized\"): kube-apiserver writes the \
reason only to its own log (\"Unable to authenticate the request\" err=\"[…]\") and into a \
TokenReview's status.error. Without one of those, several causes fit the same answer, and \
satoken lists them with the command that checks each.

To get the reason: run classify on the API server's log lines from the time of the \
request, or ask for a TokenReview with credentials allowed to create one (probe \
--token-review). Giving the token lets satoken check its times and bindings too.",
    confirm: Steps::For(unknown_confirm),
    fix: Steps::None,
    sources: &["k8s.io/apiserver pkg/endpoints/filters/authentication.go"],
};

fn unknown_confirm(case: &Case<'_>) -> Vec<NextStep> {
    let mut steps = Vec::new();
    if let Some(crate::diagnosis::facts::ReviewSeen::NotAllowed { .. }) = &case.review {
        steps.push(NextStep::run(
            "the kubeconfig identity may not create TokenReviews: it needs the create verb on tokenreviews (e.g. the system:auth-delegator ClusterRole)",
            Command::kubectl().words(&[
                "auth",
                "can-i",
                "create",
                "tokenreviews.authentication.k8s.io",
            ]),
        ));
    }
    if let Some(h) = case.answer.http()
        && let Some(v) = &h.verdict
    {
        // kube-apiserver never saw the request: the service that refused it
        // (or answered otherwise) has the reason.
        let did = if super::services::refused(v, h.code()) {
            "refused it"
        } else {
            "answered"
        };
        steps.push(NextStep::say(format!(
            "{} {did}, not kube-apiserver: its whole answer (error code, description) and its own logs say what it judged",
            v.service
        )));
    } else if let Some(relay) = case.answer.http().and_then(|h| h.relay_only()) {
        // A checker's own error: its log has what it checked, and whether
        // kube-apiserver was asked at all.
        steps.push(NextStep::say(format!(
            "read {relay}'s log near the time of the request: it says what {relay} checked and why it refused, and whether it asked kube-apiserver at all"
        )));
    } else if matches!(case.classification(), C::Unauthorized) {
        // The server's reason already read (its log line, a TokenReview) is
        // all that line or a TokenReview would add.
        if case.reasons.is_empty() {
            steps.push(NextStep::say(
                "on the control plane, the kube-apiserver log line \"Unable to authenticate the request\" carries the reason the 401 body omits: run kubectl satoken classify on it",
            ));
            steps.push(NextStep::run(
                "or ask the API server for the reason, as a kubeconfig identity allowed to create tokenreviews",
                Command::satoken()
                    .words(&["probe", "-f", "TOKEN_FILE", "--token-review"])
                    .with_placeholders(),
            ));
        }
        if case.token.is_none() {
            steps.push(NextStep::run(
                "or give the token, so its times and bindings are checked at the evidence's instant",
                Command::satoken()
                    .words(&["classify", "EVIDENCE_FILE", "--token-file", "TOKEN_FILE"])
                    .with_placeholders(),
            ));
        }
    } else {
        steps.push(NextStep::say(
            "read the server's message, and the kube-apiserver log near the time of the request",
        ));
    }
    steps
}

/// 2xx, 404, 3xx, 429, 5xx and answers from something else.
pub fn rule(case: &Case<'_>, f: &mut Findings) {
    match &case.answer {
        Answer::Authenticated(how) => {
            f.add_fact(Cause::None, Basis::Said, SupportKind::Answer, how.clone())
        }
        Answer::Access(a) if a.allowed => {
            let mut support = Vec::new();
            if let Some(user) = &case.user {
                support.push(Support::answer(format!("authenticated as {user}")));
            }
            support.push(Support::answer(format!(
                "SelfSubjectAccessReview: allowed to {}",
                case.request.clone().unwrap_or_default().describe()
            )));
            f.add(Cause::None, Basis::Said, support);
        }
        Answer::Http(HttpAnswer {
            origin: AnswerOrigin::Other(why),
            ..
        }) => f.add(
            Cause::NotApiServer,
            case.witness.basis(),
            shown_meaning(case, why),
        ),
        Answer::Http(h) if let Some(relay) = h.relay_only() => {
            // A checker's own status: not kube-apiserver's answer.
            let status = format!(
                "{relay} answered {} with its own error{}: the status is {relay}'s, not kube-apiserver's",
                h.code()
                    .map_or("an error".to_owned(), |c| format!("HTTP {c}")),
                h.message
                    .as_deref()
                    .map(|m| format!(" \"{m}\""))
                    .unwrap_or_default()
            );
            let log = format!(
                "{relay}'s log (and its configuration for Kubernetes) says what it checked and why it refused"
            );
            let support = vec![Support::answer(status), Support::answer(log)];
            f.when(When::NothingStandsOut, |f| {
                f.add(Cause::Unknown, Basis::Inferred, support);
            });
        }
        Answer::Http(h) => match h.code() {
            Some(200..=299) => f.add_fact(
                Cause::None,
                Basis::Proven,
                SupportKind::Answer,
                match &case.user {
                    Some(user) => format!("{}: authenticated as {user}", shown(case)),
                    None => format!("{}: authenticated and authorised", shown(case)),
                },
            ),
            Some(404) => not_found(case, f),
            Some(code @ 300..=399) => {
                let to = h.location.as_deref().unwrap_or("(no Location)");
                let not_followed = "redirects are not followed, so the token was not sent to the new location; kube-apiserver itself does not redirect API requests";
                let support = vec![
                    Support::answer(format!("{}: HTTP {code} redirect to {to}", shown(case))),
                    Support::answer(not_followed),
                ];
                f.add(Cause::Redirected, Basis::Said, support);
            }
            Some(429) => f.add_fact(
                Cause::Throttled,
                Basis::Said,
                SupportKind::Answer,
                shown(case),
            ),
            Some(500..=599) => {
                onward(case, f);
                // A status alone does not say who failed, nor that nothing
                // but its failure stands behind it (a checker may answer 500
                // for a refusal; `InternalError` is also the reason of a
                // failed webhook call): the server's own words do, when
                // nothing else explains it.
                let said = h.message.as_deref().is_some_and(|m| !m.trim().is_empty());
                let basis = if said { Basis::Said } else { Basis::Inferred };
                let fact = |f: &mut Findings, basis| {
                    f.add_fact(Cause::ServerError, basis, SupportKind::Answer, shown(case));
                };
                fact(f, Basis::Possible);
                f.when(When::NothingStandsOut, |f| fact(f, basis));
            }
            Some(401 | 403) => {}
            _ if matches!(case.classification(), C::Unauthorized | C::Forbidden) => {}
            _ if onward(case, f) => {}
            code => {
                let mut support = vec![Support::answer(format!(
                    "{}: {} is not an authentication answer: the token was accepted or never judged",
                    shown(case),
                    code.map_or("this status".to_owned(), |c| format!("HTTP {c}"))
                ))];
                if let Some(m) = &h.message {
                    support.push(Support::answer(format!("server message: {m}")));
                }
                f.when(When::NothingStandsOut, |f| {
                    f.add(Cause::Unknown, Basis::Inferred, support);
                });
            }
        },
        _ => {}
    }
}

/// A 404: a missing object, or an API the server does not serve.
fn not_found(case: &Case<'_>, f: &mut Findings) {
    let generic = case.not_found == Some(NotFound::Api);
    let named = case.not_found == Some(NotFound::Object);
    let create = case.request.as_ref().is_some_and(|r| {
        r.verb.as_deref() == Some("create") && r.name.is_none() && r.path.is_none()
    });
    if generic {
        let meaning = "these words are a 404 for a path or a type, not for an object: the server does not serve this API (group, version, resource type or endpoint)";
        f.add(
            Cause::ApiNotServed,
            Basis::Said,
            shown_meaning(case, meaning),
        );
        return;
    }
    if create && !named {
        let meaning = "a create (POST to a collection) got 404: no object could be missing yet, so the server does not serve this API";
        f.add(
            Cause::ApiNotServed,
            Basis::Inferred,
            shown_meaning(case, meaning),
        );
        f.add_fact(
            Cause::ObjectNotFound,
            Basis::Possible,
            SupportKind::Answer,
            "or a namespace or parent object in the path does not exist",
        );
        return;
    }
    f.add(
        Cause::ObjectNotFound,
        if named { Basis::Said } else { Basis::Inferred },
        shown_meaning(
            case,
            "the token was accepted and the request authorised (authorisation runs before routing, so a 404 is never an authentication failure); the object does not exist",
        ),
    );
    if !named {
        // A 404 with no message naming an object: a missing object and an
        // API the server does not serve answer the same.
        f.add_fact(
            Cause::ApiNotServed,
            Basis::Inferred,
            SupportKind::Answer,
            "or the server does not serve this API (group, version or endpoint): the message that would name an object is not in the evidence",
        );
        f.tell_apart(
            &[Cause::ObjectNotFound, Cause::ApiNotServed],
            NextStep::run(
                "does the server serve the API at all? (a list of the group's resources; NotFound means the API is not served)",
                Command::kubectl().word("api-resources").flag_value(
                    "--api-group",
                    case.request.as_ref().and_then(|r| r.api_group.as_deref()),
                    "GROUP",
                ),
            ),
        );
    }
}

/// The server answered with an error about its own onward call (to an
/// admission webhook, to a kubelet): that call's failure is the cause.
fn onward(case: &Case<'_>, f: &mut Findings) -> bool {
    let Some(failure) = &case.onward else {
        return false;
    };
    if failure.cause == Cause::Unknown {
        f.add(
            Cause::ServerError,
            Basis::Inferred,
            shown_meaning(
                case,
                "kube-apiserver failed on something of its own (a call to a webhook, a kubelet or an aggregated API, or a step of its own), and the message does not say how: the token was accepted",
            ),
        );
        return true;
    }
    let support = shown_meaning(
        case,
        "kube-apiserver answered, with an error about a call of its own (to an admission webhook, to a kubelet for exec, logs or port-forward, or through its proxy to a Service or pod): that connection failed, not the client's, and the token was accepted",
    );
    if failure.also.is_empty() {
        f.add(failure.cause, Basis::Said, support);
    } else {
        super::transport::several(case, failure, support, f);
    }
    true
}

/// A 401 and nothing else: every cause of a rejected token fits. Listed as
/// candidates (never as the answer), with the command that tells them apart.
pub fn bare_unauthorized(case: &Case<'_>, f: &mut Findings) {
    if case.token.is_some() {
        return;
    }
    let mut candidates: Vec<(Cause, &str)> = vec![(
        Cause::Expired,
        "the commonest: the token's exp has passed (projected tokens last about an hour and the client must re-read the file; cloud exec tokens 15 minutes): a client that worked for a while and then gets 401 fits",
    )];
    candidates.push((
        Cause::ClockSkew,
        "a clock that runs ahead or behind: a token minted where the clock is ahead is not yet valid (nbf, iat) on a server whose clock is behind, for the seconds of the difference; a 401 that goes away on retry fits",
    ));
    if case.bearer.is_none() {
        candidates.push((
            Cause::TokenNotSent,
            "no token reached the server and anonymous access is off (or not allowed on this path)",
        ));
    }
    candidates.extend([
        (
            Cause::ServiceAccountRecreated,
            "the token's ServiceAccount was deleted and recreated (a new uid)",
        ),
        (
            Cause::ServiceAccountDeleted,
            "the token's ServiceAccount was deleted",
        ),
        (
            Cause::PodDeleted,
            "the pod the token is bound to was deleted",
        ),
        (
            Cause::SecretDeleted,
            "a legacy token (no exp) whose Secret was deleted",
        ),
        (
            Cause::LegacyTokenInvalidated,
            "a legacy token (no exp) the API server's cleaner invalidated after a year unused (1.29+)",
        ),
        (
            Cause::KeyMismatch,
            "the token was signed by a key the server does not have (another cluster, a rotated key)",
        ),
        (
            Cause::SignatureInvalid,
            "the token was altered or cut on the way, or signed by another key",
        ),
        (
            Cause::IssuerMismatch,
            "the token's iss is not one of the server's issuers (another cluster, an issuer change)",
        ),
        (
            Cause::AudienceMismatch,
            "the token's audiences do not include the API server's",
        ),
    ]);
    let causes: Vec<Cause> = candidates.iter().map(|(c, _)| *c).collect();
    for (cause, why) in candidates {
        f.add_fact(
            cause,
            Basis::Possible,
            SupportKind::Answer,
            format!("fits a 401 with no reason: {why}"),
        );
    }
    f.tell_apart(
        &causes,
        NextStep::run(
            "the token's exp, iss, aud, kid and bound objects tell most of these apart",
            super::commands::decode_token(),
        ),
    );
}

/// The request as shown (or `HTTP`) and the server's message, when it sent one.
pub fn request_message(case: &Case<'_>) -> Option<String> {
    let h = case.answer.http()?;
    let message = h.message.as_ref()?;
    Some(format!(
        "{}: {message}",
        h.request_line.as_deref().unwrap_or("HTTP")
    ))
}

/// The request and its status as shown, then what it means.
pub fn shown_meaning(case: &Case<'_>, meaning: impl Into<String>) -> Vec<Support> {
    vec![Support::answer(shown(case)), Support::answer(meaning)]
}

/// The request and its status: `GET /api/v1/…: 404 NotFound: …`,
/// `401 Unauthorized`.
pub fn shown(case: &Case<'_>) -> String {
    let h = match &case.answer {
        Answer::Http(h) => h,
        Answer::Rejected => return "401 Unauthorized".to_owned(),
        _ => return String::new(),
    };
    // `404 NotFound`: the code and reason the answer has, if any.
    let code = h.code().map_or(String::new(), |c| c.to_string());
    let head = format!("{code} {}", h.reason.as_deref().unwrap_or(""));
    let head = head.trim();
    let mut status = if head.is_empty() { "HTTP" } else { head }.to_owned();
    if let Some(m) = h.message.as_deref()
        && Some(m) != h.reason.as_deref()
        && !m.is_empty()
    {
        status = format!("{status}: {m}");
    }
    match &h.request_line {
        Some(r) => format!("{r}: {status}"),
        // Without a code or reason, the status already says `HTTP`.
        None if head.is_empty() => status,
        None => format!("HTTP {status}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::facts::AccessVerdict;
    use crate::diagnosis::merge::Confidence;
    use crate::diagnosis::testing::{case, diagnosed, http, run};

    /// A 401 and nothing else names every cause of a rejected token as a
    /// candidate, a legacy token's among them, and claims none.
    #[test]
    fn a_bare_401_lists_every_rejection() {
        let d = diagnosed(&case(http(401, None), None));
        assert_eq!(d.cause(), Cause::Unknown);
        let listed: Vec<Cause> = d.candidates.iter().map(|c| c.cause).collect();
        for cause in [
            Cause::Expired,
            Cause::ServiceAccountRecreated,
            Cause::PodDeleted,
            Cause::SecretDeleted,
            Cause::LegacyTokenInvalidated,
            Cause::KeyMismatch,
        ] {
            assert!(listed.contains(&cause), "{cause:?}: {listed:?}");
        }
    }

    /// A 500 with InternalError's reason is NewInternalError's, which wraps
    /// an error of its own: cut before that error, it is no certain fault of
    /// the API server's.
    #[test]
    fn an_internal_error_cut_short_is_no_certain_server_fault() {
        let answer = |reason: Option<&str>| {
            Answer::Http(HttpAnswer {
                status: Some(500),
                reason: reason.map(str::to_owned),
                message: Some("Internal".to_owned()),
                origin: crate::diagnosis::facts::AnswerOrigin::Kubernetes,
                ..HttpAnswer::default()
            })
        };
        let cut = run(&case(answer(Some("InternalError")), None));
        assert_eq!(cut, (Cause::ServerError, Confidence::Medium));
        let bare = run(&case(answer(None), None));
        assert_eq!(bare, (Cause::ServerError, Confidence::High));
    }

    #[test]
    fn answers_that_settle_it() {
        use Confidence::{High, Medium};
        let other = Answer::Http(HttpAnswer {
            status: Some(200),
            origin: AnswerOrigin::Other("an HTML page".to_owned()),
            ..HttpAnswer::default()
        });
        let not_found = http(404, Some("pods \"x\" not found"));
        let allowed = Answer::Access(AccessVerdict {
            allowed: true,
            ..AccessVerdict::default()
        });
        let table = [
            (http(200, None), Cause::None, High),
            (http(201, None), Cause::None, High),
            (not_found, Cause::ObjectNotFound, High),
            (http(302, None), Cause::Redirected, High),
            (http(429, None), Cause::Throttled, High),
            (http(503, Some("etcd")), Cause::ServerError, High),
            // A reason without the server's words (a cut line) names no failure.
            (
                Answer::Http(HttpAnswer {
                    reason: Some("InternalError".to_owned()),
                    message: Some(" ".to_owned()),
                    ..HttpAnswer::with_status(500, 3)
                }),
                Cause::ServerError,
                Medium,
            ),
            (http(400, Some("bad")), Cause::Unknown, Medium),
            // A pasted client's rendering: what answered is inferred.
            (other, Cause::NotApiServer, Medium),
            (
                Answer::Authenticated("TokenReview".into()),
                Cause::None,
                High,
            ),
            (allowed, Cause::None, High),
        ];
        for (answer, cause, confidence) in table {
            let c = case(answer.clone(), None);
            assert_eq!(run(&c), (cause, confidence), "{answer:?}");
        }
    }

    /// kube-apiserver's call that found no Service (or no such port) for a
    /// webhook went nowhere: the configuration names what is not there.
    #[test]
    fn an_onward_call_to_nothing_is_a_wrong_endpoint() {
        for message in [
            r#"Internal error occurred: failed calling webhook "w.example.io": Post "https://w.ns.svc:443/m?timeout=10s": service "w" not found"#,
            r#"Internal error occurred: failed calling webhook "w.example.io": Post "https://w.ns.svc:443/m": no service port 443 found for service "w""#,
        ] {
            let c = case(http(500, Some(message)), None);
            assert_eq!(
                run(&c),
                (Cause::WrongEndpoint, Confidence::High),
                "{message}"
            );
        }
        // Found, but nothing ready behind it: not this cause.
        let c = case(
            http(
                500,
                Some(
                    r#"Internal error occurred: failed calling webhook "w": no endpoints available for service "w""#,
                ),
            ),
            None,
        );
        assert_ne!(run(&c).0, Cause::WrongEndpoint);
    }

    /// The steps that look for the server's reason are for answers without
    /// one; a service that refused the request itself is pointed at instead.
    #[test]
    fn unknown_steps_look_where_the_reason_is() {
        use crate::diagnosis::facts::ServiceVerdict;
        let whys = |c: &Case<'_>| -> Vec<String> {
            let d = diagnosed(c);
            d.top().next.iter().map(|s| s.why.clone()).collect()
        };
        let looks_for_the_log = |w: &[String]| w.iter().any(|w| w.contains("log line"));
        let bare = case(http(401, None), None);
        assert!(looks_for_the_log(&whys(&bare)));
        let mut said = bare.clone();
        said.answer = Answer::Rejected;
        said.reasons = crate::diagnosis::reasons::parse_auth_error("invalid bearer token");
        assert!(!looks_for_the_log(&whys(&said)));
        // A 401 from the service too: kube-apiserver's log has nothing of it.
        for status in [400, 401] {
            let refused = case(
                Answer::Http(HttpAnswer {
                    status: Some(status),
                    verdict: Some(ServiceVerdict {
                        cause: Cause::Unknown,
                        service: "an OAuth 2.0 token endpoint",
                        cloud: None,
                        alternatives: &[],
                        detail: "oauth2: cannot fetch token: 400 Bad Request".to_owned(),
                    }),
                    ..HttpAnswer::default()
                }),
                None,
            );
            let steps = whys(&refused);
            assert!(
                steps[0].starts_with("an OAuth 2.0 token endpoint refused it, not kube-apiserver"),
                "{steps:?}"
            );
            assert!(!steps.iter().any(|w| w.contains("kube-apiserver log")));
            assert!(!looks_for_the_log(&steps), "{status}");
        }
        // A checker's own error (Vault's `* missing client token`): its log.
        let relayed = case(
            Answer::Http(HttpAnswer {
                message: Some("missing client token".to_owned()),
                ..HttpAnswer::relayed("Vault", None, 0)
            }),
            None,
        );
        let steps = whys(&relayed);
        assert!(steps[0].starts_with("read Vault's log"), "{steps:?}");
        assert!(!steps.iter().any(|w| w.contains("kube-apiserver log")));
    }
}
