//! AWS's clients against the STS stand-in (support/sts.rs): IRSA's exchange
//! of a projected ServiceAccount token for a role's credentials
//! (`AssumeRoleWithWebIdentity`), refused for each reason STS gives. Their
//! scenarios are their own: the API server's ten do not apply to STS.
//!
//! Both clients are kept on 127.0.0.1: the endpoint is the stand-in's for
//! every service (`AWS_ENDPOINT_URL`), the instance metadata service is off,
//! no profile, credentials file or proxy of this machine is read, and the
//! region is set so that none is looked up.

use std::path::Path;
use std::process::Command;

use chrono::{DateTime, TimeDelta, Utc};

use super::Scenario;
use super::run::{no_proxies, printed, python, succeeds};
use crate::support::apiserver::{Config, Mode};
use crate::support::sts::{self, Trust};
use crate::support::tokens;

/// The STS refusals: an IRSA token (audience sts.amazonaws.com) and the
/// trust each scenario breaks.
pub fn scenarios(now: DateTime<Utc>) -> Vec<Scenario> {
    let irsa = |iat: DateTime<Utc>| {
        let mut claims = tokens::projected(iat, 3600);
        claims["aud"] = serde_json::json!([sts::AUDIENCE]);
        claims
    };
    let fresh = irsa(now - TimeDelta::minutes(5));
    let scenario = |name, trust, claims: &serde_json::Value, cause| {
        let mut config = Config::new(now);
        config.mode = Mode::Sts(trust);
        Scenario {
            name,
            config,
            token: Some(tokens::sign(claims)),
            path: "/".to_owned(),
            trusted: true,
            class: "other-status",
            cause: Some(cause),
            timed: false,
        }
    };
    let mut other_subject = Trust::irsa();
    other_subject.subjects = vec![format!(
        "system:serviceaccount:{}:uploader",
        tokens::NAMESPACE
    )];
    let mut no_provider = Trust::irsa();
    no_provider.providers = vec!["https://oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE".to_owned()];
    vec![
        scenario(
            "STS trust policy",
            other_subject,
            &fresh,
            "cloud-trust-policy-denied",
        ),
        scenario(
            "STS audience",
            Trust::irsa(),
            &tokens::projected(now - TimeDelta::minutes(5), 3600),
            "cloud-federation-mismatch",
        ),
        scenario(
            "STS no OIDC provider",
            no_provider,
            &fresh,
            "cloud-oidc-provider-missing",
        ),
        scenario(
            "STS expired",
            Trust::irsa(),
            &irsa(now - TimeDelta::hours(3)),
            "expired",
        ),
    ]
}

/// The environment of an AWS client in a pod with IRSA (what EKS's pod
/// identity webhook sets: the role and the token file), kept on loopback.
fn irsa_env(cmd: &mut Command, dir: &Path, url: &str, ca: Option<&Path>, token: &str) {
    let token_file = dir.join("aws-web-identity-token");
    std::fs::write(&token_file, token).unwrap();
    for name in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CA_BUNDLE",
    ] {
        cmd.env_remove(name);
    }
    cmd.env("HOME", dir)
        .env("AWS_CONFIG_FILE", dir.join("no-aws-config"))
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            dir.join("no-aws-credentials"),
        )
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_DEFAULT_REGION", "eu-west-1")
        .env("AWS_ENDPOINT_URL", url)
        .env("AWS_ROLE_ARN", sts::ROLE_ARN)
        .env("AWS_WEB_IDENTITY_TOKEN_FILE", &token_file);
    if let Some(ca) = ca {
        cmd.env("AWS_CA_BUNDLE", ca);
    }
    no_proxies(cmd);
}

/// Python: boto3 in a pod with IRSA: the first call of a client makes
/// botocore exchange the token file for the role's credentials; the
/// exception uncaught.
pub fn boto3(dir: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let script = "import boto3\n\
        print(boto3.client('s3').list_buckets()['Buckets'])\n";
    let mut cmd = python(script);
    irsa_env(&mut cmd, dir, url, ca, token.expect("IRSA has a token"));
    printed(cmd)
}

/// The AWS CLI checking IRSA by hand, as its troubleshooting guides do:
/// `aws sts assume-role-with-web-identity` with the token file.
pub fn aws_cli(dir: &Path, url: &str, ca: Option<&Path>, token: Option<&str>) -> String {
    let mut cmd = Command::new("aws");
    irsa_env(&mut cmd, dir, url, ca, token.expect("IRSA has a token"));
    let token_file = dir.join("aws-web-identity-token");
    cmd.args([
        "sts",
        "assume-role-with-web-identity",
        "--role-arn",
        sts::ROLE_ARN,
        "--role-session-name",
        "reporter",
        "--web-identity-token",
    ])
    .arg(format!("file://{}", token_file.display()));
    printed(cmd)
}

pub fn boto3_installed() -> bool {
    succeeds("python3", &["-c", "import boto3"])
}

pub fn aws_cli_installed() -> bool {
    succeeds("aws", &["--version"])
}
