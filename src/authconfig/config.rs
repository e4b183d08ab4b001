//! The configuration file itself: `--authentication-config` read and
//! checked the way kube-apiserver reads it, into the JWT authenticators a
//! token is evaluated against ([`super::evaluate`]).

use serde::Deserialize;

/// Largest configuration file read.
pub const MAX_CONFIG_BYTES: usize = 1024 * 1024;
/// Most JWT authenticators considered (kube-apiserver sets no limit; real files have a few).
pub const MAX_AUTHENTICATORS: usize = 64;
/// Most rules and mappings of one authenticator evaluated.
pub const MAX_RULES: usize = 64;

/// The API versions of AuthenticationConfiguration.
pub const API_VERSIONS: &[&str] = &[
    "apiserver.config.k8s.io/v1alpha1",
    "apiserver.config.k8s.io/v1beta1",
    "apiserver.config.k8s.io/v1",
];

/// A configuration that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthnConfigError {
    #[error("{file} is not an AuthenticationConfiguration: {detail}")]
    Shape { file: String, detail: String },
    #[error("{file} is too large: {detail}")]
    TooLarge { file: String, detail: String },
    #[error("{file}: {rule}: {detail}")]
    OverBudget {
        file: String,
        rule: String,
        detail: String,
    },
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct RawConfig {
    api_version: Option<String>,
    kind: Option<String>,
    jwt: Vec<JwtAuthenticator>,
}

/// One `jwt` entry.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct JwtAuthenticator {
    pub issuer: Issuer,
    #[serde(default)]
    pub claim_validation_rules: Vec<ClaimValidationRule>,
    #[serde(default)]
    pub claim_mappings: ClaimMappings,
    #[serde(default)]
    pub user_validation_rules: Vec<UserValidationRule>,
}

/// `issuer`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct Issuer {
    pub url: String,
    pub audiences: Vec<String>,
    pub audience_match_policy: Option<String>,
}

/// `claimValidationRules[]`: `claim` + `requiredValue`, or `expression` + `message`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClaimValidationRule {
    pub claim: Option<String>,
    pub required_value: Option<String>,
    pub expression: Option<String>,
    pub message: Option<String>,
}

/// `claimMappings`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct ClaimMappings {
    pub username: ClaimOrExpression,
    pub groups: ClaimOrExpression,
    pub uid: ClaimOrExpression,
    pub extra: Vec<ExtraMapping>,
}

/// A mapping: `claim` (with `prefix` for username and groups) or `expression`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClaimOrExpression {
    pub claim: Option<String>,
    pub prefix: Option<String>,
    pub expression: Option<String>,
}

/// `claimMappings.extra[]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExtraMapping {
    pub key: String,
    pub value_expression: String,
}

/// `userValidationRules[]`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct UserValidationRule {
    pub expression: String,
    pub message: Option<String>,
}

/// A configuration, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthnConfig {
    /// The file it came from, for messages.
    pub source: String,
    pub api_version: String,
    pub jwt: Vec<JwtAuthenticator>,
}

/// Reads a configuration (YAML or JSON) from `text`.
pub fn parse(text: &str, source: &str) -> Result<AuthnConfig, AuthnConfigError> {
    let shape = |detail: String| AuthnConfigError::Shape {
        file: source.to_owned(),
        detail,
    };
    let too_large = |detail: String| AuthnConfigError::TooLarge {
        file: source.to_owned(),
        detail,
    };
    if text.len() > MAX_CONFIG_BYTES {
        return Err(too_large(format!("over {MAX_CONFIG_BYTES} bytes")));
    }
    let raw: RawConfig = crate::error::from_yaml(text, 100).map_err(shape)?;
    if raw.kind.as_deref() != Some("AuthenticationConfiguration") {
        return Err(shape(format!(
            "its kind is {:?}, not AuthenticationConfiguration",
            raw.kind.as_deref().unwrap_or("")
        )));
    }
    let api_version = raw.api_version.unwrap_or_default();
    if !API_VERSIONS.contains(&api_version.as_str()) {
        return Err(shape(format!(
            "apiVersion {api_version:?} is none of {}",
            API_VERSIONS.join(", ")
        )));
    }
    if raw.jwt.len() > MAX_AUTHENTICATORS {
        let count = raw.jwt.len();
        return Err(too_large(format!(
            "{count} JWT authenticators, over {MAX_AUTHENTICATORS}"
        )));
    }
    for (i, a) in raw.jwt.iter().enumerate() {
        if a.issuer.url.is_empty() {
            return Err(shape(format!("jwt[{i}].issuer.url is empty")));
        }
        let rules = a.claim_validation_rules.len()
            + a.user_validation_rules.len()
            + a.claim_mappings.extra.len();
        if rules > MAX_RULES {
            return Err(too_large(format!(
                "jwt[{i}] has {rules} rules, over {MAX_RULES}"
            )));
        }
    }
    Ok(AuthnConfig {
        source: source.to_owned(),
        api_version,
        jwt: raw.jwt,
    })
}
