//! Pure: credential provenance. A TokenRequest (`create` on
//! `serviceaccounts/token`) audit event names the credential it issued in the
//! annotation `authentication.kubernetes.io/issued-credential-id` (`JTI=<jti>`;
//! `authentication.k8s.io/issued-credential-id` in 1.29), and every request
//! made with that token carries the same id in `user.extra`
//! (`authentication.kubernetes.io/credential-id`; KEP-4193, ServiceAccountTokenJTI,
//! beta 1.30, GA 1.32). This module reads the minting event: who asked, for
//! which ServiceAccount, bound to what, the lifetime asked (`requestObject`,
//! level Request and up) and the expiry issued (`responseObject`, level
//! RequestResponse).
//!
//! The request and response objects are read leniently: every field is
//! optional and a value of an unexpected shape is skipped, never an error,
//! because the same `requestObject` field holds a Pod, a Secret or any custom
//! object on other events. `status.token` is never read.

use std::borrow::Cow;

use serde_json::Value;

use super::event::{Micros, RawEvent};
use crate::logs::time::parse_time;

/// The annotation on a TokenRequest's audit event (1.30+).
pub const ISSUED_CREDENTIAL_ID: &str = "authentication.kubernetes.io/issued-credential-id";
/// Its name in 1.29 (renamed by kubernetes/kubernetes#123098).
pub const ISSUED_CREDENTIAL_ID_1_29: &str = "authentication.k8s.io/issued-credential-id";
/// Minting events kept; past it, later ones are counted only.
pub const MAX_MINTS: usize = 200_000;

/// The object a token is bound to.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Bound {
    /// `Pod`, `Secret` or `Node`.
    pub kind: String,
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: String,
}

/// The event that minted one credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mint {
    pub at: Micros,
    pub audit_id: String,
    /// Who asked: `system:node:<node>` for the kubelet's pod tokens.
    pub minted_by: String,
    pub namespace: String,
    pub service_account: String,
    /// The event's audit level (`Metadata` carries no request or response).
    pub level: String,
    /// `spec.audiences` (level Request and up).
    pub audiences: Vec<String>,
    /// `spec.expirationSeconds` (level Request and up).
    pub requested_seconds: Option<i64>,
    /// `spec.boundObjectRef` (level Request and up).
    pub bound: Option<Bound>,
    /// `status.expirationTimestamp` (level RequestResponse).
    pub expires: Option<Micros>,
}

impl Mint {
    /// Seconds issued, when both the event time and the expiry are known:
    /// to the nearest second, since the expiry is written in whole seconds and
    /// the event's time is taken a little after the token's.
    pub fn issued_seconds(&self) -> Option<i64> {
        self.expires
            .map(|e| (e - self.at + 500_000).div_euclid(1_000_000))
            .filter(|s| *s > 0)
    }

    /// The kubelet minted it for a pod on this node (`system:node:<node>`).
    pub fn node(&self) -> Option<&str> {
        self.minted_by.strip_prefix("system:node:")
    }
}

/// The issued credential id of a successful TokenRequest event, or `None`
/// for any other event.
pub fn issued_id<'e>(ev: &'e RawEvent<'_>) -> Option<&'e str> {
    ev.annotation(ISSUED_CREDENTIAL_ID)
        .or_else(|| ev.annotation(ISSUED_CREDENTIAL_ID_1_29))
        .filter(|id| !id.is_empty())
}

/// The minting event's facts (the caller checked [`issued_id`]).
pub fn mint_of(ev: &RawEvent<'_>, at: Micros) -> Mint {
    let o = ev.object_ref.as_ref();
    let s = |v: Option<&Cow<'_, str>>| v.map_or_else(String::new, |v| v.to_string());
    // Indexing a Value never fails: a missing field or another shape is Null.
    let request: Value = (ev.request_object.as_ref())
        .and_then(|r| serde_json::from_str(r.json()).ok())
        .unwrap_or_default();
    let (spec, text) = (&request["spec"], |v: &Value| {
        v.as_str().unwrap_or("").to_owned()
    });
    let bound = &spec["boundObjectRef"];
    // Only `status.expirationTimestamp` is a field: the token is skipped unseen.
    #[derive(serde::Deserialize)]
    struct Response<'a> {
        #[serde(borrow)]
        status: Status<'a>,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Status<'a> {
        #[serde(borrow)]
        expiration_timestamp: Cow<'a, str>,
    }
    let response = (ev.response_object.as_ref())
        .and_then(|r| serde_json::from_str::<Response<'_>>(r.json()).ok());
    Mint {
        at,
        audit_id: s(ev.audit_id.as_ref()),
        minted_by: ev.username().unwrap_or("").to_owned(),
        namespace: s(o.and_then(|o| o.namespace.as_ref())),
        service_account: s(o.and_then(|o| o.name.as_ref())),
        level: s(ev.level.as_ref()),
        // A hostile list is long: its first few values say enough.
        audiences: (spec["audiences"].as_array().into_iter().flatten())
            .filter_map(|a| Some(a.as_str()?.to_owned()))
            .take(16)
            .collect(),
        requested_seconds: spec["expirationSeconds"].as_i64(),
        bound: bound.is_object().then(|| Bound {
            kind: text(&bound["kind"]),
            name: text(&bound["name"]),
            uid: text(&bound["uid"]),
        }),
        expires: response.and_then(|r| parse_time(r.status.expiration_timestamp.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize as _;

    const MINT: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"m-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/serviceaccounts/checkout/token","verb":"create","user":{"username":"system:node:worker-2","groups":["system:nodes"]},"sourceIPs":["10.0.0.12"],"objectRef":{"resource":"serviceaccounts","namespace":"shop","name":"checkout","apiVersion":"v1","subresource":"token"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","spec":{"audiences":["https://kubernetes.default.svc"],"expirationSeconds":3607,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"checkout-1","uid":"p-1"}}},"responseObject":{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","spec":{"audiences":["https://kubernetes.default.svc"],"expirationSeconds":31536000},"status":{"token":"eyJhbGciOiJSUzI1NiJ9.e30.c2ln","expirationTimestamp":"2027-01-01T00:00:00Z"}},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.000000Z","annotations":{"authentication.kubernetes.io/issued-credential-id":"JTI=7c1d","authorization.k8s.io/decision":"allow"}}"#;

    #[test]
    fn the_1_29_annotation_name_is_read_too() {
        let old = MINT.replace(ISSUED_CREDENTIAL_ID, ISSUED_CREDENTIAL_ID_1_29);
        let ev: RawEvent = serde_json::from_str(&old).unwrap();
        assert_eq!(issued_id(&ev), Some("JTI=7c1d"));
    }

    #[test]
    fn objects_of_other_shapes_never_fail_the_event() {
        // Another resource's requestObject, with fields of the same names
        // holding other shapes: the event still parses, the facts are empty.
        for odd in [
            r#""requestObject":{"spec":{"audiences":"x","expirationSeconds":"soon","boundObjectRef":[1]},"status":7}"#,
            r#""requestObject":"text""#,
            r#""requestObject":[{"spec":{}}]"#,
            r#""requestObject":{"spec":{"audiences":[{"a":1},2,"ok"],"expirationSeconds":1.5}}"#,
        ] {
            let line = MINT.replace(
                r#""requestObject":{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","spec":{"audiences":["https://kubernetes.default.svc"],"expirationSeconds":3607,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"checkout-1","uid":"p-1"}}}"#,
                odd,
            );
            assert_ne!(line, MINT);
            let ev: RawEvent = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{odd}: {e}"));
            let m = mint_of(&ev, 0);
            assert_eq!(m.requested_seconds, None, "{odd}");
            assert!(m.bound.is_none(), "{odd}");
            assert!(m.audiences.iter().all(|a| a == "ok"), "{odd}");
        }
        // Through serde_json::Value too (the document reader's path).
        let value: serde_json::Value = serde_json::from_str(MINT).unwrap();
        let ev = RawEvent::deserialize(&value).unwrap();
        assert_eq!(mint_of(&ev, 0).requested_seconds, Some(3607));
    }
}
