//! HTTP statuses as programs print them, found anywhere in a line: status
//! lines (`HTTP/1.1 401 Unauthorized`, curl's `< HTTP/2 403`, wget's `server
//! returned error: HTTP/1.1 401`, OkHttp's `<-- HTTP/1.1 401`), clients'
//! renderings (`ApiException: (403)`, `statuscode: 401`, `Request failed with
//! status code 401`, `http error 401`, `reply status code was 400`,
//! `failed (401)`, `Handshake status 403`, `code = Unauthenticated`), bare
//! codes on a line of their own, client-go's texts for answers without a
//! Status body, and the `Date` header in every client's layout.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};

use super::super::case::HttpAnswer;
use super::needles::Needles;

/// A 401 `Unauthorized` answer with `message`, as strong as `weight`.
pub fn unauthorized(message: String, weight: u8) -> HttpAnswer {
    HttpAnswer {
        status: Some(401),
        reason: Some("Unauthorized".to_owned()),
        message: Some(message),
        weight,
        ..HttpAnswer::default()
    }
}

/// HTTP code for a Status `reason` (apimachinery `metav1.StatusReason`).
pub fn code_for_reason(reason: &str) -> Option<u16> {
    Some(match reason {
        "Unauthorized" => 401,
        "Forbidden" => 403,
        "NotFound" => 404,
        "MethodNotAllowed" => 405,
        "NotAcceptable" => 406,
        "AlreadyExists" | "Conflict" => 409,
        "Gone" | "Expired" => 410,
        "RequestEntityTooLarge" => 413,
        "UnsupportedMediaType" => 415,
        "Invalid" => 422,
        "TooManyRequests" => 429,
        "BadRequest" => 400,
        "InternalError" => 500,
        "ServiceUnavailable" => 503,
        "Timeout" | "ServerTimeout" => 504,
        _ => return None,
    })
}

/// The reason phrase of a code, for the phrases clients print next to it.
fn phrase(code: u16) -> Option<&'static str> {
    Some(match code {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

/// `HTTP/1.1 401 Unauthorized`, `HTTP/2 403` at the start of `line` ->
/// (code, reason phrase).
pub fn status_line(line: &str) -> Option<(u16, &str)> {
    let rest = line.trim().strip_prefix("HTTP/")?;
    let (version, rest) = rest.split_once(' ')?;
    if version.is_empty() || !version.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let rest = rest.trim_start();
    let code: u16 = rest.get(..3)?.parse().ok()?;
    let after = rest.get(3..).unwrap_or("");
    // The code alone, or a space and its reason phrase.
    let alone = !after.starts_with(|c: char| c != ' ');
    (alone && (100..=599).contains(&code)).then_some((code, after.trim()))
}

/// `401`, `401 Unauthorized`, `HTTP 403 Forbidden`, `status code: 404` as a
/// whole line.
pub fn bare_code(line: &str) -> Option<u16> {
    let lower = line.trim().to_ascii_lowercase();
    let rest = ["status code:", "status code", "status:", "status", "http"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower)
        .trim_start();
    let code: u16 = rest.get(..3)?.parse().ok()?;
    // The original line: reason phrases are Capitalised Words ("Not Found").
    let original = line.trim();
    let after = original
        .get(original.len() - rest.len() + 3..)
        .unwrap_or("")
        .trim();
    let words: Vec<&str> = after.split_whitespace().collect();
    let reason_ok = words.len() <= 4
        && words.iter().all(|w| {
            w.starts_with(|c: char| c.is_ascii_uppercase())
                && w.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        });
    ((100..=599).contains(&code) && reason_ok).then_some(code)
}

/// Three digits at the start of `text` that make an HTTP status, not part of
/// a longer number.
fn code_at(text: &str) -> Option<u16> {
    let digits = text.get(..3)?;
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if text[3..].starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let code: u16 = digits.parse().ok()?;
    (100..=599).contains(&code).then_some(code)
}

/// Phrases that put a status code right after them.
const BEFORE_CODE: &[&str] = &[
    "HTTP probe failed with statuscode: ",
    "statuscode: ",
    "StatusCode: ",
    // Go's `%#v` of an `http.Response`.
    "StatusCode:",
    "statusCode: ",
    "status code: ",
    "status code ",
    "status_code=",
    "status code was ",
    "Request failed with status code ",
    "http error ",
    "Handshake status ",
    "rsp_status = ",
    "\"status\": ",
    "\"status\":",
    "ApiException: (",
    "ApiException (",
    "Exception: (",
    "Error: (",
    " failed (",
    "HTTP Error ",
    "error code ",
    "got status ",
    "returned status ",
    "unexpected status code ",
    "status=",
    "status_code: ",
    "HTTP response code: ",
    "HTTP-Code: ",
    "returned error: ",
    "response status code ",
    "HTTP Status: ",
    // JAX-RS's `WebApplicationException: HTTP 403 "/path" is forbidden…` and
    // any other client's `HTTP 401 …`.
    "HTTP ",
];

/// Where a status code is stated in `line` (not a status line at its start):
/// the code, and whether the phrase was one of the weak ones.
pub fn stated_code(line: &str) -> Option<u16> {
    static PHRASES: LazyLock<Needles> =
        LazyLock::new(|| Needles::new(BEFORE_CODE.iter().copied(), false));
    let phrases: &[&str] = if PHRASES.any(line) { BEFORE_CODE } else { &[] };
    for phrase in phrases {
        for (i, _) in line.match_indices(phrase) {
            // `status=200` needs a word boundary before it.
            let bounded = *phrase != "status=" || line[..i].ends_with([' ', '\t']);
            if let Some(code) = code_at(&line[i + phrase.len()..]).filter(|_| bounded) {
                return Some(code);
            }
        }
    }
    // `401 Unauthorized`, `403 Forbidden` anywhere (a code and its phrase).
    for (i, _) in line.match_indices(|c: char| c.is_ascii_digit()) {
        if i > 0 && line[..i].ends_with(|c: char| c.is_ascii_alphanumeric()) {
            continue;
        }
        let Some(code) = code_at(&line[i..]) else {
            continue;
        };
        if let Some(p) = phrase(code)
            && line[i + 3..].starts_with(' ')
            && line[i + 4..].starts_with(p)
        {
            return Some(code);
        }
    }
    // An error that ends in its status code alone, in parentheses: `… to
    // cache logs ((401)`, `…: (403)`. Only an error status: a count or a
    // size in parentheses is no answer.
    if let Some(inner) = line.trim_end().strip_suffix(')')
        && let Some(cut) = inner.len().checked_sub(3)
        && inner.get(..cut).is_some_and(|before| before.ends_with('('))
        && let Some(code) = inner.get(cut..).and_then(code_at)
        && code >= 400
    {
        return Some(code);
    }
    // A Rust or Go debug print of a Status: `Status { …, code: 404, … }`.
    if let Some(i) = line.find("Status {")
        && let Some(j) = line[i..].find("code: ")
        && let Some(code) = code_at(&line[i + j + 6..])
    {
        return Some(code);
    }
    // An exception named for its status, or whose message is the status's
    // reason: `ApiException: Forbidden`, `HttpError: Unauthorized`.
    if let Some(code) = exception_reason(line) {
        return Some(code);
    }
    // Anywhere in a line: `HTTP/1.1 401` (wget, OkHttp, a pasted response).
    line.match_indices("HTTP/").find_map(|(i, _)| {
        let code = status_line(&line[i..]).map(|(code, _)| code);
        code.or_else(|| access_log_status(&line[i + 5..]))
    })
}

/// An access log's status (the common log format of nginx, Apache, a proxy
/// or an ingress): the number after the quoted request line,
/// `"GET /version HTTP/2.0" 401 62`. `after` follows `HTTP/`.
fn access_log_status(after: &str) -> Option<u16> {
    let version_end = after.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let rest = after[version_end..].strip_prefix('"')?;
    // A CSV export doubles the quotes.
    let rest = rest.strip_prefix('"').unwrap_or(rest).strip_prefix(' ')?;
    let code = code_at(rest)?;
    // The size (or `-`) follows the status.
    rest[3..].starts_with(' ').then_some(code)
}

/// `…Exception: Forbidden`, `…Error: Unauthorized`: an exception whose whole
/// message is a status's reason.
fn exception_reason(line: &str) -> Option<u16> {
    const REASONS: &[(&str, u16)] = &[
        ("Unauthorized", 401),
        ("Forbidden", 403),
        ("NotFound", 404),
        ("Not Found", 404),
    ];
    for (reason, code) in REASONS {
        for (i, _) in line.match_indices(reason) {
            let before = line[..i].trim_end_matches([' ', ':']);
            let after = &line[i + reason.len()..];
            let exception = before.ends_with("Exception") || before.ends_with("Error");
            let whole =
                after.is_empty() || after.starts_with(|c: char| !c.is_alphanumeric() && c != '!');
            if exception && whole && line[..i].ends_with([' ', ':']) {
                return Some(*code);
            }
        }
    }
    None
}

/// kube-apiserver's InternalError message (apimachinery `NewInternalError`):
/// what follows is the server's own failure, often a call it made.
pub const INTERNAL_ERROR: &str = "Internal error occurred: ";

/// Client texts that stand for a status when no Status body was read:
/// client-go's `NewGenericServerResponse` wordings and other clients' own.
pub fn generic_text(line: &str) -> Option<(u16, &'static str)> {
    // client-go's wordings, each its own message; they are looked for first.
    const OWN: &[(&str, u16)] = &[
        (
            "the server has asked for the client to provide credentials",
            401,
        ),
        ("You must be logged in to the server", 401),
        (
            "the server does not allow access to the requested resource",
            403,
        ),
        ("the server could not find the requested resource", 404),
        ("the server is currently unable to handle the request", 503),
    ];
    const TEXTS: &[(&str, u16, &str)] = &[
        ("Unauthorized! Token may have expired", 401, "Unauthorized"),
        ("code = Unauthenticated", 401, "Unauthenticated"),
        (
            "desc = authentication failure",
            401,
            "authentication failure",
        ),
        ("code = PermissionDenied", 403, "PermissionDenied"),
        // The C# client (KubernetesClient): `Operation returned an invalid
        // status code 'Forbidden'`: the status alone, no message.
        ("invalid status code 'Unauthorized'", 401, ""),
        ("invalid status code 'Forbidden'", 403, ""),
        ("invalid status code 'NotFound'", 404, ""),
        // kube-apiserver's InternalError Status (apimachinery NewInternalError),
        // whatever the client: its message names what failed on the server.
        (INTERNAL_ERROR, 500, ""),
        // kube-apiserver's proxy (services, pods, nodes proxy): a 503 whose
        // body names the failed call and its target.
        (super::layers::PROXY_TARGET, 503, ""),
        // OpenShift's oc, for a 401 to the token it was given (oc login --token).
        ("The token provided is invalid or expired", 401, ""),
        // The kubelet's own authorizer (pkg/kubelet/server/auth.go).
        ("Forbidden (user=", 403, ""),
        // The kubelet's words for a 404 on TokenRequest.
        (
            "the API server does not have TokenRequest endpoints enabled",
            404,
            "the server could not find the requested resource",
        ),
    ];
    OWN.iter()
        .map(|&(text, code)| (text, code, text))
        .chain(TEXTS.iter().copied())
        .find(|(needle, ..)| line.contains(needle))
        .map(|(_, code, text)| (code, text))
}

/// Whether a 404's message is client-go's text for a 404 without a Status
/// naming an object: the server does not serve the API.
pub fn api_not_served(message: &str) -> bool {
    // client-go's text, and the Go mux's body for a path no API serves.
    message.contains("the server could not find the requested resource")
        || message.trim() == "404 page not found"
}

/// `Unauthorized` as the last word of an error (`…: Unauthorized`,
/// `msg=Unauthorized`, `Error: Unauthorized`, `"Unauthorized\n"`), alone, or
/// as the whole error wrapped in parentheses at the end (`… cached value.
/// (Unauthorized)`: Go programs' `(%v)` of client-go's error for a 401).
pub fn ends_unauthorized(line: &str) -> bool {
    if line
        .trim_end()
        .trim_end_matches(['"', '\'', '.', ','])
        .ends_with("(Unauthorized)")
    {
        return true;
    }
    let t = line
        .trim()
        .trim_end_matches(['"', '\'', '.', ')', ',', ' ']);
    let Some(before) = t.strip_suffix("Unauthorized") else {
        return false;
    };
    let before = before.trim_end_matches(['"', '\'', '(']);
    before.is_empty()
        || before.ends_with(": ")
        || before.ends_with([':', '='])
        || before.ends_with("error ")
        || before.ends_with("Error ")
}

/// kube-apiserver's own record of an answer (k8s.io/apiserver httplog):
/// `wrap.go:42] POST /apis/…/tokenreviews: (1.35ms) 404 [[UA] IP]` (≤1.17) or
/// `httplog.go:89] "HTTP" verb="POST" URI="/apis/…" … resp=404` (1.18+)
/// -> (method, path, code).
pub fn httplog(line: &str) -> Option<(&str, &str, u16)> {
    const OPEN: &str = "\"HTTP\" verb=\"";
    if let Some(i) = line.find(OPEN) {
        let rest = &line[i + OPEN.len()..];
        let (verb, rest) = rest.split_once('"')?;
        let uri = rest.split_once("URI=\"")?.1.split('"').next()?;
        let code = rest.split_once(" resp=")?.1.get(..3)?.parse().ok()?;
        return Some((verb, uri, code));
    }
    let rest = match line.find("wrap.go:") {
        Some(i) => line[i..].split_once("] ")?.1,
        None => line.trim_start(),
    };
    let (method, rest) = rest.split_once(' ')?;
    if method.is_empty() || !method.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let (path, rest) = rest.split_once(": (")?;
    if !path.starts_with('/') || path.contains(' ') {
        return None;
    }
    let code = rest.split_once(") ")?.1.get(..3)?.parse().ok()?;
    Some((method, path, code))
}

/// The first `Date` header anywhere in a line: `Date: …`, curl's `< date: …`,
/// kubectl -v=8's indented headers, Python's `'Date': '…'`.
pub fn date_header(line: &str) -> Option<DateTime<Utc>> {
    let parse = |v: &str| {
        DateTime::parse_from_rfc2822(v.trim().trim_matches(['\'', '"']))
            .ok()
            .map(|t| t.with_timezone(&Utc))
    };
    for (open, quote) in [("'Date': '", '\''), ("\"Date\": \"", '"')] {
        if let Some(i) = line.find(open) {
            let rest = &line[i + 9..];
            return rest.find(quote).and_then(|end| parse(&rest[..end]));
        }
    }
    let l = line.trim_start_matches(['<', ' ', '\t']);
    if l.get(..5).is_some_and(|h| h.eq_ignore_ascii_case("date:")) {
        return parse(&l[5..]);
    }
    // kubectl -v=8: `round_trippers.go:580]     Date: …`.
    let i = line.find("]     Date: ")?;
    parse(&line[i + 12..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_and_codes() {
        for (line, want) in [
            ("HTTP/1.1 401 Unauthorized", Some((401, "Unauthorized"))),
            ("HTTP/2 403 ", Some((403, ""))),
            ("HTTP/2 4033", None),
        ] {
            assert_eq!(status_line(line), want, "{line}");
        }
        for (text, want) in [
            ("401", Some(401)),
            ("HTTP 403 Forbidden", Some(403)),
            ("status code: 404", Some(404)),
            ("401 errors in the last hour were caused by", None),
        ] {
            assert_eq!(bare_code(text), want, "{text}");
        }
    }

    #[test]
    fn codes_stated_in_client_text() {
        for (line, code) in [
            (
                "Startup probe failed: HTTP probe failed with statuscode: 401",
                401,
            ),
            (
                "wget: server returned error: HTTP/1.1 401 Unauthorized",
                401,
            ),
            ("<-- HTTP/1.1 401 Unauthorized (13ms)", 401),
            ("kubernetes.client.exceptions.ApiException: (403)", 403),
            (
                "Error: HTTP 500: Internal Server Error (x: ApiException (403) Reason",
                403,
            ),
            (
                "failed to do version request: http error 401 GET \"x\"",
                401,
            ),
            ("code: 403, statusCode: 403 } pods is forbidden", 403),
            ("reply status code was 401:", 401),
            (
                r#"failed to get successful response: &http.Response{Status:"500 Internal  Server Error", StatusCode:500, Proto:"HTTP/2.0""#,
                500,
            ),
            (
                r#"10.1.2.3 - - [07/Mar/2019:15:41:53 +0000] "GET /k8s/clusters/c-1/version?timeout=32s HTTP/2.0" 401 62 "-" "argocd-server""#,
                401,
            ),
            (r#"log: ""GET /api/v1/pods HTTP/1.1"" 403 312 ""-"""#, 403),
            ("] failed (401) 401 Unauthorized: Unauthorized", 401),
            (
                r#"Unable to get pods for namespace "x" to cache logs ((401)"#,
                401,
            ),
            (
                "WebSocketBadStatusException: Handshake status 403 Forbidden",
                403,
            ),
            (
                r#"javax.ws.rs.WebApplicationException: HTTP 403 "/osapi/v1beta3/namespaces/default/routes" is forbidden"#,
                403,
            ),
        ] {
            assert_eq!(stated_code(line), Some(code), "{line}");
        }
        for line in [
            "took 401ms",
            "Code: 403 things",
            "line 4011 of file",
            "retry after 500 seconds",
            "HTTP 1.1 is older than HTTP 2",
            "retried the call (200)",
            "files copied (1024)",
        ] {
            assert_eq!(stated_code(line), None, "{line}");
        }
        for (line, want) in [
            (
                "I0921 14:11:10.551011 5 wrap.go:42] POST /apis/authentication.k8s.io/v1/tokenreviews: (1.354755ms) 404 [[Go-http-client/1.1] 35.197.223.167:59958]",
                ("POST", "/apis/authentication.k8s.io/v1/tokenreviews", 404),
            ),
            (
                r#"I0101 httplog.go:89] "HTTP" verb="GET" URI="/api/v1/pods" latency="1ms" resp=403"#,
                ("GET", "/api/v1/pods", 403),
            ),
        ] {
            assert_eq!(httplog(line), Some(want), "{line}");
        }
        assert!(ends_unauthorized(
            "Failed to list *v1.Service: Unauthorized"
        ));
        assert!(ends_unauthorized("level=fatal msg=Unauthorized"));
        assert!(ends_unauthorized("│ Error: Unauthorized"));
        assert!(!ends_unauthorized("MSG_LOGIN_UNAUTHORIZED_ERROR"));
        assert!(!ends_unauthorized("the user is Unauthorized"));
        assert!(ends_unauthorized(
            "memcache.go:138] couldn't get current server API group list; will keep using cached value. (Unauthorized)"
        ));
        assert!(!ends_unauthorized("a note (Unauthorized) in the middle"));
    }
}
