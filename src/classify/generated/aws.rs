//! Generated from the vocabulary, not collected: every answer AWS STS gives
//! `AssumeRoleWithWebIdentity` (each error code with its status, each message
//! the table names and one it does not), as each AWS SDK prints it, is read
//! as the cloud's refusal with the cause its words name, never as
//! kube-apiserver's RBAC or authentication; and an SDK's envelope around no
//! answer is never read as one.

use super::ctx;
use crate::classify::{ClassifyError, classify};
use crate::diagnosis::{Cause, Classification};
use crate::vocabulary::clouds::EXCHANGES;

/// STS's error codes for `AssumeRoleWithWebIdentity` and the status each
/// comes with (API reference, Errors; `AccessDenied` from the common errors).
const STS_ERRORS: &[(&str, u16)] = &[
    ("InvalidIdentityToken", 400),
    ("ExpiredTokenException", 400),
    ("IDPCommunicationError", 400),
    ("IDPRejectedClaim", 403),
    ("MalformedPolicyDocument", 400),
    ("PackedPolicyTooLarge", 400),
    ("RegionDisabledException", 403),
    ("AccessDenied", 403),
];

/// Each SDK's printing of one STS answer (the sources are the envelope rows'
/// in `vocabulary::clouds`): `{code}`, `{status}`, `{message}`.
const SDKS: &[&str] = &[
    // aws-sdk-go: the web identity provider's error over awserr's.
    "WebIdentityErr: failed to retrieve credentials\ncaused by: {code}: {message}\n\tstatus code: {status}, request id: 1b7f7c8e-0000-4000-8000-000000000000",
    // The same, as a log quotes it on one line (logrus, klog).
    "level=error msg=\"WebIdentityErr: failed to retrieve credentials\\ncaused by: {code}: {message}\\n\\tstatus code: {status}, request id: 1b7f7c8e-0000-4000-8000-000000000000\"",
    // aws-sdk-go-v2: a modeled error, and smithy's generic one.
    "failed to refresh cached credentials, failed to retrieve credentials, operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: {status}, RequestID: 1b7f7c8e, {code}: {message}",
    "operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: {status}, RequestID: 1b7f7c8e, api error {code}: {message}",
    // botocore (and the AWS CLI), with and without its retries.
    "botocore.exceptions.ClientError: An error occurred ({code}) when calling the AssumeRoleWithWebIdentity operation: {message}",
    "An error occurred ({code}) when calling the AssumeRoleWithWebIdentity operation (reached max retries: 4): {message}",
    // aws-sdk-java 1.x and 2.x (2.x names the code only in the class).
    "com.amazonaws.services.securitytoken.model.AWSSecurityTokenServiceException: {message} (Service: AWSSecurityTokenService; Status Code: {status}; Error Code: {code}; Request ID: 1b7f7c8e; Proxy: null)",
    "software.amazon.awssdk.services.sts.model.StsException: {message} (Service: Sts, Status Code: {status}, Request ID: 1b7f7c8e)",
    // aws-sdk-js 3.x as Node prints the exception (a modeled error's name
    // ends in Exception: `InvalidIdentityTokenException`).
    "{code}: {message}\n    at de_CommandError (/app/node_modules/@aws-sdk/client-sts/dist-cjs/index.js:1:1) {\n  '$fault': 'client',\n  '$metadata': {\n    httpStatusCode: {status},\n    requestId: '1b7f7c8e',\n    attempts: 1\n  }\n}",
];

fn render(sdk: &str, code: &str, status: u16, message: &str) -> String {
    sdk.replace("{code}", code)
        .replace("{status}", &status.to_string())
        .replace("{message}", message)
}

/// The class of STS's answer as printed: its status where the SDK prints
/// one (the status is STS's; the cause says whose refusal it is).
fn class_of(sdk: &str, status: u16) -> Classification {
    if sdk.contains("{status}") {
        Classification::from_status(status)
    } else {
        Classification::OtherStatus
    }
}

fn read(text: &str) -> Result<(Classification, Cause), ClassifyError> {
    let report = classify(text, None, ctx())?;
    let d = &report.results[0].diagnosis;
    Ok((d.classification, d.cause()))
}

/// STS's messages that name a cause, from the table.
fn sts_messages() -> impl Iterator<Item = (&'static str, Cause)> {
    EXCHANGES
        .iter()
        .filter(|r| r.printed_by == "AWS STS" && r.cause != Some(Cause::Unknown))
        .filter(|r| !STS_ERRORS.iter().any(|(code, _)| r.text.contains(code)))
        .map(|r| (r.text, r.cause.unwrap()))
}

#[test]
fn every_sts_answer_in_every_sdk_s_rendering_is_the_cloud_s_refusal() {
    let mut wrong = Vec::new();
    let mut count = 0;
    for sdk in SDKS {
        for &(code, status) in STS_ERRORS {
            // A message the table names: its cause, whatever the code.
            let named = sts_messages().map(|(m, c)| (m.to_owned(), c));
            // One it does not: the cause the code names where the SDK prints
            // the code, else none. (STS words an expired token "Token
            // expired: current date/time …", a row of its own.)
            let by_code = EXCHANGES
                .iter()
                .find(|r| r.printed_by == "AWS STS" && r.text == code)
                .and_then(|r| r.cause)
                .filter(|_| sdk.contains("{code}"))
                .unwrap_or(Cause::Unknown);
            // STS's expired-token code is the web identity token's (its
            // caller's expired session is `ExpiredToken`), read where the
            // line with the code shows STS or the exchange.
            let shows_sts = sdk.lines().any(|l| {
                l.contains("{code}")
                    && [
                        "AssumeRoleWithWebIdentity",
                        "WebIdentityErr",
                        "AWSSecurityTokenService",
                    ]
                    .iter()
                    .any(|w| l.contains(w))
            });
            let unlisted = (code != "ExpiredTokenException" || shows_sts).then(|| {
                let by_code = if shows_sts && code == "ExpiredTokenException" {
                    Cause::Expired
                } else {
                    by_code
                };
                ("an answer nobody listed".to_owned(), by_code)
            });
            for (message, cause) in named.chain(unlisted) {
                count += 1;
                let text = render(sdk, code, status, &message);
                let want = (class_of(sdk, status), cause);
                match read(&text) {
                    Ok(got) if got == want => {}
                    got => wrong.push(format!("{text:?}: want {want:?}, got {got:?}")),
                }
            }
        }
    }
    assert!(count > 300, "{count}");
    assert!(
        wrong.is_empty(),
        "{} of {count}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Any AWS API's refusal in an SDK's envelope is the cloud's: its 403 is
/// never read as RBAC's, its 401 never as a token kube-apiserver rejected.
#[test]
fn an_aws_api_s_status_is_never_kube_apiservers_cause() {
    for status in [400, 401, 403] {
        for text in [
            format!(
                "operation error S3: GetObject, https response error StatusCode: {status}, RequestID: 1b7f, HostID: x, api error AccessDenied: Access Denied"
            ),
            format!(
                "AccessDenied: Access Denied\n\tstatus code: {status}, request id: 1b7f, host id: x"
            ),
            format!(
                "com.amazonaws.services.s3.model.AmazonS3Exception: Access Denied (Service: Amazon S3; Status Code: {status}; Error Code: AccessDenied; Request ID: 1b7f; S3 Extended Request ID: x; Proxy: null)"
            ),
            format!(
                "software.amazon.awssdk.services.s3.model.S3Exception: Access Denied (Service: S3, Status Code: {status}, Request ID: 1b7f, Extended Request ID: x)"
            ),
        ] {
            let got = read(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(
                got,
                (Classification::from_status(status), Cause::Unknown),
                "{text}"
            );
        }
    }
}

/// aws-sdk-go-v2 prints `StatusCode: 0` for a request that got no answer:
/// the failure is the transport's, and no envelope makes it an answer.
#[test]
fn an_sdk_envelope_around_no_answer_is_not_an_answer() {
    for text in [
        "operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: 0, RequestID: , request send failed, Post \"https://sts.amazonaws.com/\": dial tcp: lookup sts.amazonaws.com: i/o timeout",
        "unable to fetch credentials from EKS Auth: operation error EKS Auth: AssumeRoleForPodIdentity, https response error StatusCode: 0, RequestID: , canceled, context canceled",
    ] {
        match read(text) {
            Ok((class, _)) => assert_eq!(class, Classification::NetworkError, "{text}"),
            Err(e) => panic!("{text}: {e:?}"),
        }
    }
    // Numbers beside an envelope's words that are not its status.
    for text in [
        "status code: pending, request id: 1b7f",
        "retrying (Service: S3; attempt 3 of 4)",
    ] {
        assert!(
            !matches!(read(text), Ok((class, _)) if class != Classification::Ok),
            "{text}"
        );
    }
}

/// A refusal that names no cause but leaves a few lists them as candidates,
/// in every SDK's printing, and claims none of them.
#[test]
fn an_undecided_refusal_lists_the_causes_it_leaves() {
    for (row, causes) in crate::vocabulary::clouds::UNDECIDED {
        let message = format!(
            "User: arn:aws:iam::1:user/u {} arn:aws:iam::1:role/r",
            row.text
        );
        for sdk in SDKS {
            let sdk = sdk.replace("AssumeRoleWithWebIdentity", "AssumeRole");
            let text = render(&sdk, "AccessDenied", 403, &message);
            let report = classify(&text, None, ctx()).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let d = &report.results[0].diagnosis;
            assert_eq!(d.cause(), Cause::Unknown, "{text}");
            let listed: Vec<Cause> = d.alternatives().iter().map(|c| c.cause).collect();
            assert!(
                causes.iter().all(|c| listed.contains(c)),
                "{text}: {listed:?}"
            );
        }
    }
}
