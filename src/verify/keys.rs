//! Pure: verification keys from bytes. A JWKS document (`kubectl get --raw
//! /openid/v1/jwks`), PEM files as kube-apiserver's `--service-account-key-file`
//! takes them, and the OpenID discovery document that points at the JWKS. No file
//! or network access here: the edge reads the bytes (and, later, fetches URLs) and
//! hands them in, so a URL source only adds the fetch.
//!
//! Every key is normalised to its DER SubjectPublicKeyInfo (re-marshalled by
//! aws-lc-rs, as Go's `x509.MarshalPKIXPublicKey` does) so Kubernetes' own key id
//! can be computed for it, whatever form it came in.

use std::fmt;

use strum::{EnumString, IntoStaticStr, VariantArray};

use crate::wire::string_codes;
use aws_lc_rs::encoding::AsDer as _;
use aws_lc_rs::signature::{self as lc, KeyPair as _};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};

/// Largest key document accepted (a JWKS with hundreds of keys is ~100 KiB).
pub const MAX_KEY_DOCUMENT_BYTES: usize = 4 * 1024 * 1024;

/// A key source that cannot be used at all: bad input, exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("not a JWKS: {0}")]
    NotJwks(String),
    #[error(
        "this is an OpenID discovery document, not a JWKS: its keys are at jwks_uri {0}; save that (kubectl get --raw /openid/v1/jwks) and pass it"
    )]
    DiscoveryNotJwks(String),
    #[error("the JWKS has no keys")]
    EmptyJwks,
    #[error("JWKS keys[{index}]{kid}: {detail}")]
    BadJwk {
        index: usize,
        /// ` (kid "…")`, or empty.
        kid: String,
        detail: String,
    },
    #[error("the JWKS has no RSA or EC key (skipped: {0})")]
    NoUsableJwk(String),
    #[error("bad PEM: {0}")]
    BadPem(String),
    #[error("PEM block {index} ({label}): {detail}")]
    BadPemBlock {
        index: usize,
        label: String,
        detail: String,
    },
    /// PEM input without one RSA or EC key (client-go keyutil's own error wording).
    #[error("data does not contain any valid RSA or ECDSA public keys{0}")]
    NoPemKey(String),
    #[error("not an OpenID discovery document: {0}")]
    NotDiscovery(String),
}

/// The EC curves Kubernetes signs with, one per JWS algorithm, by their JWK
/// `crv` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, VariantArray, EnumString)]
pub enum Curve {
    #[strum(serialize = "P-256")]
    P256,
    #[strum(serialize = "P-384")]
    P384,
    #[strum(serialize = "P-521")]
    P521,
}

string_codes!(Curve);

impl Curve {
    /// The JWS algorithm kube-apiserver signs with on this curve (jwt.go `signerFromECDSAPrivateKey`).
    pub fn algorithm(self) -> &'static str {
        match self {
            Curve::P256 => "ES256",
            Curve::P384 => "ES384",
            Curve::P521 => "ES512",
        }
    }

    /// Bytes of one coordinate.
    fn coordinate_len(self) -> usize {
        match self {
            Curve::P256 => 32,
            Curve::P384 => 48,
            Curve::P521 => 66,
        }
    }

    pub(crate) fn verification(self) -> &'static lc::EcdsaVerificationAlgorithm {
        match self {
            Curve::P256 => &lc::ECDSA_P256_SHA256_FIXED,
            Curve::P384 => &lc::ECDSA_P384_SHA384_FIXED,
            Curve::P521 => &lc::ECDSA_P521_SHA512_FIXED,
        }
    }

    fn signing(self) -> &'static lc::EcdsaSigningAlgorithm {
        match self {
            Curve::P256 => &lc::ECDSA_P256_SHA256_FIXED_SIGNING,
            Curve::P384 => &lc::ECDSA_P384_SHA384_FIXED_SIGNING,
            Curve::P521 => &lc::ECDSA_P521_SHA512_FIXED_SIGNING,
        }
    }
}

/// What kind of key, as far as choosing a JWS algorithm goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// RSA, any size; kube-apiserver signs RS256 with it.
    Rsa { bits: usize },
    /// ECDSA on one of the three NIST curves.
    Ec(Curve),
}

impl KeyKind {
    /// The algorithm kube-apiserver signs with using such a key.
    pub fn algorithm(self) -> &'static str {
        match self {
            KeyKind::Rsa { .. } => "RS256",
            KeyKind::Ec(curve) => curve.algorithm(),
        }
    }

    /// JWK `kty`.
    pub fn kty(self) -> &'static str {
        match self {
            KeyKind::Rsa { .. } => "RSA",
            KeyKind::Ec(_) => "EC",
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyKind::Rsa { bits } => write!(f, "RSA {bits}"),
            KeyKind::Ec(curve) => write!(f, "EC {}", curve.as_str()),
        }
    }
}

/// How a PEM key was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum PemForm {
    /// `PUBLIC KEY` (SubjectPublicKeyInfo).
    PublicKey,
    /// `RSA PUBLIC KEY` (PKCS#1).
    RsaPublicKey,
    /// `CERTIFICATE`: its subject public key.
    Certificate,
    /// A private key: its public half.
    PrivateKey,
}

string_codes!(PemForm);

/// One verification key.
#[derive(Debug, Clone)]
pub struct PublicKey {
    /// Where it came from: `keys[0]` in a JWKS, `block 2` in a PEM file; the edge
    /// prefixes the file name ([`KeySet::extend`]).
    pub source: String,
    /// The `kid` the JWKS publishes it under (none for PEM keys).
    pub published_kid: Option<String>,
    /// Kubernetes' key id for it: base64url(SHA-256(DER SubjectPublicKeyInfo)).
    pub computed_kid: String,
    pub kind: KeyKind,
    /// PEM keys: the form it was given in.
    pub pem_form: Option<PemForm>,
    /// Canonical DER SubjectPublicKeyInfo.
    pub(crate) spki: Vec<u8>,
}

impl PublicKey {
    /// The id the key answers to: the published kid, else Kubernetes' key id.
    pub fn kid(&self) -> &str {
        self.published_kid.as_deref().unwrap_or(&self.computed_kid)
    }

    /// Whether `kid` names this key, by its published or its Kubernetes key id.
    pub fn answers_to(&self, kid: &str) -> bool {
        self.published_kid.as_deref() == Some(kid) || self.computed_kid == kid
    }

    /// Builds a key from DER SubjectPublicKeyInfo (or PKCS#1 RSAPublicKey).
    fn from_public_der(der: &[u8]) -> Result<PublicKey, String> {
        if let Ok(rsa) = aws_lc_rs::rsa::PublicKey::from_der(der) {
            let spki = rsa.as_der().map_err(|_| "cannot re-encode the RSA key")?;
            return Ok(rsa_key(
                rsa.modulus().big_endian_without_leading_zero(),
                spki.as_ref().to_vec(),
            ));
        }
        for &curve in Curve::VARIANTS {
            if let Ok(parsed) = lc::ParsedPublicKey::new(curve.verification(), der) {
                let spki = parsed.as_der().map_err(|_| "cannot re-encode the EC key")?;
                return Ok(new_key(KeyKind::Ec(curve), spki.as_ref().to_vec()));
            }
        }
        if lc::ParsedPublicKey::new(&lc::ED25519, der).is_ok() {
            return Err("an Ed25519 key: Kubernetes signs with RSA or ECDSA keys only".to_owned());
        }
        Err("not an RSA or EC (P-256, P-384, P-521) public key".to_owned())
    }
}

fn rsa_key(n: &[u8], spki: Vec<u8>) -> PublicKey {
    let n = strip_leading_zeros(n);
    let bits = n
        .first()
        .map_or(0, |b| n.len() * 8 - b.leading_zeros() as usize);
    new_key(KeyKind::Rsa { bits }, spki)
}

/// A key of no source yet, its Kubernetes key id computed.
fn new_key(kind: KeyKind, spki: Vec<u8>) -> PublicKey {
    PublicKey {
        source: String::new(),
        published_kid: None,
        computed_kid: kubernetes_key_id(&spki),
        kind,
        pem_form: None,
        spki,
    }
}

fn strip_leading_zeros(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
    &bytes[start..]
}

/// Kubernetes' key id: unpadded base64url of the SHA-256 of the DER
/// SubjectPublicKeyInfo. Source: pkg/serviceaccount/jwt.go `keyIDFromPublicKey`
/// (`x509.MarshalPKIXPublicKey`, `sha256.Sum256`, `base64.RawURLEncoding`), PR #78502.
pub fn kubernetes_key_id(spki_der: &[u8]) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, spki_der);
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// Something in a key source that is not a usable key and was passed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// `keys[3]`, `block 2`, prefixed with the file by [`KeySet::extend`].
    pub source: String,
    /// What it is: `kty "OKP" (kid "x")`, `PEM "CERTIFICATE REQUEST"`.
    pub what: String,
    /// Why it was passed over.
    pub reason: String,
}

/// A key worth a remark although it is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyNote {
    /// Public half of a private key; kube-apiserver reads those too.
    FromPrivateKey,
    /// A PKCS#8 EC private key: client-go keyutil reads EC private keys only in
    /// SEC 1 form, so kube-apiserver would skip this block.
    Pkcs8EcPrivateKey,
    /// `RSA PUBLIC KEY` (PKCS#1): kube-apiserver reads only SubjectPublicKeyInfo
    /// and certificates, so it would skip this block.
    Pkcs1PublicKey,
}

/// Every key from every source, plus what was passed over.
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    pub keys: Vec<PublicKey>,
    pub skipped: Vec<Skipped>,
    /// Each remark with the source of the key it is about.
    pub notes: Vec<(String, KeyNote)>,
}

impl KeySet {
    /// Adds another source's keys, naming them `<label> <source>`.
    pub fn extend(&mut self, other: KeySet, label: &str) {
        let name = |s: &str| format!("{label} {s}");
        self.keys.extend(other.keys.into_iter().map(|mut k| {
            k.source = name(&k.source);
            k
        }));
        self.skipped.extend(other.skipped.into_iter().map(|mut s| {
            s.source = name(&s.source);
            s
        }));
        let notes = other.notes.into_iter();
        self.notes
            .extend(notes.map(|(source, note)| (name(&source), note)));
    }

    /// What was skipped, for the error when nothing else was found.
    fn skipped_list(&self) -> String {
        let whats: Vec<&str> = self.skipped.iter().map(|s| s.what.as_str()).collect();
        whats.join(", ")
    }

    /// The ids keys answer to, in order, without repeats.
    pub fn kids(&self) -> Vec<&str> {
        let mut kids: Vec<&str> = Vec::new();
        for key in &self.keys {
            if !kids.contains(&key.kid()) {
                kids.push(key.kid());
            }
        }
        kids
    }
}

/// Parses a JWKS (RFC 7517 `{"keys": [...]}`), as kube-apiserver serves it at
/// `/openid/v1/jwks` (pkg/serviceaccount/openidmetadata.go: `use`, `kty`, `kid`,
/// `alg`, and `n`/`e` or `crv`/`x`/`y`). RSA and EC keys are used; other key types
/// (OKP, oct, …) and encryption keys are skipped and listed in [`KeySet::skipped`].
pub fn parse_jwks(bytes: &[u8]) -> Result<KeySet, KeyError> {
    let not_jwks = |detail: &str| KeyError::NotJwks(detail.to_owned());
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| not_jwks(&format!("not JSON: {e}")))?;
    let Value::Object(doc) = doc else {
        return Err(not_jwks("JSON but not an object with \"keys\""));
    };
    let keys = match (doc.get("keys"), doc.get("jwks_uri")) {
        (Some(Value::Array(keys)), _) => keys,
        (Some(_), _) => return Err(not_jwks("\"keys\" is not an array")),
        (None, Some(Value::String(uri))) => return Err(KeyError::DiscoveryNotJwks(uri.clone())),
        (None, _) if doc.contains_key("kty") => {
            return Err(not_jwks("a single JWK; wrap it as {\"keys\": [ ... ]}"));
        }
        (None, _) => return Err(not_jwks("no \"keys\" member")),
    };
    if keys.is_empty() {
        return Err(KeyError::EmptyJwks);
    }
    let mut set = KeySet::default();
    for (index, value) in keys.iter().enumerate() {
        let source = format!("keys[{index}]");
        let Value::Object(jwk) = value else {
            return Err(KeyError::BadJwk {
                index,
                kid: String::new(),
                detail: "not a JSON object".to_owned(),
            });
        };
        let kid = jwk.get("kid").and_then(Value::as_str).map(str::to_owned);
        let kid_text = kid
            .as_deref()
            .map(|k| format!(" (kid {k:?})"))
            .unwrap_or_default();
        let bad = |detail: String| KeyError::BadJwk {
            index,
            kid: kid_text.clone(),
            detail,
        };
        let kty = jwk_string(jwk, "kty").map_err(bad)?;
        let passed_over = match (jwk.get("use").and_then(Value::as_str), kty) {
            (Some("enc"), _) => Some("an encryption key (\"use\": \"enc\")"),
            (_, "RSA" | "EC") => None,
            _ => Some("not a key type Kubernetes signs with (RSA, EC)"),
        };
        if let Some(reason) = passed_over {
            set.skipped.push(Skipped {
                source,
                what: format!("kty {kty:?}{kid_text}"),
                reason: reason.to_owned(),
            });
            continue;
        }
        let mut key = match kty {
            "RSA" => rsa_from_jwk(jwk),
            _ => ec_from_jwk(jwk),
        }
        .map_err(bad)?;
        key.source = source;
        key.published_kid = kid;
        set.keys.push(key);
    }
    if set.keys.is_empty() {
        return Err(KeyError::NoUsableJwk(set.skipped_list()));
    }
    Ok(set)
}

fn jwk_string<'a>(jwk: &'a Map<String, Value>, member: &str) -> Result<&'a str, String> {
    match jwk.get(member) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(format!("\"{member}\" is not a string")),
        None => Err(format!("no \"{member}\"")),
    }
}

fn jwk_bytes(jwk: &Map<String, Value>, member: &str) -> Result<Vec<u8>, String> {
    let text = jwk_string(jwk, member)?;
    // RFC 7518 says unpadded base64url; tolerate padding, which some tools add.
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|e| format!("\"{member}\" is not base64url: {e}"))
}

fn rsa_from_jwk(jwk: &Map<String, Value>) -> Result<PublicKey, String> {
    let n = jwk_bytes(jwk, "n")?;
    let e = jwk_bytes(jwk, "e")?;
    let components = lc::RsaPublicKeyComponents {
        n: strip_leading_zeros(&n),
        e: strip_leading_zeros(&e),
    };
    let spki = components
        .as_der()
        .map_err(|_| "\"n\" and \"e\" do not form an RSA public key".to_owned())?;
    Ok(rsa_key(&n, spki.as_ref().to_vec()))
}

fn ec_from_jwk(jwk: &Map<String, Value>) -> Result<PublicKey, String> {
    let crv = jwk_string(jwk, "crv")?;
    let curve: Curve = crv.parse().map_err(|_| {
        format!("curve {crv:?} is not one Kubernetes signs with (P-256, P-384, P-521)")
    })?;
    let (x, y) = (jwk_bytes(jwk, "x")?, jwk_bytes(jwk, "y")?);
    let len = curve.coordinate_len();
    if x.len() != len || y.len() != len {
        return Err(format!(
            "\"x\" and \"y\" must be {len} bytes each on {crv}, found {} and {}",
            x.len(),
            y.len()
        ));
    }
    // SEC 1 uncompressed point: 0x04 || x || y.
    let point = [&[0x04][..], &x, &y].concat();
    let parsed = lc::ParsedPublicKey::new(curve.verification(), &point)
        .map_err(|_| format!("\"x\" and \"y\" are not a point on {crv}"))?;
    let spki = parsed
        .as_der()
        .map_err(|_| "cannot encode the EC key".to_owned())?;
    Ok(new_key(KeyKind::Ec(curve), spki.as_ref().to_vec()))
}

/// Parses PEM text the way kube-apiserver reads `--service-account-key-file`
/// (client-go util/keyutil `ParsePublicKeysPEM`): any number of blocks; public
/// keys (SubjectPublicKeyInfo), certificates (their subject key) and RSA/EC
/// private keys (their public half) are used; other blocks are skipped. Unlike
/// kube-apiserver, a block labelled as a key or certificate that does not parse is
/// an error rather than silently skipped, so a damaged file is noticed.
pub fn parse_pem_keys(bytes: &[u8]) -> Result<KeySet, KeyError> {
    let blocks = pem::parse_many(bytes).map_err(|e| KeyError::BadPem(e.to_string()))?;
    let text = String::from_utf8_lossy(bytes);
    let begins = text.matches("-----BEGIN ").count();
    if begins > blocks.len() {
        return Err(KeyError::BadPem(format!(
            "{begins} BEGIN lines but only {} complete blocks: a block is truncated or its END line is missing",
            blocks.len()
        )));
    }
    if blocks.is_empty() {
        return Err(KeyError::NoPemKey(": no PEM block found".to_owned()));
    }
    let mut set = KeySet::default();
    for (i, block) in blocks.iter().enumerate() {
        let index = i + 1;
        let source = format!("block {index}");
        let label = block.tag();
        let der = block.contents();
        let bad = |detail: String| KeyError::BadPemBlock {
            index,
            label: label.to_owned(),
            detail,
        };
        let (key, form) = match label {
            "PUBLIC KEY" => (
                PublicKey::from_public_der(der).map_err(bad)?,
                PemForm::PublicKey,
            ),
            "RSA PUBLIC KEY" => {
                let key = aws_lc_rs::rsa::PublicKey::from_der(der)
                    .map_err(|_| bad("not a PKCS#1 RSA public key".to_owned()))
                    .and_then(|rsa| {
                        PublicKey::from_public_der(rsa.as_ref())
                            .map_err(|e| bad(format!("unusable RSA key: {e}")))
                    })?;
                set.notes.push((source.clone(), KeyNote::Pkcs1PublicKey));
                (key, PemForm::RsaPublicKey)
            }
            "CERTIFICATE" | "X509 CERTIFICATE" => {
                let cert_der = rustls::pki_types::CertificateDer::from(der);
                let cert = webpki::EndEntityCert::try_from(&cert_der)
                    .map_err(|e| bad(format!("not a readable X.509 certificate: {e}")))?;
                let spki = cert.subject_public_key_info();
                let key = PublicKey::from_public_der(spki.as_ref())
                    .map_err(|e| bad(format!("its public key is {e}")))?;
                (key, PemForm::Certificate)
            }
            "RSA PRIVATE KEY" | "EC PRIVATE KEY" | "PRIVATE KEY" => {
                let (key, note) = public_half(label, der).map_err(bad)?;
                set.notes.push((source.clone(), note));
                (key, PemForm::PrivateKey)
            }
            other => {
                set.skipped.push(Skipped {
                    source,
                    what: format!("PEM {other:?}"),
                    reason: "not a key or certificate (kube-apiserver skips such blocks too)"
                        .to_owned(),
                });
                continue;
            }
        };
        set.keys.push(PublicKey {
            source,
            pem_form: Some(form),
            ..key
        });
    }
    if set.keys.is_empty() {
        let skipped = set.skipped_list();
        return Err(KeyError::NoPemKey(format!(" (found only {skipped})")));
    }
    Ok(set)
}

/// The public half of a private key block, and the remark it calls for.
fn public_half(label: &str, der: &[u8]) -> Result<(PublicKey, KeyNote), String> {
    let rsa = match label {
        "RSA PRIVATE KEY" => aws_lc_rs::rsa::KeyPair::from_der(der).ok(),
        "PRIVATE KEY" => aws_lc_rs::rsa::KeyPair::from_pkcs8(der).ok(),
        _ => None,
    };
    if let Some(pair) = rsa {
        let spki = pair
            .public_key()
            .as_der()
            .map_err(|_| "cannot encode the RSA public key")?;
        return PublicKey::from_public_der(spki.as_ref()).map(|k| (k, KeyNote::FromPrivateKey));
    }
    if label != "RSA PRIVATE KEY" {
        for &curve in Curve::VARIANTS {
            // `from_private_key_der` reads both PKCS#8 and SEC 1 (RFC 5915).
            if let Ok(pair) = lc::EcdsaKeyPair::from_private_key_der(curve.signing(), der) {
                let spki = pair
                    .public_key()
                    .as_der()
                    .map_err(|_| "cannot encode the EC public key")?;
                let key = PublicKey::from_public_der(spki.as_ref())?;
                let note = if label == "PRIVATE KEY" {
                    KeyNote::Pkcs8EcPrivateKey
                } else {
                    KeyNote::FromPrivateKey
                };
                return Ok((key, note));
            }
        }
    }
    Err("not an RSA or EC (P-256, P-384, P-521) private key".to_owned())
}

/// What the OpenID discovery document (`/.well-known/openid-configuration`) says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenIdConfiguration {
    /// The first `--service-account-issuer` (only the first is shown, though all are accepted).
    pub issuer: Option<String>,
    /// Where the JWKS is served.
    pub jwks_uri: String,
}

/// Parses the discovery document kube-apiserver serves (pkg/serviceaccount/
/// openidmetadata.go): a JSON object with string `jwks_uri` and `issuer`.
pub fn parse_openid_configuration(bytes: &[u8]) -> Result<OpenIdConfiguration, KeyError> {
    let doc: Value = serde_json::from_slice(bytes)
        .map_err(|e| KeyError::NotDiscovery(format!("not JSON: {e}")))?;
    let Value::Object(doc) = doc else {
        return Err(KeyError::NotDiscovery("JSON but not an object".to_owned()));
    };
    let jwks_uri = match doc.get("jwks_uri") {
        Some(Value::String(uri)) if !uri.is_empty() => Ok(uri.clone()),
        Some(_) => Err("\"jwks_uri\" is not a non-empty string"),
        None if doc.contains_key("keys") => Err("this is a JWKS: pass it with --jwks"),
        None => Err("no \"jwks_uri\""),
    }
    .map_err(|detail| KeyError::NotDiscovery(detail.to_owned()))?;
    Ok(OpenIdConfiguration {
        issuer: doc.get("issuer").and_then(Value::as_str).map(str::to_owned),
        jwks_uri,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::tests::read;

    fn published_kids() -> Vec<String> {
        let doc: Value = serde_json::from_slice(&read("jwks.json")).unwrap();
        doc["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn private_keys_give_the_jwks_kid_of_their_public_half() {
        let published = published_kids();
        for (file, kid) in ["rsa", "ec256", "ec384"].iter().zip(&published) {
            let set = parse_pem_keys(&read(&format!("keys/{file}.key.pem"))).unwrap();
            assert_eq!(&set.keys[0].computed_kid, kid, "{file}");
            assert_eq!(set.keys[0].pem_form, Some(PemForm::PrivateKey));
        }
        // rcgen writes PKCS#8: for EC keys kube-apiserver would skip the block.
        let set = parse_pem_keys(&read("keys/ec256.key.pem")).unwrap();
        assert_eq!(set.notes[0].1, KeyNote::Pkcs8EcPrivateKey);
    }

    #[test]
    fn several_blocks_and_non_key_blocks() {
        let mut text = String::new();
        text.push_str("-----BEGIN DH PARAMETERS-----\nAAEC\n-----END DH PARAMETERS-----\n");
        for file in ["rsa", "ec256", "rsa-rotated"] {
            text.push_str(&String::from_utf8(read(&format!("keys/{file}.pub.pem"))).unwrap());
        }
        let set = parse_pem_keys(text.as_bytes()).unwrap();
        assert_eq!(set.keys.len(), 3);
        assert_eq!(set.keys[0].source, "block 2");
        assert_eq!(set.skipped.len(), 1);
        assert_eq!(set.skipped[0].what, "PEM \"DH PARAMETERS\"");
    }

    #[test]
    fn certificate_public_key() {
        use rcgen::PublicKeyData as _;
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let cert = rcgen::CertificateParams::new(vec!["sa.example".to_owned()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let set = parse_pem_keys(cert.pem().as_bytes()).unwrap();
        assert_eq!(set.keys[0].kind, KeyKind::Ec(Curve::P256));
        assert_eq!(
            set.keys[0].computed_kid,
            kubernetes_key_id(&key.subject_public_key_info())
        );
    }

    #[test]
    fn pkcs1_rsa_public_key_is_noted() {
        let spki = pem::parse(read("keys/rsa.pub.pem")).unwrap();
        let rsa = aws_lc_rs::rsa::PublicKey::from_der(spki.contents()).unwrap();
        let pkcs1 = pem::encode(&pem::Pem::new("RSA PUBLIC KEY", rsa.as_ref().to_vec()));
        let set = parse_pem_keys(pkcs1.as_bytes()).unwrap();
        assert_eq!(set.keys[0].computed_kid, published_kids()[0]);
        assert_eq!(set.notes[0].1, KeyNote::Pkcs1PublicKey);
    }

    #[test]
    fn malformed_pem_is_an_error() {
        let cases: &[(&str, &str)] = &[
            ("hello", "no PEM block"),
            (
                "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n",
                "truncated",
            ),
            (
                "-----BEGIN CERTIFICATE-----\nAAEC\n-----END CERTIFICATE-----\n",
                "not a readable X.509 certificate",
            ),
            (
                "-----BEGIN DH PARAMETERS-----\nAAEC\n-----END DH PARAMETERS-----\n",
                "found only PEM \"DH PARAMETERS\"",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_pem_keys(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }

    #[test]
    fn malformed_jwks_is_an_error() {
        let cases: &[(&str, &str)] = &[
            ("[]", "not an object"),
            (r#"{"keys": {}}"#, "not an array"),
            (r#"{"keys": []}"#, "no keys"),
            (r#"{"kty": "RSA"}"#, "a single JWK"),
            (
                r#"{"keys": [{"kid": "a"}]}"#,
                "keys[0] (kid \"a\"): no \"kty\"",
            ),
            (r#"{"keys": [{"kty": "RSA", "e": "AQAB"}]}"#, "no \"n\""),
            (
                r#"{"keys": [{"kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA"}]}"#,
                "must be 32 bytes",
            ),
            (
                r#"{"keys": [{"kty": "EC", "crv": "secp256k1", "x": "", "y": ""}]}"#,
                "secp256k1",
            ),
            (
                r#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#,
                "no RSA or EC key",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_jwks(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn ec_point_off_the_curve_is_rejected() {
        let mut doc: Value = serde_json::from_slice(&read("jwks.json")).unwrap();
        let key = &mut doc["keys"][1];
        key["y"] = Value::String(URL_SAFE_NO_PAD.encode([7u8; 32]));
        let err = parse_jwks(doc.to_string().as_bytes()).unwrap_err();
        assert!(err.to_string().contains("not a point on P-256"), "{err}");
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_der_under_a_key_label_is_an_error(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
            // Raw bytes into every parser: it::props::key_readers_never_panic.
            for label in ["PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE", "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"] {
                let text = pem::encode(&pem::Pem::new(label, bytes.clone()));
                proptest::prop_assert!(parse_pem_keys(text.as_bytes()).is_err());
            }
        }
    }

    #[test]
    fn discovery_document() {
        let doc = parse_openid_configuration(&read("openid-configuration.json")).unwrap();
        assert_eq!(doc.jwks_uri, "https://172.18.0.2:6443/openid/v1/jwks");
        assert_eq!(
            doc.issuer.as_deref(),
            Some("https://kubernetes.default.svc.cluster.local")
        );
        for (text, expected) in [
            ("nope", "not JSON"),
            ("{}", "no \"jwks_uri\""),
            (r#"{"keys": []}"#, "pass it with --jwks"),
            (r#"{"jwks_uri": 3}"#, "not a non-empty string"),
        ] {
            let err = parse_openid_configuration(text.as_bytes())
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
