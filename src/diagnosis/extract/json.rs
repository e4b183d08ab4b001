//! JSON inside text: Kubernetes `Status` bodies, TokenReviews, audit events,
//! the Dashboard's error wrapper, Vault's `{"errors": […]}`, and structured
//! log lines (zap, `--logging-format=json`) whose string fields carry the
//! program's text. Found anywhere in a line, on one line or (pretty-printed)
//! over several, and also when they cannot be parsed: a Python `repr` of the
//! body, a Java `Status(…)` dump, a body cut short.
//!
//! Linear: one pass finds the balanced top-level objects of a line (string-
//! aware), each is parsed once, and parsed values are walked to a bounded
//! depth.

use serde_json::Value;

use super::super::artefact::Review;
use super::super::facts::{AnswerOrigin, HttpAnswer};
use crate::vocabulary::cues::{
    AUDIT_ANNOTATIONS, DOCUMENT_CUES, JAVA_STATUS_FIELDS, STATUS_MARKERS, TEXT_FIELDS,
};

/// Largest object parsed (a Status body, an audit event or a log line is far
/// smaller; a larger one is read leniently instead).
pub const MAX_DOC: usize = 1 << 20;
/// Objects looked at per line.
const MAX_SPANS: usize = 32;
/// How deep a parsed value is walked for documents.
const MAX_WALK: usize = 6;

/// Balanced top-level `{…}` and `[…]` values in `text` (byte ranges), and where an
/// outermost `{` or `[` opens that the text does not close.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Spans {
    pub objects: Vec<(usize, usize)>,
    pub unclosed: Option<usize>,
}

/// String-aware brace matching, in one pass: each value read by a [`Balance`]
/// from its opening brace.
pub fn spans(text: &str) -> Spans {
    let mut out = Spans::default();
    let mut from = 0;
    while let Some(i) = text[from..].find(['{', '[']) {
        let start = from + i;
        let Some(len) = Balance::default().feed(&text[start..]) else {
            // Only what looks like the start of a JSON value continues on the
            // next lines (`{`, `[{`, `{"kind": …`); `[invalid bearer token, …`
            // cut short does not.
            let after = text[start + 1..].trim_start();
            if after.is_empty() || after.starts_with(['{', '[', '"', '}', ']']) {
                out.unclosed = Some(start);
            }
            break;
        };
        if out.objects.len() < MAX_SPANS {
            out.objects.push((start, start + len));
        }
        from = start + len;
    }
    out
}

/// The state of a JSON value being read over several lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Balance {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Balance {
    /// Reads `text`; returns where the value closes (the byte after its last
    /// brace), if it does.
    pub fn feed(&mut self, text: &str) -> Option<usize> {
        for (i, &b) in text.as_bytes().iter().enumerate() {
            if self.in_string {
                match b {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// What a JSON value turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Doc {
    /// A Kubernetes `Status` (or the Dashboard's `ErrStatus`).
    Status(HttpAnswer),
    /// A TokenReview with a status, and its `status.error`.
    Review(Review, Option<String>),
    /// An audit event (or an annotations object alone).
    Audit(Value),
    /// Text a program put in a string field (a structured log's `msg`/`error`,
    /// Vault's `errors`, an API's `message`): read like a line.
    Text(String),
    /// A structured log record's error status field (`"http.status_code":401`,
    /// `"status_code":"403"`), where no Status body stands in the record.
    Code(u16),
}

/// The documents in a parsed value, walked to a bounded depth.
pub fn documents(value: &Value) -> Vec<Doc> {
    let mut out = Vec::new();
    walk(value, 0, &mut out);
    out
}

fn walk(value: &Value, depth: usize, out: &mut Vec<Doc>) {
    if depth > MAX_WALK || out.len() > 64 {
        return;
    }
    match value {
        Value::Array(items) => {
            for item in items.iter().take(256) {
                walk(item, depth + 1, out);
            }
        }
        Value::Object(obj) => {
            match obj.get("kind").and_then(Value::as_str) {
                Some("Status") => return out.push(Doc::Status(status_of(obj))),
                Some("TokenReview") => return out.extend(review_of(obj)),
                // Before the event test: a list shares the events' apiVersion.
                Some("EventList") => {
                    if let Some(items) = obj.get("items") {
                        walk(items, depth + 1, out);
                    }
                    return;
                }
                _ => {}
            }
            if is_event(value) || is_annotations(value) {
                out.push(Doc::Audit(value.clone()));
                return;
            }
            // The Dashboard: `{"status":401,"errors":[{"ErrStatus":{…}}]}`.
            if let Some(Value::Object(err)) = obj.get("ErrStatus") {
                let mut facts = status_of(err);
                if let Some(m) = facts.message.as_deref()
                    && m.starts_with("MSG_")
                {
                    facts.origin = AnswerOrigin::Other(format!(
                        "the Kubernetes Dashboard answered with its own error ({m}), not kube-apiserver"
                    ));
                }
                out.push(Doc::Status(facts));
                return;
            }
            let (start, mut status_field) = (out.len(), None);
            for (key, v) in obj.iter().take(256) {
                match v {
                    Value::String(s) if TEXT_FIELDS.contains(&key.as_str()) && !s.is_empty() => {
                        out.push(Doc::Text(s.clone()));
                    }
                    Value::Number(_) | Value::String(_) if super::status::names_a_status(key) => {
                        let code = v.as_u64().or_else(|| v.as_str()?.parse().ok());
                        if let Some(code) = code.filter(|c| (400..600).contains(c)) {
                            status_field = u16::try_from(code).ok();
                        }
                    }
                    Value::Array(items) if TEXT_FIELDS.contains(&key.as_str()) => {
                        // Vault's body (`{"errors":["…"]}`) is a list of
                        // messages its own client prints as `* MESSAGE`
                        // (hashicorp/vault api/response.go).
                        let bullet = if key == "errors" { "* " } else { "" };
                        for item in items.iter().take(64) {
                            match item {
                                Value::String(s) if !s.is_empty() => {
                                    out.push(Doc::Text(format!("{bullet}{s}")))
                                }
                                other => walk(other, depth + 1, out),
                            }
                        }
                    }
                    Value::Array(_) | Value::Object(_) => walk(v, depth + 1, out),
                    _ => {}
                }
            }
            // Only where no Status body stands in the same record.
            if !out[start..].iter().any(|d| matches!(d, Doc::Status(_))) {
                out.extend(status_field.map(Doc::Code));
            }
        }
        _ => {}
    }
}

fn status_of(obj: &serde_json::Map<String, Value>) -> HttpAnswer {
    let s = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    HttpAnswer {
        status: obj
            .get("code")
            .and_then(Value::as_u64)
            .and_then(|c| u16::try_from(c).ok())
            .filter(|c| (100..=599).contains(c)),
        reason: s("reason"),
        message: s("message"),
        weight: 1,
        ..HttpAnswer::default()
    }
}

fn review_of(obj: &serde_json::Map<String, Value>) -> Option<Doc> {
    let status = obj.get("status")?;
    let authenticated = status
        .get("authenticated")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let error = status
        .get("error")
        .and_then(Value::as_str)
        .filter(|e| !e.is_empty())
        .map(str::to_owned);
    if !authenticated && error.is_none() {
        return None;
    }
    let review = Review {
        authenticated,
        user: status
            .pointer("/user/username")
            .and_then(Value::as_str)
            .map(str::to_owned),
        audiences: strings(status.get("audiences")),
        shown_by: crate::diagnosis::artefact::REVIEWED,
    };
    Some(Doc::Review(review, error))
}

pub fn is_event(v: &Value) -> bool {
    let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    api.starts_with("audit.k8s.io/") || (kind == "Event" && v.get("auditID").is_some())
}

/// Whether `v` is an event's `annotations` alone (or `{"annotations": …}`).
pub fn is_annotations(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let obj = match obj.get("annotations").and_then(Value::as_object) {
        Some(inner) if obj.len() == 1 => inner,
        _ => obj,
    };
    obj.keys().any(|k| AUDIT_ANNOTATIONS.contains(&k.as_str()))
        && obj
            .keys()
            .all(|k| k.contains(".k8s.io/") || k.contains(".kubernetes.io/"))
}

/// The strings of a JSON array (other items skipped); empty when it is not one.
pub fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Parses `text` as one JSON value (bounded size and depth).
pub fn parse(text: &str) -> Option<Value> {
    if text.len() > MAX_DOC {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// Whether a parsed object is worth walking (a document or a structured log
/// line), rather than data that merely is JSON.
pub fn interesting(text: &str) -> bool {
    DOCUMENT_CUES.iter().any(|k| text.contains(k))
}

/// A Status read leniently: a Python `repr` (`{'kind': 'Status', … 'code': 401}`),
/// a Java dump (`Status(…, code=403, …, kind=Status, message=…, reason=…)`),
/// JSON cut short or escaped. `None` without a `kind` of `Status`.
pub fn lenient_status(text: &str) -> Option<HttpAnswer> {
    let at = STATUS_MARKERS.iter().filter_map(|m| text.find(m)).min()?;
    let lo = text.floor_char_boundary(at.saturating_sub(2048));
    let hi = text.ceil_char_boundary(at + 8192);
    let window = &text[lo..hi];
    let code = ["\"code\":", "\"code\": ", "'code': ", "code="]
        .iter()
        .find_map(|k| {
            let i = window.find(k)?;
            let rest = window[i + k.len()..].trim_start();
            rest.get(..3)?.parse::<u16>().ok()
        })
        .filter(|c| (100..=599).contains(c));
    Some(HttpAnswer {
        status: code,
        reason: field(window, "reason"),
        message: field(window, "message"),
        weight: 1,
        ..HttpAnswer::default()
    })
}

/// A string field in JSON, Python or Java layout.
fn field(window: &str, key: &str) -> Option<String> {
    for open in [
        format!("\"{key}\":\""),
        format!("\"{key}\": \""),
        format!("'{key}': '"),
        format!("'{key}': \""),
    ] {
        if let Some(i) = window.find(&open) {
            let quote = open.chars().last()?;
            // Up to its closing quote, or what there is when cut short.
            let value = super::aggregate::read_quoted(&window[i + open.len()..], quote);
            return Some(value).filter(|v| !v.is_empty());
        }
    }
    let open = format!("{key}=");
    // A field of its own: after `(` or `, `.
    let (at, _) = window
        .match_indices(&open)
        .find(|&(at, _)| at == 0 || window[..at].ends_with(", ") || window[..at].ends_with('('))?;
    let rest = &window[at + open.len()..];
    let end = JAVA_STATUS_FIELDS
        .iter()
        .filter_map(|e| rest.find(e))
        .min()
        .or_else(|| rest.find([',', ')']))
        .unwrap_or(rest.len());
    let value = rest[..end].trim();
    (!value.is_empty() && value != "null").then(|| value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documents in `text`, which must be JSON.
    fn docs_of(text: &str) -> Vec<Doc> {
        documents(&parse(text).unwrap())
    }

    #[test]
    fn spans_are_balanced_and_string_aware() {
        let s = spans(r#"x {"a":"}{"} y {"b":{}} z ["#);
        assert_eq!(s.objects, [(2, 12), (15, 23)]);
        assert_eq!(s.unclosed, Some(26));
        assert_eq!(
            spans("err=\"[invalid bearer token, a \\\"b\\\" c]\"").unclosed,
            None
        );
        let s = spans("HTTP response body: {'kind': 'Status', 'apiVersion':");
        assert_eq!(s.unclosed, None);
        assert_eq!(spans("server response object: [{").unclosed, Some(24));
        let mut b = Balance::default();
        assert_eq!(b.feed("{"), None);
        assert_eq!(b.feed("  \"m\": \"}\","), None);
        assert_eq!(b.feed("}root@pod:/# curl"), Some(1));
    }

    /// A structured log's error status field is read as its line would be,
    /// unless a Status body in the same record says more.
    #[test]
    fn a_record_s_status_field_is_a_status() {
        assert_eq!(
            docs_of(r#"{"msg":"request failed","http.status_code":401}"#),
            [Doc::Text("request failed".to_owned()), Doc::Code(401)]
        );
        assert_eq!(docs_of(r#"{"status_code":"403"}"#), [Doc::Code(403)]);
        // A success, an exit status and a number that is no status are not.
        for text in [
            r#"{"status_code":200}"#,
            r#"{"exit_status":404}"#,
            r#"{"status":"Failure"}"#,
        ] {
            assert!(docs_of(text).is_empty(), "{text}");
        }
        let dashboard = r#"{"status":401,"errors":[{"ErrStatus":{"message":"MSG_LOGIN_UNAUTHORIZED_ERROR","reason":"Unauthorized","code":401}}]}"#;
        assert!(!docs_of(dashboard).contains(&Doc::Code(401)));
    }

    #[test]
    fn documents_and_lenient_statuses() {
        // Vault's error list, each message as its own client prints it.
        let docs = docs_of(r#"{"errors":["lookup failed: [invalid bearer token]"]}"#);
        assert_eq!(
            docs,
            [Doc::Text("* lookup failed: [invalid bearer token]".into())]
        );
        let docs = docs_of(
            r#"{"status":401,"plugins":[],"errors":[{"ErrStatus":{"message":"MSG_LOGIN_UNAUTHORIZED_ERROR","reason":"Unauthorized","code":401}}]}"#,
        );
        let Doc::Status(f) = &docs[0] else { panic!() };
        assert_eq!(f.status, Some(401));
        assert!(!f.from_kubernetes());
        // An audit EventList is its events, not one event.
        let docs = docs_of(
            r#"{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"a"},{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"b"}]}"#,
        );
        assert_eq!(docs.len(), 2);
        assert!(docs.iter().all(|d| matches!(d, Doc::Audit(_))));
        let f = lenient_status("HTTP response body: {'kind': 'Status', 'apiVersion': 'v1', 'code': 401, 'reason': 'Unauthorized'").unwrap();
        assert_eq!(f.status, Some(401));
        assert_eq!(f.reason.as_deref(), Some("Unauthorized"));
        let f = lenient_status("Received status: Status(apiVersion=v1, code=403, details=null, kind=Status, message=pods is forbidden: User \"a\" cannot list, metadata=ListMeta(), reason=Forbidden, status=Failure)").unwrap();
        assert_eq!(f.status, Some(403));
        assert_eq!(
            f.message.as_deref(),
            Some("pods is forbidden: User \"a\" cannot list")
        );
        assert_eq!(f.reason.as_deref(), Some("Forbidden"));
        assert!(lenient_status("{\"kind\":\"Pod\"}").is_none());
    }
}
