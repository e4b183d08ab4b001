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
//! object on other events. `status.token` is never read: only
//! `status.expirationTimestamp` is a field, the rest is skipped unseen.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, IntoDeserializer, Visitor};

use super::event::{Micros, RawEvent, parse_time};

/// The annotation on a TokenRequest's audit event (1.30+).
pub const ISSUED_CREDENTIAL_ID: &str = "authentication.kubernetes.io/issued-credential-id";
/// Its name in 1.29 (renamed by kubernetes/kubernetes#123098).
pub const ISSUED_CREDENTIAL_ID_1_29: &str = "authentication.k8s.io/issued-credential-id";
/// Minting events kept; past it, later ones are counted only.
pub const MAX_MINTS: usize = 200_000;

/// A scalar value (string, number, bool), or `None` when the JSON holds
/// another shape there (which is skipped).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scalar<T>(pub Option<T>);

/// An object read as `T` (whose fields are all [`Scalar`], [`Object`] or
/// [`List`], so it cannot fail on shape), or `None` for any other shape.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Object<T>(pub Option<T>);

/// The scalars of an array (other elements skipped), or empty.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct List<T>(pub Vec<T>);

/// A value read from the one JSON shape it takes; any other shape is
/// skipped and leaves it empty (the defaults below).
trait Lenient<'de>: Default {
    fn scalar<V: IntoDeserializer<'de, de::value::Error>>(_: V) -> Self {
        Self::default()
    }
    fn map<A: de::MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        IgnoredAny::deserialize(MapAccessDeserializer::new(map))?;
        Ok(Self::default())
    }
    fn seq<A: de::SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        IgnoredAny::deserialize(SeqAccessDeserializer::new(seq))?;
        Ok(Self::default())
    }
}

impl<'de, T: Deserialize<'de> + Default> Lenient<'de> for Scalar<T> {
    /// `T` from one scalar, its own error dropped: a mismatch is just `None`.
    fn scalar<V: IntoDeserializer<'de, de::value::Error>>(v: V) -> Self {
        Scalar(T::deserialize(v.into_deserializer()).ok())
    }
}

impl<'de, T: Deserialize<'de> + Default> Lenient<'de> for Object<T> {
    fn map<A: de::MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(|t| Object(Some(t)))
    }
}

impl<'de, T: Deserialize<'de> + Default> Lenient<'de> for List<T> {
    fn seq<A: de::SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut out = Vec::new();
        while let Some(Scalar(v)) = seq.next_element::<Scalar<T>>()? {
            // A hostile list is long: its first few values say enough.
            if out.len() < 16 {
                out.extend(v);
            }
        }
        Ok(List(out))
    }
}

struct LenientVisitor<L>(PhantomData<L>);

impl<'de, L: Lenient<'de>> Visitor<'de> for LenientVisitor<L> {
    type Value = L;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<L, E> {
        Ok(L::scalar(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<L, E> {
        Ok(L::scalar(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<L, E> {
        Ok(L::scalar(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<L, E> {
        Ok(L::scalar(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<L, E> {
        Ok(L::scalar(de::value::BorrowedStrDeserializer::new(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<L, E> {
        Ok(L::scalar(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<L, E> {
        Ok(L::scalar(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<L, E> {
        Ok(L::default())
    }
    fn visit_none<E: de::Error>(self) -> Result<L, E> {
        Ok(L::default())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<L, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<L, A::Error> {
        L::seq(seq)
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<L, A::Error> {
        L::map(map)
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Scalar<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientVisitor(PhantomData))
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientVisitor(PhantomData))
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientVisitor(PhantomData))
    }
}

/// The parts of a TokenRequest (`authentication.k8s.io/v1`) an audit event's
/// `requestObject` and `responseObject` carry that provenance needs.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct TokenRequestObject<'a> {
    #[serde(borrow)]
    pub spec: Object<TokenRequestSpec<'a>>,
    #[serde(borrow)]
    pub status: Object<TokenRequestStatus<'a>>,
}

/// `spec`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TokenRequestSpec<'a> {
    #[serde(borrow)]
    pub audiences: List<Cow<'a, str>>,
    pub expiration_seconds: Scalar<i64>,
    #[serde(borrow)]
    pub bound_object_ref: Object<RawBoundRef<'a>>,
}

/// `spec.boundObjectRef`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct RawBoundRef<'a> {
    #[serde(borrow)]
    pub kind: Scalar<Cow<'a, str>>,
    #[serde(borrow)]
    pub name: Scalar<Cow<'a, str>>,
    #[serde(borrow)]
    pub uid: Scalar<Cow<'a, str>>,
}

/// `status`: the expiry only (`status.token` is not a field, so it is skipped).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TokenRequestStatus<'a> {
    #[serde(borrow)]
    pub expiration_timestamp: Scalar<Cow<'a, str>>,
}

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
    let spec = ev
        .request_object
        .as_ref()
        .and_then(|r| r.0.as_ref())
        .and_then(|r| r.spec.0.as_ref());
    let status = ev
        .response_object
        .as_ref()
        .and_then(|r| r.0.as_ref())
        .and_then(|r| r.status.0.as_ref());
    Mint {
        at,
        audit_id: s(ev.audit_id.as_ref()),
        minted_by: ev.username().unwrap_or("").to_owned(),
        namespace: s(o.and_then(|o| o.namespace.as_ref())),
        service_account: s(o.and_then(|o| o.name.as_ref())),
        level: s(ev.level.as_ref()),
        audiences: spec.map_or_else(Vec::new, |s| {
            s.audiences.0.iter().map(|a| a.to_string()).collect()
        }),
        requested_seconds: spec.and_then(|s| s.expiration_seconds.0),
        bound: spec
            .and_then(|s| s.bound_object_ref.0.as_ref())
            .map(|b| Bound {
                kind: s(b.kind.0.as_ref()),
                name: s(b.name.0.as_ref()),
                uid: s(b.uid.0.as_ref()),
            }),
        expires: status
            .and_then(|s| s.expiration_timestamp.0.as_deref())
            .and_then(|t| parse_time(t.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
