//! Pure: turns input text into token text, whatever shape the user pasted
//! ([`Shape`]: a line, or a JSON or YAML document that carries one or several
//! tokens). Anything else is named in one line (a PEM key, a log, prose).

use base64::Engine as _;
use serde_json::Value;
use strum::{IntoStaticStr, VariantArray};

use crate::error::InputError;
use crate::sanitize::sanitize;
use crate::secret::SecretToken;
use crate::wire::string_codes;

/// How the token was wrapped in the input; shown in the report so a user can
/// check that the tool read what they meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Shape {
    /// The bare JWT.
    Raw,
    /// `Bearer <jwt>`.
    Bearer,
    /// `Authorization: Bearer <jwt>`.
    AuthorizationHeader,
    /// TokenRequest API response, `status.token`.
    TokenRequest,
    /// client-go ExecCredential, `status.token`.
    ExecCredential,
    /// Legacy Secret JSON, base64 `data.token`.
    Secret,
    /// The kubelet's CredentialProviderRequest (credentialprovider.kubelet.k8s.io
    /// v1, KEP-4412), `serviceAccountToken`.
    CredentialProviderRequest,
    /// A CSI driver's [`CSI_TOKENS_KEY`] map, one token per audience.
    CsiTokens,
    /// A kubeconfig's current user's `token`.
    Kubeconfig,
    /// The JWT base64-encoded once more (a Secret's `.data.token` without `base64 -d`).
    Base64,
}

string_codes!(Shape);

/// Token text found in the input, plus what we noticed about its wrapping.
#[derive(Debug, Clone)]
pub struct ShapedToken {
    pub token: SecretToken,
    pub shape: Shape,
    /// The `Authorization` value had more than one space after `Bearer`:
    /// kube-apiserver treats that as no credentials at all (anonymous).
    pub extra_space_after_bearer: bool,
    /// What the wrapping document said about the token.
    pub context: InputContext,
}

/// What a JSON document says about the token it carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputContext {
    /// TokenRequest `spec.expirationSeconds`: the lifetime asked for.
    pub requested_seconds: Option<i64>,
    /// CSI: the audience the map keys this token by.
    pub csi_audience: Option<String>,
    /// CSI: the entry's `expirationTimestamp`.
    pub csi_expiration: Option<String>,
    /// CSI: where the map was (`volume_context`, `secrets`, or the map alone).
    pub csi_field: Option<&'static str>,
    /// CredentialProviderRequest: the image being pulled.
    pub image: Option<String>,
    /// Secret label `kubernetes.io/legacy-token-last-used` (a date).
    pub legacy_last_used: Option<String>,
    /// Secret label `kubernetes.io/legacy-token-invalid-since` (a date).
    pub legacy_invalid_since: Option<String>,
}

/// The key kubelet gives a CSI driver its tokens under (volume context, or the
/// `secrets` field when the CSIDriver sets serviceAccountTokenInSecrets,
/// KEP-5538, beta 1.35). Source: pkg/volume/csi/csi_mounter.go.
pub const CSI_TOKENS_KEY: &str = "csi.storage.k8s.io/serviceAccount.tokens";

/// Secret labels the legacy token tracker and cleaner write.
/// Source: pkg/serviceaccount/legacy.go, pkg/controller/serviceaccount/
/// legacy_serviceaccount_token_cleaner.go.
pub const LAST_USED_LABEL: &str = "kubernetes.io/legacy-token-last-used";
pub const INVALID_SINCE_LABEL: &str = "kubernetes.io/legacy-token-invalid-since";

/// Most tokens a CSI map may carry (one per audience; drivers ask for a few).
pub const MAX_CSI_TOKENS: usize = 64;

/// Where an `Authorization:` header's colon can be: the name and the
/// whitespace a paste puts around it.
const AUTHORIZATION_PREFIX_BYTES: usize = 32;

/// Detects a token in one line of text (raw JWT, `Bearer`, `Authorization:`).
/// The line is expected to be non-empty after trimming.
pub fn detect_line(line: &str) -> ShapedToken {
    let mut text = strip_quotes(line.trim());
    // curl users paste `-H 'Authorization: Bearer …'`.
    if let Some(rest) = text
        .strip_prefix("-H ")
        .or_else(|| text.strip_prefix("--header "))
    {
        text = strip_quotes(rest.trim());
    }
    let mut shape = Shape::Raw;
    // The header's name is near the start: a token line has no colon to find.
    if let Some(colon) = text
        .bytes()
        .take(AUTHORIZATION_PREFIX_BYTES)
        .position(|b| b == b':')
        && text[..colon].trim().eq_ignore_ascii_case("authorization")
    {
        shape = Shape::AuthorizationHeader;
        text = text[colon + 1..].trim_start();
    }
    let mut extra_space = false;
    // `get` rather than slicing: the input may hold multi-byte characters anywhere.
    if let Some(rest) = text
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("bearer "))
        .map(|_| &text[7..])
    {
        if shape == Shape::Raw {
            shape = Shape::Bearer;
        }
        // kube-apiserver splits on single spaces; `Bearer  x` yields an empty token.
        // Source: k8s.io/apiserver pkg/authentication/request/bearertoken.
        extra_space = rest.starts_with([' ', '\t']);
        text = rest.trim();
    }
    if shape == Shape::Raw
        && let Some(inner) = unwrap_base64(text)
    {
        return carried(&inner, Shape::Base64, InputContext::default());
    }
    ShapedToken {
        extra_space_after_bearer: extra_space,
        ..carried(text, shape, InputContext::default())
    }
}

/// `eyJ` (a JWT's first bytes) base64-encoded.
const BASE64_JWT_PREFIX: &str = "ZXlK";

/// The JWT inside `text` when `text` is a JWT base64-encoded once more, as a
/// Secret's `.data.token` is (`kubectl get secret -o jsonpath='{.data.token}'`).
fn unwrap_base64(text: &str) -> Option<String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    if !text.starts_with(BASE64_JWT_PREFIX) || text.contains('.') {
        return None;
    }
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let inner = String::from_utf8(engine.decode(text).ok()?).ok()?;
    let inner = inner.trim();
    (inner.split('.').count() == 3 && !inner.contains(char::is_whitespace))
        .then(|| inner.to_owned())
}

/// Whether `line` can be one token as [`detect_line`] reads it: one word once
/// its wrapping is taken off. Anything else starts a document (YAML, PEM) or
/// is not token input at all.
pub fn is_token_line(line: &str) -> bool {
    let trimmed = line.trim();
    if trimmed == "---" || trimmed.starts_with('{') {
        return false;
    }
    let shaped = detect_line(line);
    let token = shaped.token.expose();
    !token.is_empty() && !token.contains(char::is_whitespace)
}

/// Detects the tokens in a document that does not start with a token line:
/// JSON ([`detect_json_all`]), the same documents as YAML, a kubeconfig (its
/// current user's token); a PEM block, text or anything else is named.
pub fn detect_document(text: &str) -> Result<Vec<ShapedToken>, InputError> {
    let start = text.trim_start();
    if start.starts_with('{') {
        return detect_json_all(text);
    }
    if let Some(label) = start
        .strip_prefix("-----BEGIN ")
        .and_then(|rest| rest.split_once("-----"))
        .map(|(label, _)| sanitize(label))
    {
        return Err(InputError::NotToken(format!(
            "it is a PEM {label}, not a token; to check a token's signature with it: kubectl satoken verify -f TOKEN_FILE --key FILE"
        )));
    }
    // A Kubernetes object names its kind; a log line may parse as YAML too.
    let value = serde_saphyr::from_str::<Value>(text).ok().filter(|v| {
        ["apiVersion", "kind", "users"]
            .iter()
            .any(|key| v.get(key).is_some())
    });
    let Some(Value::Object(obj)) = value else {
        return Err(not_tokens());
    };
    if obj.get("kind").and_then(Value::as_str) == Some("Config")
        || (obj.contains_key("users") && obj.contains_key("contexts"))
    {
        return kubeconfig_token(text);
    }
    detect_value(&Value::Object(obj)).map_err(|e| match e {
        InputError::UnknownJson(detail) => {
            InputError::NotToken(format!("it is a YAML document but {detail}"))
        }
        other => other,
    })
}

/// Text that is neither a token, a list of them nor a document that carries one.
pub fn not_tokens() -> InputError {
    InputError::NotToken(
        "it is text, not a token or a list of tokens (one per line); to read an error message or a log: kubectl satoken classify".to_owned(),
    )
}

/// A kubeconfig's current user's token, or how to get one from what it holds.
fn kubeconfig_token(text: &str) -> Result<Vec<ShapedToken>, InputError> {
    let not_token = |detail: String| InputError::NotToken(format!("it is a kubeconfig {detail}"));
    let file = crate::kubeconfig::parse_file(std::path::Path::new(""), text)
        .map_err(|e| not_token(format!("that does not parse: {e}")))?;
    let resolved = crate::kubeconfig::resolve(vec![file], None)
        .map_err(|e| not_token(format!("without a usable current context: {e}")))?;
    let user = sanitize(resolved.user_name.as_deref().unwrap_or(""));
    let credentials = resolved.credentials;
    if let Some(token) = credentials.token {
        return Ok(vec![carried(
            token.expose(),
            Shape::Kubeconfig,
            InputContext::default(),
        )]);
    }
    let how = if let Some(path) = credentials.token_file {
        let path = sanitize(&path.display().to_string()).into_owned();
        format!("reads its token from a file: pass -f {path}")
    } else if credentials.exec || credentials.auth_provider {
        "gets its tokens from a plugin, not from the file; a ServiceAccount's: kubectl create token SERVICE_ACCOUNT | kubectl satoken decode".to_owned()
    } else if credentials.client_certificate.is_some() {
        "signs in with a client certificate, not a token".to_owned()
    } else {
        "holds no token".to_owned()
    };
    Err(not_token(format!("whose user {user} {how}")))
}

/// Detects the tokens in a JSON document: TokenRequest/ExecCredential
/// `status.token`, Secret `data.token` (base64), CredentialProviderRequest
/// `serviceAccountToken`, or a CSI token map (one token per audience).
pub fn detect_json_all(text: &str) -> Result<Vec<ShapedToken>, InputError> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| InputError::UnknownJson(format!("does not parse: {e}")))?;
    detect_value(&doc)
}

/// [`detect_json_all`] of a parsed document (JSON or YAML).
fn detect_value(doc: &Value) -> Result<Vec<ShapedToken>, InputError> {
    let Some(obj) = doc.as_object() else {
        return Err(InputError::UnknownJson(format!(
            "is {} rather than an object",
            json_type_name(doc)
        )));
    };
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let one = |token: &str, shape, context| Ok(vec![carried(token, shape, context)]);
    if let Some(token) = doc.pointer("/status/token") {
        let token = token.as_str().ok_or_else(|| {
            InputError::UnknownJson("its status.token is not a string".to_owned())
        })?;
        let shape = if kind == "ExecCredential" {
            Shape::ExecCredential
        } else {
            Shape::TokenRequest
        };
        let context = InputContext {
            requested_seconds: doc
                .pointer("/spec/expirationSeconds")
                .and_then(Value::as_i64),
            ..InputContext::default()
        };
        return one(token, shape, context);
    }
    if let Some(data) = doc.pointer("/data/token") {
        let encoded = data
            .as_str()
            .ok_or_else(|| InputError::UnknownJson("its data.token is not a string".to_owned()))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|e| InputError::SecretBase64(e.to_string()))?;
        let token = String::from_utf8(bytes)
            .map_err(|_| InputError::SecretBase64("decodes to bytes that are not text".into()))?;
        let label = |name: &str| {
            doc.pointer("/metadata/labels")
                .and_then(|l| l.get(name))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let context = InputContext {
            legacy_last_used: label(LAST_USED_LABEL),
            legacy_invalid_since: label(INVALID_SINCE_LABEL),
            ..InputContext::default()
        };
        return one(&token, Shape::Secret, context);
    }
    if kind == "CredentialProviderRequest" || obj.contains_key("serviceAccountToken") {
        let token = obj
            .get("serviceAccountToken")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| {
                InputError::UnknownJson(
                    "is a CredentialProviderRequest without serviceAccountToken: the kubelet sends one only when the provider's tokenAttributes ask for it (KEP-4412)".to_owned(),
                )
            })?;
        let context = InputContext {
            image: obj.get("image").and_then(Value::as_str).map(str::to_owned),
            ..InputContext::default()
        };
        return one(token, Shape::CredentialProviderRequest, context);
    }
    if let Some((field, map)) = csi_map(obj)? {
        return csi_tokens(field, &map);
    }
    if kind == "Secret" {
        return Err(InputError::UnknownJson(
            "is a Secret without data.token: is it a kubernetes.io/service-account-token Secret whose token the controller has not filled in yet?".to_owned(),
        ));
    }
    Err(InputError::UnknownJson(format!(
        "is neither a TokenRequest (status.token), a Secret (data.token), a CredentialProviderRequest (serviceAccountToken) nor a CSI token map ({CSI_TOKENS_KEY}){}",
        if kind.is_empty() {
            String::new()
        } else {
            format!("; its kind is {kind:?}")
        }
    )))
}

/// A CSI token map and the field it was found in (`volume_context`,
/// `secrets`, or `map` for the map alone).
type CsiMap = (&'static str, serde_json::Map<String, Value>);

/// Where a CSI token map is: under [`CSI_TOKENS_KEY`] at the top, in
/// `volume_context`/`volumeContext`, in `secrets`, or the map itself (every
/// value an object with a `token`). The value may be the map or its JSON text.
fn csi_map(obj: &serde_json::Map<String, Value>) -> Result<Option<CsiMap>, InputError> {
    let places = [
        ("volume_context", obj.get(CSI_TOKENS_KEY)),
        (
            "volume_context",
            obj.get("volume_context")
                .or_else(|| obj.get("volumeContext"))
                .and_then(|v| v.get(CSI_TOKENS_KEY)),
        ),
        (
            "secrets",
            obj.get("secrets").and_then(|v| v.get(CSI_TOKENS_KEY)),
        ),
    ];
    if let Some((field, value)) = places.into_iter().find_map(|(f, v)| Some((f, v?))) {
        let map = match value {
            Value::String(text) => serde_json::from_str::<Value>(text).map_err(|e| {
                InputError::UnknownJson(format!("has a {CSI_TOKENS_KEY} that does not parse: {e}"))
            })?,
            other => other.clone(),
        };
        let Value::Object(map) = map else {
            return Err(InputError::UnknownJson(format!(
                "has a {CSI_TOKENS_KEY} that is not a map of audiences"
            )));
        };
        return Ok(Some((field, map)));
    }
    let bare = !obj.is_empty()
        && obj
            .values()
            .all(|v| v.get("token").is_some_and(Value::is_string));
    Ok(bare.then(|| ("map", obj.clone())))
}

fn csi_tokens(
    field: &'static str,
    map: &serde_json::Map<String, Value>,
) -> Result<Vec<ShapedToken>, InputError> {
    if map.is_empty() {
        return Err(InputError::UnknownJson(format!(
            "has an empty {CSI_TOKENS_KEY}: the CSIDriver asks for no tokenRequests"
        )));
    }
    if map.len() > MAX_CSI_TOKENS {
        return Err(InputError::UnknownJson(format!(
            "has {} CSI tokens, more than the {MAX_CSI_TOKENS} this reads",
            map.len()
        )));
    }
    // Sorted by audience whatever the map's order, so output is stable.
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
        .into_iter()
        .map(|(audience, entry)| {
            let token = entry.get("token").and_then(Value::as_str).ok_or_else(|| {
                InputError::UnknownJson(format!(
                    "has a CSI entry for audience {audience:?} without a token"
                ))
            })?;
            let context = InputContext {
                csi_audience: Some(audience.clone()),
                csi_expiration: entry
                    .get("expirationTimestamp")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                csi_field: Some(field),
                ..InputContext::default()
            };
            Ok(carried(token, Shape::CsiTokens, context))
        })
        .collect()
}

/// A token a JSON document carries.
fn carried(token: &str, shape: Shape, context: InputContext) -> ShapedToken {
    ShapedToken {
        token: SecretToken::new(token.trim()),
        shape,
        extra_space_after_bearer: false,
        context,
    }
}

fn strip_quotes(text: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return inner.trim();
        }
    }
    text
}

/// JSON type names as a user reads them in an error message.
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";

    #[test]
    fn lines_of_every_shape() {
        let cases = [
            (JWT.to_string(), Shape::Raw),
            (format!("  {JWT}\n"), Shape::Raw),
            (format!("\"{JWT}\""), Shape::Raw),
            (format!("Bearer {JWT}"), Shape::Bearer),
            (format!("bearer {JWT}"), Shape::Bearer),
            (
                format!("Authorization: Bearer {JWT}"),
                Shape::AuthorizationHeader,
            ),
            (
                format!("authorization:Bearer {JWT}"),
                Shape::AuthorizationHeader,
            ),
            (
                format!("-H 'Authorization: Bearer {JWT}'"),
                Shape::AuthorizationHeader,
            ),
        ];
        for (input, shape) in cases {
            let got = detect_line(&input);
            assert_eq!(got.token.expose(), JWT, "{input}");
            assert_eq!(got.shape, shape, "{input}");
            assert!(!got.extra_space_after_bearer);
        }
    }

    #[test]
    fn a_base64_wrapped_jwt_is_unwrapped() {
        use base64::Engine as _;
        for engine in [
            base64::engine::general_purpose::STANDARD,
            base64::engine::general_purpose::STANDARD_NO_PAD,
        ] {
            let got = detect_line(&engine.encode(format!("{JWT}\n")));
            assert_eq!((got.token.expose(), got.shape), (JWT, Shape::Base64));
        }
        assert_eq!(detect_line("ZXlKnotbase64!").shape, Shape::Raw);
    }

    #[test]
    fn a_kubeconfig_gives_its_current_users_token() {
        let config = |user: &str| {
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {{cluster: k, user: u}}\nclusters:\n- name: k\n  cluster: {{server: https://k:6443}}\nusers:\n- name: u\n  user: {{{user}}}\n"
            )
        };
        let got = detect_document(&config(&format!("token: {JWT}"))).unwrap();
        assert_eq!(
            (got[0].token.expose(), got[0].shape),
            (JWT, Shape::Kubeconfig)
        );
        let err = detect_document(&config("tokenFile: /t"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("pass -f /t"), "{err}");
    }

    #[test]
    fn multibyte_text_near_the_scheme_is_not_sliced() {
        // Found by tests/it/props.rs: byte 7 inside a multi-byte character.
        assert_eq!(detect_line("W251b\u{fffd}ws.x.y").shape, Shape::Raw);
        assert_eq!(detect_line("Bearer\u{e9}x").shape, Shape::Raw);
    }

    #[test]
    fn extra_space_after_bearer_is_noticed() {
        let got = detect_line(&format!("Authorization: Bearer  {JWT}"));
        assert!(got.extra_space_after_bearer);
        assert_eq!(got.token.expose(), JWT);
    }

    #[test]
    fn csi_maps_in_every_place_give_one_token_per_audience() {
        let map = format!(
            r#"{{"vault":{{"token":"{JWT}","expirationTimestamp":"2026-01-01T01:00:00Z"}},"api://AzureADTokenExchange":{{"token":"{JWT}","expirationTimestamp":"2026-01-01T01:00:00Z"}}}}"#
        );
        let escaped = serde_json::to_string(&map).unwrap();
        for (doc, field) in [
            (map.clone(), "map"),
            (
                format!(r#"{{"{CSI_TOKENS_KEY}":{escaped}}}"#),
                "volume_context",
            ),
            (
                format!(r#"{{"volume_context":{{"{CSI_TOKENS_KEY}":{escaped}}}}}"#),
                "volume_context",
            ),
            (
                format!(r#"{{"secrets":{{"{CSI_TOKENS_KEY}":{map}}}}}"#),
                "secrets",
            ),
        ] {
            let all = detect_json_all(&doc).unwrap();
            assert_eq!(all.len(), 2, "{doc}");
            let audiences: Vec<_> = all
                .iter()
                .map(|t| t.context.csi_audience.clone().unwrap())
                .collect();
            assert_eq!(audiences, ["api://AzureADTokenExchange", "vault"], "{doc}");
            assert!(all.iter().all(|t| t.context.csi_field == Some(field)));
        }
    }

    #[test]
    fn unknown_json_is_named() {
        for (doc, want) in [
            (r#"{"kind":"ConfigMap"}"#, "ConfigMap"),
            (r#"{"kind":"Secret","data":{}}"#, "without data.token"),
            (r#"{"data":{"token":"!!!"}}"#, "not valid base64"),
        ] {
            let err = detect_json_all(doc).unwrap_err().to_string();
            assert!(err.contains(want), "{doc}: {err}");
        }
    }
}
