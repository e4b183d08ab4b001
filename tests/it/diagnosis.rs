//! The one diagnosis engine from outside: the same failure seen through
//! `probe` (the test API server), `classify` (the server's answer as a client
//! prints it, its log line, an audit event, a TokenReview) and `doctor` gives
//! the same cause, the same confidence and the same next steps; and the wrong
//! answers the two engines it replaced used to give (each test failed then).

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use crate::support::apiserver::{ApiServer, Config, Object, UNAUTHORIZED_BODY};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE};
use crate::support::{BASE, base, fresh_token, sa_dir};

const ADMIN: &str = "admin-token-for-the-kubeconfig";

/// What must agree: the class, the cause, the confidence, and every next step
/// (its words with numbers blanked, since a wait of 30 s measured one way is
/// 31 s another; its command, where a placeholder matches any value).
#[derive(Debug, Clone)]
struct Seen {
    via: String,
    classification: String,
    cause: String,
    confidence: String,
    next: Vec<(String, Option<Vec<String>>)>,
}

fn seen(via: &str, d: &Value) -> Seen {
    let digits = regex::Regex::new(r"\d+").unwrap();
    Seen {
        via: via.to_owned(),
        classification: d["classification"].as_str().unwrap_or("").to_owned(),
        cause: d["cause"].as_str().unwrap_or("").to_owned(),
        confidence: d["confidence"].as_str().unwrap_or("").to_owned(),
        next: d["next"]
            .as_array()
            .unwrap_or(&Vec::new())
            .iter()
            .map(|n| {
                let why = digits
                    .replace_all(n["why"].as_str().unwrap_or(""), "N")
                    .into_owned();
                let argv = n["command"]["argv"].as_array().map(|a| {
                    a.iter()
                        .map(|w| w.as_str().unwrap_or("").to_owned())
                        .collect()
                });
                (why, argv)
            })
            .collect(),
    }
}

/// A placeholder (all UPPERCASE letters, `_`, `:`, `/`) stands for any value.
fn word_matches(a: &str, b: &str) -> bool {
    let placeholder = |w: &str| {
        w.chars().any(|c| c.is_ascii_uppercase())
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || "_:/.".contains(c))
    };
    a == b || placeholder(a) || placeholder(b) || a.contains("SERVER") || b.contains("SERVER")
}

fn assert_consistent(views: &[Seen]) {
    let first = &views[0];
    for other in &views[1..] {
        let what = format!("{} vs {}", first.via, other.via);
        assert_eq!(
            (&first.classification, &first.cause, &first.confidence),
            (&other.classification, &other.cause, &other.confidence),
            "{what}"
        );
        assert_eq!(
            first.next.len(),
            other.next.len(),
            "{what}: next steps\n{:#?}\n{:#?}",
            first.next,
            other.next
        );
        for ((why_a, cmd_a), (why_b, cmd_b)) in first.next.iter().zip(&other.next) {
            assert_eq!(why_a, why_b, "{what}");
            match (cmd_a, cmd_b) {
                (Some(a), Some(b)) => {
                    assert_eq!(a.len(), b.len(), "{what}: {a:?} {b:?}");
                    assert!(
                        a.iter().zip(b).all(|(x, y)| word_matches(x, y)),
                        "{what}: {a:?} {b:?}"
                    );
                }
                (None, None) => {}
                _ => panic!("{what}: {cmd_a:?} {cmd_b:?}"),
            }
        }
    }
}

struct Lab {
    dir: tempfile::TempDir,
    pki: Pki,
    ca: std::path::PathBuf,
}

impl Lab {
    fn new() -> Lab {
        let dir = tempfile::tempdir().unwrap();
        let pki = Pki::new("engine-ca");
        let ca = pki.write_ca(dir.path(), "ca.crt");
        Lab { dir, pki, ca }
    }

    fn file(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    }

    fn kubeconfig(&self, server: &ApiServer) -> String {
        let ca =
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &self.pki.ca_pem);
        self.file(
            "kubeconfig",
            &format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\ncontexts:\n- name: lab\n  context: {{cluster: lab, user: admin, namespace: {NAMESPACE}}}\nusers:\n- name: admin\n  user:\n    token: {ADMIN}\n",
                server.url()
            ),
        )
    }

    /// `probe -o json`, the token on stdin.
    fn probe(&self, server: &ApiServer, extra: &[&str], token: &str) -> Value {
        let out = crate::support::satoken()
            .args(["probe", "-o", "json", "--now", BASE, "-f", "-", "-s"])
            .arg(server.url())
            .arg("--cacert")
            .arg(&self.ca)
            .args(extra)
            .write_stdin(token)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
    }

    /// `doctor -o json` as a pod runs it.
    fn doctor(&self, server: &ApiServer, token: &str, extra: &[&str]) -> Value {
        let sa = sa_dir(&self.pki, token);
        let out = crate::support::satoken_std()
            .stdin(std::process::Stdio::null())
            .env("KUBECTL_SATOKEN_SA_DIR", sa.path())
            .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", server.port().to_string())
            .args(["doctor", "-o", "json", "--now", BASE])
            .args(extra)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
    }

    /// `classify -o json` of `evidence`, with the token as a file.
    fn classify(&self, evidence: &str, token: &str, extra: &[&str]) -> Value {
        let token_file = self.file("token", token);
        let out = crate::support::satoken()
            .args([
                "classify",
                "-o",
                "json",
                "--now",
                BASE,
                "--token-file",
                &token_file,
            ])
            .args(extra)
            .write_stdin(evidence)
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(doc["results"].as_array().map(Vec::len), Some(1), "{doc}");
        doc["results"][0]["diagnosis"].clone()
    }
}

/// The `Date` the server sent with its answer to the SelfSubjectReview.
fn answered_at(probe: &Value) -> DateTime<Utc> {
    let date = probe["servers"][0]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "self-subject-review")
        .and_then(|r| r["date"].as_str())
        .expect("the server sent a Date");
    DateTime::parse_from_rfc3339(date).unwrap().to_utc()
}

/// The 401 as a client with headers shows it (curl -i, a Python client).
fn http_401(at: DateTime<Utc>) -> String {
    format!(
        "HTTP/1.1 401 Unauthorized\r\nAudit-Id: 7f3e2a1c-0000-4000-8000-000000000001\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\nDate: {}\r\nContent-Length: 129\r\n\r\n{UNAUTHORIZED_BODY}",
        at.format("%a, %d %b %Y %H:%M:%S GMT")
    )
}

/// The same 401 as an audit event (kube-apiserver audits failed
/// authentication at ResponseStarted, with an empty user).
fn audit_401(at: DateTime<Utc>) -> String {
    json!({
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
        "auditID": "7f3e2a1c-0000-4000-8000-000000000002", "stage": "ResponseStarted",
        "requestURI": "/apis/authentication.k8s.io/v1/selfsubjectreviews", "verb": "create",
        "user": {}, "sourceIPs": ["10.0.0.7"], "userAgent": "kubectl-satoken",
        "responseStatus": {"metadata": {}, "status": "Failure", "message": "Unauthorized",
            "reason": "Unauthorized", "code": 401},
        "requestReceivedTimestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        "stageTimestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
    })
    .to_string()
        + "\n"
}

/// The server's own account of its last 401, as a 1.33 structured log line.
fn log_line(server: &ApiServer, at: DateTime<Utc>) -> String {
    let reason = server
        .rejections()
        .last()
        .cloned()
        .expect("a 401 was logged");
    format!(
        "E{} 1 authentication.go:73] \"Unable to authenticate the request\" err=\"[invalid bearer token, {}]\"\n",
        at.format("%m%d %H:%M:%S%.6f"),
        reason.replace('"', "\\\"")
    )
}

/// The same reason in a TokenReview's status (what probe --token-review reads).
fn token_review(server: &ApiServer) -> String {
    let reason = server
        .rejections()
        .last()
        .cloned()
        .expect("a 401 was logged");
    json!({"kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": null}, "spec": {"token": "<redacted>"},
        "status": {"user": {}, "error": format!("[invalid bearer token, {reason}]")}})
    .to_string()
        + "\n"
}

/// A 401 whose cause is in the token's times: judged on the server's clock it
/// is `medium` everywhere (probe, doctor, the 401 with its headers, the audit
/// event); the server's own word is `high` everywhere (TokenReview, its log).
fn time_cause_is_the_same_everywhere(config: Config, token: &str, cause: &str) {
    let lab = Lab::new();
    let server = ApiServer::start(config.admin(ADMIN), &lab.pki);
    let probe = lab.probe(&server, &[], token);
    let at = answered_at(&probe);
    // The token probe and doctor sent, outside its window on the server's
    // measured clock: proven.
    let sent = [
        seen("probe", &probe["diagnosis"]),
        seen("doctor", &lab.doctor(&server, token, &[])["diagnosis"]),
    ];
    assert_eq!(sent[0].cause, cause);
    assert_eq!(sent[0].confidence, "high");
    assert_consistent(&sent);
    // The same token given beside pasted evidence may not be the one that
    // was sent: the same cause, inferred.
    let given = [
        seen(
            "classify 401 with headers",
            &lab.classify(&http_401(at), token, &[]),
        ),
        seen(
            "classify audit event",
            &lab.classify(&audit_401(at), token, &[]),
        ),
    ];
    assert_eq!(given[0].cause, cause);
    assert_eq!(given[0].confidence, "medium");
    assert_consistent(&given);
    let kc = lab.kubeconfig(&server);
    let reviewed = lab.probe(&server, &["--kubeconfig", &kc, "--token-review"], token);
    let authoritative = [
        seen("probe --token-review", &reviewed["diagnosis"]),
        seen(
            "classify log line",
            &lab.classify(&log_line(&server, at), token, &[]),
        ),
        seen(
            "classify TokenReview",
            &lab.classify(&token_review(&server), token, &[]),
        ),
    ];
    assert_eq!(authoritative[0].cause, cause);
    assert_eq!(authoritative[0].confidence, "high");
    assert_consistent(&authoritative);
}

#[test]
fn clock_skew_is_the_same_diagnosis_everywhere() {
    let mut config = Config::new(base());
    config.offset = TimeDelta::seconds(-90);
    // Minted at BASE on a clock 90 s ahead of this server's.
    let token = tokens::sign(&tokens::projected(base(), 3607));
    time_cause_is_the_same_everywhere(config, &token, "clock-skew");
}

#[test]
fn expiry_is_the_same_diagnosis_everywhere() {
    let token = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
    time_cause_is_the_same_everywhere(Config::new(base()), &token, "expired");
}

#[test]
fn a_recreated_service_account_is_the_same_diagnosis_everywhere() {
    let lab = Lab::new();
    let mut config = Config::new(base());
    config.recreate_service_account();
    let server = ApiServer::start(config.admin(ADMIN), &lab.pki);
    let token = fresh_token();
    let probe = lab.probe(&server, &[], &token);
    let at = answered_at(&probe);
    // A 401 alone does not say why: the same guesses, the same commands.
    let guesses = [
        seen("probe", &probe["diagnosis"]),
        seen("doctor", &lab.doctor(&server, &token, &[])["diagnosis"]),
        seen(
            "classify 401 with headers",
            &lab.classify(&http_401(at), &token, &[]),
        ),
        seen(
            "classify audit event",
            &lab.classify(&audit_401(at), &token, &[]),
        ),
    ];
    assert_eq!(guesses[0].cause, "unknown");
    assert_consistent(&guesses);
    let kc = lab.kubeconfig(&server);
    let views = [
        seen(
            "probe --token-review",
            &lab.probe(&server, &["--kubeconfig", &kc, "--token-review"], &token)["diagnosis"],
        ),
        seen(
            "probe reading the ServiceAccount",
            &lab.probe(
                &server,
                &["--kubeconfig", &kc, "--use-kubeconfig-credentials"],
                &token,
            )["diagnosis"],
        ),
        seen(
            "classify log line",
            &lab.classify(&log_line(&server, at), &token, &[]),
        ),
        seen(
            "classify TokenReview",
            &lab.classify(&token_review(&server), &token, &[]),
        ),
    ];
    assert_eq!(views[0].cause, "service-account-recreated");
    assert_eq!(views[0].confidence, "high");
    assert_consistent(&views);
}

#[test]
fn an_rbac_403_is_the_same_diagnosis_everywhere() {
    let lab = Lab::new();
    let server = ApiServer::start(Config::new(base()), &lab.pki);
    let token = fresh_token();
    let path = format!("/api/v1/namespaces/{NAMESPACE}/secrets");
    let probe = lab.probe(&server, &["--path", &path], &token);
    let message = probe["servers"][0]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "get")
        .and_then(|r| r["message"].as_str())
        .unwrap()
        .to_owned();
    let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": "Forbidden", "details": {"kind": "secrets"}, "code": 403});
    let views = [
        seen("probe", &probe["diagnosis"]),
        seen(
            "doctor",
            &lab.doctor(&server, &token, &["--path", &path])["diagnosis"],
        ),
        seen(
            "classify kubectl",
            &lab.classify(
                &format!("Error from server (Forbidden): {message}\n"),
                &token,
                &[],
            ),
        ),
        seen(
            "classify Status body",
            &lab.classify(&format!("{status}\n"), &token, &[]),
        ),
    ];
    assert_eq!(views[0].cause, "rbac-denied");
    // RBAC's refusal names no authorizer, and neither do some webhook
    // authorizers': medium, with the command that tells them apart.
    assert_eq!(views[0].confidence, "medium");
    assert_consistent(&views);
}

#[test]
fn a_token_that_does_not_arrive_is_the_same_diagnosis_everywhere() {
    let lab = Lab::new();
    let mut config = Config::new(base());
    config.strip_authorization = true;
    let server = ApiServer::start(config, &lab.pki);
    let token = fresh_token();
    let probe = lab.probe(&server, &[], &token);
    let message = probe["servers"][0]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "self-subject-review")
        .and_then(|r| r["message"].as_str())
        .unwrap()
        .to_owned();
    let views = [
        seen("probe", &probe["diagnosis"]),
        seen("doctor", &lab.doctor(&server, &token, &[])["diagnosis"]),
        seen(
            "classify kubectl",
            &lab.classify(
                &format!("Error from server (Forbidden): {message}\n"),
                &token,
                &[],
            ),
        ),
    ];
    assert_eq!(views[0].cause, "token-not-sent");
    assert_eq!(views[0].confidence, "high");
    assert_consistent(&views);
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(tokens::testdata(&format!("tokens/{name}"))).unwrap()
}

const NODE_UID: &str = "5b2e9d14-7c3a-4e6f-8a1b-0d9c2f4e6a85";
const NEW_NODE_UID: &str = "9c1d0e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f";

#[test]
fn invalidation_through_token_review_names_the_tokens_own_binding() {
    // "service account token has been invalidated" names no object: a
    // Secret-bound token lost its Secret, a node-bound one its Node.
    let lab = Lab::new();
    let server = ApiServer::start(Config::shop(base()).admin(ADMIN), &lab.pki);
    let kc = lab.kubeconfig(&server);
    for (fixture_name, cause) in [
        ("token-request-secret-bound.jwt", "secret-deleted"),
        ("token-request-node-bound.jwt", "node-deleted"),
    ] {
        let d = &lab.probe(
            &server,
            &["--kubeconfig", &kc, "--token-review"],
            &fixture(fixture_name),
        )["diagnosis"];
        assert_eq!(
            (d["cause"].as_str(), d["confidence"].as_str()),
            (Some(cause), Some("high")),
            "{fixture_name}: {d}"
        );
    }
}

#[test]
fn a_node_bound_token_reads_its_node() {
    let lab = Lab::new();
    let token = fixture("token-request-node-bound.jwt");
    // The Node is gone.
    let server = ApiServer::start(Config::shop(base()).admin(ADMIN), &lab.pki);
    let kc = lab.kubeconfig(&server);
    let probe = lab.probe(
        &server,
        &["--kubeconfig", &kc, "--use-kubeconfig-credentials"],
        &token,
    );
    let node = probe["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["kind"] == "node")
        .expect("the Node was read");
    assert_eq!(node["state"], "missing");
    assert_eq!(probe["diagnosis"]["cause"], "node-deleted", "{probe}");
    assert_eq!(probe["diagnosis"]["confidence"], "high");
    // The Node left and joined again under the same name.
    let mut config = Config::shop(base()).admin(ADMIN);
    config.objects.push(Object::node("node-a", NEW_NODE_UID));
    let server = ApiServer::start(config, &lab.pki);
    let kc = lab.kubeconfig(&server);
    let probe = lab.probe(
        &server,
        &["--kubeconfig", &kc, "--use-kubeconfig-credentials"],
        &token,
    );
    let d = &probe["diagnosis"];
    assert_eq!(d["cause"], "node-recreated", "{d}");
    assert_eq!(d["confidence"], "high");
    let evidence = crate::support::diagnosis::evidence(d);
    assert!(
        evidence.contains(NODE_UID) && evidence.contains(NEW_NODE_UID),
        "{evidence}"
    );
    // And the node that is still there rules both out.
    let mut config = Config::shop(base()).admin(ADMIN);
    config.objects.push(Object::node("node-a", NODE_UID));
    let server = ApiServer::start(config, &lab.pki);
    let kc = lab.kubeconfig(&server);
    let probe = lab.probe(
        &server,
        &["--kubeconfig", &kc, "--use-kubeconfig-credentials"],
        &token,
    );
    assert_eq!(probe["diagnosis"]["classification"], "ok", "{probe}");
}

#[test]
fn a_subresource_is_rechecked_with_the_subresource_flag() {
    let lab = Lab::new();
    let server = ApiServer::start(Config::new(base()), &lab.pki);
    let probe = lab.probe(&server, &crate::support::GET_POD_LOG, &fresh_token());
    let commands = crate::support::diagnosis::commands(&probe["diagnosis"]);
    assert_eq!(
        commands[0],
        format!(
            "kubectl auth can-i get pods/{} --subresource=log -n {NAMESPACE} --as=system:serviceaccount:{NAMESPACE}:{}",
            tokens::POD,
            tokens::SA
        )
    );
    assert!(!commands[0].contains("pods/log/"), "{commands:?}");
}

#[test]
fn doctor_names_one_key_cause_at_one_confidence() {
    // The keys step and the probe both see the rotated key: one candidate.
    let lab = Lab::new();
    let mut config = Config::new(base());
    config.kids = Some(vec![tokens::ES256_KID.to_owned()]);
    config.anonymous_discovery = true;
    let server = ApiServer::start(config, &lab.pki);
    let doctor = lab.doctor(&server, &fresh_token(), &[]);
    let d = &doctor["diagnosis"];
    assert_eq!(d["cause"], "key-mismatch", "{d}");
    assert_eq!(d["confidence"], "high");
    let causes = crate::support::diagnosis::causes(d);
    assert_eq!(
        causes.iter().filter(|c| *c == "key-mismatch").count(),
        1,
        "{causes:?}"
    );
}

/// Rules read the typed facts extraction made; none of them matches text, in
/// any form: a string or char literal (or a wording from the vocabulary)
/// handed to a `str` method, compared with `==`/`!=`, or matched as a pattern,
/// and no regex. Their unit tests (under `#[cfg(test)]`) may check the words
/// they print. Read with syn, so wrapped lines and subfolders are seen.
#[test]
fn rules_match_no_strings() {
    let found = scan(
        std::path::Path::new("src/diagnosis/rules"),
        |_| false,
        |file| {
            let mut guard = StringGuard::default();
            syn::visit::visit_file(&mut guard, file);
            guard.found
        },
    );
    assert!(
        found.is_empty(),
        "rules matching text:\n{}",
        found.join("\n")
    );
}

/// What `guard` finds in each Rust file under `dir` but those `skip` names,
/// each finding prefixed with its file.
pub(crate) fn scan(
    dir: &std::path::Path,
    skip: impl Fn(&std::path::Path) -> bool,
    guard: impl Fn(&syn::File) -> Vec<String>,
) -> Vec<String> {
    let mut found = Vec::new();
    for path in rust_files(dir).into_iter().filter(|p| !skip(p)) {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        found.extend(
            guard(&file)
                .into_iter()
                .map(|f| format!("{}: {f}", path.display())),
        );
    }
    found
}

/// The guard's own cases: each form it must see, and what it must let pass.
#[test]
fn the_string_guard_sees_every_form() {
    let flags = |code: &str| {
        let mut guard = StringGuard::default();
        syn::visit::visit_file(&mut guard, &syn::parse_file(code).unwrap());
        guard.found.len()
    };
    for code in [
        r#"fn f(s: &str) -> bool { s.contains("x") }"#,
        r#"fn f(s: &str) -> bool { s
            .starts_with(
                "wrapped",
            ) }"#,
        r#"fn f(s: &str) -> bool { s == "all" }"#,
        r#"fn f(s: &str) -> bool { "all" != s }"#,
        r#"fn f(s: &str) -> bool { s.ends_with(wordings::X) }"#,
        r#"fn f(s: &str) -> bool { s == crate::vocabulary::Y }"#,
        r#"fn f(s: &str) -> u8 { match s { "a" => 1, _ => 0 } }"#,
        r#"fn f(s: &str) -> bool { matches!(s, "a" | "b") }"#,
        r#"fn f(a: &A) -> bool { matches!(a, A::H(h) if h.service == wordings::G) }"#,
        r#"fn f(s: &str) -> Option<&str> { s.strip_prefix("p") }"#,
        r#"fn f(s: &str) -> Option<(&str, &str)> { s.split_once('/') }"#,
        r#"fn f() { let _ = Regex::new("x"); }"#,
        r#"mod inner { fn f(s: &str) -> bool { s.eq_ignore_ascii_case("x") } }"#,
    ] {
        assert_eq!(flags(code), 1, "not seen: {code}");
    }
    for code in [
        r#"fn f() -> String { format!("{} is {}", 1, "x") }"#,
        r#"fn f(n: u16) -> bool { n == 401 }"#,
        r#"fn f(s: &[u8]) -> bool { s.contains(&1) }"#,
        r#"#[cfg(test)] mod tests { fn f(s: &str) -> bool { s.contains("x") } }"#,
        r#"fn f(c: Cause) -> bool { c == Cause::Expired }"#,
    ] {
        assert_eq!(flags(code), 0, "flagged: {code}");
    }
}

fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The `Visit` methods that pass over test code: `#[cfg(test)]` modules
/// and `#[test]` functions.
macro_rules! non_test_code {
    () => {
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !crate::diagnosis::is_test_only(&item.attrs) {
                syn::visit::visit_item_mod(self, item);
            }
        }

        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            if !crate::diagnosis::is_test_only(&item.attrs) {
                syn::visit::visit_item_fn(self, item);
            }
        }
    };
}
pub(crate) use non_test_code;

/// Finds text matching in non-test code.
#[derive(Default)]
struct StringGuard {
    found: Vec<String>,
}

impl StringGuard {
    const STR_METHODS: &[&str] = &[
        "contains",
        "starts_with",
        "ends_with",
        "find",
        "rfind",
        "split",
        "rsplit",
        "split_once",
        "rsplit_once",
        "strip_prefix",
        "strip_suffix",
        "matches",
        "match_indices",
        "eq_ignore_ascii_case",
        "trim_start_matches",
        "trim_end_matches",
        "trim_matches",
        "replace",
    ];

    /// A literal string or char, or a wording of the vocabulary, however
    /// wrapped in references, parentheses or groups.
    fn is_text(expr: &syn::Expr) -> bool {
        match expr {
            syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Str(_) | syn::Lit::Char(_)),
            syn::Expr::Reference(r) => Self::is_text(&r.expr),
            syn::Expr::Paren(p) => Self::is_text(&p.expr),
            syn::Expr::Group(g) => Self::is_text(&g.expr),
            syn::Expr::Path(p) => p
                .path
                .segments
                .iter()
                .any(|s| s.ident == "wordings" || s.ident == "vocabulary"),
            _ => false,
        }
    }

    fn pattern_has_text(pat: &syn::Pat) -> bool {
        match pat {
            syn::Pat::Lit(l) => matches!(l.lit, syn::Lit::Str(_) | syn::Lit::Char(_)),
            syn::Pat::Or(o) => o.cases.iter().any(Self::pattern_has_text),
            syn::Pat::Reference(r) => Self::pattern_has_text(&r.pat),
            syn::Pat::Paren(p) => Self::pattern_has_text(&p.pat),
            syn::Pat::Tuple(t) => t.elems.iter().any(Self::pattern_has_text),
            syn::Pat::TupleStruct(t) => t.elems.iter().any(Self::pattern_has_text),
            syn::Pat::Slice(s) => s.elems.iter().any(Self::pattern_has_text),
            syn::Pat::Ident(i) => i
                .subpat
                .as_ref()
                .is_some_and(|(_, p)| Self::pattern_has_text(p)),
            _ => false,
        }
    }

    fn note(&mut self, what: &str, tokens: &dyn quote::ToTokens) {
        let text = tokens.to_token_stream().to_string();
        let short: String = text.chars().take(100).collect();
        self.found.push(format!("{what}: {short}"));
    }
}

impl<'ast> syn::visit::Visit<'ast> for StringGuard {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    non_test_code!();

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        if Self::STR_METHODS.contains(&name.as_str()) && call.args.iter().any(Self::is_text) {
            self.note(&format!(".{name}(text)"), call);
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_binary(&mut self, bin: &'ast syn::ExprBinary) {
        let compares = matches!(bin.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_));
        if compares && (Self::is_text(&bin.left) || Self::is_text(&bin.right)) {
            self.note("compared with text", bin);
        }
        syn::visit::visit_expr_binary(self, bin);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if Self::pattern_has_text(&arm.pat) {
            self.note("matched against text", &arm.pat);
        }
        syn::visit::visit_arm(self, arm);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // `matches!(expr, pattern if guard)`: its parts are code like any other.
        if mac.path.is_ident("matches")
            && let Ok((expr, pat, guard)) = mac.parse_body_with(|input: syn::parse::ParseStream| {
                let expr: syn::Expr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                let guard = match input.parse::<Option<syn::Token![if]>>()? {
                    Some(_) => Some(input.parse::<syn::Expr>()?),
                    None => None,
                };
                input.parse::<Option<syn::Token![,]>>()?;
                Ok((expr, pat, guard))
            })
        {
            if Self::pattern_has_text(&pat) {
                self.note("matches!(text)", mac);
            }
            syn::visit::visit_expr(self, &expr);
            if let Some(guard) = &guard {
                syn::visit::visit_expr(self, guard);
            }
        }
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func {
            let names: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if names.ends_with(&["Regex".to_owned(), "new".to_owned()]) {
                self.note("Regex::new", call);
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

pub(crate) fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg")
                && a.parse_args::<syn::Meta>()
                    .is_ok_and(|m| m.path().is_ident("test")))
    })
}

/// The facts are the leaf the rules stand on: the facts module (and its
/// submodules) names nothing of extraction, the rules, the registry, the
/// merge or policy, classify, audit, probe or report, in a `use` or in a path
/// inside code. What it may name is listed here, each for a reason.
#[test]
fn the_facts_import_nothing_above_them() {
    // Leaves beneath the facts: the producers' words, the token and its
    // secret, wire helpers, times.
    const BENEATH: &[&str] = &["vocabulary", "token", "secret", "wire", "timefmt"];
    // Sibling leaves of the diagnosis: an answer's class, a fact's words.
    const SIBLINGS: &[&str] = &["classification", "support", FACTS];
    const FACTS: &str = "facts";
    let root = std::path::Path::new("src/diagnosis");
    let mut files = vec![(root.join(format!("{FACTS}.rs")), 1)];
    if root.join(FACTS).is_dir() {
        files.extend(rust_files(&root.join(FACTS)).into_iter().map(|p| (p, 2)));
    }
    let mut found = Vec::new();
    for (path, depth) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut paths = ModulePaths::default();
        syn::visit::visit_file(&mut paths, &syn::parse_file(&text).unwrap());
        for segments in paths.found {
            // Resolve to the crate's module: `super` climbs from the file's
            // module (diagnosis::facts is one below diagnosis).
            let (top, under_diagnosis) = match segments.first().map(String::as_str) {
                Some("crate") => (segments.get(1).cloned(), segments.get(2).cloned()),
                Some("super") => {
                    let ups = segments.iter().take_while(|s| *s == "super").count();
                    let rest = segments.get(ups).cloned();
                    match depth - ups.min(depth) {
                        0 => (Some("diagnosis".to_owned()), rest),
                        _ => (Some("diagnosis".to_owned()), Some(FACTS.to_owned())),
                    }
                }
                _ => continue,
            };
            let allowed = match (top.as_deref(), under_diagnosis.as_deref()) {
                (Some("diagnosis"), Some(m)) => SIBLINGS.contains(&m),
                (Some(m), _) => BENEATH.contains(&m),
                _ => false,
            };
            if !allowed {
                found.push(format!("{}: {}", path.display(), segments.join("::")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the facts name what stands above them:\n{}",
        found.join("\n")
    );
}

/// Every `crate::…`/`super::…` path of non-test code: in `use` trees and in
/// code.
#[derive(Default)]
struct ModulePaths {
    found: Vec<Vec<String>>,
}

impl<'ast> syn::visit::Visit<'ast> for ModulePaths {
    non_test_code!();

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        fn walk(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
            match tree {
                syn::UseTree::Path(p) => {
                    prefix.push(p.ident.to_string());
                    walk(&p.tree, prefix, out);
                    prefix.pop();
                }
                syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix, out)),
                syn::UseTree::Name(n) => out.push([&prefix[..], &[n.ident.to_string()]].concat()),
                syn::UseTree::Rename(r) => out.push([&prefix[..], &[r.ident.to_string()]].concat()),
                syn::UseTree::Glob(_) => out.push(prefix.clone()),
            }
        }
        if !is_test_only(&item.attrs) {
            walk(&item.tree, &mut Vec::new(), &mut self.found);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments
            .first()
            .is_some_and(|s| s == "crate" || s == "super")
        {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }
}
