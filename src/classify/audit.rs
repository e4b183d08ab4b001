//! Pure: Kubernetes audit events (`--type audit`), audit.k8s.io/v1 `Event`, as
//! one JSON document, an `EventList`, an array, or JSON lines (the log backend).
//!
//! Read from each event: `user.username` and `user.extra`
//! (`authentication.kubernetes.io/credential-id` = `JTI=<jti>`, 1.30+),
//! `verb`, `objectRef`, `requestURI`, `responseStatus` and the annotations
//! `authentication.k8s.io/stale-token`, `authentication.k8s.io/legacy-token`,
//! `authentication.k8s.io/legacy-token-invalidated` (pkg/serviceaccount
//! claims.go/legacy.go) and `authorization.k8s.io/{decision,reason}`. kube-apiserver
//! writes no `authentication.k8s.io/credential-id` annotation; if one is present
//! (hand-written or from another tool) it is accepted and labelled as such.

use chrono::DateTime;
use serde_json::Value;

use super::text::request_from_url;
use super::{Answer, Events, Evidence, RequestInfo, SourceType, Stamp, StampSource};

const CREDENTIAL_ID_EXTRA: &str = "authentication.kubernetes.io/credential-id";

fn is_event(v: &Value) -> bool {
    let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    api.starts_with("audit.k8s.io/") || (kind == "Event" && v.get("auditID").is_some())
}

/// Whether `text` is audit JSON (judged on its first documents).
pub fn looks_like(text: &str) -> bool {
    documents(text).take(50).any(|(_, v)| is_event(&v))
}

/// The JSON values in `text` with their 1-based line numbers: one document
/// (object, array or EventList), or one per line, read lazily.
fn documents(text: &str) -> Box<dyn Iterator<Item = (usize, Value)> + '_> {
    if let Ok(doc) = serde_json::from_str::<Value>(text.trim()) {
        let start = text.len() - text.trim_start().len();
        let line = super::text::line_of(text, start);
        let values: Vec<(usize, Value)> = match doc {
            Value::Array(items) => items.into_iter().map(|v| (line, v)).collect(),
            Value::Object(ref obj)
                if obj.get("kind").and_then(Value::as_str) == Some("EventList") =>
            {
                obj.get("items")
                    .and_then(Value::as_array)
                    .map(|items| items.iter().map(|v| (line, v.clone())).collect())
                    .unwrap_or_default()
            }
            other => vec![(line, other)],
        };
        return Box::new(values.into_iter());
    }
    Box::new(
        text.lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with('{'))
            .filter_map(|(i, l)| serde_json::from_str(l.trim()).ok().map(|v| (i + 1, v))),
    )
}

/// One event per audit event with a response (RequestReceived-stage events,
/// which have none, are skipped).
pub fn parse(text: &str) -> Events<'_> {
    Box::new(
        documents(text)
            .filter(|(_, v)| is_event(v))
            .filter_map(|(line, v)| event(line, &v)),
    )
}

fn event(line: usize, v: &Value) -> Option<Evidence> {
    let s = |ptr: &str| v.pointer(ptr).and_then(Value::as_str).map(str::to_owned);
    let status = v.get("responseStatus")?;
    let code = status
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok());
    let message = s("/responseStatus/message");
    let verb = s("/verb");
    let excerpt = format!(
        "{} {} -> {}",
        verb.as_deref().unwrap_or("?"),
        s("/requestURI").as_deref().unwrap_or("?"),
        code.map_or("?".to_owned(), |c| c.to_string())
    );
    let mut ev = Evidence::new(
        line,
        SourceType::Audit,
        "audit-event",
        &excerpt,
        Answer::Status {
            code,
            reason: s("/responseStatus/reason"),
            message: message.clone(),
        },
    );
    ev.user = s("/user/username").filter(|u| !u.is_empty());
    ev.request = Some(request_of(v, verb.as_deref()));
    let stamp = s("/stageTimestamp").or_else(|| s("/requestReceivedTimestamp"));
    ev.stamp = stamp
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| Stamp {
            at: t.to_utc(),
            source: StampSource::AuditTimestamp,
        });
    if let Some(id) = s("/auditID") {
        ev.notes.push(format!("auditID {id}"));
    }
    let annotation = |key: &str| {
        v.pointer("/annotations")
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    ev.audit.stale_token = annotation("authentication.k8s.io/stale-token");
    ev.audit.legacy_token = annotation("authentication.k8s.io/legacy-token");
    ev.audit.legacy_token_invalidated =
        annotation("authentication.k8s.io/legacy-token-invalidated");
    ev.audit.credential_id = v
        .pointer("/user/extra")
        .and_then(|e| e.get(CREDENTIAL_ID_EXTRA))
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
        .map(str::to_owned);
    if ev.audit.credential_id.is_none()
        && let Some(id) = annotation("authentication.k8s.io/credential-id")
    {
        ev.audit.credential_id = Some(id);
        ev.audit.credential_id_from_annotation = true;
    }
    if let Some(pod) = v
        .pointer("/user/extra/authentication.kubernetes.io~1pod-name")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
    {
        ev.notes.push(format!("token bound to pod {pod}"));
    }
    if let Some(decision) = annotation("authorization.k8s.io/decision") {
        let reason = annotation("authorization.k8s.io/reason").filter(|r| !r.is_empty());
        ev.audit.authorization = Some(match reason {
            Some(r) => format!("{decision}: {r}"),
            None => decision,
        });
    }
    if let Some(agent) = s("/userAgent") {
        ev.notes.push(format!("user agent {agent}"));
    }
    if let Some(ips) = v.get("sourceIPs").and_then(Value::as_array) {
        let ips: Vec<&str> = ips.iter().filter_map(Value::as_str).collect();
        if !ips.is_empty() {
            ev.notes.push(format!("source IPs {}", ips.join(", ")));
        }
    }
    Some(ev)
}

fn request_of(v: &Value, verb: Option<&str>) -> RequestInfo {
    let s = |ptr: &str| v.pointer(ptr).and_then(Value::as_str).map(str::to_owned);
    if v.get("objectRef").is_some() {
        RequestInfo {
            verb: verb.map(str::to_owned),
            resource: s("/objectRef/resource"),
            subresource: s("/objectRef/subresource"),
            api_group: Some(s("/objectRef/apiGroup").unwrap_or_default()),
            namespace: s("/objectRef/namespace"),
            name: s("/objectRef/name"),
            path: None,
        }
    } else {
        let mut info = request_from_url(None, s("/requestURI").as_deref().unwrap_or("/"));
        info.verb = verb.map(str::to_owned);
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_with_annotations_and_extra() {
        let text = concat!(
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"RequestReceived","requestURI":"/api/v1/namespaces/shop/pods","verb":"list","user":{"username":"system:serviceaccount:shop:checkout"},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.000000Z"}"#,
            "\n",
            r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods","verb":"list","user":{"username":"system:serviceaccount:shop:checkout","extra":{"authentication.kubernetes.io/credential-id":["JTI=abc"]}},"objectRef":{"resource":"pods","namespace":"shop","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.004000Z","annotations":{"authentication.k8s.io/stale-token":"subject: system:serviceaccount:shop:checkout, seconds after warning threshold: 3593"}}"#,
            "\n"
        );
        assert!(looks_like(text));
        let ev: Vec<Evidence> = parse(text).collect();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].line, 2);
        assert_eq!(ev[0].audit.credential_id.as_deref(), Some("JTI=abc"));
        assert!(ev[0].audit.stale_token.is_some());
        assert_eq!(
            ev[0].request.as_ref().unwrap().resource.as_deref(),
            Some("pods")
        );
    }
}
