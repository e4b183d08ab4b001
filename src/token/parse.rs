//! Pure: token text -> [`Token`], with an error that names the segment and the
//! problem. Mirrors the order kube-apiserver reads a token in (pkg/serviceaccount
//! jwt.go): three segments, base64url, JSON object, typed claims.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Map, Value};

use super::{Claims, Header, Token, claims};
use crate::error::{Segment, TokenError};
use crate::input::MAX_TOKEN_BYTES;
use crate::input::shape::json_type_name;
use crate::secret::SecretToken;

/// base64url that tolerates `=` padding, so we can decode a padded token and then
/// report the padding as a finding instead of failing on it.
const BASE64URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Parses a compact JWS. Never panics, whatever the input.
pub fn parse(secret: &SecretToken) -> Result<Token, TokenError> {
    let text = secret.expose();
    if text.is_empty() {
        return Err(TokenError::Empty);
    }
    if text.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::TooLarge {
            size: text.len(),
            limit: MAX_TOKEN_BYTES,
        });
    }
    let (printable, dots) = scan(text.as_bytes());
    if !printable {
        check_characters(text)?;
    }
    if text.starts_with('{') {
        return Err(TokenError::JsonSerialized);
    }
    match dots + 1 {
        3 => {}
        5 => return Err(TokenError::Jwe),
        found => return Err(TokenError::SegmentCount { found }),
    }
    let mut segments = text.split('.');
    let mut next = || segments.next().unwrap_or_default();
    let (header_text, payload_text, signature_text) = (next(), next(), next());
    let header_bytes = decode_segment(Segment::Header, header_text)?;
    let payload_bytes = decode_segment(Segment::Payload, payload_text)?;
    let signature_len = signature_length(signature_text)?;
    let raw_header = parse_object(Segment::Header, &header_bytes)?;
    let raw_claims = parse_object(Segment::Payload, &payload_bytes)?;
    let header_string = |name| claims::string_at(&raw_header, name, || format!("header.{name}"));
    let header = Header {
        alg: header_string("alg")?,
        kid: header_string("kid")?,
        typ: header_string("typ")?,
    };
    let claims = Claims::from_payload(&raw_claims)?;
    Ok(Token {
        header,
        claims,
        raw_claims,
        signature_len,
        padded: text.contains('='),
        fingerprint: secret.fingerprint(),
    })
}

/// One pass over the token: whether every byte is printable ASCII (which excludes
/// whitespace), and how many dots it has. Chunks without early exit, so the
/// compiler vectorises it: this runs for every token of a batch.
fn scan(bytes: &[u8]) -> (bool, usize) {
    let (mut printable, mut dots) = (true, 0usize);
    for chunk in bytes.chunks(128) {
        let (mut ok, mut n) = (true, 0u8);
        for &b in chunk {
            ok &= b.is_ascii_graphic();
            n += u8::from(b == b'.');
        }
        printable &= ok;
        dots += usize::from(n);
    }
    (printable, dots)
}

/// HTTP authentication schemes other than Bearer (IANA registry, plus NTLM
/// and AWS's): credentials of another kind, not a token with a stray space.
const OTHER_SCHEMES: [&str; 8] = [
    "Basic",
    "Digest",
    "Negotiate",
    "NTLM",
    "HOBA",
    "Mutual",
    "SCRAM-SHA-256",
    "AWS4-HMAC-SHA256",
];

/// Names the first byte that cannot be in a token.
fn check_characters(text: &str) -> Result<(), TokenError> {
    if let Some((scheme, _)) = text.split_once(' ')
        && let Some(known) = OTHER_SCHEMES
            .iter()
            .find(|s| s.eq_ignore_ascii_case(scheme))
    {
        return Err(TokenError::NotBearer { scheme: known });
    }
    for (offset, byte) in text.bytes().enumerate() {
        if byte.is_ascii_whitespace() {
            return Err(if wrapped_token(text) {
                TokenError::InnerWhitespace { offset }
            } else {
                TokenError::Text
            });
        }
        if !byte.is_ascii_graphic() {
            return Err(TokenError::Binary { byte, offset });
        }
    }
    Ok(())
}

/// Whether text with whitespace in it is a token broken by it: every other
/// byte is of the token's alphabet (base64url, `.`, `=`) and there are its two
/// dots. A sentence or a config line is not.
fn wrapped_token(text: &str) -> bool {
    let mut dots = 0;
    let alphabet = text.bytes().filter(|b| !b.is_ascii_whitespace()).all(|b| {
        dots += usize::from(b == b'.');
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'=')
    });
    alphabet && dots == 2
}

fn decode_segment(segment: Segment, text: &str) -> Result<Vec<u8>, TokenError> {
    if text.is_empty() {
        return Err(TokenError::EmptySegment { segment });
    }
    BASE64URL.decode(text).map_err(|e| TokenError::Base64 {
        segment,
        detail: describe_base64_error(&e),
    })
}

/// The decoded length of the signature (0: unsigned), checking that it is
/// base64url; the bytes are not kept (a stack buffer for every real signature
/// size, RSA-4096 included).
fn signature_length(text: &str) -> Result<usize, TokenError> {
    let mut buf = [0u8; 1024];
    if base64::decoded_len_estimate(text.len()) <= buf.len() {
        BASE64URL
            .decode_slice(text, &mut buf)
            .map_err(|e| TokenError::Base64 {
                segment: Segment::Signature,
                detail: match e {
                    base64::DecodeSliceError::DecodeError(e) => describe_base64_error(&e),
                    // Unreachable: the buffer holds the estimate, an upper bound.
                    base64::DecodeSliceError::OutputSliceTooSmall => "too long".to_owned(),
                },
            })
    } else {
        decode_segment(Segment::Signature, text).map(|bytes| bytes.len())
    }
}

fn describe_base64_error(error: &base64::DecodeError) -> String {
    use base64::DecodeError::*;
    match *error {
        InvalidByte(offset, byte) => {
            let hint = match byte {
                b'+' | b'/' => " (standard base64? JWTs use '-' and '_' instead of '+' and '/')",
                _ => "",
            };
            format!(
                "character {:?} at offset {offset} is not in the base64url alphabet{hint}",
                char::from(byte)
            )
        }
        InvalidLength(len) => format!("{len} characters cannot be base64 (truncated?)"),
        InvalidLastSymbol(offset, byte) => format!(
            "last character {:?} at offset {offset} has bits that do not decode (truncated or altered?)",
            char::from(byte)
        ),
        InvalidPadding => "its '=' padding is malformed".to_owned(),
    }
}

fn parse_object(segment: Segment, bytes: &[u8]) -> Result<Map<String, Value>, TokenError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| TokenError::Json {
        segment,
        detail: if std::str::from_utf8(bytes).is_err() {
            "it decodes to bytes that are not UTF-8 text".to_owned()
        } else {
            e.to_string()
        },
    })?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(TokenError::NotObject {
            segment,
            found: json_type_name(&other),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(json: &str) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
    }

    fn jwt(header: &str, payload: &str) -> SecretToken {
        SecretToken::new(format!("{}.{}.c2lnbmF0dXJl", b64(header), b64(payload)))
    }

    fn err_of(text: &str) -> String {
        parse(&SecretToken::new(text)).unwrap_err().to_string()
    }

    #[test]
    fn parses_a_plain_token() {
        let token = parse(&jwt(
            r#"{"alg":"RS256","kid":"k1"}"#,
            r#"{"iss":"i","sub":"s","exp":10,"aud":"a"}"#,
        ))
        .unwrap();
        assert_eq!(token.header.alg.as_deref(), Some("RS256"));
        assert_eq!(token.claims.expires_at, Some(10));
        assert_eq!(token.claims.audiences, ["a"]);
        assert_eq!(token.signature_len, 9);
        assert!(!token.padded);
    }

    #[test]
    fn each_malformation_is_named() {
        let h = b64(r#"{"alg":"RS256"}"#);
        let p = b64(r#"{"sub":"x"}"#);
        let cases = [
            ("a.b".to_owned(), "found 2"),
            ("a.b.c.d.e".to_owned(), "JWE"),
            (format!("{h}..sig"), "payload (segment 2) is empty"),
            (format!("{h}.a+b.sig"), "'+' at offset 1"),
            (
                format!("{h}.{}.sig", b64("not json")),
                "payload (segment 2) is not JSON",
            ),
            (
                format!("{h}.{}.sig", b64("[1]")),
                "not an object (found an array)",
            ),
            (
                format!("{}.{p}.sig", b64("\"x\"")),
                "header (segment 1) is JSON but not an object",
            ),
            (
                format!("{h}.{p}.s!g"),
                "signature (segment 3) is not base64url",
            ),
            (format!("{h}. {p}.sig"), "whitespace at offset"),
            ("{\"payload\":\"x\"}".to_owned(), "JSON-serialised"),
            ("ab\u{7}c".to_owned(), "0x07 at offset 2"),
        ];
        for (input, want) in cases {
            let got = err_of(&input);
            assert!(got.contains(want), "{input}: {got}");
        }
    }

    #[test]
    fn wrong_claim_types_are_named() {
        for (payload, want) in [
            (
                r#"{"exp":"1700000000"}"#,
                "claim `exp` must be a NumericDate",
            ),
            (r#"{"iss":5}"#, "claim `iss` must be a string"),
            (r#"{"aud":[1]}"#, "claim `aud` must be"),
            (
                r#"{"kubernetes.io":"x"}"#,
                "claim `kubernetes.io` must be an object",
            ),
        ] {
            let err = err_of(jwt(r#"{"alg":"RS256"}"#, payload).expose());
            assert!(err.contains(want), "{payload}: {err}");
        }
        let err = err_of(jwt(r#"{"alg":7}"#, "{}").expose());
        assert!(err.contains("header.alg"), "{err}");
    }

    #[test]
    fn unsigned_and_padded_tokens_parse() {
        let token = parse(&SecretToken::new(format!(
            "{}.{}.",
            b64(r#"{"alg":"none"}"#),
            b64("{}")
        )))
        .unwrap();
        assert_eq!(token.signature_len, 0);
        let padded = base64::engine::general_purpose::URL_SAFE.encode(r#"{"sub":"abc"}"#);
        assert!(padded.ends_with('='));
        let token = parse(&SecretToken::new(format!(
            "{}.{padded}.c2ln",
            b64(r#"{"alg":"RS256"}"#)
        )))
        .unwrap();
        assert!(token.padded);
    }
}
