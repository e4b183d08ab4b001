//! Pure: HTTP-level evidence: a status line, code or Status body (`--type status`)
//! and `curl -v` transcripts (`--type curl`).
//!
//! In a curl transcript the `*` lines about TLS are context: when the server
//! answered (`< HTTP/2 401`), the handshake succeeded and the answer is what
//! matters. Only a transcript without an answer is a transport failure.

use super::text::{self, StatusBody, find_status_json, parse_http_date, request_from_url};
use super::{Answer, BearerSeen, Evidence, SourceType, Stamp, StampSource, transport};
use crate::secret::SecretToken;

/// `HTTP/1.1 401 Unauthorized`, `HTTP/2 403` -> (code, reason phrase).
fn status_line(line: &str) -> Option<(u16, &str)> {
    let rest = line.trim().strip_prefix("HTTP/")?;
    let (_version, rest) = rest.split_once(' ')?;
    let rest = rest.trim_start();
    let code: u16 = rest.get(..3)?.parse().ok()?;
    let after = rest.get(3..).unwrap_or("");
    if !after.is_empty() && !after.starts_with(' ') {
        return None;
    }
    (100..=599).contains(&code).then_some((code, after.trim()))
}

/// `401`, `401 Unauthorized`, `HTTP 403 Forbidden`, `status code: 404`.
fn bare_code(line: &str) -> Option<u16> {
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

/// Whether `text` reads as a status (line, code, or a Status document).
pub fn looks_like_status(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    status_line(first).is_some()
        || bare_code(first).is_some()
        || (first.trim_start().starts_with('{') && find_status_json(text).is_some())
}

fn status_answer(code: Option<u16>, body: Option<&StatusBody>) -> Answer {
    Answer::Status {
        code: code.or_else(|| body.and_then(|b| b.code)),
        reason: body.and_then(|b| b.reason.clone()),
        message: body.and_then(|b| b.message.clone()),
    }
}

/// `--type status`: HTTP responses (status line, headers, body), a Status JSON
/// document, or bare codes (one per line).
pub fn parse_status(text: &str) -> Vec<Evidence> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| status_line(lines[i]).is_some())
        .collect();
    if !starts.is_empty() {
        return starts
            .iter()
            .enumerate()
            .map(|(n, &start)| {
                let end = starts.get(n + 1).copied().unwrap_or(lines.len());
                response_block(&lines[start..end], start)
            })
            .collect();
    }
    if let Some(body) = find_status_json(text) {
        let line = text::line_of(text, body.offset);
        let mut ev = Evidence::new(
            line,
            SourceType::Status,
            "status-json",
            lines.get(line - 1).copied().unwrap_or(""),
            status_answer(None, Some(&body)),
        );
        ev.notes.push("a Kubernetes Status body".to_owned());
        return vec![ev];
    }
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let code = bare_code(line)?;
            Some(Evidence::new(
                i + 1,
                SourceType::Status,
                "status-code",
                line,
                status_answer(Some(code), None),
            ))
        })
        .collect()
}

/// One raw HTTP response: status line, headers, blank line, body.
fn response_block(block: &[&str], first_line: usize) -> Evidence {
    let (code, _) = status_line(block[0]).unwrap_or((0, ""));
    let header_end = block
        .iter()
        .position(|l| l.trim().is_empty())
        .unwrap_or(block.len());
    let body = block[header_end..].join("\n");
    let status = find_status_json(&body);
    let mut ev = Evidence::new(
        first_line + 1,
        SourceType::Status,
        "http-response",
        block[0],
        status_answer(Some(code), status.as_ref()),
    );
    for header in &block[1..header_end] {
        if let Some((name, value)) = header.split_once(':') {
            note_header(&mut ev, name.trim(), value.trim());
        }
    }
    if status.is_none() && code >= 400 && !body.trim().is_empty() {
        ev.notes
            .push("the body is not a Kubernetes Status object".to_owned());
    }
    ev
}

/// Headers worth noting: `Date` (the server's clock), `Audit-Id` (to find the
/// audit event), `Warning`.
fn note_header(ev: &mut Evidence, name: &str, value: &str) {
    if name.eq_ignore_ascii_case("date") {
        if let Some(at) = parse_http_date(value) {
            ev.stamp = Some(Stamp {
                at,
                source: StampSource::DateHeader,
            });
        }
    } else if name.eq_ignore_ascii_case("audit-id") {
        ev.notes.push(format!(
            "Audit-Id {value}: grep the audit log for this auditID to see the user and annotations"
        ));
    } else if name.eq_ignore_ascii_case("warning") {
        ev.notes.push(format!("server warning: {value}"));
    }
}

/// Whether `text` is a curl -v transcript.
pub fn looks_like_curl(text: &str) -> bool {
    let mut marks = 0;
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("< HTTP/")
            || l.starts_with("* Trying ")
            || l.starts_with("*   Trying ")
            || l.starts_with("* Connected to ")
            || l.starts_with("curl: (")
            || (l.starts_with("> ") && l.ends_with(" HTTP/1.1"))
            || (l.starts_with("> ") && l.ends_with(" HTTP/2"))
        {
            marks += 1;
        }
    }
    marks > 0
}

/// A request being read from `>` lines.
#[derive(Default)]
struct Request {
    method: Option<String>,
    path: Option<String>,
    host: Option<String>,
    bearer: Option<BearerSeen>,
    seen: bool,
}

/// `--type curl`: one event per response (`< HTTP/…`); a transport failure when
/// the transcript has no response.
pub fn parse_curl(text: &str) -> Vec<Evidence> {
    let lines: Vec<&str> = text.lines().collect();
    let mut events: Vec<Evidence> = Vec::new();
    let mut request = Request::default();
    let mut tls: Option<String> = None;
    let mut current: Option<Evidence> = None;
    let mut body = String::new();

    let finish = |ev: Option<Evidence>, body: &mut String, events: &mut Vec<Evidence>| {
        if let Some(mut ev) = ev {
            if let Some(status) = find_status_json(body)
                && let Answer::Status {
                    reason, message, ..
                } = &mut ev.answer
            {
                *reason = status.reason;
                *message = status.message;
            }
            events.push(ev);
        }
        body.clear();
    };

    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim_end();
        if let Some(rest) = line.strip_prefix("> ") {
            if current.is_some() {
                finish(current.take(), &mut body, &mut events);
            }
            read_request_line(&mut request, rest);
            continue;
        }
        if let Some(rest) = line.strip_prefix("< ").or_else(|| line.strip_prefix("<")) {
            if let Some((code, _)) = status_line(rest) {
                finish(current.take(), &mut body, &mut events);
                let mut ev = Evidence::new(
                    i + 1,
                    SourceType::Curl,
                    "curl -v",
                    line,
                    status_answer(Some(code), None),
                );
                if request.seen {
                    if let Some(path) = &request.path {
                        let mut info = request_from_url(request.method.as_deref(), path);
                        if info.path.is_some() && info.verb.is_none() {
                            info.verb = request.method.clone();
                        }
                        ev.request = Some(info);
                    }
                    ev.bearer = Some(request.bearer.clone().unwrap_or(BearerSeen::Absent));
                }
                if let Some(tls) = &tls {
                    ev.notes.push(format!(
                        "TLS handshake completed ({tls}); the server answered {code}, so the TLS lines are not the failure"
                    ));
                }
                if let Some(host) = &request.host {
                    ev.notes.push(format!("host {host}"));
                }
                current = Some(ev);
            } else if let Some(ev) = current.as_mut()
                && let Some((name, value)) = rest.split_once(':')
            {
                note_header(ev, name.trim(), value.trim());
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("* ").or_else(|| line.strip_prefix("*")) {
            let rest = rest.trim();
            if let Some(using) = rest.strip_prefix("SSL connection using ") {
                tls = Some(using.to_owned());
            }
            // curl 8 with HTTP/2 echoes request headers as `* [HTTP/2] [1] [authorization: …]`.
            if let Some(h) = rest
                .strip_prefix("[HTTP/2] [")
                .and_then(|r| r.split_once("] ["))
                .map(|(_, h)| h.trim_end_matches(']'))
                && h.to_ascii_lowercase().starts_with("authorization:")
                && request.bearer.is_none()
            {
                request.bearer = Some(bearer_of(&h["authorization:".len()..]));
            }
            continue;
        }
        if line.starts_with("curl: (") {
            continue;
        }
        if current.is_some() {
            body.push_str(line);
            body.push('\n');
        }
    }
    finish(current.take(), &mut body, &mut events);
    if !events.is_empty() {
        return events;
    }
    // No answer: a transport failure, if curl said which.
    let failure = lines.iter().enumerate().find_map(|(i, line)| {
        let l = line.trim_start();
        let is_curl = l.starts_with("curl: (") || l.starts_with('*');
        is_curl
            .then(|| transport::detect_line(l))
            .flatten()
            .map(|cause| (i, cause, l))
    });
    let Some((i, cause, line)) = failure else {
        return Vec::new();
    };
    // Prefer curl's own summary line, which names the error code.
    let summary = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("curl: ("))
        .filter(|(_, l)| transport::detect_line(l).is_some());
    let (i, line) = summary.map_or((i, line), |(j, l)| (j, l.trim_start()));
    let cause = transport::detect_line(line).unwrap_or(cause);
    let mut ev = Evidence::new(
        i + 1,
        SourceType::Curl,
        "curl -v",
        line,
        Answer::Transport {
            cause,
            detail: line.to_owned(),
        },
    );
    if let Some(path) = &request.path {
        ev.request = Some(request_from_url(request.method.as_deref(), path));
    }
    vec![ev]
}

fn read_request_line(request: &mut Request, rest: &str) {
    let rest = rest.trim();
    if let Some((method, tail)) = rest.split_once(' ')
        && method.chars().all(|c| c.is_ascii_uppercase())
        && (tail.ends_with(" HTTP/1.1") || tail.ends_with(" HTTP/2") || tail.ends_with(" HTTP/1.0"))
    {
        *request = Request {
            method: Some(method.to_owned()),
            path: tail.rsplit_once(' ').map(|(p, _)| p.to_owned()),
            seen: true,
            ..Request::default()
        };
        return;
    }
    if let Some((name, value)) = rest.split_once(':') {
        if name.eq_ignore_ascii_case("authorization") {
            request.bearer = Some(bearer_of(value));
        } else if name.eq_ignore_ascii_case("host") {
            request.host = Some(value.trim().to_owned());
        }
    }
}

/// What an `Authorization` value carries. kube-apiserver splits on single spaces,
/// so `Bearer` followed by nothing or by two spaces is no credential at all
/// (k8s.io/apiserver pkg/authentication/request/bearertoken).
fn bearer_of(value: &str) -> BearerSeen {
    let value = value.strip_prefix(' ').unwrap_or(value);
    let Some(token) = value
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("bearer "))
        .map(|_| &value[7..])
    else {
        return if value.trim().eq_ignore_ascii_case("bearer") {
            BearerSeen::Empty
        } else {
            BearerSeen::Absent
        };
    };
    if token.trim().is_empty() || token.starts_with(' ') {
        return BearerSeen::Empty;
    }
    BearerSeen::Token(SecretToken::new(token.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_and_codes() {
        assert_eq!(
            status_line("HTTP/1.1 401 Unauthorized"),
            Some((401, "Unauthorized"))
        );
        assert_eq!(status_line("HTTP/2 403 "), Some((403, "")));
        assert_eq!(status_line("HTTP/2 4033"), None);
        assert_eq!(bare_code("401"), Some(401));
        assert_eq!(bare_code("HTTP 403 Forbidden"), Some(403));
        assert_eq!(bare_code("status code: 404"), Some(404));
        assert_eq!(
            bare_code("401 errors in the last hour were caused by"),
            None
        );
    }

    #[test]
    fn bearer_values() {
        assert_eq!(bearer_of(" Bearer "), BearerSeen::Empty);
        assert_eq!(bearer_of(" Bearer  eyJ.x.y"), BearerSeen::Empty);
        assert!(matches!(bearer_of(" Bearer eyJ.x.y"), BearerSeen::Token(_)));
        assert_eq!(bearer_of(" Basic abc"), BearerSeen::Absent);
    }

    #[test]
    fn curl_answer_wins_over_tls_lines() {
        let t = "* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256\n> GET /api/v1/namespaces/shop/pods HTTP/2\n> Host: 10.96.0.1\n>\n< HTTP/2 401\n< date: Thu, 01 Jan 2026 00:00:00 GMT\n<\n{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n";
        let ev = parse_curl(t);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].answer.code(), Some(401));
        assert_eq!(ev[0].line, 5);
        assert_eq!(ev[0].bearer, Some(BearerSeen::Absent));
        assert!(ev[0].stamp.is_some());
        assert!(ev[0].notes[0].contains("not the failure"));
        assert_eq!(
            ev[0].request.as_ref().unwrap().verb.as_deref(),
            Some("list")
        );
    }
}
