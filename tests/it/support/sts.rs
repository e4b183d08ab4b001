//! AWS STS in the test API server's place ([`super::apiserver::Mode::Sts`]):
//! every request is read as the Query API's `AssumeRoleWithWebIdentity` (a
//! form POST), its web identity token judged against an account's IAM OpenID
//! Connect providers and one role's trust policy, and refused in STS's own
//! XML error document. The server never grants: a token that passes every
//! check gets a `501` that no scenario expects.
//!
//! The document's shape (`ErrorResponse` > `Error` > `Type`, `Code`,
//! `Message`, then `RequestId`; `text/xml`) and the wordings are STS's as
//! people pasted them: `InvalidIdentityToken` "Incorrect token audience"
//! (aws/amazon-eks-pod-identity-webhook#232, in testdata/evidence/wild) and
//! "No OpenIDConnect provider found in your account for ISSUER"
//! (kubernetes-sigs/aws-load-balancer-controller#1226, status 400);
//! `ExpiredTokenException` (mozilla-iam/mozilla-aws-cli#146 for the XML,
//! aws/aws-sdk-java-v2#5709 for "Token expired: current date/time N must be
//! before the expiration date/time M", status 400); `AccessDenied` "Not
//! authorized to perform sts:AssumeRoleWithWebIdentity" (status 403,
//! aws/aws-sdk-java-v2#1470).

use chrono::{DateTime, Utc};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Response, StatusCode};
use serde_json::Value;

use super::tokens;

/// The audience IRSA tokens carry: the client ID of EKS's OIDC providers.
pub const AUDIENCE: &str = "sts.amazonaws.com";
/// The role the clients ask for.
pub const ROLE_ARN: &str = "arn:aws:iam::111122223333:role/reporter";

/// What the account trusts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trust {
    /// Issuers (`iss`) the account has an IAM OIDC provider for.
    pub providers: Vec<String>,
    /// Those providers' client IDs: the audiences (`aud`) accepted.
    pub audiences: Vec<String>,
    /// The role trust policy's `StringEquals` condition on `sub`.
    pub subjects: Vec<String>,
}

impl Trust {
    /// IRSA set up for the test ServiceAccount: the cluster's issuer
    /// registered with [`AUDIENCE`], the role trusting its `sub`.
    pub fn irsa() -> Trust {
        Trust {
            providers: vec![tokens::ISSUER.to_owned()],
            audiences: vec![AUDIENCE.to_owned()],
            subjects: vec![format!(
                "system:serviceaccount:{}:{}",
                tokens::NAMESPACE,
                tokens::SA
            )],
        }
    }
}

/// STS's refusal: the status, the error code and the message.
struct Refusal {
    status: StatusCode,
    code: &'static str,
    message: String,
}

/// The first check the form's token fails, in STS's order: the issuer's
/// provider, its audience, the token's expiry, the role's trust policy.
fn judge(trust: &Trust, now: DateTime<Utc>, form: &[u8]) -> Option<Refusal> {
    let token = url::form_urlencoded::parse(form)
        .find(|(k, _)| k == "WebIdentityToken")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let claims = tokens::unverified_claims(&token).unwrap_or(Value::Null);
    let text = |name: &str| claims[name].as_str().unwrap_or("").to_owned();
    let invalid = |message: String| Refusal {
        status: StatusCode::BAD_REQUEST,
        code: "InvalidIdentityToken",
        message,
    };
    let iss = text("iss");
    if !trust.providers.contains(&iss) {
        return Some(invalid(format!(
            "No OpenIDConnect provider found in your account for {iss}"
        )));
    }
    let auds: Vec<&str> = match &claims["aud"] {
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        one => one.as_str().into_iter().collect(),
    };
    if !auds.iter().any(|a| trust.audiences.iter().any(|t| t == a)) {
        return Some(invalid("Incorrect token audience".to_owned()));
    }
    let exp = claims["exp"].as_i64().unwrap_or(0);
    if now.timestamp() >= exp {
        return Some(Refusal {
            status: StatusCode::BAD_REQUEST,
            code: "ExpiredTokenException",
            message: format!(
                "Token expired: current date/time {} must be before the expiration date/time {exp}",
                now.timestamp()
            ),
        });
    }
    (!trust.subjects.contains(&text("sub"))).then(|| Refusal {
        status: StatusCode::FORBIDDEN,
        code: "AccessDenied",
        message: "Not authorized to perform sts:AssumeRoleWithWebIdentity".to_owned(),
    })
}

/// STS's answer to request number `n` with this form body, at `now`.
pub fn answer(trust: &Trust, now: DateTime<Utc>, form: &[u8], n: usize) -> Response<Full<Bytes>> {
    let request_id = format!("b214072d-5c22-46e6-a6bd-{n:012x}");
    let Some(refusal) = judge(trust, now, form) else {
        return Response::builder()
            .status(StatusCode::NOT_IMPLEMENTED)
            .body(Full::new(Bytes::from("the STS stand-in grants nothing\n")))
            .expect("a response");
    };
    let body = format!(
        "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <Error>\n    <Type>Sender</Type>\n    <Code>{}</Code>\n    <Message>{}</Message>\n  </Error>\n  <RequestId>{request_id}</RequestId>\n</ErrorResponse>\n",
        refusal.code, refusal.message
    );
    Response::builder()
        .status(refusal.status)
        .header("x-amzn-RequestId", &request_id)
        .header("Content-Type", "text/xml")
        .header("Date", now.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
        .body(Full::new(Bytes::from(body)))
        .expect("a response")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeDelta;

    fn form(claims: &Value) -> Vec<u8> {
        let token = tokens::sign(claims);
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("Action", "AssumeRoleWithWebIdentity")
            .append_pair("WebIdentityToken", &token)
            .finish()
            .into_bytes()
    }

    #[test]
    fn each_check_refuses_in_sts_words() {
        let now = crate::support::base();
        let mut good = tokens::projected(now - TimeDelta::minutes(5), 3600);
        good["aud"] = serde_json::json!([AUDIENCE]);
        assert!(judge(&Trust::irsa(), now, &form(&good)).is_none());
        let mut expired = good.clone();
        expired["exp"] = serde_json::json!(now.timestamp() - 60);
        let mut other = Trust::irsa();
        other.subjects = vec!["system:serviceaccount:debug-lab:other".to_owned()];
        let mut unknown = Trust::irsa();
        unknown.providers = vec!["https://oidc.example".to_owned()];
        for (trust, claims, code, status) in [
            (
                Trust::irsa(),
                tokens::projected(now, 3600),
                "InvalidIdentityToken",
                400,
            ),
            (unknown, good.clone(), "InvalidIdentityToken", 400),
            (Trust::irsa(), expired, "ExpiredTokenException", 400),
            (other, good.clone(), "AccessDenied", 403),
        ] {
            let refusal = judge(&trust, now, &form(&claims)).expect("refused");
            assert_eq!((refusal.code, refusal.status.as_u16()), (code, status));
        }
    }
}
