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

mod bounded;
pub mod cel;
pub use bounded::{CHILD_ARGUMENT, child_main, isolate_in, set_time_bound};
mod config;
mod re2;

pub use config::*;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value as Json;
use strum::{IntoStaticStr, VariantArray};

use crate::diagnosis::wordings::JwtRejection;
use crate::findings::{Code, Finding};
use crate::token::{Token, TokenKind};
use crate::wire::string_codes;
use cel::{Input, Outcome};

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

/// One check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RuleCheck {
    /// Which step.
    pub stage: Stage,
    /// The rule as written.
    pub rule: String,
    /// pass, fail or not-evaluated.
    pub outcome: CheckOutcome,
    /// What came of it.
    pub detail: String,
    /// The rule's own message, or null.
    pub message: Option<String>,
}

/// The mapped user.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MappedUser {
    /// Username, or null when its mapping failed.
    pub username: Option<String>,
    /// Uid, or null.
    pub uid: Option<String>,
    /// Groups.
    pub groups: Vec<String>,
    /// Extra.
    pub extra: BTreeMap<String, Vec<String>>,
}

/// The routed authenticator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Routed {
    /// Its index in `jwt`.
    pub index: usize,
    /// `issuer.url`.
    pub issuer: String,
    /// `issuer.audiences`.
    pub audiences: Vec<String>,
    /// Every check, in kube-apiserver's order.
    pub checks: Vec<RuleCheck>,
    /// The user the mappings build.
    pub user: MappedUser,
}

/// What the configuration's JWT authenticators make of the token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "AuthnConfig")]
pub struct AuthnConfigReport {
    /// The file read.
    #[serde(rename = "file")]
    pub source: String,
    /// Its apiVersion (`apiserver.config.k8s.io/v1`…).
    pub api_version: String,
    /// How many JWT authenticators it has.
    pub authenticators: usize,
    /// The authenticator the token's `iss` routes to, or null (then only the
    /// ServiceAccount authenticator, or none, takes the token).
    pub routed: Option<Routed>,
    /// The first failure in kube-apiserver's words, or null when the
    /// authenticator takes the token (as far as evaluated).
    #[serde(serialize_with = "in_kube_words")]
    #[schemars(with = "Option<String>")]
    pub rejection: Option<JwtRejection>,
    /// What the evaluation found, for the subcommand's findings.
    #[serde(skip)]
    pub findings: Vec<Finding>,
}

fn in_kube_words<S: serde::Serializer>(r: &Option<JwtRejection>, s: S) -> Result<S::Ok, S::Error> {
    r.as_ref().map(kube_wording).serialize(s)
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
    let mut expressions: Vec<(String, &str)> = Vec::new();
    for (what, e) in [
        ("username", &m.username),
        ("groups", &m.groups),
        ("uid", &m.uid),
    ] {
        let path = format!("claimMappings.{what}.expression");
        expressions.extend(e.expression.as_deref().map(|e| (path, e)));
    }
    for (i, x) in m.extra.iter().enumerate() {
        let path = format!("claimMappings.extra[{i}].valueExpression");
        expressions.push((path, &x.value_expression));
    }
    for (i, r) in a.claim_validation_rules.iter().enumerate() {
        let path = format!("claimValidationRules[{i}].expression");
        expressions.extend(r.expression.as_deref().map(|e| (path, e)));
    }
    for (i, r) in a.user_validation_rules.iter().enumerate() {
        let path = format!("userValidationRules[{i}].expression");
        expressions.push((path, &r.expression));
    }
    for (path, expression) in expressions {
        let input = Input {
            name: if path.starts_with("user") {
                "user"
            } else {
                "claims"
            },
            value: claims,
        };
        if let Some(detail) = cel::over_budget(expression, &input) {
            return Err(AuthnConfigError::OverBudget {
                file: config.source.clone(),
                rule: format!(
                    "jwt[{index}].{path} `{}`",
                    crate::sanitize::sanitize(expression)
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
        report.findings.push(no_authenticator(config, iss, kind));
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
    let mut run = Run::new(index, authenticator);
    run.check_audiences(&authenticator.issuer, &token.claims.audiences);
    run.map_user(&authenticator.claim_mappings, &claims);
    for r in &authenticator.claim_validation_rules {
        if let Some(claim) = r.claim.as_deref().filter(|c| !c.is_empty()) {
            let required = r.required_value.clone().unwrap_or_default();
            run.check_required_claim(claim, required, &claims);
        }
    }
    for r in &authenticator.claim_validation_rules {
        if let Some(expression) = r.expression.as_deref().filter(|e| !e.is_empty()) {
            let message = r.message.as_deref();
            run.validate(
                Stage::ClaimRule,
                expression,
                message,
                &claims_input(&claims),
            );
        }
    }
    run.check_user_rules(&authenticator.user_validation_rules);
    run.report_to(&mut report, &config.source);
    Ok(report)
}

/// The finding for a token whose issuer no JWT authenticator has.
fn no_authenticator(config: &AuthnConfig, iss: &str, kind: TokenKind) -> Finding {
    let (count, source) = (config.jwt.len(), &config.source);
    let none = format!("none of the {count} JWT authenticators of {source} has issuer {iss:?}");
    if kind == TokenKind::NotKubernetes {
        let issuers: Vec<&str> = config.jwt.iter().map(|a| a.issuer.url.as_str()).collect();
        Finding::error(
            Code::AuthnNoAuthenticator,
            format!(
                "{none} (they have {}), and it is not a ServiceAccount token: no authenticator takes it (401, \"invalid bearer token\")",
                list(&issuers)
            ),
        )
    } else {
        Finding::info(
            Code::AuthnNoAuthenticator,
            format!(
                "{none}: it is left to the ServiceAccount authenticator, which takes it if --service-account-issuer lists {iss:?}"
            ),
        )
    }
}

/// The claims, as CEL expressions of claim mappings and rules read them.
fn claims_input(claims: &Json) -> Input<'_> {
    Input {
        name: "claims",
        value: claims,
    }
}

/// The checks of the routed authenticator, in kube-apiserver's order: every
/// check is recorded, and the first failure is the one the server reports.
struct Run {
    routed: Routed,
    first: Option<(JwtRejection, Finding)>,
    not_evaluated: Vec<String>,
}

impl Run {
    fn new(index: usize, authenticator: &JwtAuthenticator) -> Self {
        Run {
            routed: Routed {
                index,
                issuer: authenticator.issuer.url.clone(),
                audiences: authenticator.issuer.audiences.clone(),
                checks: Vec::new(),
                user: MappedUser::default(),
            },
            first: None,
            not_evaluated: Vec::new(),
        }
    }

    fn pass(&mut self, stage: Stage, rule: String, detail: String) {
        let pass = check(stage, CheckOutcome::Pass, rule, detail);
        self.routed.checks.push(pass);
    }

    /// Records a failed check; the first one is the rejection.
    fn fail(&mut self, check: RuleCheck, rejection: JwtRejection, code: Code) {
        if self.first.is_none() {
            let wording = kube_wording(&rejection);
            let finding = Finding::error(
                code,
                format!(
                    "jwt[{}] ({}) rejects it: {} `{}` {}; kube-apiserver logs \"{wording}\"",
                    self.routed.index,
                    self.routed.issuer,
                    check.stage.as_str(),
                    check.rule,
                    check.detail
                ),
            );
            self.first = Some((rejection, finding));
        }
        self.routed.checks.push(check);
    }

    /// Records a check that could not be evaluated here, and why.
    fn skip(&mut self, check: RuleCheck, why: String) {
        self.not_evaluated.push(why);
        self.routed.checks.push(check);
    }

    /// Audiences (MatchAny: one in common is enough).
    fn check_audiences(&mut self, issuer: &Issuer, got: &[String]) {
        let policy = issuer.audience_match_policy.as_deref();
        let rule = format!(
            "audiences {} ({})",
            list(&issuer.audiences),
            policy.unwrap_or("MatchAny")
        );
        let detail = format!("the token has {}", list(got));
        if got.iter().any(|a| issuer.audiences.contains(a)) {
            self.pass(Stage::Audience, rule, detail);
        } else {
            let mut expected = issuer.audiences.clone();
            expected.sort();
            let rejection = JwtRejection::Audience {
                expected,
                got: got.to_vec(),
            };
            let failed = check(Stage::Audience, CheckOutcome::Fail, rule, detail);
            self.fail(failed, rejection, Code::AuthnAudienceMismatch);
        }
    }

    /// The claim mappings: username, groups, uid, extra.
    fn map_user(&mut self, m: &ClaimMappings, claims: &Json) {
        let username = map_username(&m.username, claims);
        let show = |n: &String| format!("{n:?}");
        self.routed.user.username = self.mapping(Stage::Username, username, show, None);
        let groups = map_list(Stage::Groups, &m.groups, claims);
        if let Some(groups) = self.mapping(Stage::Groups, groups, |v| list(v), None) {
            self.routed.user.groups = groups;
        }
        let uid = map_list(Stage::Uid, &m.uid, claims);
        if let Some(uid) = self.mapping(Stage::Uid, uid, |v| list(v), None) {
            self.routed.user.uid = uid.first().cloned();
        }
        for extra in &m.extra {
            let rule = format!("{}: {}", extra.key, extra.value_expression);
            let values = map_expression(&extra.value_expression, rule, claims, string_list);
            let expression = Some(extra.value_expression.as_str());
            let values = self.mapping(Stage::Extra, values, |v| list(v), expression);
            if let Some(values) = values.filter(|v| !v.is_empty()) {
                self.routed.user.extra.insert(extra.key.clone(), values);
            }
        }
    }

    /// Records one mapping's check; its value, where it gave one. The
    /// rejection of a failed extra mapping names its `expression`.
    fn mapping<T>(
        &mut self,
        stage: Stage,
        mapped: Mapped<T>,
        show: impl FnOnce(&T) -> String,
        expression: Option<&str>,
    ) -> Option<T> {
        let (rule, outcome) = mapped;
        match outcome {
            Outcome::Value(value) => {
                // A mapping with neither claim nor expression is no check.
                if !rule.is_empty() {
                    self.pass(stage, rule, show(&value));
                }
                Some(value)
            }
            Outcome::Error(detail) => {
                let rejection = if stage == Stage::Username && detail == EMAIL_NOT_VERIFIED {
                    JwtRejection::EmailNotVerified
                } else {
                    JwtRejection::Mapping {
                        what: stage.as_str().into(),
                        detail: expression
                            .map_or_else(|| detail.clone(), |e| format!("{e}: {detail}")),
                    }
                };
                let failed = check(stage, CheckOutcome::Fail, rule, detail);
                self.fail(failed, rejection, Code::AuthnMappingFailed);
                None
            }
            Outcome::NotEvaluated(why) => {
                let skipped = check(stage, CheckOutcome::NotEvaluated, rule, why.clone());
                self.skip(skipped, why);
                None
            }
        }
    }

    /// `claim` + `requiredValue`: the claim must be that string.
    fn check_required_claim(&mut self, claim: &str, required: String, claims: &Json) {
        let rule = format!("claim {claim} = {required:?}");
        let (detail, found) = match claims.get(claim) {
            Some(Json::String(v)) if *v == required => {
                return self.pass(Stage::RequiredClaim, rule, format!("{v:?}"));
            }
            None => ("the claim is missing".to_owned(), None),
            Some(v) => {
                let found = v
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| v.to_string());
                (format!("it is {found:?}"), Some(found))
            }
        };
        let rejection = JwtRejection::RequiredClaim {
            claim: claim.to_owned(),
            found,
            required: Some(required),
        };
        let failed = check(Stage::RequiredClaim, CheckOutcome::Fail, rule, detail);
        self.fail(failed, rejection, Code::AuthnClaimRuleFailed);
    }

    /// User validation, over the user the mappings built.
    fn check_user_rules(&mut self, rules: &[UserValidationRule]) {
        if rules.is_empty() {
            return;
        }
        let user = &self.routed.user;
        let user = serde_json::json!({
            "username": user.username.clone().unwrap_or_default(),
            "uid": user.uid.clone().unwrap_or_default(),
            "groups": user.groups,
            "extra": user.extra,
        });
        let input = Input {
            name: "user",
            value: &user,
        };
        for r in rules {
            let message = r.message.as_deref();
            self.validate(Stage::UserRule, &r.expression, message, &input);
        }
    }

    /// Evaluates one validation rule (a CEL expression that must be true) and
    /// records its check.
    fn validate(&mut self, stage: Stage, expression: &str, message: Option<&str>, input: &Input) {
        const NOT_BOOLEAN: &str = "validation expression must return a boolean";
        let mut check = RuleCheck {
            stage,
            rule: expression.to_owned(),
            outcome: CheckOutcome::Fail,
            detail: String::new(),
            message: message.map(str::to_owned),
        };
        let (detail, reason) = match bounded::evaluate(expression, input) {
            Outcome::Value(::cel::Value::Bool(true)) => {
                check.outcome = CheckOutcome::Pass;
                check.detail = "true".into();
                self.routed.checks.push(check);
                return;
            }
            Outcome::Value(::cel::Value::Bool(false)) => match message {
                Some(m) => (format!("is false: {m:?}"), m.to_owned()),
                None => ("is false".into(), String::new()),
            },
            Outcome::Value(other) => (
                format!("gives {}: {NOT_BOOLEAN}", cel::show(&other)),
                NOT_BOOLEAN.into(),
            ),
            Outcome::Error(e) => (format!("fails to evaluate: {e}"), e),
            Outcome::NotEvaluated(why) => {
                check.outcome = CheckOutcome::NotEvaluated;
                check.detail = why.clone();
                self.skip(check, format!("`{expression}`: {why}"));
                return;
            }
        };
        check.detail = detail;
        let expression = Some(expression.to_owned());
        let (rejection, code) = match stage {
            Stage::UserRule => (
                JwtRejection::UserRule {
                    expression,
                    message: reason,
                },
                Code::AuthnUserRuleFailed,
            ),
            _ => (
                JwtRejection::ClaimRule {
                    expression,
                    message: reason,
                },
                Code::AuthnClaimRuleFailed,
            ),
        };
        self.fail(check, rejection, code);
    }

    /// The rejection, or the user the authenticator makes, and the rules not
    /// evaluated.
    fn report_to(self, report: &mut AuthnConfigReport, source: &str) {
        let Run {
            routed,
            first,
            not_evaluated,
        } = self;
        let index = routed.index;
        match first {
            Some((rejection, finding)) => {
                report.findings.push(finding);
                report.rejection = Some(rejection);
            }
            None => {
                let user = &routed.user;
                let name = user.username.as_deref().map(|u| format!("{u:?}"));
                let uid = user.uid.as_deref().map(|u| format!(", uid {u:?}"));
                let partly = if not_evaluated.is_empty() {
                    ""
                } else {
                    " as far as evaluated"
                };
                report.findings.push(Finding::info(
                    Code::AuthnRouted,
                    format!(
                        "jwt[{index}] ({}) of {source} takes it{partly}: user {}, groups {}{}",
                        routed.issuer,
                        name.as_deref().unwrap_or("-"),
                        list(&user.groups),
                        uid.unwrap_or_default(),
                    ),
                ));
            }
        }
        for why in not_evaluated {
            report.findings.push(Finding::warning(
                Code::AuthnNotEvaluated,
                format!(
                    "a rule of jwt[{index}] was not evaluated: {why}; kube-apiserver evaluates it"
                ),
            ));
        }
        report.routed = Some(routed);
    }
}

const EMAIL_NOT_VERIFIED: &str = "email_verified is false";

/// A mapping's rule as shown, and what came of it.
type Mapped<T> = (String, Outcome<T>);

/// A mapping expression's outcome, its value read by `value`.
fn map_expression<T>(
    expr: &str,
    rule: String,
    claims: &Json,
    value: impl FnOnce(::cel::Value) -> Result<T, String>,
) -> Mapped<T> {
    let outcome = match bounded::evaluate(expr, &claims_input(claims)) {
        Outcome::Value(v) => value(v).map_or_else(Outcome::Error, Outcome::Value),
        Outcome::Error(e) => Outcome::Error(e),
        Outcome::NotEvaluated(w) => Outcome::NotEvaluated(w),
    };
    (rule, outcome)
}

/// A mapping whose value must be a string or a list of strings.
fn string_list(value: ::cel::Value) -> Result<Vec<String>, String> {
    cel::string_list(&value).map_err(str::to_owned)
}

fn map_username(m: &ClaimOrExpression, claims: &Json) -> Mapped<String> {
    if let Some(expr) = m.expression.as_deref().filter(|e| !e.is_empty()) {
        return map_expression(expr, expr.to_owned(), claims, |v| match v {
            ::cel::Value::String(s) if s.is_empty() => {
                Err("the expression gives an empty username".into())
            }
            ::cel::Value::String(s) => Ok(s.as_str().to_owned()),
            other => Err(format!(
                "gives {}: username claim expression must return a string",
                cel::show(&other)
            )),
        });
    }
    let claim = m.claim.as_deref().unwrap_or("");
    let prefix = m.prefix.as_deref().unwrap_or("");
    let rule = format!("claim {claim} with prefix {prefix:?}");
    let obj = claims.as_object();
    let verified = obj.and_then(|o| o.get("email_verified"));
    let outcome = match obj.and_then(|o| o.get(claim)).map(Json::as_str) {
        None => Outcome::Error(format!("claim {claim:?} is not present")),
        Some(None) => Outcome::Error(format!("claim {claim:?} is not a string")),
        Some(Some(_)) if claim == "email" && verified.is_some_and(|v| v != &Json::Bool(true)) => {
            Outcome::Error(EMAIL_NOT_VERIFIED.into())
        }
        Some(Some(name)) => Outcome::Value(format!("{prefix}{name}")),
    };
    (rule, outcome)
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
        let outcome = match (stage, value) {
            // A missing groups claim is no groups; a missing uid claim fails.
            (Stage::Groups, None) => Outcome::Value(Vec::new()),
            (_, None) => Outcome::Error(format!("claim {claim:?} is not present")),
            (_, Some(Json::String(s))) => Outcome::Value(vec![format!("{prefix}{s}")]),
            (Stage::Groups, Some(Json::Array(a))) if a.iter().all(Json::is_string) => {
                let prefixed = a
                    .iter()
                    .filter_map(Json::as_str)
                    .map(|s| format!("{prefix}{s}"));
                Outcome::Value(prefixed.collect())
            }
            (_, Some(_)) => Outcome::Error(format!(
                "claim {claim:?} is not a string{}",
                if stage == Stage::Groups {
                    " or a list of strings"
                } else {
                    ""
                }
            )),
        };
        return (rule, outcome);
    }
    let Some(expr) = m.expression.as_deref().filter(|e| !e.is_empty()) else {
        return (String::new(), Outcome::Value(Vec::new()));
    };
    map_expression(expr, expr.to_owned(), claims, |v| match v {
        ::cel::Value::String(s) if stage == Stage::Uid => Ok(vec![s.as_str().to_owned()]),
        other if stage == Stage::Uid => Err(format!(
            "gives {}: uid claim expression must return a string",
            cel::show(&other)
        )),
        other => string_list(other),
    })
}

/// A check of a rule without a `message` of its own.
fn check(stage: Stage, outcome: CheckOutcome, rule: String, detail: String) -> RuleCheck {
    RuleCheck {
        stage,
        rule,
        outcome,
        detail,
        message: None,
    }
}

fn list<S: std::borrow::Borrow<str>>(values: &[S]) -> String {
    format!("[{}]", values.join(", "))
}

/// kube-apiserver's words for a rejection (oidc.go; see
/// `diagnosis::wordings::WORDINGS`).
pub fn kube_wording(r: &JwtRejection) -> String {
    let go = go_quote_list;
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

/// Go's `%q` of a `[]string`: `["a" "b"]`, as kube-apiserver words a list of
/// issuers or audiences.
pub(crate) fn go_quote_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    format!("[{}]", quoted.join(" "))
}

#[cfg(test)]
mod tests;
