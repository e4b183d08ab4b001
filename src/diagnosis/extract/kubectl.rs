//! kubectl's own output, found anywhere in a line (it is often quoted by
//! another program: Spinnaker, Helm, a Makefile): `error: You must be logged
//! in to the server (…)`, `Error from server (Reason): …` and, from old
//! kubectl, `Error from server: …` without a reason; `Unable to connect to
//! the server: …`, `The connection to the server … was refused`, `error:
//! couldn't read version from server: …`; and its `-v=6`+ request log
//! (`round_trippers.go] GET URL 401 Unauthorized in 4 milliseconds`);
//! `kubectl create token`'s `failed to create token: …`; and what shows a
//! request accepted without its status: kubectl's table of the objects it got,
//! and PodSecurity's warning as client-go's `warnings.go` prints it.
//!
//! Renderings: kubectl/pkg/cmd/util/helpers.go `StandardErrorMessage`,
//! kubectl/pkg/cmd/create/create_token.go, apimachinery `StatusError`.

use super::super::artefact::Review;
use super::super::facts::{HttpAnswer, RequestInfo};
use super::clients::ClientLine;
use super::status::unauthorized;
use super::url::{not_found, request_from_url};
use crate::vocabulary::apimachinery::code_of;
use crate::vocabulary::clients::KUBECTL_TABLE_COLUMNS;
use crate::vocabulary::cues::KUBECTL_SOURCE_ERRORS;
use crate::vocabulary::refusals::pod_security_warning;

/// kubectl's header over a table of objects (`NAME  SECRETS  AGE`): the
/// request that got them was answered, after authentication and
/// authorisation.
pub fn table_header(line: &str) -> bool {
    let (first, age) = KUBECTL_TABLE_COLUMNS;
    let columns: Vec<&str> = line
        .trim()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    columns.len() >= 2
        && columns[0] == first
        && columns.contains(&age)
        && columns.iter().all(|c| {
            c.chars()
                .all(|ch| ch.is_ascii_uppercase() || ch == ' ' || ch == '-')
        })
}

/// A client's line that shows a request accepted though it states no status:
/// PodSecurity's warn-mode warning (added only to a request it admits, after
/// authentication and authorisation) or kubectl's table of the objects the
/// request got; with the program that printed it, when the line names one.
pub fn admitted(line: &str) -> Option<(Review, Option<&'static str>)> {
    let (shown_by, printer) = if line.contains(pod_security_warning()) {
        (
            "PodSecurity admitted the request with a warning (it warns only on requests it admits, after authentication and authorisation)",
            None,
        )
    } else if table_header(line) {
        (
            "kubectl printed a table of the objects the request got (its NAME … AGE header): it was answered, after authentication and authorisation",
            Some("kubectl"),
        )
    } else {
        return None;
    };
    let review = Review {
        authenticated: true,
        user: None,
        audiences: Vec::new(),
        shown_by,
    };
    Some((review, printer))
}

/// Reads one unwrapped line; `caller` is the `file.go:line` of the klog
/// header it came under, when one was stripped.
pub fn find(line: &str, caller: Option<&str>) -> Option<ClientLine> {
    let mut found = ClientLine {
        format: "kubectl",
        ..ClientLine::default()
    };
    if let Some(i) = line.find("You must be logged in to the server") {
        let rest = line[i + 35..].trim();
        let message = rest
            .strip_prefix('(')
            .and_then(|r| r.rfind(')').map(|e| &r[..e]))
            .unwrap_or("Unauthorized");
        if message == "the server has asked for the client to provide credentials" {
            found.note = Some(
                "client-go's text for a 401 whose body was not a Kubernetes Status (a proxy or another server may have answered)"
                    .to_owned(),
            );
        }
        found.http = Some(unauthorized(message.to_owned(), 3));
        return Some(found);
    }
    // `kubectl create token` wraps the server's message as old kubectl did
    // (pkg/cmd/create/create_token.go, 1.24+).
    let opener = ["Error from server", "failed to create token"]
        .iter()
        .find_map(|o| line.find(o).map(|i| (i + o.len(), *o)));
    if let Some((from, opener)) = opener {
        let rest = &line[from..];
        // A line cut or wrapped right after the colon still names the reason.
        let (reason, message) = if let Some(r) = rest.strip_prefix(" (") {
            let (reason, message) = r.split_once("):")?;
            (Some(reason), message)
        } else {
            (None, rest.strip_prefix(':')?)
        };
        let (message, hint) = split_hint(message.trim());
        found.request = hint;
        let message = strip_operation(message);
        // kubectl's own framing: the server's message follows on the lines
        // below (`from server for: "FILE": …`).
        let framing = message.starts_with("error when retrieving current configuration of:");
        // Old kubectl prints no reason: the message shows it.
        let forbidden =
            message.contains(" is forbidden: ") || message.contains("forbidden: User \"");
        // Else any of apimachinery's messages the text holds names it
        // (`TokenRequest.authentication.k8s.io "x" is invalid: …`).
        let reason = reason
            .or(not_found(message).map(|_| "NotFound"))
            .or(forbidden.then_some("Forbidden"))
            .or_else(|| super::status::template_of(message).map(|t| t.reason));
        // client-go's own text for a bodiless answer states its code, which
        // the reason of old versions did not (a 429 under `Timeout`).
        let generic = crate::vocabulary::apimachinery::GENERIC
            .iter()
            .find(|t| message.starts_with(t.text))
            .map(|t| t.code);
        let facts = HttpAnswer {
            status: generic.or_else(|| reason.and_then(code_of)),
            reason: reason.map(str::to_owned),
            message: (!framing).then(|| message.to_owned()),
            weight: 3,
            ..HttpAnswer::default()
        };
        // Its own `no token in server response` answers no status.
        if facts.status.is_none() && opener.starts_with("failed") {
            return None;
        }
        if facts.status == Some(404) && found.request.is_none() {
            found.request = super::url::not_found_request(message);
        }
        found.http = Some(facts);
        return Some(found);
    }
    for opener in [
        "Unable to connect to the server: ",
        "error: couldn't read version from server: ",
    ] {
        if let Some(i) = line.find(opener) {
            if let Some(code) = code_of(line[i + opener.len()..].trim()) {
                found.http = Some(go_refused_tunnel(code));
                return Some(found);
            }
            found.transport = Some(line[i..].trim().to_owned());
            return Some(found);
        }
    }
    // Any Go client's url.Error (`Get "URL": ERR`, unquoted before Go 1.14)
    // whose error is a reason phrase alone: the same refused tunnel.
    if let Some((Some(_), url)) = super::url::method_and_url(line)
        && let Some(at) = line.find(url)
        && let Some(err) = line[at + url.len()..]
            .trim_start_matches('"')
            .strip_prefix(": ")
        && let Some(code) = code_of(err.trim())
    {
        found.format = "client-go";
        found.http = Some(go_refused_tunnel(code));
        return Some(found);
    }
    if line.contains("The connection to the server ") && line.contains(" was refused") {
        found.transport = Some(line.trim().to_owned());
        return Some(found);
    }
    if is_round_tripper(line, caller)
        && let Some((method, url, code)) = round_tripper(line)
    {
        found.format = "kubectl -v";
        found.request = Some(request_from_url(Some(method), url));
        found.http = code.map(|code| HttpAnswer::with_status(code, 1));
        return Some(found);
    }
    None
}

/// A line of client-go's request log (its round-tripper, API discovery), by
/// its klog caller.
pub fn is_request_log(caller: &str) -> bool {
    crate::vocabulary::clients::REQUEST_LOG_CALLERS
        .iter()
        .any(|file| caller.starts_with(file))
}

/// A line of client-go's debug round-tripper (round_trippers.go), by its
/// klog caller or, unparsed, in the line itself.
pub fn is_round_tripper(line: &str, caller: Option<&str>) -> bool {
    line.contains("round_trippers.go") || caller.is_some_and(|c| c.starts_with("round_trippers.go"))
}

/// kubectl -v=6+: `round_trippers.go:553] GET https://… 401 Unauthorized in 4
/// milliseconds` -> (method, url, code); -v=7+ also logs the request alone
/// (`round_trippers.go:470] GET https://…`), its status on a later
/// `Response Status:` line.
fn round_tripper(line: &str) -> Option<(&str, &str, Option<u16>)> {
    let rest = line.split_once("] ").map_or(line, |(_, r)| r).trim();
    let mut words = rest.split_whitespace();
    let (method, url) = (words.next()?, words.next()?);
    let Some(code) = words.next() else {
        let request = super::url::method_of(method).is_some() && url.starts_with("http");
        return request.then_some((method, url, None));
    };
    let code: u16 = code.parse().ok()?;
    let code_ok = method.chars().all(|c| c.is_ascii_uppercase()) && (100..=599).contains(&code);
    code_ok.then_some((method, url, Some(code)))
}

/// Go's transport (net/http transport.go, dialConn) makes an HTTP proxy's
/// refusal of the tunnel (CONNECT) an error of the proxy's reason phrase
/// alone: `…: Forbidden`, `…: Service Unavailable`.
fn go_refused_tunnel(code: u16) -> HttpAnswer {
    HttpAnswer {
        status: Some(code),
        weight: 3,
        origin: super::clients::refused_tunnel("Go's net/http (its reason phrase alone)"),
        ..HttpAnswer::default()
    }
}

/// kubectl's `(post deployments.extensions)` hint after a message: the
/// request it names.
fn split_hint(message: &str) -> (&str, Option<RequestInfo>) {
    let Some(open) = message.rfind(" (") else {
        return (message, None);
    };
    let Some(hint) = message[open + 2..].strip_suffix(')') else {
        return (message, None);
    };
    let mut words = hint.split(' ');
    let (Some(verb), Some(what), None) = (words.next(), words.next(), words.next()) else {
        return (message, None);
    };
    if !verb.chars().all(|c| c.is_ascii_lowercase()) || what.contains('"') {
        return (message, None);
    }
    let (resource, group) = what.split_once('.').unwrap_or((what, ""));
    let verb = match verb {
        "post" => "create",
        "put" => "update",
        other => other,
    };
    let info = RequestInfo {
        verb: Some(verb.to_owned()),
        resource: Some(resource.to_owned()),
        api_group: Some(group.to_owned()),
        ..RequestInfo::default()
    };
    (message[..open].trim_end(), Some(info))
}

/// `error when creating "x.yaml": <message>`: the server's message alone
/// (none, when the line is cut inside kubectl's words).
fn strip_operation(message: &str) -> &str {
    for op in KUBECTL_SOURCE_ERRORS {
        if let Some(rest) = message.strip_prefix(op) {
            // After the quoted file, or its first colon when quotes are gone.
            let end = (rest.find("\":").map(|i| i + 2)).or_else(|| rest.find(": ").map(|i| i + 1));
            return end.map_or("", |i| rest[i..].trim_start());
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a line read without a caller gives; it must give something.
    fn found(line: &str) -> ClientLine {
        find(line, None).unwrap()
    }

    #[test]
    fn kubectl_s_table_header_is_an_answer_s() {
        for line in [
            "NAME                   SECRETS   AGE",
            "NAME                     READY   STATUS    RESTARTS   AGE",
            "NAME       STATUS   ROLES           AGE   VERSION",
            "NAME      READY   STATUS    RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES",
        ] {
            assert!(table_header(line), "{line}");
        }
        for line in [
            "NAME: my-release",
            "NAME  SECRETS  AGE is what it printed",
            "CONTAINER ID   IMAGE   COMMAND   CREATED",
            "NAME   REVISION   UPDATED",
            "NAME AGE",
        ] {
            assert!(!table_header(line), "{line}");
        }
    }

    #[test]
    fn kubectl_lines() {
        let f = found("error: You must be logged in to the server (Unauthorized)");
        assert_eq!(f.http.unwrap().status, Some(401));
        let f = found(r#"Error from server (NotFound): pods "web-0" not found"#);
        assert_eq!(f.http.unwrap().status, Some(404));
        assert_eq!(f.request.unwrap().name.as_deref(), Some("web-0"));
        let f = found(
            "Error from server (NotFound): the server could not find the requested resource (post deployments.extensions)",
        );
        let r = f.request.unwrap().describe();
        assert_eq!(r, "create deployments.extensions at the cluster scope");
        // Go's url.Error with a reason phrase alone: a proxy refused the tunnel.
        for line in [
            "E0325 leaderelection.go:331] error retrieving resource lock kube-system/kcm: Get https://10.0.0.1:6443/api/v1/namespaces/kube-system/endpoints/kcm?timeout=10s: Forbidden",
            r#"Get "https://10.0.0.1:6443/api?timeout=32s": Service Unavailable"#,
        ] {
            let h = found(line).http.unwrap();
            assert!(!h.from_kubernetes(), "{line}");
        }
        // Cut or wrapped right after the colon: the reason is still the answer's.
        let f = found("running kubectl: Error from server (Forbidden):");
        assert_eq!(f.http.unwrap().status, Some(403));
        // Cut inside kubectl's own words: none of the server's; quotes lost:
        // the server's after the file's name.
        for (line, message) in [
            (
                r#"Error from server (InternalError): error when creating "big.yaml"#,
                "",
            ),
            (
                "Error from server (InternalError): error when creating x.yaml: Internal error occurred: boom",
                "Internal error occurred: boom",
            ),
        ] {
            assert_eq!(
                found(line).http.unwrap().message.as_deref(),
                Some(message),
                "{line}"
            );
        }
        let f = found(r#"Error from server: serviceaccounts "default" not found"#);
        assert_eq!(f.http.unwrap().status, Some(404));
        // `kubectl create token`'s wrapper of the server's message.
        let f = found(r#"error: failed to create token: serviceaccounts "build-robot" not found"#);
        assert_eq!(f.http.unwrap().status, Some(404));
        assert_eq!(f.request.unwrap().name.as_deref(), Some("build-robot"));
        assert!(
            find(
                "error: failed to create token: no token in server response",
                None
            )
            .is_none()
        );
        // Any apimachinery message names the status the wrapper leaves out.
        let f = found(
            r#"error: failed to create token: TokenRequest.authentication.k8s.io "default" is invalid: spec.expirationSeconds: Invalid value: 100: may not specify a duration less than 10 minutes"#,
        );
        assert_eq!(f.http.unwrap().status, Some(422));
        let f = found(
            r#"Error from server: error when creating "m.yaml": pods "m" is forbidden: no API token found for service account default/default"#,
        );
        let h = f.http.unwrap();
        assert_eq!(h.status, Some(403));
        assert!(h.message.unwrap().starts_with("pods \"m\" is forbidden"));
        let f = found(
            "Failed to read [namespace] from : error: You must be logged in to the server (Unauthorized)",
        );
        assert_eq!(f.http.unwrap().status, Some(401));
        assert!(
            found("Unable to connect to the server: dial tcp: i/o timeout")
                .transport
                .is_some()
        );
        // An HTTP proxy refused the tunnel: Go says its reason phrase alone.
        let h = found("Unable to connect to the server: Forbidden")
            .http
            .unwrap();
        assert_eq!(h.status, Some(403));
        assert!(!h.from_kubernetes());
        let f = found(
            "I0101 00:00:00.118804   51734 round_trippers.go:553] GET https://h/api/v1/namespaces/shop/pods?limit=500 401 Unauthorized in 16 milliseconds",
        );
        assert_eq!(f.format, "kubectl -v");
        // The same line with its klog header already stripped.
        let f = find(
            "GET https://h/api/v1/pods 401 Unauthorized in 16 milliseconds",
            Some("round_trippers.go:553"),
        )
        .unwrap();
        assert_eq!(f.format, "kubectl -v");
        assert_eq!(f.http.unwrap().status, Some(401));
        assert!(find("all good", None).is_none());
    }
}
