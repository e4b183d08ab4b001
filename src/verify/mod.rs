//! Pure: would kube-apiserver accept this token's signature, key, issuer,
//! audience and time claims? Offline, against keys the caller loaded
//! ([`keys`]). Never reads the clock: every time check is `window::judge` at the
//! `now` passed in. Signatures are checked with aws-lc-rs (jsonwebtoken, which
//! would read the system clock for exp/nbf, has no ES512).
//!
//! Order and wording follow pkg/serviceaccount/jwt.go (`Validate`, 1.31+): issuer
//! pre-check, key lookup by `kid` (an unknown kid fails with "invalid signature, no
//! keys found"; before 1.31 every key was tried), signature ("go-jose/go-jose:
//! error in cryptographic primitive", `square/go-jose:` up to 1.32), audiences
//! ("token audiences … is invalid for the target audiences …"), then time.

pub mod fetch;
pub mod keys;
pub mod trust;

use aws_lc_rs::signature as lc;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, TimeDelta, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use strum::{IntoStaticStr, VariantArray};

use crate::decode::LEGACY_ISSUER;
use crate::findings::{self, Code, Finding};
use crate::token::{self, Token, TokenKind};
use crate::window::Verdict;
use crate::window::check::TimeCheck;
use crate::wire::string_codes;
use keys::{KeyKind, KeyNote, KeySet, PublicKey};

/// What the token is checked against, besides the keys.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    /// Accepted issuers (kube-apiserver `--service-account-issuer`, all values).
    /// Empty: the issuer is not checked.
    pub issuers: Vec<String>,
    /// Accepted audiences (`--api-audiences`, or a TokenReview's audiences).
    /// Empty: the audience is not checked.
    pub audiences: Vec<String>,
}

/// The five checks, in the order they are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum CheckName {
    Signature,
    Key,
    Issuer,
    Audience,
    Time,
    /// `--authentication-config`: the JWT authenticator the issuer routes to.
    AuthnConfig,
    /// `--expect-*` / `--federated-credential`: a cloud trust policy's fields.
    TrustPolicy,
}

string_codes!(CheckName);

/// One check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Check {
    /// Which check.
    pub name: CheckName,
    /// true pass, false fail, null not checked.
    pub ok: Option<bool>,
    /// What was compared, in words.
    pub detail: String,
}

impl Check {
    fn passed(name: CheckName, detail: impl Into<String>) -> Check {
        Check {
            name,
            ok: Some(true),
            detail: detail.into(),
        }
    }

    /// Not made, or not decidable here.
    fn unchecked(name: CheckName, detail: impl Into<String>) -> Check {
        Check {
            name,
            ok: None,
            detail: detail.into(),
        }
    }

    /// Failed: its detail is also an error finding.
    fn failed(name: CheckName, code: Code, message: String, findings: &mut Vec<Finding>) -> Check {
        findings.push(Finding::error(code, message.clone()));
        Check {
            name,
            ok: Some(false),
            detail: message,
        }
    }
}

/// How the verifying key was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum MatchedBy {
    /// The header's `kid` names it (published kid or Kubernetes key id).
    Kid,
    /// Found by trying every key of the right type.
    Trial,
}

string_codes!(MatchedBy);

/// What happened with one key of the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum KeyOutcome {
    /// Not tried (wrong type for the algorithm, or no signature to check).
    NotTried,
    /// Tried; the signature does not verify with it.
    Failed,
    /// The signature verifies with it.
    Verified,
}

string_codes!(KeyOutcome);

/// The result of `verify`.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    /// Every check passed or was not asked for.
    pub valid: bool,
    pub alg: Option<String>,
    /// The header's `kid` (`None` when absent or empty).
    pub token_kid: Option<String>,
    pub kind: TokenKind,
    pub issuer: Option<String>,
    pub audiences: Vec<String>,
    /// Index into `keys` of the key the signature verifies with.
    pub matched_key: Option<usize>,
    pub matched_by: Option<MatchedBy>,
    /// Every key of the set with what happened to it, in set order.
    pub keys: Vec<(PublicKey, KeyOutcome)>,
    pub checks: Vec<Check>,
    pub time: TimeCheck,
    /// Most severe first.
    pub findings: Vec<Finding>,
    /// `--authentication-config`: what its JWT authenticators make of the token.
    pub authn: Option<crate::authconfig::AuthnConfigReport>,
}

impl VerifyReport {
    /// Adds the `--authentication-config` check: the routed authenticator's
    /// verdict (a rejection fails it; no authenticator for a foreign token
    /// fails it too; a ServiceAccount token left to its own authenticator is
    /// not judged here).
    pub fn add_authn(&mut self, authn: crate::authconfig::AuthnConfigReport) {
        let ok = match (&authn.rejection, &authn.routed) {
            (Some(_), _) => Some(false),
            (None, Some(_)) => Some(true),
            (None, None) if self.kind == TokenKind::NotKubernetes => Some(false),
            (None, None) => None,
        };
        let detail = match (&authn.rejection, &authn.routed) {
            (Some(r), Some(routed)) => format!(
                "jwt[{}] ({}) rejects it: \"{}\"",
                routed.index,
                routed.issuer,
                crate::authconfig::kube_wording(r)
            ),
            (_, Some(routed)) => format!(
                "jwt[{}] ({}) takes it as {}",
                routed.index,
                routed.issuer,
                routed.user.username.as_deref().unwrap_or("-")
            ),
            (_, None) => format!(
                "no JWT authenticator of {} has the token's issuer",
                authn.source
            ),
        };
        self.findings.extend(authn.findings.iter().cloned());
        self.push_check(Check {
            name: CheckName::AuthnConfig,
            ok,
            detail,
        });
        self.authn = Some(authn);
    }

    pub fn add_trust(&mut self, check: Check, findings: Vec<Finding>) {
        self.findings.extend(findings);
        self.push_check(check);
    }

    fn push_check(&mut self, check: Check) {
        self.valid &= check.ok != Some(false);
        self.checks.push(check);
        findings::sort(&mut self.findings);
    }
    pub fn matched(&self) -> Option<&PublicKey> {
        self.matched_key.map(|i| &self.keys[i].0)
    }

    pub fn check(&self, name: CheckName) -> &Check {
        self.checks
            .iter()
            .find(|c| c.name == name)
            .unwrap_or(&self.checks[0])
    }
}

/// The algorithms kube-apiserver signs with, and the key kind each needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SigningAlg {
    Rs256,
    Es(keys::Curve),
}

impl SigningAlg {
    fn parse(alg: &str) -> Option<SigningAlg> {
        if alg == "RS256" {
            return Some(SigningAlg::Rs256);
        }
        let curve = keys::Curve::VARIANTS.iter().find(|c| c.algorithm() == alg);
        curve.map(|&c| SigningAlg::Es(c))
    }

    fn fits(self, kind: KeyKind) -> bool {
        match (self, kind) {
            (SigningAlg::Rs256, KeyKind::Rsa { .. }) => true,
            (SigningAlg::Es(a), KeyKind::Ec(b)) => a == b,
            _ => false,
        }
    }

    fn key_description(self) -> String {
        match self {
            SigningAlg::Rs256 => "RSA".to_owned(),
            SigningAlg::Es(curve) => format!("EC {}", curve.as_str()),
        }
    }
}

/// The message kube-apiserver 1.33+ logs for a signature that verifies with no
/// candidate key (jwt.go wraps go-jose's `ErrCryptoFailure`; `square/go-jose:` ≤1.32).
pub const CRYPTO_FAILURE: &str = "go-jose/go-jose: error in cryptographic primitive";

/// kube-apiserver 1.31+ when the header's kid names no key (jwt.go, PR #125177).
pub const NO_KEYS_FOUND: &str = "invalid signature, no keys found";

/// Verifies `raw` (the compact JWS whose parsed form is `token`) against `keys`
/// and `expect` at instant `now` with kube-apiserver's `leeway`.
pub fn verify(
    raw: &str,
    token: &Token,
    keys: &KeySet,
    expect: &Expectations,
    now: DateTime<Utc>,
    leeway: TimeDelta,
) -> VerifyReport {
    let (kind, _) = token::kind::classify(&token.claims);
    let mut findings = key_set_findings(keys);
    let mut outcomes = vec![KeyOutcome::NotTried; keys.keys.len()];
    let token_kid = token.header.kid.clone().filter(|k| !k.is_empty());
    let alg = token.header.alg.clone();

    let (signature, key, matched) = check_signing(
        raw,
        token,
        token_kid.as_deref(),
        keys,
        &mut outcomes,
        &mut findings,
    );
    let issuer = check_issuer(token, kind, expect, &mut findings);
    let audience = check_audience(token, expect, &mut findings);
    let time = TimeCheck::new(&token.claims, kind, now, leeway);
    findings.extend(time.to_findings());
    let time_check = Check {
        name: CheckName::Time,
        ok: Some(time.verdict().is_none_or(|v| v == Verdict::Accept)),
        detail: time.summary(),
    };
    let checks = vec![signature, key, issuer, audience, time_check];
    let valid = checks.iter().all(|c| c.ok != Some(false));
    findings::sort(&mut findings);
    VerifyReport {
        valid,
        alg,
        token_kid,
        kind,
        issuer: token.claims.issuer.clone(),
        audiences: token.claims.audiences.clone(),
        matched_key: matched.map(|(i, _)| i),
        matched_by: matched.map(|(_, by)| by),
        keys: keys.keys.iter().cloned().zip(outcomes).collect(),
        checks,
        time,
        findings,
        authn: None,
    }
}

/// Remarks about the key set that hold whatever the token.
fn key_set_findings(keys: &KeySet) -> Vec<Finding> {
    let mut findings = Vec::new();
    for skipped in &keys.skipped {
        findings.push(Finding::info(
            Code::KeySkipped,
            format!(
                "skipped {} {}: {}",
                skipped.source, skipped.what, skipped.reason
            ),
        ));
    }
    for (source, note) in &keys.notes {
        findings.push(match note {
            KeyNote::FromPrivateKey => Finding::info(
                Code::PrivateKeyGiven,
                format!("{source} is a private key: only its public half is used"),
            ),
            KeyNote::Pkcs8EcPrivateKey => Finding::warning(
                Code::PrivateKeyGiven,
                format!(
                    "{source} is a PKCS#8 EC private key: used here, but kube-apiserver's --service-account-key-file skips it (client-go keyutil reads EC private keys in SEC 1 form only, \"EC PRIVATE KEY\")"
                ),
            ),
            KeyNote::Pkcs1PublicKey => Finding::warning(
                Code::Pkcs1PublicKey,
                format!(
                    "{source} is an \"RSA PUBLIC KEY\" (PKCS#1): used here, but kube-apiserver's --service-account-key-file skips it (client-go keyutil reads \"PUBLIC KEY\" and certificates); convert it with openssl rsa -RSAPublicKey_in -pubout"
                ),
            ),
        });
    }
    let mut seen: Vec<(&str, &[u8])> = Vec::new();
    for key in &keys.keys {
        if let Some(published) = key.published_kid.as_deref()
            && published != key.computed_kid
        {
            findings.push(Finding::info(
                Code::KidNotKubernetes,
                format!(
                    "{} is published as kid {published:?}, but its Kubernetes key id is {}: not a kube-apiserver key file, or an external signer (ExternalServiceAccountTokenSigner, 1.32+) that names its keys itself and may keep some out of discovery",
                    key.source, key.computed_kid
                ),
            ));
        }
        // The same key from two sources (a JWKS and a PEM file) is no ambiguity.
        if seen
            .iter()
            .any(|(kid, spki)| *kid == key.kid() && *spki != key.spki)
        {
            findings.push(Finding::warning(
                Code::DuplicateKid,
                format!(
                    "kid {:?} names more than one key ({} among them): lookup by kid is ambiguous",
                    key.kid(),
                    key.source
                ),
            ));
        }
        seen.push((key.kid(), &key.spki));
    }
    findings
}

type Matched = Option<(usize, MatchedBy)>;

/// The signature and key checks, which depend on each other.
fn check_signing(
    raw: &str,
    token: &Token,
    token_kid: Option<&str>,
    keys: &KeySet,
    outcomes: &mut [KeyOutcome],
    findings: &mut Vec<Finding>,
) -> (Check, Check, Matched) {
    let alg_text = token.header.alg.as_deref().unwrap_or("");
    if let Some((code, message, why_no_key)) = unverifiable(alg_text, token.signature_len) {
        let signature = Check::failed(CheckName::Signature, code, message, findings);
        let key = Check::unchecked(CheckName::Key, why_no_key);
        return (signature, key, None);
    }
    if token.padded {
        findings.push(Finding::error(Code::PaddedBase64, crate::decode::PADDED));
    }
    let alg = SigningAlg::parse(alg_text).unwrap_or(SigningAlg::Rs256);
    let trial = KeyTrial::run(raw, alg, token_kid, keys, outcomes);
    let signature = trial.signature_check(alg_text, findings);
    let key = trial.key_check(alg_text, token_kid, findings);
    (signature, key, trial.matched)
}

/// Why no key can verify the token (an algorithm kube-apiserver does not sign
/// with, or no signature): the finding's code and message, and why no key was
/// looked up.
fn unverifiable(alg: &str, signature_len: usize) -> Option<(Code, String, &'static str)> {
    const UNCHECKABLE: &str = "not looked up: the signature cannot be checked";
    Some(match alg {
        "" => (
            Code::AlgNone,
            "the header has no \"alg\": nothing to verify; kube-apiserver rejects it".to_owned(),
            UNCHECKABLE,
        ),
        a if a.eq_ignore_ascii_case("none") => (
            Code::AlgNone,
            "\"alg\" is \"none\": the token is unsigned, and no ServiceAccount token is; kube-apiserver rejects it".to_owned(),
            UNCHECKABLE,
        ),
        a if a.starts_with("HS") => (
            Code::HmacAlgorithm,
            format!(
                "\"alg\" is {a}, an HMAC (shared-secret) algorithm: a ServiceAccount token is never HMAC-signed (RS256, or ES256/ES384/ES512), so it was not minted by kube-apiserver and no public key can verify it"
            ),
            UNCHECKABLE,
        ),
        a if SigningAlg::parse(a).is_none() => (
            Code::UnusualAlgorithm,
            format!(
                "\"alg\" is {a:?}: this tool verifies the algorithms kube-apiserver signs with (RS256 for RSA keys, ES256/ES384/ES512 for EC keys) and not {a:?}"
            ),
            UNCHECKABLE,
        ),
        _ if signature_len == 0 => (
            Code::Unsigned,
            "the signature segment is empty: the token is unsigned; kube-apiserver rejects it"
                .to_owned(),
            "not looked up: there is no signature",
        ),
        _ => return None,
    })
}

/// The keys tried on the signature, and which one verifies it.
struct KeyTrial<'k> {
    keys: &'k KeySet,
    alg: SigningAlg,
    /// The keys of the algorithm's type.
    fitting: Vec<usize>,
    /// The keys the header's kid names, of any type.
    by_kid: Vec<usize>,
    matched: Matched,
    tried: usize,
}

impl<'k> KeyTrial<'k> {
    /// Tries the kid's candidates first (as kube-apiserver 1.31+), then every
    /// other key of the right type, so that "right key, wrong kid" is told
    /// apart from "no key".
    fn run(
        raw: &str,
        alg: SigningAlg,
        token_kid: Option<&str>,
        keys: &'k KeySet,
        outcomes: &mut [KeyOutcome],
    ) -> Self {
        let signing_input_end = raw.rfind('.').unwrap_or(raw.len());
        let all = 0..keys.keys.len();
        let fitting: Vec<usize> = all
            .clone()
            .filter(|&i| alg.fits(keys.keys[i].kind))
            .collect();
        let by_kid: Vec<usize> = token_kid
            .map(|kid| all.filter(|&i| keys.keys[i].answers_to(kid)).collect())
            .unwrap_or_default();
        let mut tried = 0;
        let mut try_key = |i: usize| -> bool {
            let ok = verify_with(raw, signing_input_end, alg, &keys.keys[i]);
            outcomes[i] = if ok {
                KeyOutcome::Verified
            } else {
                KeyOutcome::Failed
            };
            tried += 1;
            ok
        };
        let kid_candidates: Vec<usize> = by_kid
            .iter()
            .copied()
            .filter(|i| fitting.contains(i))
            .collect();
        let by_trial = fitting.iter().filter(|i| !kid_candidates.contains(i));
        let matched: Matched = match kid_candidates.iter().find(|&&i| try_key(i)) {
            Some(&i) => Some((i, MatchedBy::Kid)),
            None => by_trial
                .copied()
                .find(|&i| try_key(i))
                .map(|i| (i, MatchedBy::Trial)),
        };
        KeyTrial {
            keys,
            alg,
            fitting,
            by_kid,
            matched,
            tried,
        }
    }

    fn describe(&self, i: usize) -> String {
        let key = &self.keys.keys[i];
        format!("{} ({})", key.source, key.kind)
    }

    /// The signature check: does any key of the right type verify it?
    fn signature_check(&self, alg_text: &str, findings: &mut Vec<Finding>) -> Check {
        let (keys, tried) = (&self.keys.keys, self.tried);
        let key_desc = self.alg.key_description();
        let (code, message) = match self.matched {
            Some((i, _)) => {
                let detail = format!("{alg_text} signature verifies with {}", self.describe(i));
                return Check::passed(CheckName::Signature, detail);
            }
            None if self.fitting.is_empty() => {
                let have: Vec<String> = keys.iter().map(|k| k.kind.to_string()).collect();
                let message = format!(
                    "the token is {alg_text}, which needs an {key_desc} key, and the key set has none (it has: {})",
                    have.join(", ")
                );
                (Code::NoUsableKey, message)
            }
            None => {
                // aws-lc-rs verifies RSA keys of 2048 to 8192 bits; Go accepts 1024 and up.
                let small: Vec<&str> = self
                    .fitting
                    .iter()
                    .filter(|&&i| matches!(keys[i].kind, KeyKind::Rsa { bits } if bits < 2048))
                    .map(|&i| keys[i].source.as_str())
                    .collect();
                let caveat = if small.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (this tool cannot verify with RSA keys under 2048 bits, as {} is; kube-apiserver can)",
                        small.join(", ")
                    )
                };
                let message = format!(
                    "the {alg_text} signature does not verify with any of the {tried} {key_desc} key(s): the token was altered after signing, or was signed by a key not in this set; kube-apiserver: \"{CRYPTO_FAILURE}\"{caveat}"
                );
                (Code::SignatureInvalid, message)
            }
        };
        Check::failed(CheckName::Signature, code, message, findings)
    }

    /// The key check: would kube-apiserver 1.31+ find the key by kid?
    fn key_check(
        &self,
        alg_text: &str,
        token_kid: Option<&str>,
        findings: &mut Vec<Finding>,
    ) -> Check {
        let (keys, tried, by_kid) = (&self.keys.keys, self.tried, &self.by_kid);
        let key_desc = self.alg.key_description();
        let (code, message) = match (token_kid, self.matched) {
            (None, Some((i, _))) => {
                let detail = format!(
                    "no kid in the header: kube-apiserver tries every key, and {} verifies it",
                    keys[i].source
                );
                return Check::passed(CheckName::Key, detail);
            }
            (None, None) => {
                let detail = format!(
                    "no kid in the header, and none of the {tried} {key_desc} key(s) verifies the token"
                );
                return Check {
                    name: CheckName::Key,
                    ok: Some(false),
                    detail,
                };
            }
            (Some(kid), Some((i, MatchedBy::Kid))) => {
                let detail = format!(
                    "the header's kid names {}{}",
                    self.describe(i),
                    if keys[i].published_kid.as_deref() == Some(kid) {
                        ""
                    } else {
                        ", by its Kubernetes key id"
                    }
                );
                return Check::passed(CheckName::Key, detail);
            }
            (Some(kid), Some((i, MatchedBy::Trial)))
                if by_kid.is_empty()
                    && keys[i].published_kid.is_none()
                    && !crate::token::kind::is_kubernetes_key_id(kid) =>
            {
                // An external signer names its keys itself; a PEM file carries no
                // name, so whether the signer calls this key `kid` is not known here.
                findings.extend(crate::decode::foreign_kid(kid));
                let detail = format!(
                    "the signature verifies with {}, a key without a published kid; the token's kid {kid:?} is an external signer's name for its key, which a PEM file does not carry: check that the signer lists kid {kid:?} (its key list, or /openid/v1/jwks unless the key is excluded from discovery)",
                    self.describe(i)
                );
                return Check::unchecked(CheckName::Key, detail);
            }
            (Some(kid), Some((i, MatchedBy::Trial))) => {
                let found = self.describe(i);
                let message = if by_kid.is_empty() {
                    format!(
                        "right key, kid mismatch: no key has kid {kid}, but the token verifies with {found}. kube-apiserver 1.31+ looks keys up by kid and rejects it (\"{NO_KEYS_FOUND}\"); 1.30 and older try every key and accept it"
                    )
                } else {
                    format!(
                        "kid {kid} names {}, which does not verify the token, but {found} does: the header names the wrong key; kube-apiserver 1.31+ rejects it (\"{CRYPTO_FAILURE}\")",
                        by_kid
                            .iter()
                            .map(|&j| keys[j].source.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                (Code::KidMismatch, message)
            }
            (Some(kid), None) if by_kid.is_empty() => {
                let external = if crate::token::kind::is_kubernetes_key_id(kid) {
                    ""
                } else {
                    ". The kid is not a Kubernetes key id: an external signer's key, which may be excluded from /openid/v1/jwks and still verify; verify against the signer's full key list"
                };
                let kids = self.keys.kids();
                let present = if kids.is_empty() {
                    "none".to_owned()
                } else {
                    kids.join(", ")
                };
                let message = format!(
                    "no key has kid {kid} (kids present: {present}) and no {key_desc} key verifies the token: it was signed by a key this set does not hold (rotated out, or another cluster's); kube-apiserver 1.31+: \"{NO_KEYS_FOUND}\"{external}"
                );
                (Code::KidNotFound, message)
            }
            (Some(kid), None) => {
                let names = by_kid
                    .iter()
                    .map(|&j| self.describe(j))
                    .collect::<Vec<_>>()
                    .join(", ");
                if by_kid.iter().any(|i| self.fitting.contains(i)) {
                    // The key was found; the signature check tells what is wrong.
                    let detail = format!("the header's kid names {names}");
                    return Check::passed(CheckName::Key, detail);
                }
                let message = format!(
                    "kid {kid} names {names}, which cannot verify {alg_text} (it needs an {key_desc} key)"
                );
                (Code::KidMismatch, message)
            }
        };
        Check::failed(CheckName::Key, code, message, findings)
    }
}

/// Whether `key` verifies the JWS `raw` (signing input `raw[..end]`) with `alg`.
/// kube-apiserver decodes unpadded base64url only: a padded token verifies with no key.
fn verify_with(raw: &str, end: usize, alg: SigningAlg, key: &PublicKey) -> bool {
    let algorithm: &'static dyn lc::VerificationAlgorithm = match alg {
        SigningAlg::Rs256 => &lc::RSA_PKCS1_2048_8192_SHA256,
        SigningAlg::Es(curve) => curve.verification(),
    };
    let Ok(signature) = URL_SAFE_NO_PAD.decode(raw[end..].trim_start_matches('.')) else {
        return false;
    };
    !raw.contains('=')
        && lc::UnparsedPublicKey::new(algorithm, &key.spki)
            .verify(&raw.as_bytes()[..end], &signature)
            .is_ok()
}

fn check_issuer(
    token: &Token,
    kind: TokenKind,
    expect: &Expectations,
    findings: &mut Vec<Finding>,
) -> Check {
    let iss = token.claims.issuer.as_deref();
    let shown = iss.map_or_else(|| "none".to_owned(), |i| format!("{i:?}"));
    // Legacy Secret tokens go to the legacy authenticator, whose issuer is fixed
    // (pkg/kubeapiserver/authenticator/config.go; pkg/serviceaccount/legacy.go).
    if kind == TokenKind::LegacySecret && iss == Some(LEGACY_ISSUER) {
        return Check::passed(
            CheckName::Issuer,
            format!(
                "{shown}: a legacy Secret token, checked by the legacy authenticator whatever --service-account-issuer says"
            ),
        );
    }
    if expect.issuers.is_empty() {
        return Check::unchecked(
            CheckName::Issuer,
            format!(
                "not checked (no --issuer); the token's issuer is {shown}. The cluster's is in kubectl get --raw /.well-known/openid-configuration"
            ),
        );
    }
    if iss.is_some_and(|i| expect.issuers.iter().any(|e| e == i)) {
        return Check::passed(CheckName::Issuer, format!("{shown} is an expected issuer"));
    }
    let message = format!(
        "the token's issuer is {shown}, not {}: kube-apiserver does not recognise it as its own (401, \"invalid bearer token\"). Another cluster's token, or --service-account-issuer changed (keep the old value as a second --service-account-issuer while tokens roll over)",
        crate::authconfig::go_quote_list(&expect.issuers)
    );
    Check::failed(CheckName::Issuer, Code::IssuerMismatch, message, findings)
}

fn check_audience(token: &Token, expect: &Expectations, findings: &mut Vec<Finding>) -> Check {
    let auds = &token.claims.audiences;
    if auds.is_empty() {
        // jwt.go: an empty aud is treated as the API audiences (audited as legacy-token).
        return Check {
            name: CheckName::Audience,
            ok: (!expect.audiences.is_empty()).then_some(true),
            detail: "no aud: kube-apiserver treats the token as carrying its API audiences"
                .to_owned(),
        };
    }
    if expect.audiences.is_empty() {
        return Check::unchecked(
            CheckName::Audience,
            format!(
                "not checked (no --audience); the token's audiences are {}",
                crate::authconfig::go_quote_list(auds)
            ),
        );
    }
    if let Some(first) = auds.iter().find(|a| expect.audiences.contains(a)) {
        return Check::passed(
            CheckName::Audience,
            format!("shares {first:?} with the expected audiences"),
        );
    }
    // The exact wording kube-apiserver logs (jwt.go, Go %q of two string slices).
    let message = format!(
        "token audiences {} is invalid for the target audiences {}: the token was requested for another audience than the API server's --api-audiences",
        crate::authconfig::go_quote_list(auds),
        crate::authconfig::go_quote_list(&expect.audiences)
    );
    Check::failed(
        CheckName::Audience,
        Code::AudienceMismatch,
        message,
        findings,
    )
}

#[cfg(test)]
mod tests;
