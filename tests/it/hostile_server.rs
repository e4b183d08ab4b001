//! The test API server misbehaving on purpose (the hostile modes of
//! `support::apiserver::Mode`) against probe, doctor, skew and verify: bodies
//! that come one byte a second, a 300 KB reason and a body over the bound,
//! thousands of endpoint addresses, a certificate not yet valid, a malformed
//! `Date`, a cross-origin `jwks_uri` that wants credentials. Timing is only
//! ever a generous guard against hangs (the child is killed past it); the
//! assertions are on exit codes, output and what the server saw.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config, Mode};
use crate::support::pki::Pki;
use crate::support::{BASE, base, fresh_token};

/// Kills a child that runs longer (a hang, or quadratic work).
const GUARD: Duration = Duration::from_secs(40);

fn bin(dir: &Path) -> assert_cmd::Command {
    let mut cmd = crate::support::satoken();
    cmd.env("NO_COLOR", "1")
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-sa"))
        .timeout(GUARD);
    cmd
}

/// The binary with `args` (then `--cacert CA`), the fresh token on stdin.
fn run(dir: &Path, args: &[&str], ca: Option<&Path>) -> Output {
    let mut cmd = bin(dir);
    cmd.args(args);
    if let Some(ca) = ca {
        cmd.arg("--cacert").arg(ca);
    }
    cmd.write_stdin(fresh_token()).output().unwrap()
}

/// `sub --now BASE -f - -s URL extra… --cacert CA` with the fresh token on stdin.
fn against(sub: &str, dir: &Path, server: &ApiServer, ca: &Path, extra: &[&str]) -> Output {
    let url = server.url();
    let mut args = vec![sub, "--now", BASE, "-f", "-", "-s", &url];
    args.extend(extra);
    run(dir, &args, Some(ca))
}

fn start(mode: Mode) -> (tempfile::TempDir, Pki, std::path::PathBuf, ApiServer) {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-hostile-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let mut config = Config::new(base());
    config.mode = mode;
    let server = ApiServer::start(config, &pki);
    (dir, pki, ca, server)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One byte a second used to keep a request alive for as long as the body
/// lasted (the timeout restarted on every read): now each request, body
/// included, ends at `--request-timeout`, and a server that cannot answer in
/// time is unreachable (exit 3).
#[test]
fn a_body_sent_one_byte_a_second_is_cut_off_at_the_request_timeout() {
    let (dir, _pki, ca, server) = start(Mode::DripBody(Duration::from_secs(1)));
    for sub in ["probe", "doctor"] {
        let out = against(sub, dir.path(), &server, &ca, &["--request-timeout", "2s"]);
        assert_eq!(out.status.code(), Some(3), "{sub}: {}", stderr(&out));
    }
    let out = run(
        dir.path(),
        &[
            "skew",
            "--now",
            BASE,
            "-s",
            &server.url(),
            "--request-timeout",
            "2s",
        ],
        Some(&ca),
    );
    assert_eq!(out.status.code(), Some(3), "skew: {}", stderr(&out));
    let jwks = format!("{}/openid/v1/jwks", server.url());
    let out = run(
        dir.path(),
        &[
            "verify",
            "--now",
            BASE,
            "-f",
            "-",
            "--jwks",
            &jwks,
            "--request-timeout",
            "2s",
        ],
        Some(&ca),
    );
    assert_eq!(out.status.code(), Some(3), "verify: {}", stderr(&out));
    // Every command hung up on a body mid-way (the server notices at its next
    // byte, a second later at most).
    let waited = std::time::Instant::now();
    while server.cut_off() < 4 && waited.elapsed() < GUARD {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(server.cut_off() >= 4, "cut off {} bodies", server.cut_off());
}

/// A 300 KB Status reason (one unbroken word) used to cost the table
/// renderer minutes: the cell now shows its start and how much is left.
#[test]
fn a_300_kb_reason_renders_capped() {
    let (dir, _pki, ca, server) = start(Mode::HugeReason(300 * 1024));
    for sub in ["probe", "doctor"] {
        let out = against(sub, dir.path(), &server, &ca, &[]);
        assert_eq!(out.status.code(), Some(1), "{sub}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("more bytes)"), "{sub}: {text}");
        assert!(
            text.len() < 100 * 1024,
            "{sub}: {} bytes of table",
            text.len()
        );
    }
}

/// A 401 whose body is over the 1 MiB bound keeps its status: the answer is
/// a 401 (exit 1), not a network error, and an unread body is no sign that
/// something other than kube-apiserver answered.
#[test]
fn a_401_with_a_body_over_the_bound_is_still_a_401() {
    let (dir, _pki, ca, server) = start(Mode::HugeReason(2 * 1024 * 1024));
    let out = against("probe", dir.path(), &server, &ca, &["-o", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["servers"][0]["diagnosis"]["classification"], "401-invalid-token",
        "{json:#}"
    );
}

/// Thousands of endpoint addresses: the probe takes the first 32, says how
/// many it left out, and stays within a small pool of threads.
#[test]
fn all_endpoints_caps_the_replicas_it_probes() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-many-replicas-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let admin = "admin-static-token-many-replicas";
    let server = ApiServer::start(Config::new(base()).admin(admin), &pki);
    // Closed loopback ports: each replica is refused at once.
    let ports: Vec<u16> = (21_000..24_000).collect();
    server.set_endpoints(&ports);
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: {}\n    certificate-authority: {}\ncontexts:\n- name: lab\n  context: {{cluster: lab, user: admin}}\nusers:\n- name: admin\n  user:\n    token: {admin}\n",
            server.url(),
            ca.display()
        ),
    )
    .unwrap();
    for format in ["json", "table"] {
        let out = bin(dir.path())
            .args([
                "probe",
                "--now",
                BASE,
                "-o",
                format,
                "-f",
                "-",
                "--all-endpoints",
            ])
            .args([
                "--use-kubeconfig-credentials",
                "--request-timeout",
                "2s",
                "--kubeconfig",
            ])
            .arg(&kubeconfig)
            .write_stdin(fresh_token())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        if format == "json" {
            let json: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(json["endpoints"]["addresses"].as_array().unwrap().len(), 32);
            assert_eq!(json["endpoints"]["omitted_addresses"], 3000 - 32);
            assert_eq!(json["servers"].as_array().unwrap().len(), 32);
        } else {
            assert!(text.contains("2968 more listed, not probed"), "{text}");
        }
    }
}

/// A certificate whose validity starts in the future is `not-yet-valid`,
/// not `expired`.
#[test]
fn a_certificate_not_yet_valid_is_not_called_expired() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::not_yet_valid("satoken-future-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let server = ApiServer::start(Config::new(base()), &pki);
    let out = against("probe", dir.path(), &server, &ca, &["-o", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["servers"][0]["tls"]["reason"], "not-yet-valid",
        "{json:#}"
    );
    let text = json.to_string();
    assert!(text.contains("tls-certificate-not-yet-valid"), "{json:#}");
    assert!(!text.contains("tls-certificate-expired"), "{json:#}");
    assert!(!server.saw_authorization());
}

/// A `Date` header that is not an HTTP date is reported as such, not as a
/// missing one.
#[test]
fn a_malformed_date_header_is_not_called_missing() {
    let (dir, _pki, ca, server) = start(Mode::DateHeader("yesterday at noon".to_owned()));
    let out = run(
        dir.path(),
        &["skew", "--now", BASE, "-o", "json", "-s", &server.url()],
        Some(&ca),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not an HTTP date"), "{text}");
    assert!(text.contains("yesterday at noon"), "{text}");
    assert!(!text.contains("without a Date header"), "{text}");
}

/// The same for probe's diagnosis of a rejected token: the clock it judged
/// the token's times on is this machine's because the server's `Date` is not
/// an HTTP date, not because there was none.
#[test]
fn probe_names_a_malformed_date_header_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-hostile-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let mut config = Config::new(base());
    config.mode = Mode::DateHeader("yesterday at noon".to_owned());
    config.audiences = vec!["https://elsewhere.example".to_owned()];
    let server = ApiServer::start(config, &pki);
    let out = against("probe", dir.path(), &server, &ca, &["-o", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Date header is not an HTTP date"), "{text}");
    assert!(!text.contains("sent no Date header"), "{text}");
}

/// A discovery document whose `jwks_uri` is on another origin that answers
/// 401: no token went there, so "the token was rejected too" would be wrong.
#[test]
fn a_cross_origin_jwks_uri_wanting_credentials_does_not_blame_the_token() {
    let (dir, pki, ca, keys) = start(Mode::AuthProxy);
    let mut config = Config::new(base());
    config.anonymous_discovery = true;
    config.jwks_uri = Some(format!("{}/openid/v1/jwks", keys.url()));
    let issuer = ApiServer::start(config, &pki);
    let url = format!("{}/.well-known/openid-configuration", issuer.url());
    let out = run(
        dir.path(),
        &["verify", "--now", BASE, "-f", "-", "--jwks", &url],
        Some(&ca),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("HTTP 401"), "{err}");
    assert!(!err.contains("rejected too"), "{err}");
    assert!(err.contains("not sent"), "{err}");
    assert!(!keys.saw_authorization());
}

/// `--allow-plain-http` is for servers without TLS: it no longer demands a CA.
#[test]
fn allow_plain_http_needs_no_ca() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        &[
            "skew",
            "--now",
            BASE,
            "-s",
            "http://127.0.0.1:1",
            "--allow-plain-http",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!stderr(&out).contains("no CA"), "{}", stderr(&out));
    // An https:// server still needs one, and says so before connecting.
    let out = run(
        dir.path(),
        &[
            "skew",
            "--now",
            BASE,
            "-s",
            "https://127.0.0.1:1",
            "--allow-plain-http",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no CA to verify"), "{}", stderr(&out));
}

/// Every hostile mode, against probe and doctor in each format: an answer
/// (exit 0, 1 or 3; never 2, a panic or a hang) and never the token in the
/// output. What each should be diagnosed as is the diagnosis engine's to say;
/// this only holds the floor.
#[test]
fn every_hostile_mode_gets_an_answer_and_never_the_token_printed() {
    let token = fresh_token();
    let signature = token.rsplit('.').next().unwrap().to_owned();
    for mode in [
        Mode::Echo,
        Mode::NginxWelcome,
        Mode::AuthProxy,
        Mode::WafBlock,
        Mode::HugeReason(64 * 1024),
        Mode::ForeignVersion,
        Mode::GarbageReview,
        Mode::StatusIn201,
        Mode::NoSelfSubjectReview,
        Mode::DenySelfSubjectReview,
        Mode::DateHeader("Tue, 99 Foo 2026 25:61:61 GMT".to_owned()),
    ] {
        let (dir, _pki, ca, server) = start(mode.clone());
        for sub in ["probe", "doctor"] {
            for format in ["table", "json", "yaml"] {
                let mut extra = vec!["-o", format];
                if sub == "probe" {
                    extra.push("--anonymous");
                }
                let out = against(sub, dir.path(), &server, &ca, &extra);
                let code = out.status.code();
                assert!(
                    matches!(code, Some(0 | 1 | 3)),
                    "{mode:?} {sub} -o {format}: {code:?} {}",
                    stderr(&out)
                );
                for stream in [&out.stdout, &out.stderr] {
                    let text = String::from_utf8_lossy(stream);
                    assert!(
                        !text.contains(&signature),
                        "{mode:?} {sub} -o {format}: {text}"
                    );
                }
            }
        }
    }
}

/// The causes anywhere in a report (the chosen one and every alternative).
fn causes(json: &Value) -> Vec<String> {
    fn walk(value: &Value, into: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    match (key.as_str(), v) {
                        ("cause", Value::String(c)) => into.push(c.clone()),
                        _ => walk(v, into),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, into)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(json, &mut found);
    found
}

/// Causes that blame the token, its service account or RBAC: never the
/// verdict on an answer that kube-apiserver did not give.
const TOKEN_VERDICTS: [&str; 7] = [
    "service-account-recreated",
    "service-account-deleted",
    "pod-deleted",
    "stale-token",
    "rbac-denied",
    "expired",
    "key-mismatch",
];

/// Something other than kube-apiserver answering (an nginx welcome page on
/// every path, an authenticating proxy's HTML 401 with `WWW-Authenticate:
/// Basic`, a WAF's HTML 403, a failure Status inside a 201): probe says so
/// and does not turn it into a verdict on the token (no "ok", no token or
/// RBAC cause), exit 3; doctor does not pass.
#[test]
fn answers_that_are_not_kube_apiservers_give_no_token_verdict() {
    for mode in [
        Mode::NginxWelcome,
        Mode::AuthProxy,
        Mode::WafBlock,
        Mode::StatusIn201,
    ] {
        let (dir, _pki, ca, server) = start(mode.clone());
        let out = against("probe", dir.path(), &server, &ca, &["-o", "json"]);
        assert_eq!(out.status.code(), Some(3), "{mode:?}: {}", stderr(&out));
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let diagnosis = &json["servers"][0]["diagnosis"];
        assert_eq!(
            diagnosis["classification"], "not-kubernetes",
            "{mode:?}: {json:#}"
        );
        assert_eq!(diagnosis["cause"], "not-api-server", "{mode:?}: {json:#}");
        let found = causes(&json);
        for verdict in TOKEN_VERDICTS {
            assert!(!found.iter().any(|c| c == verdict), "{mode:?}: {found:?}");
        }
        let out = against("doctor", dir.path(), &server, &ca, &["-o", "json"]);
        assert_ne!(out.status.code(), Some(0), "{mode:?}: {}", stderr(&out));
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_ne!(json["verdict"], "healthy", "{mode:?}: {json:#}");
        let found = causes(&json);
        for verdict in TOKEN_VERDICTS {
            assert!(!found.iter().any(|c| c == verdict), "{mode:?}: {found:?}");
        }
    }
}

/// RBAC denying `create selfsubjectreviews` (the default grant trimmed): the
/// 403 names the user, so the token was accepted; neither probe nor doctor
/// calls that a broken token or rbac-denied.
#[test]
fn a_selfsubjectreview_403_naming_the_user_means_authenticated() {
    let (dir, _pki, ca, server) = start(Mode::DenySelfSubjectReview);
    let out = against("probe", dir.path(), &server, &ca, &["-o", "json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnosis = &json["servers"][0]["diagnosis"];
    assert_eq!(out.status.code(), Some(0), "{json:#}");
    assert_eq!(diagnosis["classification"], "ok", "{json:#}");
    assert!(
        !causes(&json).iter().any(|c| c == "rbac-denied"),
        "{json:#}"
    );
    let out = against("doctor", dir.path(), &server, &ca, &["-o", "json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{json:#}");
    assert!(
        !causes(&json).iter().any(|c| c == "rbac-denied"),
        "{json:#}"
    );
    // Who it is authenticated as is the user the 403 named.
    let table = against("doctor", dir.path(), &server, &ca, &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(!text.contains("authenticated as ?"), "{text}");
    assert!(
        text.contains("system:serviceaccount:debug-lab:reporter"),
        "{text}"
    );
}
