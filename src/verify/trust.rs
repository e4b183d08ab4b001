//! Pure: does a token meet what a cloud trust policy expects of it? Workload
//! identity federation (Azure, AWS, Google) trusts a Kubernetes issuer and then
//! matches three claims exactly: `iss`, `sub`
//! (`system:serviceaccount:NAMESPACE:NAME`) and one audience. The expectation
//! comes from `--expect-issuer/--expect-subject/--expect-audience`, or from an
//! Azure federated identity credential as JSON (`az identity
//! federated-credential show`, or Microsoft Graph's federatedIdentityCredential:
//! `issuer`, `subject`, `audiences`), the one file format read here.
//!
//! Matching is exact and case-sensitive, as the cloud providers document it: a
//! trailing slash on the issuer, another namespace or a second audience is a
//! mismatch, which this names field by field.

use serde::Deserialize;

use super::{Check, CheckName};
use crate::diagnosis::forbidden::service_account_of;
use crate::findings::{Code, Finding};
use crate::token::Token;

/// Largest federated credential file read.
pub const MAX_CREDENTIAL_BYTES: usize = 64 * 1024;

/// What the trust policy expects; `None` fields are not checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustExpectation {
    /// Where the expectation came from (`--expect-*`, or the file and its name).
    pub source: String,
    pub issuer: Option<String>,
    pub subject: Option<String>,
    /// The token must carry one of these (Azure allows one).
    pub audiences: Vec<String>,
}

impl TrustExpectation {
    /// Whether anything is expected.
    pub fn is_empty(&self) -> bool {
        self.issuer.is_none() && self.subject.is_none() && self.audiences.is_empty()
    }
}

/// A federated credential file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} is not an Azure federated identity credential: {detail}")]
pub struct TrustError {
    pub file: String,
    pub detail: String,
}

#[derive(Deserialize)]
struct FederatedCredential {
    name: Option<String>,
    issuer: Option<String>,
    subject: Option<String>,
    #[serde(default)]
    audiences: Vec<String>,
}

/// One credential (`az … show`), or every one of an identity (`az … list`).
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrList {
    One(FederatedCredential),
    List(Vec<FederatedCredential>),
}

/// Reads an Azure federated identity credential (JSON).
pub fn parse_federated_credential(
    text: &str,
    source: &str,
) -> Result<TrustExpectation, TrustError> {
    let error = |detail: String| TrustError {
        file: source.to_owned(),
        detail,
    };
    if text.len() > MAX_CREDENTIAL_BYTES {
        return Err(error(format!("over {MAX_CREDENTIAL_BYTES} bytes")));
    }
    let fc = match serde_json::from_str::<OneOrList>(text) {
        Ok(OneOrList::One(fc)) => fc,
        // `az identity federated-credential list` prints every credential.
        Ok(OneOrList::List(mut list)) if list.len() == 1 => list.remove(0),
        Ok(OneOrList::List(list)) => {
            let names: Vec<&str> = list.iter().filter_map(|fc| fc.name.as_deref()).collect();
            return Err(error(format!(
                "it is a list of {} credentials ({}): pass one, from `az identity federated-credential show --name NAME` or `jq '.[N]'`",
                list.len(),
                names.join(", ")
            )));
        }
        Err(e) => return Err(error(format!("does not parse: {e}"))),
    };
    if fc.issuer.is_none() && fc.subject.is_none() {
        return Err(error("it has neither issuer nor subject".to_owned()));
    }
    // Azure requires exactly one audience: with none, no token can match, and
    // leaving the claim unchecked would call any token a match.
    if fc.audiences.is_empty() {
        return Err(error(
            "it has no audience (Azure requires one, usually api://AzureADTokenExchange)"
                .to_owned(),
        ));
    }
    Ok(TrustExpectation {
        source: match fc.name {
            Some(name) => format!("federated credential {name:?} ({source})"),
            None => format!("federated credential {source}"),
        },
        issuer: fc.issuer,
        subject: fc.subject,
        audiences: fc.audiences,
    })
}

/// Compares the token with the expectation, naming each field that differs.
pub fn check(token: &Token, expect: &TrustExpectation) -> (Check, Vec<Finding>) {
    let claims = &token.claims;
    let mut mismatches = Vec::new();
    if let Some(want) = &expect.issuer {
        let got = claims.issuer.as_deref().unwrap_or("");
        if got != want {
            let hint = if got.trim_end_matches('/') == want.trim_end_matches('/') {
                " (they differ only by a trailing slash, which counts)"
            } else {
                ""
            };
            mismatches.push(format!(
                "issuer: the token has iss {got:?}, the trust policy expects {want:?}{hint}"
            ));
        }
    }
    if let Some(want) = &expect.subject {
        let got = claims.subject.as_deref().unwrap_or("");
        if got != want {
            mismatches.push(format!(
                "subject: the token has sub {got:?}, the trust policy expects {want:?}{}",
                subject_hint(got, want)
            ));
        }
    }
    if !expect.audiences.is_empty()
        && !claims
            .audiences
            .iter()
            .any(|a| expect.audiences.contains(a))
    {
        mismatches.push(format!(
            "audience: the token has aud [{}], the trust policy expects one of [{}] (request the token with that audience: a projected volume's audience, or kubectl create token --audience)",
            claims.audiences.join(", "),
            expect.audiences.join(", ")
        ));
    }
    let (detail, findings) = if mismatches.is_empty() {
        let detail = format!("matches {}", expect.source);
        (
            detail.clone(),
            vec![Finding::info(Code::TrustPolicyMatch, detail)],
        )
    } else {
        let refused = |m: &String| format!("{m}: {} refuses the exchange", expect.source);
        let findings = mismatches.iter().map(refused);
        let findings = findings.map(|m| Finding::error(Code::TrustPolicyMismatch, m));
        (mismatches.join("; "), findings.collect())
    };
    let check = Check {
        name: CheckName::TrustPolicy,
        ok: Some(mismatches.is_empty()),
        detail,
    };
    (check, findings)
}

/// Which part of `system:serviceaccount:NS:NAME` differs.
fn subject_hint(got: &str, want: &str) -> String {
    match (service_account_of(got), service_account_of(want)) {
        (Some((gn, gs)), Some((wn, ws))) if gn != wn && gs == ws => {
            format!(" (another namespace: {gn} instead of {wn})")
        }
        (Some((gn, gs)), Some((wn, ws))) if gn == wn && gs != ws => {
            format!(" (another ServiceAccount: {gs} instead of {ws})")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis::testing::token;
    use serde_json::json;

    #[test]
    fn each_field_is_named() {
        let t = token(
            json!({"iss": "https://oidc.example/abc/", "sub": "system:serviceaccount:shop:checkout",
            "aud": ["api://AzureADTokenExchange"]}),
        );
        let fc = r#"{"name": "checkout", "issuer": "https://oidc.example/abc", "subject": "system:serviceaccount:prod:checkout", "audiences": ["api://AzureADTokenExchange"]}"#;
        let expect = parse_federated_credential(fc, "fc.json").unwrap();
        let (check, findings) = check(&t, &expect);
        assert_eq!(check.ok, Some(false));
        assert_eq!(findings.len(), 2);
        assert!(
            findings[0].message.contains("trailing slash"),
            "{}",
            findings[0].message
        );
        assert!(
            findings[1]
                .message
                .contains("another namespace: shop instead of prod")
        );
        assert!(parse_federated_credential("{}", "x").is_err());
    }

    #[test]
    fn a_list_of_one_is_its_credential_and_a_longer_one_is_named() {
        let one = r#"{"name": "a", "issuer": "https://i", "subject": "s", "audiences": ["api://AzureADTokenExchange"]}"#;
        let listed = parse_federated_credential(&format!("[{one}]"), "fc.json").unwrap();
        assert_eq!(listed, parse_federated_credential(one, "fc.json").unwrap());
        let two = format!("[{one}, {}]", one.replace("\"a\"", "\"b\""));
        let e = parse_federated_credential(&two, "fc.json").unwrap_err();
        assert!(e.detail.contains("a list of 2 credentials (a, b)"), "{e}");
    }
}
