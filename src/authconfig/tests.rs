//! Unit tests of `crate::authconfig`.

use super::*;
use crate::diagnosis::testing::token;
use serde_json::json;

const CONFIG: &str = r#"
apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://idp.example.com
    audiences: [kubernetes, other]
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - expression: "claims.email_verified == true"
    message: "email must be verified"
  - expression: "claims.hd == 'example.com'"
    message: "only example.com accounts"
  - expression: "claims.nope == 'x'"
    message: "erroring rule"
  claimMappings:
    username:
      expression: "'oidc:' + claims.email"
    groups:
      claim: groups
      prefix: "oidc:"
    uid:
      claim: sub
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: "no system users"
"#;

fn claims(extra: serde_json::Value) -> Token {
    let mut c = json!({"iss": "https://idp.example.com", "aud": "kubernetes", "sub": "u-1",
            "email": "alice@example.com", "email_verified": true, "hd": "example.com",
            "groups": ["dev"], "exp": 1_767_229_200_i64, "iat": 1_767_225_600_i64});
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    token(c)
}

#[test]
fn a_true_a_false_and_an_erroring_rule() {
    let config = parse(CONFIG, "authn.yaml").unwrap();
    let r = evaluate(&config, &claims(json!({"hd": "other.com"}))).unwrap();
    let routed = r.routed.as_ref().unwrap();
    for (rule, want) in [
        ("claims.email_verified == true", CheckOutcome::Pass),
        ("claims.hd == 'example.com'", CheckOutcome::Fail),
        ("claims.nope == 'x'", CheckOutcome::Fail),
    ] {
        let check = routed.checks.iter().find(|c| c.rule == rule).unwrap();
        assert_eq!(check.outcome, want, "{rule}");
    }
    // The first failure is the one kube-apiserver logs, with its message.
    assert_eq!(
        r.rejection,
        Some(JwtRejection::ClaimRule {
            expression: Some("claims.hd == 'example.com'".into()),
            message: "only example.com accounts".into()
        })
    );
    assert!(
        r.findings[0].message.contains("only example.com accounts"),
        "{:?}",
        r.findings
    );
    assert_eq!(
        routed.user.username.as_deref(),
        Some("oidc:alice@example.com")
    );
    assert_eq!(routed.user.groups, ["oidc:dev"]);
    assert_eq!(routed.user.uid.as_deref(), Some("u-1"));
}

#[test]
fn a_failing_user_rule_is_checked_after_the_first_failure() {
    let config = CONFIG.replace("'oidc:' + claims.email", "'system:' + claims.email");
    let r = evaluate(&parse(&config, "f").unwrap(), &claims(json!({}))).unwrap();
    assert!(
        matches!(r.rejection, Some(JwtRejection::ClaimRule { ref expression, .. }) if expression.as_deref() == Some("claims.nope == 'x'"))
    );
    assert!(
        r.routed
            .unwrap()
            .checks
            .iter()
            .any(|c| c.stage == Stage::UserRule && c.outcome == CheckOutcome::Fail)
    );
}

#[test]
fn bad_files_are_named() {
    assert!(
        parse("kind: ConfigMap", "f")
            .unwrap_err()
            .to_string()
            .contains("ConfigMap")
    );
    assert!(parse("apiVersion: v9\nkind: AuthenticationConfiguration", "f").is_err());
    let json = r#"{"apiVersion":"apiserver.config.k8s.io/v1beta1","kind":"AuthenticationConfiguration","jwt":[{"issuer":{"url":"https://a","audiences":["x"]},"claimMappings":{"username":{"claim":"sub","prefix":""}}}]}"#;
    assert_eq!(parse(json, "f").unwrap().jwt.len(), 1);
}

#[test]
fn a_username_claim_is_present_a_string_and_a_verified_email() {
    let m = ClaimOrExpression {
        claim: Some("email".into()),
        prefix: Some("oidc:".into()),
        expression: None,
    };
    let error = |claims| match map_username(&m, &claims) {
        (_, Outcome::Error(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(error(json!({})), "claim \"email\" is not present");
    assert_eq!(
        error(json!({"email": 1})),
        "claim \"email\" is not a string"
    );
    let unverified = json!({"email": "a@x", "email_verified": false});
    assert_eq!(error(unverified), EMAIL_NOT_VERIFIED);
    for verified in [
        json!({"email": "a@x"}),
        json!({"email": "a@x", "email_verified": true}),
    ] {
        let (rule, outcome) = map_username(&m, &verified);
        assert_eq!(rule, "claim email with prefix \"oidc:\"");
        assert_eq!(outcome, Outcome::Value("oidc:a@x".to_owned()));
    }
}
