//! Generated from the vocabulary tables, not collected: every transport row
//! and every cloud exchange row, as each client would print it, is read with
//! its class and its cause; texts that only look like failures are not read
//! as failures.

use super::ctx;
use crate::classify::{ClassifyError, classify};
use crate::diagnosis::{Cause, Classification};
use crate::vocabulary::clouds::EXCHANGES;
use crate::vocabulary::transport::{CURL_CODES, TRANSPORT};

/// What `classify` makes of `text`: the first answer's class and cause.
fn read(text: &str) -> Result<(Classification, Cause), ClassifyError> {
    let report = classify(text, None, ctx())?;
    let d = &report.results[0].diagnosis;
    Ok((d.classification, d.cause()))
}

fn class_of(cause: Cause) -> Classification {
    if cause.is_tls() {
        Classification::TlsError
    } else {
        Classification::NetworkError
    }
}

/// curl's exit code for a failure of that cause: the code its backends give.
fn curl_code_for(cause: Cause) -> u16 {
    match cause {
        Cause::DnsFailure => 6,
        Cause::ConnectionRefused | Cause::NetworkUnreachable => 7,
        Cause::Timeout => 28,
        Cause::TlsOther => 35,
        c if c.is_tls() => 60,
        _ => 56,
    }
}

/// A row's words as the clients that print them would: on their own, after
/// kubectl's and client-go's prefixes, in a klog line, and (the TLS and
/// network words of curl's backends) after curl's exit code.
fn renderings(text: &str, cause: Cause) -> Vec<String> {
    vec![
        text.to_owned(),
        format!("Unable to connect to the server: {text}"),
        format!(
            "E0101 00:00:00.000000       1 reflector.go:138] failed to list *v1.Pod: Get \"https://10.96.0.1:443/api/v1/pods\": {text}"
        ),
        format!("curl: ({}) {text}", curl_code_for(cause)),
    ]
}

#[test]
fn every_transport_row_is_read_with_its_class_and_cause() {
    let mut wrong = Vec::new();
    for row in TRANSPORT {
        let cause = row.cause.expect("every transport row names a cause");
        // A fragment that ends in a space (`tls: `) is followed by words.
        let words = format!(
            "{}{}",
            row.text,
            if row.text.ends_with(' ') { "x" } else { "" }
        );
        for text in renderings(&words, cause) {
            let want = (class_of(cause), cause);
            match read(&text) {
                Ok(got) if got == want => {}
                got => wrong.push(format!("{text:?}: want {want:?}, got {got:?}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn curls_code_names_the_class_whatever_the_backend_says() {
    let mut wrong = Vec::new();
    for row in CURL_CODES {
        let Some(cause) = row.cause else {
            // An answer: its status is read.
            let got = read("curl: (22) The requested URL returned error: 401").unwrap();
            assert_eq!(got.0, Classification::Unauthorized, "{}", row.text);
            continue;
        };
        let (code, _) = row.text.split_once(") ").unwrap();
        let number = &code["curl: (".len()..];
        // The table's own text, a backend's words the tables do not hold,
        // and libcurl's wrappers' `curl#N` (yum, pycurl).
        for text in [
            row.text.to_owned(),
            format!("{code}) an unheard-of backend said no"),
            format!("[Errno 14] curl#{number} - \"an unheard-of backend said no\""),
        ] {
            let want = (class_of(cause), cause);
            match read(&text) {
                Ok(got) if got == want => {}
                got => wrong.push(format!("{text:?}: want {want:?}, got {got:?}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_curl_verification_code_under_any_backend_is_a_tls_failure() {
    for (text, cause) in [
        // GnuTLS before curl 8.10.
        (
            "curl: (60) server certificate verification failed. CAfile: /etc/ssl/certs/ca-certificates.crt CRLfile: none",
            Cause::TlsUntrustedCa,
        ),
        // NSS (curl before 8.3; RHEL 7's curl).
        (
            "curl: (60) Peer's Certificate issuer is not recognized.",
            Cause::TlsUntrustedCa,
        ),
        (
            "curl: (51) Unable to communicate securely with peer: requested domain name does not match the server's certificate.",
            Cause::TlsNameMismatch,
        ),
        // Schannel (Windows).
        (
            "curl: (60) schannel: SEC_E_UNTRUSTED_ROOT (0x80090325) - The certificate chain was issued by an authority that is not trusted.",
            Cause::TlsUntrustedCa,
        ),
        (
            "curl: (60) schannel: CertGetCertificateChain trust error CERT_TRUST_IS_UNTRUSTED_ROOT",
            Cause::TlsUntrustedCa,
        ),
        // Secure Transport (macOS before curl 8.15).
        (
            "curl: (60) SSL certificate problem: Invalid certificate chain",
            Cause::TlsUntrustedCa,
        ),
        // A backend's words nobody listed: curl's code still names the class.
        (
            "curl: (60) Apple SecTrust verification failed: error -67843",
            Cause::TlsUntrustedCa,
        ),
    ] {
        assert_eq!(
            read(text).unwrap(),
            (Classification::TlsError, cause),
            "{text}"
        );
    }
}

/// An alert the server sent names the client's certificate or the
/// handshake, never the server's certificate: `unknown ca` received is the
/// server's verdict on the client. And OpenSSL's verdicts on a chain that is
/// no untrusted CA stay TLS failures of another kind under the words that
/// alone mean an untrusted CA (`certificate verify failed`, curl's 60).
#[test]
fn a_received_alert_or_a_refused_chain_is_no_untrusted_ca() {
    for text in [
        "curl: (35) OpenSSL/3.0.13: error:0A000418:SSL routines::tlsv1 alert unknown ca",
        "curl: (56) OpenSSL SSL_read: error:0A000415:SSL routines::sslv3 alert certificate expired, errno 0",
        "curl: (56) OpenSSL SSL_read: OpenSSL/3.0.13: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
        "ssl.SSLError: [SSL: TLSV1_ALERT_UNKNOWN_CA] tlsv1 alert unknown ca (_ssl.c:1006)",
        "Error: write EPROTO 40E8:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 42",
        "javax.net.ssl.SSLHandshakeException: Received fatal alert: unknown_ca",
        "javax.net.ssl.SSLException: Received fatal alert: certificate_expired",
        "Get \"https://10.96.0.1:443/api\": remote error: tls: unknown certificate authority",
        "error trying to connect: received fatal alert: UnknownCA",
        "System.Security.Authentication.AuthenticationException: Authentication failed because the remote party sent a TLS alert: 'UnknownCA'.",
        "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Missing Authority Key Identifier (_ssl.c:1028)",
        "curl: (60) SSL certificate problem: CA signature digest algorithm too weak",
        "Get \"https://10.96.0.1:443/api\": tls: failed to verify certificate: x509: unhandled critical extension",
    ] {
        assert_eq!(
            read(text).unwrap(),
            (Classification::TlsError, Cause::TlsOther),
            "{text}"
        );
    }
}

/// JSSE's exception wraps the connection's own failure, which decides.
#[test]
fn an_ssl_exception_over_a_reset_connection_is_the_connection_s() {
    for (text, cause) in [
        (
            "javax.net.ssl.SSLException: Connection reset",
            Cause::Unknown,
        ),
        ("javax.net.ssl.SSLException: Read timed out", Cause::Timeout),
        (
            "javax.net.ssl.SSLException: Unsupported or unrecognized SSL message",
            Cause::TlsOther,
        ),
    ] {
        assert_eq!(read(text).unwrap().1, cause, "{text}");
    }
}

/// azidentity's rule between the parts of its error.
const RULE: &str =
    "--------------------------------------------------------------------------------";

/// The status a cloud's exchange answers a row with, on the client's line.
fn exchange_renderings(service: &str, text: &str) -> Vec<String> {
    let body = text.replace(" … ", " something ");
    let mut out = vec![body.clone()];
    match service {
        "AWS STS" | "AWS IAM" => out.push(format!(
            "botocore.exceptions.ClientError: An error occurred when calling the operation: {body}"
        )),
        "Microsoft Entra ID" => out.extend([
            format!(
                "{{\"error\":\"invalid_client\",\"error_description\":\"{body} Trace ID: 0 Correlation ID: 0 Timestamp: 2026-01-01 00:00:00Z\"}}"
            ),
            // azidentity's AuthenticationFailedError (sdk/azidentity/errors.go):
            // the token endpoint's answer indented, one field a line.
            format!(
                "WorkloadIdentityCredential authentication failed. \nPOST https://login.microsoftonline.com/t/oauth2/v2.0/token\n{RULE}\nRESPONSE 401: 401 Unauthorized\n{RULE}\n{{\n  \"error\": \"invalid_client\",\n  \"error_description\": \"{body} Trace ID: 0\",\n  \"error_codes\": [\n    0\n  ]\n}}\n{RULE}\nTo troubleshoot, visit https://aka.ms/azsdk/go/identity/troubleshoot#workload"
            ),
        ]),
        // golang.org/x/oauth2/google's token exchange and impersonation, and
        // google-auth's RefreshError (Python).
        "Google Cloud STS" | "Google Cloud IAM" => out.extend([
            format!(
                "oauth2/google: status code 400: {{\"error\":\"invalid_grant\",\"error_description\":\"{body}\"}}"
            ),
            format!(
                "google.auth.exceptions.RefreshError: ('Unable to acquire impersonated credentials', '{{\\n  \"error\": {{\\n    \"code\": 403,\\n    \"message\": \"{body}\"}}}}')"
            ),
        ]),
        _ => out.push(format!("error: {body}")),
    }
    out
}

#[test]
fn every_cloud_exchange_row_is_read_with_its_cause() {
    let mut wrong = Vec::new();
    for row in EXCHANGES {
        let cause = row.cause.expect("every exchange row names a cause");
        for text in exchange_renderings(row.printed_by, row.text) {
            match read(&text) {
                // The refusal is read, never unrecognised; its cause, or none
                // named when the service's words name none.
                Ok((class, got)) if got == cause && class != Classification::Ok => {}
                got => wrong.push(format!("{text:?}: want {cause:?}, got {got:?}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn an_entra_code_the_table_does_not_list_is_still_entras_refusal() {
    for text in [
        "ERROR: AADSTS90002: Tenant 'contoso' not found. Check to make sure you have the correct tenant ID.",
        r#"caused by: {"error":"invalid_request","error_description":"AADSTS50027: JWT token is invalid or malformed."}"#,
        "AADSTS7000222: The provided client secret keys for app 'x' are expired.",
    ] {
        let (class, _) = read(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_ne!(class, Classification::Ok, "{text}");
    }
    assert_eq!(
        read("AADSTS50027: JWT token is invalid or malformed.")
            .unwrap()
            .1,
        Cause::TokenMalformed
    );
}

#[test]
fn a_credential_chain_is_read_by_the_refusal_it_lists_below_its_summary() {
    // azidentity's summary comes first, each credential's error below it:
    // one of them refused by Entra is why the chain had none.
    let refused = [
        "DefaultAzureCredential: failed to acquire a token.",
        "Attempted credentials:",
        "\tEnvironmentCredential: missing environment variable AZURE_TENANT_ID",
        "\tWorkloadIdentityCredential authentication failed. ",
        "\t\tPOST https://login.microsoftonline.com/t/oauth2/v2.0/token",
        &format!("\t\t{RULE}"),
        "\t\tRESPONSE 401: 401 Unauthorized",
        &format!("\t\t{RULE}"),
        "\t\t{",
        "\t\t  \"error\": \"invalid_client\",",
        "\t\t  \"error_description\": \"AADSTS700213: No matching federated identity record found for presented assertion subject 'system:serviceaccount:default:app'. Trace ID: 0\"",
        "\t\t}",
    ]
    .join("\n");
    assert_eq!(read(&refused).unwrap().1, Cause::CloudFederationMismatch);
    // Python's chain stops at the credential that was refused, last.
    let python = [
        "azure.core.exceptions.ClientAuthenticationError: DefaultAzureCredential failed to retrieve a token from the included credentials.",
        "Attempted credentials:",
        "\tEnvironmentCredential: EnvironmentCredential authentication unavailable. Environment variables are not fully configured.",
        "\tWorkloadIdentityCredential: (invalid_client) AADSTS70021: No matching federated identity record found for presented assertion. Trace ID: 0",
    ]
    .join("\n");
    assert_eq!(read(&python).unwrap().1, Cause::CloudFederationMismatch);
    // Every one unavailable: no credential at all.
    let unavailable = [
        "DefaultAzureCredential: failed to acquire a token.",
        "Attempted credentials:",
        "\tEnvironmentCredential: missing environment variable AZURE_TENANT_ID",
        "\tWorkloadIdentityCredential: no client ID specified. Check pod configuration or set ClientID in the options",
        "\tManagedIdentityCredential: no default identity is assigned to this resource",
    ]
    .join("\n");
    assert_eq!(
        read(&unavailable).unwrap(),
        (Classification::ServerConfig, Cause::CredentialSourceFailed)
    );
}

#[test]
fn texts_that_only_look_like_failures_are_not_read_as_failures() {
    for text in [
        // A successful curl: its TLS lines and its summary.
        "* SSL certificate verify ok.",
        "*  SSL certificate verify result: unable to get local issuer certificate (20), continuing anyway.",
        "curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 OpenSSL/3.0.11 zlib/1.2.13 brotli/1.0.9",
        "* Connected to 10.0.0.1 (10.0.0.1) port 6443 (#0)",
        // Numbers that are curl's codes elsewhere: a retry, a version, a port.
        "Retrying in 60s (attempt 6 of 28)",
        "libcurl/7.60.0 (35) build 51",
        "listening on :6443 (pid 60)",
        "kubectl wait: timed out waiting for the condition",
        "readinessProbe: {timeoutSeconds: 28}",
        "I0101 00:00:00.000000 1 log.go:245] http: TLS handshake error from 10.0.0.7:53818: EOF",
    ] {
        match read(text) {
            Err(ClassifyError::Unrecognised(_)) => {}
            Ok((class, _)) => assert!(
                !matches!(
                    class,
                    Classification::TlsError | Classification::NetworkError
                ),
                "{text}: read as {class:?}"
            ),
            Err(e) => panic!("{text}: {e:?}"),
        }
    }
}

/// IAM Credentials' refusal to mint a token for the workload, as
/// golang.org/x/oauth2/google quotes it: its 403 is Google's, never RBAC's.
#[test]
fn a_google_api_s_refusal_is_the_cloud_s_whatever_its_message() {
    let text = r#"oauth2/google: unable to generate access token: Post "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/x@p.iam.gserviceaccount.com:generateAccessToken": status code 403: {"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#;
    assert_eq!(read(text).unwrap().1, Cause::CloudCallerDenied);
}
