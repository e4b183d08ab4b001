//! Typed views of the claims kube-apiserver reads. A claim of the wrong JSON type
//! is an error here, as it is in go-jose ("expected number value to unmarshal
//! NumericDate"); unknown claims are kept in the raw payload and tolerated.

use serde_json::{Map, Value};

use crate::error::TokenError;
use crate::input::shape::json_type_name;

/// Registered claims plus the Kubernetes ones, nested (bound tokens) or flat (legacy).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claims {
    pub issuer: Option<String>,
    pub subject: Option<String>,
    /// `aud` as a list, whether the token wrote a string or an array.
    pub audiences: Vec<String>,
    pub expires_at: Option<i64>,
    pub not_before: Option<i64>,
    pub issued_at: Option<i64>,
    /// A NumericDate was a JSON float; go-jose truncates it toward zero, as we do.
    pub fractional_times: bool,
    pub jwt_id: Option<String>,
    /// The nested `kubernetes.io` claim of TokenRequest-issued (bound) tokens.
    pub kubernetes: Option<KubernetesClaims>,
    /// The flat `kubernetes.io/serviceaccount/*` claims of legacy Secret tokens.
    pub legacy: Option<LegacyClaims>,
}

/// `kubernetes.io` of a bound token. Source: pkg/serviceaccount/claims.go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubernetesClaims {
    pub namespace: Option<String>,
    pub service_account: Option<ObjectRef>,
    pub pod: Option<ObjectRef>,
    pub node: Option<ObjectRef>,
    pub secret: Option<ObjectRef>,
    /// Set only on extended-expiry projected tokens: `iat + 3607`.
    pub warn_after: Option<i64>,
    /// Keys we do not know (newer token types, e.g. 1.37 webhook bindings).
    pub unknown_keys: Vec<String>,
}

/// `{name, uid}` of a bound object.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "Ref")]
pub struct ObjectRef {
    /// Object name.
    pub name: Option<String>,
    /// Object uid.
    pub uid: Option<String>,
}

/// The flat claims of a legacy Secret token. Source: pkg/serviceaccount/legacy.go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LegacyClaims {
    pub namespace: Option<String>,
    pub secret_name: Option<String>,
    pub service_account_name: Option<String>,
    pub service_account_uid: Option<String>,
}

impl Claims {
    pub fn from_payload(payload: &Map<String, Value>) -> Result<Self, TokenError> {
        let mut fractional = false;
        let mut date = |name: &str| numeric_date(payload, name, name, &mut fractional);
        let expires_at = date("exp")?;
        let not_before = date("nbf")?;
        let issued_at = date("iat")?;
        let kubernetes = match payload.get("kubernetes.io") {
            None | Some(Value::Null) => None,
            Some(Value::Object(k8s)) => Some(KubernetesClaims::from_object(k8s, &mut fractional)?),
            Some(other) => return Err(wrong_type("kubernetes.io", "an object", other)),
        };
        let legacy = payload
            .keys()
            .any(|k| k.starts_with("kubernetes.io/serviceaccount/"))
            .then(|| {
                // As the tokens controller writes them.
                let claim = |name| string(payload, &format!("kubernetes.io/serviceaccount/{name}"));
                Ok::<_, TokenError>(LegacyClaims {
                    namespace: claim("namespace")?,
                    secret_name: claim("secret.name")?,
                    service_account_name: claim("service-account.name")?,
                    service_account_uid: claim("service-account.uid")?,
                })
            })
            .transpose()?;
        Ok(Claims {
            issuer: string(payload, "iss")?,
            subject: string(payload, "sub")?,
            audiences: audiences(payload)?,
            expires_at,
            not_before,
            issued_at,
            fractional_times: fractional,
            jwt_id: string(payload, "jti")?,
            kubernetes,
            legacy,
        })
    }

    pub fn lifetime(&self) -> Option<i64> {
        self.expires_at.zip(self.issued_at).map(|(e, i)| e - i)
    }

    /// kube-apiserver extended the token's expiry (it set `warnafter`).
    pub fn extended(&self) -> bool {
        self.kubernetes
            .as_ref()
            .is_some_and(|k| k.warn_after.is_some())
    }

    pub fn namespace(&self) -> Option<&str> {
        self.kubernetes
            .as_ref()
            .and_then(|k| k.namespace.as_deref())
            .or_else(|| self.legacy.as_ref().and_then(|l| l.namespace.as_deref()))
    }

    pub fn service_account(&self) -> Option<ObjectRef> {
        let legacy = self.legacy.as_ref().map(|l| ObjectRef {
            name: l.service_account_name.clone(),
            uid: l.service_account_uid.clone(),
        });
        (self.kubernetes.as_ref())
            .and_then(|k| k.service_account.clone())
            .or(legacy.filter(|r| r.name.is_some() || r.uid.is_some()))
    }

    pub fn secret(&self) -> Option<ObjectRef> {
        let legacy = self.legacy.as_ref().and_then(|l| l.secret_name.clone());
        (self.kubernetes.as_ref())
            .and_then(|k| k.secret.clone())
            .or(legacy.map(|name| ObjectRef {
                name: Some(name),
                uid: None,
            }))
    }

    /// The subject kube-apiserver expects for these claims:
    /// `system:serviceaccount:<namespace>:<name>`.
    pub fn expected_subject(&self) -> Option<String> {
        let name = self.service_account()?.name?;
        Some(format!(
            "system:serviceaccount:{}:{name}",
            self.namespace()?
        ))
    }
}

impl KubernetesClaims {
    fn from_object(k8s: &Map<String, Value>, fractional: &mut bool) -> Result<Self, TokenError> {
        const KNOWN: [&str; 6] = [
            "namespace",
            "serviceaccount",
            "pod",
            "node",
            "secret",
            "warnafter",
        ];
        let object_ref = |key: &str| object_ref(k8s, key);
        Ok(KubernetesClaims {
            namespace: string_at(k8s, "namespace", || "kubernetes.io.namespace".to_owned())?,
            service_account: object_ref("serviceaccount")?,
            pod: object_ref("pod")?,
            node: object_ref("node")?,
            secret: object_ref("secret")?,
            warn_after: numeric_date(k8s, "warnafter", "kubernetes.io.warnafter", fractional)?,
            unknown_keys: k8s
                .keys()
                .filter(|k| !KNOWN.contains(&k.as_str()))
                .cloned()
                .collect(),
        })
    }
}

fn object_ref(k8s: &Map<String, Value>, key: &str) -> Result<Option<ObjectRef>, TokenError> {
    let field = |obj, name| string_at(obj, name, || format!("kubernetes.io.{key}.{name}"));
    match k8s.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(obj)) => Ok(Some(ObjectRef {
            name: field(obj, "name")?,
            uid: field(obj, "uid")?,
        })),
        Some(other) => Err(wrong_type(
            &format!("kubernetes.io.{key}"),
            "an object with name and uid",
            other,
        )),
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, TokenError> {
    string_at(map, key, || key.to_owned())
}

/// `path` names the claim in an error; it is formatted only then, as this
/// runs for every token of a batch.
pub(super) fn string_at(
    map: &Map<String, Value>,
    key: &str,
    path: impl FnOnce() -> String,
) -> Result<Option<String>, TokenError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(wrong_type(&path(), "a string", other)),
    }
}

fn audiences(payload: &Map<String, Value>) -> Result<Vec<String>, TokenError> {
    const EXPECTED: &str = "a string or an array of strings";
    match payload.get("aud") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(TokenError::ClaimType {
                    claim: "aud".to_owned(),
                    expected: EXPECTED,
                    found: format!("an array holding {}", json_type_name(other)),
                }),
            })
            .collect(),
        Some(other) => Err(wrong_type("aud", EXPECTED, other)),
    }
}

/// Largest NumericDate we accept: 9999-12-31T23:59:59Z, so every instant renders
/// as RFC 3339. (Smallest: year 0001.)
const MAX_NUMERIC_DATE: f64 = 253_402_300_799.0;
const MIN_NUMERIC_DATE: f64 = -62_135_596_800.0;

/// go-jose NumericDate: a JSON number of seconds, fractions truncated toward zero.
fn numeric_date(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
    fractional: &mut bool,
) -> Result<Option<i64>, TokenError> {
    const EXPECTED: &str = "a NumericDate (a number of seconds since 1970)";
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        // Exact for every whole second in range (under 2^53).
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if (MIN_NUMERIC_DATE..=MAX_NUMERIC_DATE).contains(&f) => {
                *fractional |= f.fract() != 0.0;
                Ok(Some(f.trunc() as i64))
            }
            _ => Err(TokenError::ClaimType {
                claim: path.to_owned(),
                expected: EXPECTED,
                found: format!("{n}, outside years 1 to 9999"),
            }),
        },
        Some(other) => Err(wrong_type(path, EXPECTED, other)),
    }
}

fn wrong_type(path: &str, expected: &'static str, found: &Value) -> TokenError {
    TokenError::ClaimType {
        claim: path.to_owned(),
        expected,
        found: json_type_name(found).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Result<Claims, TokenError> {
        Claims::from_payload(value.as_object().unwrap())
    }

    #[test]
    fn bound_claims_are_read() {
        let c = claims(json!({
            "aud": ["https://kubernetes.default.svc"], "exp": 2000, "iat": 1000, "nbf": 1000,
            "iss": "https://kubernetes.default.svc", "jti": "j",
            "kubernetes.io": {"namespace": "ns", "pod": {"name": "p", "uid": "pu"},
                "serviceaccount": {"name": "sa", "uid": "su"}, "warnafter": 4607, "future": {}},
            "sub": "system:serviceaccount:ns:sa"
        }))
        .unwrap();
        let k8s = c.kubernetes.as_ref().unwrap();
        assert_eq!(k8s.pod.as_ref().unwrap().uid.as_deref(), Some("pu"));
        assert_eq!(k8s.warn_after, Some(4607));
        assert_eq!(k8s.unknown_keys, ["future"]);
        assert_eq!(
            c.expected_subject().as_deref(),
            Some("system:serviceaccount:ns:sa")
        );
    }

    #[test]
    fn fractional_dates_truncate_and_huge_ones_fail() {
        let c = claims(json!({"exp": 1700000000.9})).unwrap();
        assert_eq!(c.expires_at, Some(1_700_000_000));
        assert!(c.fractional_times);
        assert!(claims(json!({"exp": 1e300})).is_err());
        assert!(claims(json!({"nbf": true})).is_err());
    }
}
