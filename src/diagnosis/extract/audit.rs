//! Kubernetes audit events (audit.k8s.io/v1 `Event`) and their annotations
//! alone (a fragment people paste: `"annotations":{"authorization.k8s.io/decision":"forbid",…}`).
//!
//! Read from each event: `user.username` and `user.extra`
//! (`authentication.kubernetes.io/credential-id` = `JTI=<jti>`, 1.30+),
//! `verb`, `objectRef`, `requestURI`, `responseStatus` and the annotations
//! `authentication.k8s.io/stale-token`, `authentication.k8s.io/legacy-token`,
//! `authentication.k8s.io/legacy-token-invalidated` (pkg/serviceaccount
//! claims.go/legacy.go) and `authorization.k8s.io/{decision,reason}`.
//! kube-apiserver writes no `authentication.k8s.io/credential-id` annotation;
//! if one is present (hand-written or from another tool) it is accepted and
//! labelled as such.

use chrono::DateTime;
use serde_json::Value;

use super::super::facts::{Answer, Case, ClockSource, HttpAnswer, RequestInfo, ServerClock};
use super::json::{is_annotations, strings};
use super::url::request_from_url;

const CREDENTIAL_ID_EXTRA: &str = "authentication.kubernetes.io/credential-id";

/// The answer an event records; `None` for events without a response
/// (stage `RequestReceived`).
pub fn answer(v: &Value) -> Option<(Case<'static>, Option<ServerClock>, String)> {
    if is_annotations(v) {
        return annotations_only(v);
    }
    let s = |ptr: &str| v.pointer(ptr).and_then(Value::as_str).map(str::to_owned);
    let status = v.get("responseStatus")?;
    let code = status
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok());
    let verb = s("/verb");
    let excerpt = format!(
        "{} {} -> {}",
        verb.as_deref().unwrap_or("?"),
        s("/requestURI").as_deref().unwrap_or("?"),
        code.map_or("?".to_owned(), |c| c.to_string())
    );
    let mut a = Case {
        answer: Answer::Http(HttpAnswer {
            status: code,
            reason: s("/responseStatus/reason"),
            message: s("/responseStatus/message"),
            weight: 3,
            ..HttpAnswer::default()
        }),
        user: s("/user/username").filter(|u| !u.is_empty()),
        request: Some(request_of(v, verb.as_deref())),
        ..Case::default()
    };
    let stamp = s("/stageTimestamp")
        .or_else(|| s("/requestReceivedTimestamp"))
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| ServerClock::at(t.to_utc(), ClockSource::AuditTimestamp));
    if let Some(id) = s("/auditID") {
        a.note(format!("auditID {id}"));
    }
    read_annotations(v.get("annotations"), &mut a);
    // The first value of a `user.extra` entry.
    let extra = |key: &str| {
        v.pointer("/user/extra")?
            .get(key)?
            .as_array()?
            .first()?
            .as_str()
    };
    a.audit.credential_id = extra(CREDENTIAL_ID_EXTRA).map(str::to_owned);
    if a.audit.credential_id.is_none()
        && let Some(id) = s("/annotations/authentication.k8s.io~1credential-id")
    {
        a.audit.credential_id = Some(id);
        a.audit.credential_id_from_annotation = true;
    }
    if let Some(pod) = extra("authentication.kubernetes.io/pod-name") {
        a.note(format!("token bound to pod {pod}"));
    }
    if let Some(agent) = s("/userAgent") {
        a.note(format!("user agent {agent}"));
    }
    let ips = strings(v.get("sourceIPs"));
    if !ips.is_empty() {
        a.note(format!("source IPs {}", ips.join(", ")));
    }
    Some((a, stamp, excerpt))
}

fn read_annotations(annotations: Option<&Value>, a: &mut Case<'static>) {
    let annotation = |key: &str| {
        annotations
            .and_then(|an| an.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    a.audit.stale_token = annotation("authentication.k8s.io/stale-token");
    a.audit.legacy_token = annotation("authentication.k8s.io/legacy-token");
    a.audit.legacy_token_invalidated = annotation("authentication.k8s.io/legacy-token-invalidated");
    if let Some(decision) = annotation("authorization.k8s.io/decision") {
        let reason = annotation("authorization.k8s.io/reason").filter(|r| !r.is_empty());
        a.audit.authorization = Some(match reason {
            Some(r) => format!("{decision}: {r}"),
            None => decision,
        });
    }
}

/// The stale-token annotation's value pasted alone (or in a fragment cut
/// short): `subject: USER, seconds after warning threshold: N`
/// (pkg/serviceaccount/claims.go). It is written on accepted requests only.
pub fn stale_token_value(line: &str) -> Option<Case<'static>> {
    let end = line.find(", seconds after warning threshold: ")?;
    let start = line[..end].rfind("subject: ")?;
    let digits = &line[end + 35..];
    let n = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if n == 0 {
        return None;
    }
    let mut a = Case::default();
    a.audit.stale_token = Some(line[start..end + 35 + n].to_owned());
    a.answer = Answer::Http(HttpAnswer::with_status(200, 2));
    a.note(
        "the authentication.k8s.io/stale-token annotation's value: kube-apiserver writes it on requests it accepted".to_owned(),
    );
    Some(a)
}

/// An event's annotations alone: the decision is the answer (`forbid`: 403,
/// `allow`: 2xx), an invalidated legacy token a 401.
fn annotations_only(v: &Value) -> Option<(Case<'static>, Option<ServerClock>, String)> {
    let inner = v.get("annotations").unwrap_or(v);
    let mut a = Case::default();
    read_annotations(Some(inner), &mut a);
    let decision = inner
        .get("authorization.k8s.io/decision")
        .and_then(Value::as_str);
    let code = match decision {
        _ if a.audit.legacy_token_invalidated.is_some() => 401,
        Some("forbid") => 403,
        Some("allow") => 200,
        _ if a.audit.stale_token.is_some() => 200,
        _ => return None,
    };
    a.answer = Answer::Http(HttpAnswer {
        status: Some(code),
        message: inner
            .get("authorization.k8s.io/reason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(str::to_owned),
        weight: 2,
        ..HttpAnswer::default()
    });
    a.note("an audit event's annotations alone: the decision stands for the answer".to_owned());
    let facts = &a.audit;
    let shown = facts
        .authorization
        .as_deref()
        .or(facts.legacy_token_invalidated.as_deref())
        .or(facts.stale_token.as_deref());
    let excerpt = format!("annotations: {}", shown.unwrap_or_default());
    Some((a, None, excerpt))
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
    fn events_and_annotations_alone() {
        let v: Value = serde_json::from_str(r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods","verb":"list","user":{"username":"system:serviceaccount:shop:checkout","extra":{"authentication.kubernetes.io/credential-id":["JTI=abc"]}},"objectRef":{"resource":"pods","namespace":"shop","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"stageTimestamp":"2026-01-01T00:00:00.004000Z","annotations":{"authentication.k8s.io/stale-token":"subject: x, seconds after warning threshold: 3593"}}"#).unwrap();
        assert!(super::super::json::is_event(&v));
        let (a, stamp, _) = answer(&v).unwrap();
        assert_eq!(a.audit.credential_id.as_deref(), Some("JTI=abc"));
        assert!(a.audit.stale_token.is_some());
        assert!(stamp.is_some());
        let v: Value = serde_json::from_str(
            r#"{"authorization.k8s.io/decision":"forbid","authorization.k8s.io/reason":""}"#,
        )
        .unwrap();
        assert!(is_annotations(&v));
        assert_eq!(answer(&v).unwrap().0.answer.code(), Some(403));
        let v: Value = serde_json::from_str(r#"{"annotations":{"authentication.k8s.io/legacy-token-invalidated":"old-token/shop"}}"#).unwrap();
        assert_eq!(answer(&v).unwrap().0.answer.code(), Some(401));
        let v: Value = serde_json::from_str(r#"{"app":"x"}"#).unwrap();
        assert!(!is_annotations(&v));
    }
}
