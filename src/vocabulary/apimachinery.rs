//! kube-apiserver's own words about an answer: every `metav1.StatusReason`
//! with the code apimachinery sends it with, every message template of
//! `k8s.io/apimachinery/pkg/api/errors`, client-go's texts for an answer that
//! carried no Status body (`NewGenericServerResponse`), kubectl's, the
//! authorizer's sentence (`forbiddenMessage`) with the managed clusters'
//! suffixes, and the HTTP reason phrases and enum names clients print beside
//! a code.
//!
//! Templates mark a value with a `{name}` placeholder; [`Template::parts`]
//! gives the fixed words between them, which is what a reader looks for.

/// `metav1.StatusReason` and its codes.
pub const TYPES_GO: &str = "k8s.io/apimachinery/pkg/apis/meta/v1/types.go";
/// The constructors of every Status kube-apiserver sends.
pub const ERRORS_GO: &str = "k8s.io/apimachinery/pkg/api/errors/errors.go";
/// The authorizer's refusal sentence.
pub const RESPONSEWRITERS_GO: &str =
    "k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go";
/// The in-flight limit and API Priority and Fairness: a plain-text 429.
pub const MAXINFLIGHT_GO: &str = "k8s.io/apiserver/pkg/server/filters/maxinflight.go";
/// The RESTMapper's errors for a type discovery did not list.
pub const META_ERRORS_GO: &str = "k8s.io/apimachinery/pkg/api/meta/errors.go";
/// client-go's error for an answer whose body it could not read as a Status.
const CLIENT_GO_UNREAD: &str = "k8s.io/client-go rest/request.go (newUnstructuredResponseError: message \"unknown\" unless the body is text) with errors.go NewGenericServerResponse (a 403 keeps that message; 415, which also would, answers no GET or DELETE)";
/// kubectl's words for a 401.
pub const KUBECTL_HELPERS_GO: &str = "k8s.io/kubectl/pkg/cmd/util/helpers.go";
/// Go's reason phrases (`http.StatusText`) and .NET's `HttpStatusCode` names.
pub const STATUS_TEXT: &str =
    "Go net/http/status.go (StatusText, RFC 9110); .NET System.Net.HttpStatusCode";

/// The versions of a row present since apimachinery's first commit (1.6);
/// before it the same words were in k8s.io/kubernetes pkg/api/unversioned.
const ALL: &str = "all (apimachinery since 1.6; pkg/api/unversioned before)";

/// A `metav1.StatusReason` and the HTTP code it is sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reason {
    pub name: &'static str,
    pub code: u16,
    /// Another code some versions send it with.
    pub also: Option<u16>,
    pub versions: &'static str,
}

const fn reason(name: &'static str, code: u16, versions: &'static str) -> Reason {
    Reason {
        name,
        code,
        also: None,
        versions,
    }
}

const fn reason_or(name: &'static str, code: u16, also: u16, versions: &'static str) -> Reason {
    Reason {
        also: Some(also),
        ..reason(name, code, versions)
    }
}

/// Whether a Status with reason `name` may come with `code` in some version.
pub fn reason_fits(name: &str, code: u16) -> bool {
    REASONS
        .iter()
        .any(|r| r.name == name && (r.code == code || r.also == Some(code)))
}

/// Every `metav1.StatusReason` but the empty `StatusReasonUnknown` (500), from
/// [`TYPES_GO`].
pub const REASONS: &[Reason] = &[
    reason("BadRequest", 400, ALL),
    reason("Unauthorized", 401, ALL),
    reason("Forbidden", 403, ALL),
    reason("NotFound", 404, ALL),
    reason("MethodNotAllowed", 405, ALL),
    reason("NotAcceptable", 406, "1.10+"),
    reason("AlreadyExists", 409, ALL),
    reason("Conflict", 409, ALL),
    reason("Gone", 410, ALL),
    reason("Expired", 410, ALL),
    reason("RequestEntityTooLarge", 413, "1.14+"),
    reason("UnsupportedMediaType", 415, "1.10+"),
    reason("Invalid", 422, ALL),
    reason("TooManyRequests", 429, "1.8+"),
    reason("InternalError", 500, ALL),
    // types.go says 500, which `NewServerTimeout` sends since 1.8; before,
    // it sent 504 (errors.go's own `StatusServerTimeout`), and the texts that
    // show this reason without a code (the ServiceAccount admission plugin's
    // `No API token found`, gone in 1.24) are mostly from then.
    reason_or("ServerTimeout", 504, 500, "all (500 since 1.8, 504 before)"),
    reason("StorageReadError", 500, "1.32+"),
    reason("ServiceUnavailable", 503, ALL),
    // Also on a 429 before 1.8: client-go's generic 429 and the servers of
    // then had no reason of their own for it ([`GENERIC`]).
    reason_or("Timeout", 504, 429, ALL),
];

/// An HTTP status as clients name it beside the code: Go's (and RFC 9110's)
/// reason phrase and .NET's `HttpStatusCode` name (C#'s `'TooManyRequests'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpStatus {
    pub code: u16,
    pub phrase: &'static str,
    pub dotnet: &'static str,
}

const fn http(code: u16, phrase: &'static str, dotnet: &'static str) -> HttpStatus {
    HttpStatus {
        code,
        phrase,
        dotnet,
    }
}

/// The statuses an API server, its proxies and its clients answer with
/// ([`STATUS_TEXT`]); a number read as a status must be one of them.
pub const HTTP_STATUSES: &[HttpStatus] = &[
    http(200, "OK", "OK"),
    http(201, "Created", "Created"),
    http(202, "Accepted", "Accepted"),
    http(204, "No Content", "NoContent"),
    http(301, "Moved Permanently", "MovedPermanently"),
    http(302, "Found", "Found"),
    http(303, "See Other", "SeeOther"),
    http(304, "Not Modified", "NotModified"),
    http(307, "Temporary Redirect", "TemporaryRedirect"),
    http(308, "Permanent Redirect", "PermanentRedirect"),
    http(400, "Bad Request", "BadRequest"),
    http(401, "Unauthorized", "Unauthorized"),
    http(403, "Forbidden", "Forbidden"),
    http(404, "Not Found", "NotFound"),
    http(405, "Method Not Allowed", "MethodNotAllowed"),
    http(406, "Not Acceptable", "NotAcceptable"),
    http(
        407,
        "Proxy Authentication Required",
        "ProxyAuthenticationRequired",
    ),
    http(408, "Request Timeout", "RequestTimeout"),
    http(409, "Conflict", "Conflict"),
    http(410, "Gone", "Gone"),
    http(413, "Request Entity Too Large", "RequestEntityTooLarge"),
    http(415, "Unsupported Media Type", "UnsupportedMediaType"),
    http(422, "Unprocessable Entity", "UnprocessableEntity"),
    http(429, "Too Many Requests", "TooManyRequests"),
    http(500, "Internal Server Error", "InternalServerError"),
    http(501, "Not Implemented", "NotImplemented"),
    http(502, "Bad Gateway", "BadGateway"),
    http(503, "Service Unavailable", "ServiceUnavailable"),
    http(504, "Gateway Timeout", "GatewayTimeout"),
];

/// The status of `code`, if it is one an answer can have.
pub fn http_status(code: u16) -> Option<&'static HttpStatus> {
    HTTP_STATUSES.iter().find(|s| s.code == code)
}

/// The code a Status reason, a reason phrase or a .NET status name stands
/// for (`NotFound`, `Not Found`, `TooManyRequests`).
pub fn code_of(name: &str) -> Option<u16> {
    REASONS
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.code)
        .or_else(|| {
            HTTP_STATUSES
                .iter()
                .find(|s| s.code >= 400 && (s.phrase == name || s.dotnet == name))
                .map(|s| s.code)
        })
}

/// A message kube-apiserver (or a client, for an answer without a body)
/// writes, with the status it comes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// The constructor (`NewConflict`) or function that writes it.
    pub by: &'static str,
    /// The words, `{name}` where a value goes.
    pub text: &'static str,
    pub code: u16,
    /// The Status reason sent with it (`""` when none).
    pub reason: &'static str,
    /// Whether the fixed words alone name this answer wherever they are
    /// found (`Operation cannot be fulfilled on`), or need a status beside
    /// them (`"x" not found`).
    pub distinctive: bool,
    pub versions: &'static str,
    pub source: &'static str,
}

impl Template {
    /// The fixed words between the placeholders, in order.
    pub fn parts(&self) -> impl Iterator<Item = &'static str> {
        let text: &'static str = self.text;
        text.split('{')
            .enumerate()
            .map(|(i, piece)| {
                if i == 0 {
                    piece
                } else {
                    piece.split_once('}').map_or(piece, |(_, rest)| rest)
                }
            })
            .filter(|p| !p.is_empty())
    }

    /// Whether `text` holds this template's fixed words, in order.
    pub fn found_in(&self, text: &str) -> bool {
        let mut at = 0;
        let mut any = false;
        for part in self.parts() {
            match text[at..].find(part) {
                Some(i) => at += i + part.len(),
                None => return false,
            }
            any = true;
        }
        any
    }
}

/// client-go's 403 for a body it did not read, by the request's method.
const fn unread(text: &'static str) -> Template {
    t(
        "newUnstructuredResponseError",
        text,
        403,
        "Forbidden",
        true,
        ALL,
        CLIENT_GO_UNREAD,
    )
}

#[allow(clippy::too_many_arguments)]
const fn t(
    by: &'static str,
    text: &'static str,
    code: u16,
    reason: &'static str,
    distinctive: bool,
    versions: &'static str,
    source: &'static str,
) -> Template {
    Template {
        by,
        text,
        code,
        reason,
        distinctive,
        versions,
        source,
    }
}

/// The field errors' types in NewInvalid's message (`FIELD: TYPE`), from
/// k8s.io/apimachinery/pkg/util/validation/field/errors.go (`ErrorType`'s
/// strings, all releases; `Too many` since 1.22): `Forbidden` there is a
/// field's, not a 403.
pub const FIELD_ERROR_TYPES: &[&str] = &[
    "Not found",
    "Required value",
    "Duplicate value",
    "Invalid value",
    "Unsupported value",
    "Forbidden",
    "Too long",
    "Too many",
    "Internal error",
];

/// Every message template of [`ERRORS_GO`] kube-apiserver answers with, the
/// in-flight limit's plain-text 429, and the authorizer's sentence.
pub const TEMPLATES: &[Template] = &[
    t(
        "NewNotFound",
        "{resource} \"{name}\" not found",
        404,
        "NotFound",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewAlreadyExists",
        "{resource} \"{name}\" already exists",
        409,
        "AlreadyExists",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenerateNameConflict",
        "{resource} \"{name}\" already exists, the server was not able to generate a unique name for the object",
        409,
        "AlreadyExists",
        true,
        "1.23+",
        ERRORS_GO,
    ),
    t(
        "NewConflict",
        "Operation cannot be fulfilled on {resource} \"{name}\": {err}",
        409,
        "Conflict",
        true,
        ALL,
        ERRORS_GO,
    ),
    t("NewGone", "{message}", 410, "Gone", false, ALL, ERRORS_GO),
    t(
        "NewResourceExpired",
        "{message}",
        410,
        "Expired",
        false,
        ALL,
        ERRORS_GO,
    ),
    // The watch cache's refusal of a watch or list from a resourceVersion
    // it no longer holds (NewGone's `Gone` before NewResourceExpired).
    t(
        "the watch cache (NewResourceExpired)",
        "too old resource version: {rv} ({oldest})",
        410,
        "Expired",
        true,
        "all (reason Gone in the oldest releases)",
        "k8s.io/apiserver pkg/storage/cacher/watch_cache.go (getAllEventsSinceLocked)",
    ),
    // Distinctive with any field error type ([`FIELD_ERROR_TYPES`]): after
    // `" is invalid: ` they name a 422 wherever they stand (kubectl prints
    // `The KIND "NAME" is invalid: …`, Helm the message alone).
    t(
        "NewInvalid (field causes)",
        "{kind} \"{name}\" is invalid: {field}: Invalid value: {value}: {detail}",
        422,
        "Invalid",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewBadRequest",
        "{message}",
        400,
        "BadRequest",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewMethodNotSupported",
        "{verb} is not supported on resources of kind \"{resource}\"",
        405,
        "MethodNotAllowed",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewTooManyRequests",
        "{message}",
        429,
        "TooManyRequests",
        false,
        "1.8+",
        ERRORS_GO,
    ),
    t(
        "NewTooManyRequestsError",
        "Too many requests: {message}",
        429,
        "TooManyRequests",
        true,
        "1.8+",
        ERRORS_GO,
    ),
    // The in-flight limit and APF answer before any Status is made.
    t(
        "tooManyRequests",
        "Too many requests, please try again later.",
        429,
        "",
        true,
        ALL,
        MAXINFLIGHT_GO,
    ),
    t(
        "NewServiceUnavailable",
        "{message}",
        503,
        "ServiceUnavailable",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewServerTimeout",
        "The {operation} operation against {resource} could not be completed at this time, please try again.",
        500,
        "ServerTimeout",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewTimeoutError",
        "Timeout: {message}",
        504,
        "Timeout",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewInternalError",
        "Internal error occurred: {err}",
        500,
        "InternalError",
        true,
        ALL,
        ERRORS_GO,
    ),
    // The authenticator's 401 is `NewUnauthorized("Unauthorized")`; an empty
    // reason makes `not authorized`.
    t(
        "NewUnauthorized",
        "Unauthorized",
        401,
        "Unauthorized",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewForbidden",
        "{resource} \"{name}\" is forbidden: {err}",
        403,
        "Forbidden",
        false,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewRequestEntityTooLargeError",
        "Request entity too large: {message}",
        413,
        "RequestEntityTooLarge",
        true,
        "1.14+",
        ERRORS_GO,
    ),
];

/// The authorizer's sentence (`forbiddenMessage`), the `{err}` of a 403's
/// `NewForbidden`, and the managed clusters' suffixes after it.
pub const AUTHORIZER: &[Template] = &[
    t(
        "forbiddenMessage (namespaced)",
        "User \"{user}\" cannot {verb} resource \"{resource}\" in API group \"{group}\" in the namespace \"{namespace}\"",
        403,
        "Forbidden",
        true,
        "1.12+",
        RESPONSEWRITERS_GO,
    ),
    t(
        "forbiddenMessage (cluster)",
        "User \"{user}\" cannot {verb} resource \"{resource}\" in API group \"{group}\" at the cluster scope",
        403,
        "Forbidden",
        true,
        "1.12+",
        RESPONSEWRITERS_GO,
    ),
    t(
        "forbiddenMessage (path)",
        "User \"{user}\" cannot {verb} path \"{path}\"",
        403,
        "Forbidden",
        true,
        ALL,
        RESPONSEWRITERS_GO,
    ),
    t(
        "forbiddenMessage (before 1.12)",
        "User \"{user}\" cannot {verb} {resource} in the namespace \"{namespace}\"",
        403,
        "Forbidden",
        true,
        "1.6–1.11",
        RESPONSEWRITERS_GO,
    ),
    // GKE's authorizer checks IAM after RBAC and names the permissions
    // either would have needed.
    t(
        "GKE RBAC + IAM",
        "User \"{user}\" cannot {verb} resource \"{resource}\" in API group \"{group}\" in the namespace \"{namespace}\": requires one of [\"{permission}\"] permission(s).",
        403,
        "Forbidden",
        true,
        "GKE 1.12+",
        "GKE's IAM authorizer (closed source; cloud.google.com/kubernetes-engine/docs/how-to/iam)",
    ),
    // RBAC's escalation prevention: a Role or binding that would grant what
    // its author does not hold is refused unless the author may `escalate`
    // the role (`bind` the role a binding names).
    t(
        "ConfirmNoEscalation",
        "user \"{user}\" (groups={groups}) is attempting to grant RBAC permissions not currently held",
        403,
        "Forbidden",
        true,
        "the current wording (its early form below)",
        RBAC_RULE_GO,
    ),
    t(
        "ConfirmNoEscalation (early RBAC)",
        "attempt to grant extra privileges: {rules} user={user}",
        403,
        "Forbidden",
        true,
        "early RBAC releases",
        RBAC_RULE_GO,
    ),
];

/// Where RBAC's escalation prevention words its refusal (wrapped in the
/// registry's `NewForbidden`).
pub const RBAC_RULE_GO: &str = "k8s.io/kubernetes pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation); pkg/registry/rbac/role/policybased/storage.go; kubernetes.io/docs/reference/access-authn-authz/rbac (privilege escalation prevention)";

/// client-go's message for an answer whose body was not a Status, per code
/// (`NewGenericServerResponse` in [`ERRORS_GO`]), kubectl's for a 401, and
/// the words for a path or type the server does not serve: every 404 here
/// is one, never a missing object.
pub const GENERIC: &[Template] = &[
    t(
        "NewGenericServerResponse",
        "the server rejected our request for an unknown reason",
        400,
        "BadRequest",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server has asked for the client to provide credentials",
        401,
        "Unauthorized",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "StandardErrorMessage",
        "You must be logged in to the server",
        401,
        "Unauthorized",
        true,
        ALL,
        KUBECTL_HELPERS_GO,
    ),
    // A 403 keeps the server's message, and client-go's message for a body
    // it could not read (a watch's, one of another content type) is
    // `unknown`: `unknown (get pods)`, the request after it.
    unread("unknown (get {resource})"),
    unread("unknown (delete {resource})"),
    unread("unknown (post {resource})"),
    unread("unknown (put {resource})"),
    unread("unknown (patch {resource})"),
    // Since 1.6 a 403 keeps the server's message (who may not do what).
    t(
        "NewGenericServerResponse",
        "the server does not allow access to the requested resource",
        403,
        "Forbidden",
        true,
        "≤1.5 (k8s.io/kubernetes pkg/api/errors)",
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server could not find the requested resource",
        404,
        "NotFound",
        true,
        ALL,
        ERRORS_GO,
    ),
    // Not a Status: the body of kube-apiserver's (and any Go server's) 404
    // for a path no handler serves, as curl shows it.
    // What discovery did not find, in kubectl's and the RESTMapper's words:
    // the server answered discovery (the token was accepted) and does not
    // serve the type, as a 404 for its path would say.
    t(
        "StandardErrorMessage (meta.NoResourceMatchError)",
        "the server doesn't have a resource type \"{resource}\"",
        404,
        "",
        true,
        ALL,
        KUBECTL_HELPERS_GO,
    ),
    t(
        "meta.NoKindMatchError",
        "no matches for kind \"{kind}\" in version \"{version}\"",
        404,
        "",
        true,
        ALL,
        META_ERRORS_GO,
    ),
    t(
        "meta.NoKindMatchError (a group alone)",
        "no matches for kind \"{kind}\" in group \"{group}\"",
        404,
        "",
        true,
        "1.26+",
        META_ERRORS_GO,
    ),
    t(
        "Go net/http NotFound",
        "404 page not found",
        404,
        "",
        true,
        ALL,
        "Go src/net/http/server.go (NotFound); k8s.io/apiserver pkg/server/mux/pathrecorder.go (notFoundHandler)",
    ),
    t(
        "NewGenericServerResponse",
        "the server does not allow this method on the requested resource",
        405,
        "MethodNotAllowed",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server was unable to respond with a content type that the client supports",
        406,
        "NotAcceptable",
        true,
        "1.10+",
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server reported a conflict",
        409,
        "Conflict",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server rejected our request due to an error in our request",
        422,
        "Invalid",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server has received too many requests and has asked us to try again later",
        429,
        "TooManyRequests",
        true,
        "1.8+",
        ERRORS_GO,
    ),
    // Before `StatusReasonTooManyRequests`, the same words under the reason
    // `Timeout`: the code, not the reason, says what happened.
    t(
        "NewGenericServerResponse (before TooManyRequests)",
        "the server has received too many requests and has asked us to try again later",
        429,
        "Timeout",
        true,
        "≤1.7",
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "an error on the server (\"{message}\") has prevented the request from succeeding",
        500,
        "InternalError",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server is currently unable to handle the request",
        503,
        "ServiceUnavailable",
        true,
        ALL,
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
        504,
        "Timeout",
        true,
        "1.8+",
        ERRORS_GO,
    ),
    t(
        "NewGenericServerResponse (before 1.8)",
        "the server cannot complete the requested operation at this time, try again later",
        504,
        "ServerTimeout",
        true,
        "≤1.7",
        ERRORS_GO,
    ),
];

/// kube-apiserver's plain-text bodies from before its filters answered with
/// a Status: a JSON decoder that meets one quotes its first word (Jackson)
/// or its first letter (Go's `encoding/json`).
pub const PLAIN_BODIES: &[Template] = &[
    t(
        "Unauthorized (authentication filter)",
        "Unauthorized",
        401,
        "",
        false,
        "1.0–1.5",
        "k8s.io/kubernetes pkg/auth/handlers/handlers.go (http.Error(w, \"Unauthorized\", 401))",
    ),
    // The authorizer's refusal before a Status body named the user: its
    // words alone name the answer.
    t(
        "forbidden (authorization filter)",
        "Forbidden: \"{path}\"",
        403,
        "",
        true,
        "1.0–1.5",
        "k8s.io/kubernetes pkg/apiserver/handlers.go (forbidden: fmt.Fprintf(w, \"Forbidden: %#v\", req.RequestURI))",
    ),
];

/// The kubelet's plain-text bodies on its streaming endpoints (`exec`,
/// `attach`, `portforward`), which kube-apiserver's proxy passes through to
/// a client upgrading the connection: its authenticator's, its authorizer's
/// and its pod lookup's. Not read from a first letter: only whole.
pub const KUBELET_BODIES: &[Template] = &[
    t(
        "the kubelet's authentication filter",
        "Unauthorized",
        401,
        "",
        false,
        "1.5+",
        KUBELET_SERVER_GO,
    ),
    t(
        "the kubelet's authorizer",
        "Forbidden (user={user}, verb={verb}, resource={resource}, subresource={subresource})",
        403,
        "",
        false,
        "1.5+",
        "k8s.io/kubernetes pkg/kubelet/server/auth.go (1.5-1.18: server.go InstallAuthFilter)",
    ),
    t(
        "the kubelet's pod lookup",
        "pod does not exist",
        404,
        "",
        false,
        "all",
        KUBELET_SERVER_GO,
    ),
];

const KUBELET_SERVER_GO: &str = "k8s.io/kubernetes pkg/kubelet/server/server.go (InstallAuthFilter: WriteErrorString(401, \"Unauthorized\"); getExec, getAttach, getPortForward: WriteError(404, \"pod does not exist\"))";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_s_code_is_a_status_and_every_template_s_reason_is_a_reason() {
        for r in REASONS {
            assert!(http_status(r.code).is_some(), "{}", r.name);
            assert!(
                r.also.is_none_or(|c| http_status(c).is_some()),
                "{}",
                r.name
            );
            assert_eq!(code_of(r.name).map(|_| ()), Some(()), "{}", r.name);
        }
        // Old servers' 429 came with `Timeout`; `ServerTimeout` is 500 since 1.8.
        assert!(reason_fits("Timeout", 429) && reason_fits("Timeout", 504));
        assert!(reason_fits("ServerTimeout", 500) && !reason_fits("Timeout", 403));
        for t in TEMPLATES.iter().chain(AUTHORIZER).chain(GENERIC) {
            assert!(http_status(t.code).is_some(), "{}", t.text);
            assert!(
                t.reason.is_empty() || REASONS.iter().any(|r| r.name == t.reason),
                "{}",
                t.reason
            );
            assert!(!t.source.is_empty() && !t.versions.is_empty());
        }
    }

    #[test]
    fn templates_are_found_by_their_fixed_words() {
        let conflict = TEMPLATES.iter().find(|t| t.by == "NewConflict").unwrap();
        assert!(conflict.found_in(
            r#"Operation cannot be fulfilled on serviceaccounts "default": the object has been modified"#
        ));
        assert!(!conflict.found_in("the operation was fulfilled"));
        assert_eq!(code_of("Too Many Requests"), Some(429));
        assert_eq!(code_of("TooManyRequests"), Some(429));
        assert_eq!(code_of("OK"), None);
    }
}
