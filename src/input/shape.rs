//! Pure: turns input text into token text, whatever shape the user pasted.
//!
//! Accepted, auto-detected: a raw JWT with surrounding whitespace or quotes;
//! `Bearer <jwt>`; an `Authorization: Bearer <jwt>` header line (also as curl's
//! `-H '…'`); TokenRequest (or ExecCredential) JSON with the token at
//! `status.token`; a legacy Secret as JSON with a base64 token at `data.token`.

use base64::Engine as _;
use serde_json::Value;

use crate::error::InputError;
use crate::secret::SecretToken;
use crate::wire::string_codes;

/// How the token was wrapped in the input; shown in the report so a user can
/// check that the tool read what they meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

string_codes!(Shape: Raw, Bearer, AuthorizationHeader, TokenRequest, ExecCredential, Secret);

impl Shape {
    /// Stable kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Raw => "raw",
            Shape::Bearer => "bearer",
            Shape::AuthorizationHeader => "authorization-header",
            Shape::TokenRequest => "token-request",
            Shape::ExecCredential => "exec-credential",
            Shape::Secret => "secret",
        }
    }
}

/// Token text found in the input, plus what we noticed about its wrapping.
#[derive(Debug, Clone)]
pub struct ShapedToken {
    pub token: SecretToken,
    pub shape: Shape,
    /// The `Authorization` value had more than one space after `Bearer`:
    /// kube-apiserver treats that as no credentials at all (anonymous).
    pub extra_space_after_bearer: bool,
}

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
    if let Some((name, value)) = text.split_once(':')
        && name.trim().eq_ignore_ascii_case("authorization")
    {
        shape = Shape::AuthorizationHeader;
        text = value.trim_start();
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
    ShapedToken {
        token: SecretToken::new(text),
        shape,
        extra_space_after_bearer: extra_space,
    }
}

/// Detects a token in a JSON document: TokenRequest/ExecCredential `status.token`
/// or Secret `data.token` (base64).
pub fn detect_json(text: &str) -> Result<ShapedToken, InputError> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| InputError::UnknownJson(format!("does not parse: {e}")))?;
    let Some(obj) = doc.as_object() else {
        return Err(InputError::UnknownJson(format!(
            "is {} rather than an object",
            json_type_name(&doc)
        )));
    };
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if let Some(token) = doc.pointer("/status/token") {
        let token = token.as_str().ok_or_else(|| {
            InputError::UnknownJson("its status.token is not a string".to_owned())
        })?;
        let shape = if kind == "ExecCredential" {
            Shape::ExecCredential
        } else {
            Shape::TokenRequest
        };
        return Ok(ShapedToken {
            token: SecretToken::new(token.trim()),
            shape,
            extra_space_after_bearer: false,
        });
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
        return Ok(ShapedToken {
            token: SecretToken::new(token.trim()),
            shape: Shape::Secret,
            extra_space_after_bearer: false,
        });
    }
    if kind == "Secret" {
        return Err(InputError::UnknownJson(
            "is a Secret without data.token: is it a kubernetes.io/service-account-token Secret whose token the controller has not filled in yet?".to_owned(),
        ));
    }
    Err(InputError::UnknownJson(format!(
        "is neither a TokenRequest (status.token) nor a Secret (data.token){}",
        if kind.is_empty() {
            String::new()
        } else {
            format!("; its kind is {kind:?}")
        }
    )))
}

/// Whether text that starts a document is JSON rather than a token line.
pub fn looks_like_json(first_line: &str) -> bool {
    first_line.trim_start().starts_with('{')
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
    fn token_request_and_secret_json() {
        let tr = format!(
            r#"{{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","status":{{"token":"{JWT}","expirationTimestamp":"2026-01-01T01:00:00Z"}}}}"#
        );
        assert_eq!(detect_json(&tr).unwrap().shape, Shape::TokenRequest);
        let b64 = base64::engine::general_purpose::STANDARD.encode(JWT);
        let secret = format!(r#"{{"kind":"Secret","data":{{"token":"{b64}"}}}}"#);
        let got = detect_json(&secret).unwrap();
        assert_eq!(got.shape, Shape::Secret);
        assert_eq!(got.token.expose(), JWT);
    }

    #[test]
    fn unknown_json_is_named() {
        let err = detect_json(r#"{"kind":"ConfigMap"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("ConfigMap"), "{err}");
        let err = detect_json(r#"{"kind":"Secret","data":{}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("without data.token"), "{err}");
        let err = detect_json(r#"{"data":{"token":"!!!"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not valid base64"), "{err}");
    }
}
