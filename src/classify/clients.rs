//! Pure: errors as clients print them. kubectl (`--type kubectl`), and
//! `--type client-error`: client-go (Go programs, controllers), fabric8 (Java),
//! the Python `kubernetes` client and `requests`, and Ray job submission, which
//! wraps the Python errors.
//!
//! Renderings (kubectl/pkg/cmd/util/helpers.go `StandardErrorMessage`,
//! apimachinery `StatusError`, client-go `the server has asked for the client to
//! provide credentials` for a 401 without a Status body).

use super::text::{
    self, find_date_header, find_status_json, forbidden_message, leading_timestamp,
    not_found_request, request_from_url,
};
use super::{Answer, Events, Evidence, RequestInfo, SourceType, Stamp, StampSource, transport};
use crate::diagnosis::Cause;
use chrono::{DateTime, Utc};

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

fn strip_stamp(line: &str, now: DateTime<Utc>) -> (Option<Stamp>, &str) {
    match leading_timestamp(line, now) {
        Some((stamp, rest)) => (Some(stamp), rest),
        None => (None, line.trim()),
    }
}

/// Whether any line is kubectl's own error output or its `-v` request log.
pub fn looks_like_kubectl(text: &str) -> bool {
    // Year inference is irrelevant for detection.
    let now = DateTime::<Utc>::UNIX_EPOCH;
    text.lines().any(|line| {
        let (_, l) = strip_stamp(line, now);
        l.starts_with("error: You must be logged in to the server")
            || l.starts_with("Error from server (")
            || l.starts_with("Unable to connect to the server:")
            || (l.starts_with("The connection to the server ") && l.contains(" was refused"))
            || (l.contains("round_trippers.go") && round_tripper(l).is_some())
    })
}

/// kubectl -v=6+: `round_trippers.go:553] GET https://… 401 Unauthorized in 4
/// milliseconds` -> (method, url, code).
fn round_tripper(line: &str) -> Option<(&str, &str, u16)> {
    let rest = line.split_once("] ")?.1.trim();
    let mut words = rest.split_whitespace();
    let method = words.next()?;
    if !method.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let url = words.next()?;
    let code: u16 = words.next()?.parse().ok()?;
    Some((method, url, code))
}

/// `--type kubectl`: one event per error line; `-v` request lines give the
/// request, and alone (no error line) an event each.
pub fn parse_kubectl(text: &str) -> Vec<Evidence> {
    let lines: Vec<&str> = text.lines().collect();
    let now = DateTime::<Utc>::UNIX_EPOCH;
    let date = find_date_header(text);
    let mut events = Vec::new();
    let mut trips = Vec::new();
    let mut last_request: Option<RequestInfo> = None;
    for (i, raw) in lines.iter().enumerate() {
        let (_, line) = strip_stamp(raw, now);
        if let Some((method, url, code)) = round_tripper(line) {
            let request = request_from_url(Some(method), url);
            let mut ev = Evidence::new(
                i + 1,
                SourceType::Kubectl,
                "kubectl -v",
                line,
                Answer::Status {
                    code: Some(code),
                    reason: None,
                    message: None,
                },
            );
            ev.request = Some(request.clone());
            trips.push(ev);
            last_request = Some(request);
            continue;
        }
        let ev = if let Some(rest) = line.strip_prefix("error: You must be logged in to the server")
        {
            let message = rest.trim().trim_start_matches('(').trim_end_matches(')');
            let mut ev = Evidence::new(
                i + 1,
                SourceType::Kubectl,
                "kubectl",
                line,
                Answer::Status {
                    code: Some(401),
                    reason: Some("Unauthorized".to_owned()),
                    message: Some(message.to_owned()),
                },
            );
            if message == "the server has asked for the client to provide credentials" {
                ev.notes.push(
                    "client-go's text for a 401 whose body was not a Kubernetes Status (a proxy or another server may have answered)"
                        .to_owned(),
                );
            }
            ev
        } else if let Some(rest) = line.strip_prefix("Error from server (") {
            let Some((reason, message)) = rest.split_once("): ") else {
                continue;
            };
            let mut ev = Evidence::new(
                i + 1,
                SourceType::Kubectl,
                "kubectl",
                line,
                Answer::Status {
                    code: code_for_reason(reason),
                    reason: Some(reason.to_owned()),
                    message: Some(message.trim().to_owned()),
                },
            );
            if reason == "NotFound" {
                ev.request = not_found_request(message);
            }
            ev
        } else if let Some(detail) = line.strip_prefix("Unable to connect to the server:") {
            let cause = transport::cause_of_line(detail);
            transport_event(i, SourceType::Kubectl, "kubectl", line, cause)
        } else if line.starts_with("The connection to the server ") && line.contains(" was refused")
        {
            transport_event(
                i,
                SourceType::Kubectl,
                "kubectl",
                line,
                transport::cause_of_line(line),
            )
        } else {
            continue;
        };
        let mut ev = ev;
        if ev.request.is_none() {
            ev.request = last_request.clone();
        }
        events.push(ev);
    }
    let mut events = if events.is_empty() { trips } else { events };
    if let Some(at) = date {
        for ev in &mut events {
            ev.stamp.get_or_insert(Stamp {
                at,
                source: StampSource::DateHeader,
            });
        }
    }
    events
}

fn transport_event(
    index: usize,
    source: SourceType,
    format: &'static str,
    line: &str,
    cause: Cause,
) -> Evidence {
    Evidence::new(
        index + 1,
        source,
        format,
        line,
        Answer::Transport {
            cause,
            detail: line.trim().to_owned(),
        },
    )
}

/// Which client wrote the text.
fn client_format(text: &str) -> &'static str {
    if text.contains("ray.exceptions")
        || text.contains("RayTaskError")
        || text.contains("JobSubmissionClient")
        || text.contains("Request failed with status code")
        || text.contains("ray job submit")
    {
        "ray"
    } else if text.contains("io.fabric8")
        || text.contains("KubernetesClientException")
        || text.contains("Configured service account doesn't have access")
    {
        "fabric8"
    } else if text.contains("ApiException") || text.contains("HTTP response body:") {
        "python-kubernetes"
    } else if (text.contains(" Client Error: ") || text.contains(" Server Error: "))
        && text.contains(" for url: ")
        || text.contains("HTTPSConnectionPool(")
        || text.contains("requests.exceptions")
    {
        "python-requests"
    } else {
        "client-go"
    }
}

/// Whether `text` is a client library error we know.
pub fn looks_like_client(text: &str) -> bool {
    match client_format(text) {
        "client-go" => parse_client_go(text).next().is_some(),
        _ => true,
    }
}

/// `--type client-error`.
pub fn parse_client(text: &str) -> Events<'_> {
    let format = client_format(text);
    let date = find_date_header(text).map(|at| Stamp {
        at,
        source: StampSource::DateHeader,
    });
    let stamped = move |mut ev: Evidence| {
        if ev.stamp.is_none() {
            ev.stamp = date;
        }
        ev
    };
    if format == "client-go" {
        // Line by line, lazily: controller logs can be long.
        let mut events = parse_client_go(text).peekable();
        if events.peek().is_some() {
            return Box::new(events.map(stamped));
        }
    }
    let mut events: Vec<Evidence> = match format {
        "ray" => parse_ray(text),
        "fabric8" => parse_fabric8(text).into_iter().collect(),
        "python-kubernetes" | "python-requests" => parse_python(text, format).into_iter().collect(),
        _ => Vec::new(),
    };
    if events.is_empty()
        && let Some(body) = find_status_json(text)
    {
        let line = text::line_of(text, body.offset);
        events.push(Evidence::new(
            line,
            SourceType::ClientError,
            format,
            text.lines().nth(line - 1).unwrap_or(""),
            Answer::Status {
                code: body.code,
                reason: body.reason,
                message: body.message,
            },
        ));
    }
    Box::new(events.into_iter().map(stamped))
}

/// The first line (0-based index) containing `needle`.
fn line_with(text: &str, needle: &str) -> Option<(usize, String)> {
    text.lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .map(|(i, l)| (i, l.to_owned()))
}

/// fabric8: `KubernetesClientException: Failure executing: GET at: URL. Message:
/// Forbidden!Configured service account doesn't have access. Service account may
/// have been revoked. <message>. Received status: Status(…, code=403, …)`.
fn parse_fabric8(text: &str) -> Option<Evidence> {
    let (index, line) = line_with(text, "Failure executing:")
        .or_else(|| line_with(text, "KubernetesClientException"))
        .or_else(|| line_with(text, "Configured service account doesn't have access"))?;
    let code = after(text, "code=")
        .and_then(|c| c.get(..3)?.parse::<u16>().ok())
        .or_else(|| text.contains("Unauthorized!").then_some(401))
        .or_else(|| text.contains("Forbidden!").then_some(403));
    let Some(code) = code else {
        let (i, l) = first_transport(text)?;
        return Some(transport_event(
            i,
            SourceType::ClientError,
            "fabric8",
            l,
            transport::detect_line(l)?,
        ));
    };
    let message = after(text, "message=")
        .and_then(|m| {
            let end = [", metadata=", ", reason=", ", status="]
                .iter()
                .filter_map(|e| m.find(e))
                .min()?;
            Some(m[..end].to_owned())
        })
        .or_else(|| {
            // The 403 text sits in `Message: …` on one line, sometimes followed by
            // `. Received status: Status(…)`.
            let line = text.lines().find(|l| l.contains("forbidden: User \""))?;
            let line = line.split(". Received status:").next().unwrap_or(line);
            forbidden_message(line).map(str::to_owned)
        });
    let reason = after(text, "reason=").and_then(|r| r.split([',', ')']).next().map(str::to_owned));
    let mut ev = Evidence::new(
        index + 1,
        SourceType::ClientError,
        "fabric8",
        &line,
        Answer::Status {
            code: Some(code),
            reason,
            message,
        },
    );
    if let Some(rest) = after(text, "Failure executing: ") {
        let mut words = rest.split_whitespace();
        if let (Some(method), Some("at:"), Some(url)) = (words.next(), words.next(), words.next()) {
            ev.request = Some(request_from_url(Some(method), url.trim_end_matches('.')));
        }
    }
    if text.contains("Service account may have been revoked") {
        ev.notes.push(format!(
            "fabric8 adds \"Service account may have been revoked\" to every 401 and 403; the status ({code}) is what counts"
        ));
    }
    Some(ev)
}

/// Python: `kubernetes.client.exceptions.ApiException: (403)` + `Reason:` +
/// `HTTP response headers:` + `HTTP response body:`; `requests`:
/// `401 Client Error: Unauthorized for url: URL`; urllib3 connection errors.
fn parse_python(text: &str, format: &'static str) -> Option<Evidence> {
    if let Some((index, line)) =
        line_with(text, "ApiException: (").or_else(|| line_with(text, "ApiException("))
    {
        let code: Option<u16> = after(&line, "(")
            .and_then(|c| c.split(')').next())
            .and_then(|c| c.parse().ok())
            .filter(|&c| c != 0);
        if let Some(code) = code {
            let body = find_status_json(text);
            let reason = after(text, "Reason: ")
                .and_then(|r| r.lines().next())
                .map(|r| r.trim().to_owned());
            let mut ev = Evidence::new(
                index + 1,
                SourceType::ClientError,
                format,
                &line,
                Answer::Status {
                    code: Some(code),
                    reason: body.as_ref().and_then(|b| b.reason.clone()).or(reason),
                    message: body.and_then(|b| b.message),
                },
            );
            ev.notes
                .push(format!("Python kubernetes client ApiException ({code})"));
            return Some(ev);
        }
    }
    for (index, line) in text.lines().enumerate() {
        for kind in [" Client Error: ", " Server Error: "] {
            let Some(at) = line.find(kind) else { continue };
            let code: Option<u16> = line[..at]
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|c| c.parse().ok());
            let Some(code) = code else { continue };
            let rest = &line[at + kind.len()..];
            let (reason, url) = rest.split_once(" for url: ").unwrap_or((rest, ""));
            let mut ev = Evidence::new(
                index + 1,
                SourceType::ClientError,
                "python-requests",
                line,
                Answer::Status {
                    code: Some(code),
                    reason: Some(reason.trim().to_owned()),
                    message: find_status_json(text).and_then(|b| b.message),
                },
            );
            if !url.is_empty() {
                ev.request = Some(request_from_url(Some("GET"), url.trim()));
                ev.notes.push(
                    "requests does not show the method; GET assumed for the request".to_owned(),
                );
            }
            return Some(ev);
        }
    }
    let (i, l) = first_transport(text)?;
    let mut ev = transport_event(
        i,
        SourceType::ClientError,
        format,
        l,
        transport::detect_line(l)?,
    );
    if let Some(url) = after(text, "Max retries exceeded with url: ") {
        ev.request = Some(request_from_url(
            None,
            url.split_whitespace().next().unwrap_or(""),
        ));
    }
    Some(ev)
}

/// Ray job submission: `RuntimeError: Request failed with status code 401: <body>.`
/// from the dashboard's JobSubmissionClient, or a task error wrapping a Python
/// kubernetes ApiException.
fn parse_ray(text: &str) -> Vec<Evidence> {
    let mut ev = if let Some((index, line)) = line_with(text, "Request failed with status code ") {
        let code: Option<u16> =
            after(&line, "Request failed with status code ").and_then(|c| c.get(..3)?.parse().ok());
        let body = find_status_json(text);
        code.map(|code| {
            let mut ev = Evidence::new(
                index + 1,
                SourceType::ClientError,
                "ray",
                &line,
                Answer::Status {
                    code: Some(code),
                    reason: body.as_ref().and_then(|b| b.reason.clone()),
                    message: body.and_then(|b| b.message),
                },
            );
            ev.notes.push(format!(
                "Ray's JobSubmissionClient got HTTP {code} from the address it submits to"
            ));
            ev
        })
    } else {
        None
    };
    if ev.is_none() {
        let inner = client_format_without_ray(text);
        ev = match inner {
            "fabric8" => parse_fabric8(text),
            "client-go" => parse_client_go(text).next(),
            other => parse_python(text, other),
        };
        if let Some(ev) = ev.as_mut() {
            ev.notes.push(format!("Ray wraps a {inner} error"));
            ev.format = "ray";
        }
    }
    ev.into_iter().collect()
}

fn client_format_without_ray(text: &str) -> &'static str {
    if text.contains("ApiException") || text.contains("HTTP response body:") {
        "python-kubernetes"
    } else if text.contains(" Client Error: ") || text.contains("HTTPSConnectionPool(") {
        "python-requests"
    } else if text.contains("io.fabric8") {
        "fabric8"
    } else {
        "client-go"
    }
}

/// client-go (Go programs, controllers): one event per line that holds a
/// `StatusError` rendering or a transport failure.
fn parse_client_go(text: &str) -> impl Iterator<Item = Evidence> + '_ {
    let now = DateTime::<Utc>::UNIX_EPOCH;
    text.lines().enumerate().filter_map(move |(i, raw)| {
        let (stamp, line) = strip_stamp(raw, now);
        let answer = if line.contains("the server has asked for the client to provide credentials")
            || line.trim_end().ends_with(": Unauthorized")
            || line.trim() == "Unauthorized"
        {
            Some(Answer::Status {
                code: Some(401),
                reason: Some("Unauthorized".to_owned()),
                message: Some(
                    if line.contains("provide credentials") {
                        "the server has asked for the client to provide credentials"
                    } else {
                        "Unauthorized"
                    }
                    .to_owned(),
                ),
            })
        } else if let Some(message) = forbidden_message(line) {
            Some(Answer::Status {
                code: Some(403),
                reason: Some("Forbidden".to_owned()),
                message: Some(message.to_owned()),
            })
        } else if line.contains("the server could not find the requested resource")
            || line
                .rsplit(": ")
                .next()
                .and_then(not_found_request)
                .is_some()
        {
            Some(Answer::Status {
                code: Some(404),
                reason: Some("NotFound".to_owned()),
                message: line.rsplit(": ").next().map(str::to_owned),
            })
        } else if line.contains("the server is currently unable to handle the request") {
            Some(Answer::Status {
                code: Some(503),
                reason: Some("ServiceUnavailable".to_owned()),
                message: None,
            })
        } else if line.contains("Internal error occurred") {
            Some(Answer::Status {
                code: Some(500),
                reason: Some("InternalError".to_owned()),
                message: None,
            })
        } else {
            transport::detect_line(line).map(|cause| Answer::Transport {
                cause,
                detail: line.trim().to_owned(),
            })
        };
        let answer = answer?;
        let mut ev = Evidence::new(i + 1, SourceType::ClientError, "client-go", line, answer);
        // Year-less klog stamps are not used here: they were read with a dummy
        // `now`; only full timestamps are kept.
        ev.stamp = stamp.filter(|s| s.source == StampSource::LogTimestamp);
        if let Some(Answer::Status {
            code: Some(404),
            message: Some(m),
            ..
        }) = Some(&ev.answer)
        {
            ev.request = not_found_request(m);
        }
        // Go's url.Error: `Get "https://…/api/v1/…": dial tcp …`.
        for method in ["Get", "Post", "Put", "Patch", "Delete"] {
            if let Some(url) = after(line, &format!("{method} \""))
                && let Some(url) = url.split('"').next()
            {
                ev.request = Some(request_from_url(Some(&method.to_ascii_uppercase()), url));
                break;
            }
        }
        Some(ev)
    })
}

fn first_transport(text: &str) -> Option<(usize, &str)> {
    transport::detect(text).map(|(_, i, l)| (i, l))
}

/// The text after the first `needle`.
fn after<'a>(text: &'a str, needle: &str) -> Option<&'a str> {
    text.find(needle).map(|i| &text[i + needle.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_lines() {
        let ev = parse_kubectl("error: You must be logged in to the server (Unauthorized)\n");
        assert_eq!(ev[0].answer.code(), Some(401));
        let ev = parse_kubectl(r#"Error from server (NotFound): pods "web-0" not found"#);
        assert_eq!(ev[0].answer.code(), Some(404));
        assert_eq!(
            ev[0].request.as_ref().unwrap().name.as_deref(),
            Some("web-0")
        );
        let ev = parse_kubectl(
            "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
        );
        assert!(matches!(
            ev[0].answer,
            Answer::Transport {
                cause: Cause::ConnectionRefused,
                ..
            }
        ));
    }

    #[test]
    fn client_go_lines() {
        let ev: Vec<Evidence> = parse_client_go(
            "E0101 00:00:00.000000       1 reflector.go:147] k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.Pod: failed to list *v1.Pod: Unauthorized\n",
        )
        .collect();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].answer.code(), Some(401));
        let ev: Vec<Evidence> = parse_client_go(
            r#"W0101 reflector.go:1] failed to list *v1.Pod: Get "https://10.96.0.1:443/api/v1/namespaces/shop/pods?limit=500": dial tcp 10.96.0.1:443: connect: connection refused"#,
        )
        .collect();
        assert_eq!(
            ev[0].request.as_ref().unwrap().namespace.as_deref(),
            Some("shop")
        );
        assert!(parse_client_go("all good").next().is_none());
    }
}
