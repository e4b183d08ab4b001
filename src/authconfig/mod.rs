//! Pure: a structured authentication configuration (`--authentication-config`,
//! kind AuthenticationConfiguration, apiserver.config.k8s.io v1alpha1 1.29,
//! v1beta1 1.30, v1 1.34) read offline, and what its JWT authenticators make of
//! one token: which authenticator its `iss` routes to, the audience check
//! (MatchAny), the claim mappings, the claim and user validation rules (CEL,
//! evaluated by [`cel`]), in kube-apiserver's order and with its words.
//!
//! Order and messages follow k8s.io/apiserver plugin/pkg/authenticator/token/
//! oidc/oidc.go `AuthenticateToken`: issuer (exact `iss`, `accounts.google.com`
//! read as `https://accounts.google.com`), signature and audiences, username,
//! groups, uid, extra, required claims, claim validation expressions, user
//! validation rules. kube-apiserver stops at the first failure; this goes on
//! and reports every rule, naming the first failure as the one the server logs.
//! Signatures are not checked here (`verify --jwks` does, with the issuer's keys).

pub mod cel;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value as Json;
use strum::{IntoStaticStr, VariantArray};

use crate::diagnosis::wordings::JwtRejection;
use crate::findings::{Code, Finding};
use crate::token::{Token, TokenKind};
use crate::wire::string_codes;
use cel::{Input, Outcome};

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
    /// Neither YAML nor JSON of the expected shape.
    #[error("{file} is not an AuthenticationConfiguration: {detail}")]
    Shape { file: String, detail: String },
    /// Over [`MAX_CONFIG_BYTES`] or [`MAX_AUTHENTICATORS`].
    #[error("{file} is too large: {detail}")]
    TooLarge { file: String, detail: String },
    /// A CEL expression over kube-apiserver's cost limit on this token.
    #[error("{file}: {rule}: {detail}")]
    OverBudget {
        file: String,
        rule: String,
        detail: String,
    },
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawConfig {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default)]
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
#[serde(rename_all = "camelCase")]
pub struct Issuer {
    #[serde(default)]
    pub url: String,
    #[serde(default, rename = "discoveryURL")]
    pub discovery_url: Option<String>,
    #[serde(default)]
    pub audiences: Vec<String>,
    #[serde(default)]
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
#[serde(rename_all = "camelCase")]
pub struct ClaimMappings {
    #[serde(default)]
    pub username: ClaimOrExpression,
    #[serde(default)]
    pub groups: ClaimOrExpression,
    #[serde(default)]
    pub uid: ClaimOrExpression,
    #[serde(default)]
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
    if text.len() > MAX_CONFIG_BYTES {
        return Err(AuthnConfigError::TooLarge {
            file: source.to_owned(),
            detail: format!("over {MAX_CONFIG_BYTES} bytes"),
        });
    }
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 200_000,
            max_aliases: 100,
            max_anchors: 100,
            max_depth: 32,
        },
    };
    let raw: RawConfig = serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| shape(crate::input::yaml_error(&e)))?;
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
        return Err(AuthnConfigError::TooLarge {
            file: source.to_owned(),
            detail: format!(
                "{} JWT authenticators, over {MAX_AUTHENTICATORS}",
                raw.jwt.len()
            ),
        });
    }
    for (i, a) in raw.jwt.iter().enumerate() {
        if a.issuer.url.is_empty() {
            return Err(shape(format!("jwt[{i}].issuer.url is empty")));
        }
        let rules = a.claim_validation_rules.len()
            + a.user_validation_rules.len()
            + a.claim_mappings.extra.len();
        if rules > MAX_RULES {
            return Err(AuthnConfigError::TooLarge {
                file: source.to_owned(),
                detail: format!("jwt[{i}] has {rules} rules, over {MAX_RULES}"),
            });
        }
    }
    Ok(AuthnConfig {
        source: source.to_owned(),
        api_version,
        jwt: raw.jwt,
    })
}

/// Which step of the authenticator a check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Stage {
    Audience,
    Username,
    Groups,
    Uid,
    Extra,
    RequiredClaim,
    ClaimRule,
    UserRule,
}

string_codes!(Stage);

/// How a check went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum CheckOutcome {
    /// Passed (a rule was true; a mapping gave a value).
    Pass,
    /// Failed: kube-apiserver rejects the token here.
    Fail,
    /// Not evaluated here (a function this tool lacks, or over a bound).
    NotEvaluated,
}

string_codes!(CheckOutcome);

/// One check of the routed authenticator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCheck {
    pub stage: Stage,
    /// The rule as written (an expression, `claim hd = "x"`, `claim email`).
    pub rule: String,
    pub outcome: CheckOutcome,
    /// What came of it, in words (the value, the error).
    pub detail: String,
    /// The rule's own `message`, when it has one.
    pub message: Option<String>,
}

/// The user the mappings build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MappedUser {
    pub username: Option<String>,
    pub uid: Option<String>,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

/// The authenticator the token's issuer routes to, and every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routed {
    /// Index in `jwt`.
    pub index: usize,
    pub issuer: String,
    pub audiences: Vec<String>,
    pub checks: Vec<RuleCheck>,
    pub user: MappedUser,
}

/// What the configuration makes of the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthnConfigReport {
    pub source: String,
    pub api_version: String,
    /// How many JWT authenticators the file has.
    pub authenticators: usize,
    /// The one the token's issuer routes to, if any.
    pub routed: Option<Routed>,
    /// The first failure, as kube-apiserver would report it.
    pub rejection: Option<JwtRejection>,
    /// What the evaluation found, for the subcommand's findings.
    pub findings: Vec<Finding>,
}

/// `iss` as the JWT authenticator reads it (oidc.go `untrustedIssuer`).
fn routed_issuer(iss: &str) -> &str {
    if iss == "accounts.google.com" {
        "https://accounts.google.com"
    } else {
        iss
    }
}

/// Refuses the routed authenticator's first CEL expression whose estimated
/// cost on this token is over kube-apiserver's per-call limit
/// ([`cel::PER_CALL_LIMIT`]), naming it. User validation rules read the user
/// the mappings build from the claims: the claims' sizes bound theirs.
fn check_budget(config: &AuthnConfig, index: usize, claims: &Json) -> Result<(), AuthnConfigError> {
    let a = &config.jwt[index];
    let m = &a.claim_mappings;
    let named = |what: &str, e: &Option<String>| {
        e.clone()
            .map(|e| (format!("claimMappings.{what}.expression"), e))
    };
    let expressions = [
        named("username", &m.username.expression),
        named("groups", &m.groups.expression),
        named("uid", &m.uid.expression),
    ]
    .into_iter()
    .flatten()
    .chain(m.extra.iter().enumerate().map(|(i, x)| {
        (
            format!("claimMappings.extra[{i}].valueExpression"),
            x.value_expression.clone(),
        )
    }))
    .chain(
        a.claim_validation_rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                Some((
                    format!("claimValidationRules[{i}].expression"),
                    r.expression.clone()?,
                ))
            }),
    )
    .chain(a.user_validation_rules.iter().enumerate().map(|(i, r)| {
        (
            format!("userValidationRules[{i}].expression"),
            r.expression.clone(),
        )
    }));
    for (path, expression) in expressions {
        let input = Input {
            name: if path.starts_with("user") {
                "user"
            } else {
                "claims"
            },
            value: claims,
        };
        if let Some(detail) = cel::over_budget(&expression, &input) {
            return Err(AuthnConfigError::OverBudget {
                file: config.source.clone(),
                rule: format!(
                    "jwt[{index}].{path} `{}`",
                    crate::report::sanitize::sanitize(&expression)
                ),
                detail,
            });
        }
    }
    Ok(())
}

/// Evaluates the configuration on `token`; an expression over
/// kube-apiserver's CEL cost limit is an error, as it is there.
pub fn evaluate(
    config: &AuthnConfig,
    token: &Token,
) -> Result<AuthnConfigReport, AuthnConfigError> {
    let mut report = AuthnConfigReport {
        source: config.source.clone(),
        api_version: config.api_version.clone(),
        authenticators: config.jwt.len(),
        routed: None,
        rejection: None,
        findings: Vec::new(),
    };
    let iss = token.claims.issuer.as_deref().unwrap_or("");
    let (kind, _) = crate::token::kind::classify(&token.claims);
    let found = config
        .jwt
        .iter()
        .position(|a| a.issuer.url == routed_issuer(iss));
    let Some(index) = found else {
        let issuers: Vec<&str> = config.jwt.iter().map(|a| a.issuer.url.as_str()).collect();
        report.findings.push(if kind == TokenKind::NotKubernetes {
            Finding::error(
                Code::AuthnNoAuthenticator,
                format!(
                    "none of the {} JWT authenticators of {} has issuer {iss:?} (they have {}), and it is not a ServiceAccount token: no authenticator takes it (401, \"invalid bearer token\")",
                    config.jwt.len(),
                    config.source,
                    list(&issuers)
                ),
            )
        } else {
            Finding::info(
                Code::AuthnNoAuthenticator,
                format!(
                    "none of the {} JWT authenticators of {} has issuer {iss:?}: it is left to the ServiceAccount authenticator, which takes it if --service-account-issuer lists {iss:?}",
                    config.jwt.len(),
                    config.source
                ),
            )
        });
        return Ok(report);
    };
    let authenticator = &config.jwt[index];
    if kind != TokenKind::NotKubernetes {
        report.findings.push(Finding::warning(
            Code::AuthnIssuerCollision,
            format!(
                "jwt[{index}] has the issuer of this ServiceAccount token ({iss}): kube-apiserver 1.30+ refuses a JWT authenticator whose issuer is a --service-account-issuer (\"URL must not overlap with disallowed issuers\"), so this file would not load there"
            ),
        ));
    }
    let claims = Json::Object(token.raw_claims.clone());
    check_budget(config, index, &claims)?;
    let mut routed = Routed {
        index,
        issuer: authenticator.issuer.url.clone(),
        audiences: authenticator.issuer.audiences.clone(),
        checks: Vec::new(),
        user: MappedUser::default(),
    };
    let mut first: Option<(JwtRejection, Finding)> = None;
    let mut fail = |check: &RuleCheck,
                    rejection: JwtRejection,
                    code: Code,
                    checks: &mut Vec<RuleCheck>| {
        checks.push(check.clone());
        if first.is_none() {
            let wording = kube_wording(&rejection);
            first = Some((
                rejection,
                Finding::error(
                    code,
                    format!(
                        "jwt[{index}] ({}) rejects it: {} `{}` {}; kube-apiserver logs \"{wording}\"",
                        authenticator.issuer.url,
                        check.stage.as_str(),
                        check.rule,
                        check.detail
                    ),
                ),
            ));
        }
    };
    let mut not_evaluated = Vec::new();

    // Audiences (MatchAny: one in common is enough).
    let audiences = &authenticator.issuer.audiences;
    let aud_check = RuleCheck {
        stage: Stage::Audience,
        rule: format!(
            "audiences {} ({})",
            list(audiences),
            authenticator
                .issuer
                .audience_match_policy
                .as_deref()
                .unwrap_or("MatchAny")
        ),
        outcome: CheckOutcome::Pass,
        detail: format!("the token has {}", list(&token.claims.audiences)),
        message: None,
    };
    if token.claims.audiences.iter().any(|a| audiences.contains(a)) {
        routed.checks.push(aud_check);
    } else {
        let check = RuleCheck {
            outcome: CheckOutcome::Fail,
            ..aud_check
        };
        fail(
            &check,
            JwtRejection::Audience {
                expected: sorted(audiences),
                got: token.claims.audiences.clone(),
            },
            Code::AuthnAudienceMismatch,
            &mut routed.checks,
        );
    }

    let m = &authenticator.claim_mappings;
    // Username.
    let username = map_username(&m.username, &claims);
    match username {
        Mapped::Ok(name, rule) => {
            routed.user.username = Some(name.clone());
            routed
                .checks
                .push(pass(Stage::Username, rule, format!("{name:?}")));
        }
        Mapped::Fail(rule, detail) => {
            let check = failed(Stage::Username, rule, detail.clone());
            let rejection = if detail == EMAIL_NOT_VERIFIED {
                JwtRejection::EmailNotVerified
            } else {
                JwtRejection::Mapping {
                    what: "username".into(),
                    detail,
                }
            };
            fail(
                &check,
                rejection,
                Code::AuthnMappingFailed,
                &mut routed.checks,
            );
        }
        Mapped::NotEvaluated(rule, why) => {
            not_evaluated.push(why.clone());
            routed.checks.push(skipped(Stage::Username, rule, why));
        }
    }
    // Groups, uid, extra.
    for (stage, mapping) in [(Stage::Groups, &m.groups), (Stage::Uid, &m.uid)] {
        match map_list(stage, mapping, &claims) {
            Mapped::Ok(values, rule) => {
                if stage == Stage::Groups {
                    routed.user.groups = values.clone();
                } else {
                    routed.user.uid = values.first().cloned();
                }
                if !rule.is_empty() {
                    routed.checks.push(pass(stage, rule, list(&values)));
                }
            }
            Mapped::Fail(rule, detail) => {
                let check = failed(stage, rule, detail.clone());
                fail(
                    &check,
                    JwtRejection::Mapping {
                        what: stage.as_str().into(),
                        detail,
                    },
                    Code::AuthnMappingFailed,
                    &mut routed.checks,
                );
            }
            Mapped::NotEvaluated(rule, why) => {
                not_evaluated.push(why.clone());
                routed.checks.push(skipped(stage, rule, why));
            }
        }
    }
    for extra in &m.extra {
        let rule = format!("{}: {}", extra.key, extra.value_expression);
        match cel::evaluate(
            &extra.value_expression,
            &Input {
                name: "claims",
                value: &claims,
            },
        ) {
            Outcome::Value(v) => match cel::string_list(&v) {
                Ok(values) => {
                    if !values.is_empty() {
                        routed.user.extra.insert(extra.key.clone(), values.clone());
                    }
                    routed.checks.push(pass(Stage::Extra, rule, list(&values)));
                }
                Err(e) => {
                    let check = failed(Stage::Extra, rule, e.to_owned());
                    fail(
                        &check,
                        JwtRejection::Mapping {
                            what: "extra".into(),
                            detail: format!("{}: {e}", extra.value_expression),
                        },
                        Code::AuthnMappingFailed,
                        &mut routed.checks,
                    );
                }
            },
            Outcome::Error(e) => {
                let check = failed(Stage::Extra, rule, e.clone());
                fail(
                    &check,
                    JwtRejection::Mapping {
                        what: "extra".into(),
                        detail: format!("{}: {e}", extra.value_expression),
                    },
                    Code::AuthnMappingFailed,
                    &mut routed.checks,
                );
            }
            Outcome::Unsupported(why) | Outcome::Refused(why) => {
                not_evaluated.push(why.clone());
                routed.checks.push(skipped(Stage::Extra, rule, why));
            }
        }
    }
    // Claim validation: required claims, then expressions.
    let obj = claims.as_object();
    for r in &authenticator.claim_validation_rules {
        if let Some(claim) = r.claim.as_deref().filter(|c| !c.is_empty()) {
            let required = r.required_value.clone().unwrap_or_default();
            let rule = format!("claim {claim} = {required:?}");
            match obj.and_then(|o| o.get(claim)) {
                None => {
                    let check = failed(Stage::RequiredClaim, rule, "the claim is missing".into());
                    fail(
                        &check,
                        JwtRejection::RequiredClaim {
                            claim: claim.to_owned(),
                            found: None,
                            required: Some(required),
                        },
                        Code::AuthnClaimRuleFailed,
                        &mut routed.checks,
                    );
                }
                Some(Json::String(v)) if *v == required => {
                    routed
                        .checks
                        .push(pass(Stage::RequiredClaim, rule, format!("{v:?}")));
                }
                Some(v) => {
                    let found = v
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string());
                    let check = failed(Stage::RequiredClaim, rule, format!("it is {found:?}"));
                    fail(
                        &check,
                        JwtRejection::RequiredClaim {
                            claim: claim.to_owned(),
                            found: Some(found),
                            required: Some(required),
                        },
                        Code::AuthnClaimRuleFailed,
                        &mut routed.checks,
                    );
                }
            }
        }
    }
    for r in &authenticator.claim_validation_rules {
        let Some(expression) = r.expression.as_deref().filter(|e| !e.is_empty()) else {
            continue;
        };
        let outcome = cel::evaluate(
            expression,
            &Input {
                name: "claims",
                value: &claims,
            },
        );
        validation(
            Stage::ClaimRule,
            expression,
            r.message.as_deref(),
            outcome,
            &mut routed.checks,
            &mut not_evaluated,
            &mut |check, rejection, checks| {
                fail(check, rejection, Code::AuthnClaimRuleFailed, checks)
            },
        );
    }
    // User validation, over the user the mappings built.
    if !authenticator.user_validation_rules.is_empty() {
        let user = serde_json::json!({
            "username": routed.user.username.clone().unwrap_or_default(),
            "uid": routed.user.uid.clone().unwrap_or_default(),
            "groups": routed.user.groups,
            "extra": routed.user.extra,
        });
        for r in &authenticator.user_validation_rules {
            let outcome = cel::evaluate(
                &r.expression,
                &Input {
                    name: "user",
                    value: &user,
                },
            );
            validation(
                Stage::UserRule,
                &r.expression,
                r.message.as_deref(),
                outcome,
                &mut routed.checks,
                &mut not_evaluated,
                &mut |check, rejection, checks| {
                    fail(check, rejection, Code::AuthnUserRuleFailed, checks)
                },
            );
        }
    }

    match first {
        Some((rejection, finding)) => {
            report.findings.push(finding);
            report.rejection = Some(rejection);
        }
        None => report.findings.push(Finding::info(
            Code::AuthnRouted,
            format!(
                "jwt[{index}] ({}) of {} takes it{}: user {}, groups {}{}",
                authenticator.issuer.url,
                config.source,
                if not_evaluated.is_empty() {
                    ""
                } else {
                    " as far as evaluated"
                },
                routed
                    .user
                    .username
                    .as_deref()
                    .map(|u| format!("{u:?}"))
                    .unwrap_or_else(|| "-".into()),
                list(&routed.user.groups),
                routed
                    .user
                    .uid
                    .as_deref()
                    .map(|u| format!(", uid {u:?}"))
                    .unwrap_or_default(),
            ),
        )),
    }
    for why in not_evaluated {
        report.findings.push(Finding::warning(
            Code::AuthnNotEvaluated,
            format!("a rule of jwt[{index}] was not evaluated: {why}; kube-apiserver evaluates it"),
        ));
    }
    report.routed = Some(routed);
    Ok(report)
}

/// The one failure a validation rule can record.
type OnFail<'f> = dyn FnMut(&RuleCheck, JwtRejection, &mut Vec<RuleCheck>) + 'f;

fn validation(
    stage: Stage,
    expression: &str,
    message: Option<&str>,
    outcome: Outcome,
    checks: &mut Vec<RuleCheck>,
    not_evaluated: &mut Vec<String>,
    fail: &mut OnFail<'_>,
) {
    let rejection = |message: String| match stage {
        Stage::UserRule => JwtRejection::UserRule {
            expression: Some(expression.to_owned()),
            message,
        },
        _ => JwtRejection::ClaimRule {
            expression: Some(expression.to_owned()),
            message,
        },
    };
    let mut check = RuleCheck {
        stage,
        rule: expression.to_owned(),
        outcome: CheckOutcome::Pass,
        detail: "true".into(),
        message: message.map(str::to_owned),
    };
    match outcome {
        Outcome::Value(cel_value) => match cel_value {
            ::cel::Value::Bool(true) => checks.push(check),
            ::cel::Value::Bool(false) => {
                check.outcome = CheckOutcome::Fail;
                check.detail = match message {
                    Some(m) => format!("is false: {m:?}"),
                    None => "is false".into(),
                };
                fail(&check, rejection(message.unwrap_or("").to_owned()), checks);
            }
            other => {
                check.outcome = CheckOutcome::Fail;
                check.detail = format!(
                    "gives {}: validation expression must return a boolean",
                    cel::show(&other)
                );
                fail(
                    &check,
                    rejection("validation expression must return a boolean".into()),
                    checks,
                );
            }
        },
        Outcome::Error(e) => {
            check.outcome = CheckOutcome::Fail;
            check.detail = format!("fails to evaluate: {e}");
            fail(&check, rejection(e), checks);
        }
        Outcome::Unsupported(why) | Outcome::Refused(why) => {
            check.outcome = CheckOutcome::NotEvaluated;
            check.detail = why.clone();
            not_evaluated.push(format!("`{expression}`: {why}"));
            checks.push(check);
        }
    }
}

const EMAIL_NOT_VERIFIED: &str = "email_verified is false";

enum Mapped<T> {
    Ok(T, String),
    Fail(String, String),
    NotEvaluated(String, String),
}

fn map_username(m: &ClaimOrExpression, claims: &Json) -> Mapped<String> {
    if let Some(expr) = m.expression.as_deref().filter(|e| !e.is_empty()) {
        let rule = expr.to_owned();
        return match cel::evaluate(
            expr,
            &Input {
                name: "claims",
                value: claims,
            },
        ) {
            Outcome::Value(::cel::Value::String(s)) if s.is_empty() => {
                Mapped::Fail(rule, "the expression gives an empty username".into())
            }
            Outcome::Value(::cel::Value::String(s)) => Mapped::Ok(s.as_str().to_owned(), rule),
            Outcome::Value(other) => Mapped::Fail(
                rule,
                format!(
                    "gives {}: username claim expression must return a string",
                    cel::show(&other)
                ),
            ),
            Outcome::Error(e) => Mapped::Fail(rule, e),
            Outcome::Unsupported(w) | Outcome::Refused(w) => Mapped::NotEvaluated(rule, w),
        };
    }
    let claim = m.claim.as_deref().unwrap_or("");
    let prefix = m.prefix.as_deref().unwrap_or("");
    let rule = format!("claim {claim} with prefix {prefix:?}");
    let obj = claims.as_object();
    let Some(value) = obj.and_then(|o| o.get(claim)) else {
        return Mapped::Fail(rule, format!("claim {claim:?} is not present"));
    };
    let Some(name) = value.as_str() else {
        return Mapped::Fail(rule, format!("claim {claim:?} is not a string"));
    };
    if claim == "email"
        && let Some(verified) = obj.and_then(|o| o.get("email_verified"))
        && verified != &Json::Bool(true)
    {
        return Mapped::Fail(rule, EMAIL_NOT_VERIFIED.into());
    }
    Mapped::Ok(format!("{prefix}{name}"), rule)
}

fn map_list(stage: Stage, m: &ClaimOrExpression, claims: &Json) -> Mapped<Vec<String>> {
    if let Some(claim) = m.claim.as_deref().filter(|c| !c.is_empty()) {
        let prefix = m.prefix.as_deref().unwrap_or("");
        let rule = if stage == Stage::Groups {
            format!("claim {claim} with prefix {prefix:?}")
        } else {
            format!("claim {claim}")
        };
        let value = claims.as_object().and_then(|o| o.get(claim));
        return match (stage, value) {
            // A missing groups claim is no groups; a missing uid claim fails.
            (Stage::Groups, None) => Mapped::Ok(Vec::new(), rule),
            (_, None) => Mapped::Fail(rule, format!("claim {claim:?} is not present")),
            (_, Some(Json::String(s))) => Mapped::Ok(vec![format!("{prefix}{s}")], rule),
            (Stage::Groups, Some(Json::Array(a))) if a.iter().all(Json::is_string) => Mapped::Ok(
                a.iter()
                    .filter_map(Json::as_str)
                    .map(|s| format!("{prefix}{s}"))
                    .collect(),
                rule,
            ),
            (_, Some(_)) => Mapped::Fail(
                rule,
                format!(
                    "claim {claim:?} is not a string{}",
                    if stage == Stage::Groups {
                        " or a list of strings"
                    } else {
                        ""
                    }
                ),
            ),
        };
    }
    let Some(expr) = m.expression.as_deref().filter(|e| !e.is_empty()) else {
        return Mapped::Ok(Vec::new(), String::new());
    };
    let rule = expr.to_owned();
    match cel::evaluate(
        expr,
        &Input {
            name: "claims",
            value: claims,
        },
    ) {
        Outcome::Value(v) if stage == Stage::Uid => match v {
            ::cel::Value::String(s) => Mapped::Ok(vec![s.as_str().to_owned()], rule),
            other => Mapped::Fail(
                rule,
                format!(
                    "gives {}: uid claim expression must return a string",
                    cel::show(&other)
                ),
            ),
        },
        Outcome::Value(v) => match cel::string_list(&v) {
            Ok(values) => Mapped::Ok(values, rule),
            Err(e) => Mapped::Fail(rule, e.to_owned()),
        },
        Outcome::Error(e) => Mapped::Fail(rule, e),
        Outcome::Unsupported(w) | Outcome::Refused(w) => Mapped::NotEvaluated(rule, w),
    }
}

fn pass(stage: Stage, rule: String, detail: String) -> RuleCheck {
    RuleCheck {
        stage,
        rule,
        outcome: CheckOutcome::Pass,
        detail,
        message: None,
    }
}

fn failed(stage: Stage, rule: String, detail: String) -> RuleCheck {
    RuleCheck {
        stage,
        rule,
        outcome: CheckOutcome::Fail,
        detail,
        message: None,
    }
}

fn skipped(stage: Stage, rule: String, why: String) -> RuleCheck {
    RuleCheck {
        stage,
        rule,
        outcome: CheckOutcome::NotEvaluated,
        detail: why,
        message: None,
    }
}

fn sorted(values: &[String]) -> Vec<String> {
    let mut v = values.to_vec();
    v.sort();
    v
}

fn list<S: AsRef<str>>(values: &[S]) -> String {
    format!(
        "[{}]",
        values
            .iter()
            .map(|v| v.as_ref())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// kube-apiserver's words for a rejection (oidc.go; see
/// `diagnosis::wordings::WORDINGS`).
pub fn kube_wording(r: &JwtRejection) -> String {
    let go = |v: &[String]| {
        format!(
            "[{}]",
            v.iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    match r {
        JwtRejection::Audience { expected, got } => {
            format!(
                "oidc: verify token: oidc: expected audience in {} got {}",
                go(expected),
                go(got)
            )
        }
        JwtRejection::RequiredClaim {
            claim, found: None, ..
        } => {
            format!("oidc: required claim {claim} not present in ID token")
        }
        JwtRejection::RequiredClaim {
            claim,
            found: Some(f),
            required,
        } => format!(
            "oidc: required claim {claim} value does not match. Got = {f}, want = {}",
            required.as_deref().unwrap_or("")
        ),
        JwtRejection::ClaimRule {
            expression,
            message,
        } => format!(
            "oidc: error evaluating claim validation expression: validation expression '{}' failed: {message}",
            expression.as_deref().unwrap_or("")
        ),
        JwtRejection::UserRule {
            expression,
            message,
        } => format!(
            "oidc: error evaluating user info validation rule: validation expression '{}' failed: {message}",
            expression.as_deref().unwrap_or("")
        ),
        JwtRejection::Mapping { what, detail } => match what.as_str() {
            "username" => format!("oidc: error evaluating username claim expression: {detail}"),
            "groups" => format!("oidc: error evaluating group claim expression: {detail}"),
            "uid" => format!("oidc: error evaluating uid claim expression: {detail}"),
            _ => format!("oidc: error evaluating extra claim expression: {detail}"),
        },
        JwtRejection::EmailNotVerified => "oidc: email not verified".into(),
    }
}

#[cfg(test)]
mod tests;
