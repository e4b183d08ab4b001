//! `probe` against the test API server with the cluster in view: kubeconfig,
//! `--all-endpoints`, `--token-review` in two version wordings, keys, bindings,
//! and confidence that rises with the authority of the source.
//!
//! Over 800 lines: each test builds its own cluster; they share the helpers
//! at the top.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use base64::Engine as _;
use chrono::TimeDelta;
use serde_json::{Value, json};

use crate::support::apiserver::{ApiServer, Config, Object, Wording};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE, RECREATED_SA_UID, SA_UID};
use crate::support::{BASE, base, fresh_token};

const ADMIN: &str = "admin-static-token-0123456789";
use crate::support::tokens::ES256_KID;
const NEW_UID: &str = RECREATED_SA_UID;

struct Run {
    code: i32,
    json: Value,
    stderr: String,
}

impl Run {
    fn cause(&self) -> &str {
        self.json["diagnosis"]["cause"].as_str().unwrap_or("")
    }
    fn confidence_of(&self, cause: &str) -> Option<String> {
        crate::support::diagnosis::candidate(&self.json["diagnosis"], cause)
            .map(|c| c["confidence"].as_str().unwrap().to_owned())
    }
    fn text(&self) -> String {
        self.json["diagnosis"].to_string()
    }
}

/// A kubeconfig for `server` with an inline CA and the admin token user.
pub(crate) fn kubeconfig(dir: &Path, server: &ApiServer, pki: &Pki, token: &str) -> PathBuf {
    let ca = base64::engine::general_purpose::STANDARD.encode(&pki.ca_pem);
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\ncontexts:\n- name: lab\n  context: {{cluster: lab, user: admin, namespace: {NAMESPACE}}}\nusers:\n- name: admin\n  user:\n    token: {token}\n",
            server.url()
        ),
    )
    .unwrap();
    path
}

fn command(dir: &Path) -> Command {
    let mut cmd = crate::support::satoken();
    cmd.env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env_remove("KUBECONFIG")
        .env("HOME", dir.join("no-home"))
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-such-sa-dir"))
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(30));
    cmd
}

/// probe --all-endpoints through the kubeconfig `kc`, with its credentials.
fn all_endpoints(dir: &Path, kc: &Path) -> Run {
    run(
        command(dir),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--all-endpoints",
            "--use-kubeconfig-credentials",
        ],
        &fresh_token(),
    )
}

fn run(mut cmd: Command, args: &[&str], token: &str) -> Run {
    let output = cmd
        .args(["probe", "-o", "json", "--now", BASE, "-f", "-"])
        .args(args)
        .write_stdin(token.to_owned())
        .output()
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        json: serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// One server, probed through a kubeconfig with the admin token.
fn probe_with(config: Config, args: &[&str], token: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("cluster-ca");
    let server = ApiServer::start(config.admin(ADMIN), &pki);
    let kc = kubeconfig(dir.path(), &server, &pki, ADMIN);
    let mut all = vec!["--kubeconfig", kc.to_str().unwrap()];
    all.extend_from_slice(args);
    let r = run(command(dir.path()), &all, token);
    // The token under test never went anywhere but this verified server, and
    // the kubeconfig's token was only sent when asked for.
    if !args.contains(&"--use-kubeconfig-credentials") && !args.contains(&"--token-review") {
        assert!(
            !server
                .seen()
                .iter()
                .any(|s| s.header("authorization") == Some(&format!("Bearer {ADMIN}"))),
        );
    }
    r
}

#[test]
fn kubeconfig_inline_ca_file_path_two_contexts_list_and_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let pki_a = Pki::new("ca-a");
    // B's certificate names only kubernetes.default.svc: reachable by IP only
    // through the kubeconfig's tls-server-name.
    let pki_b = Pki::custom("ca-b", &["kubernetes.default.svc"], false);
    let a = ApiServer::start(Config::new(base()), &pki_a);
    let b = ApiServer::start(Config::new(base()), &pki_b);
    std::fs::create_dir_all(dir.path().join("one")).unwrap();
    std::fs::create_dir_all(dir.path().join("two/pki")).unwrap();
    pki_b.write_ca(&dir.path().join("two/pki"), "ca-b.crt");
    let ca_a = base64::engine::general_purpose::STANDARD.encode(&pki_a.ca_pem);
    let one = dir.path().join("one/config");
    std::fs::write(&one, format!("current-context: ctx-a\nclusters:\n- name: a\n  cluster:\n    server: {}\n    certificate-authority-data: {ca_a}\ncontexts:\n- name: ctx-a\n  context: {{cluster: a, namespace: ns-a}}\n- name: ctx-b\n  context: {{cluster: b, namespace: ns-b}}\n", a.url())).unwrap();
    let two = dir.path().join("two/config");
    // A shadowed cluster a (first file wins), cluster b with a CA path relative to this file.
    std::fs::write(&two, format!("current-context: ctx-b\nclusters:\n- name: a\n  cluster: {{server: 'https://127.0.0.1:1'}}\n- name: b\n  cluster:\n    server: {}\n    certificate-authority: pki/ca-b.crt\n    tls-server-name: kubernetes.default.svc\n", b.url())).unwrap();
    let list = format!("{}:{}", one.display(), two.display());
    let with_list = |args: &[&str]| {
        let mut cmd = command(dir.path());
        cmd.env("KUBECONFIG", &list);
        run(cmd, args, &fresh_token())
    };
    let r = with_list(&["--verb", "get", "--resource", "pods"]);
    assert_eq!(r.json["servers"][0]["url"], a.url(), "{}", r.stderr);
    assert_eq!(r.json["servers"][0]["tls"]["verified"], true);
    assert_eq!(r.json["kubeconfig"]["context"], "ctx-a");
    assert_eq!(r.json["kubeconfig"]["files"].as_array().unwrap().len(), 2);
    assert!(r.text().contains("namespace \\\"ns-a\\\""), "{}", r.text());
    let r = with_list(&["--context", "ctx-b"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["servers"][0]["url"], b.url());
    assert_eq!(
        r.json["servers"][0]["tls_server_name"],
        "kubernetes.default.svc"
    );
    assert_eq!(r.json["servers"][0]["classification"], "ok");
    // The second file alone: its own current-context, its relative CA path.
    let r = run(
        command(dir.path()),
        &["--kubeconfig", two.to_str().unwrap(), "--context", "ctx-b"],
        &fresh_token(),
    );
    assert_eq!(
        r.code, 2,
        "a context only the first file defines: {}",
        r.stderr
    );
    // ~/.kube/config when nothing else is given.
    std::fs::create_dir_all(dir.path().join("home/.kube")).unwrap();
    std::fs::copy(&one, dir.path().join("home/.kube/config")).unwrap();
    let mut cmd = command(dir.path());
    cmd.env("HOME", dir.path().join("home"));
    let r = run(cmd, &[], &fresh_token());
    assert_eq!(r.json["servers"][0]["url"], a.url(), "{}", r.stderr);
    // In a pod with no kubeconfig flag, the in-pod defaults win over KUBECONFIG.
    let sa_dir = dir.path().join("sa");
    std::fs::create_dir_all(&sa_dir).unwrap();
    pki_b.write_ca(&sa_dir, "ca.crt");
    let in_pod = |args: &[&str]| {
        let mut cmd = command(dir.path());
        cmd.env("KUBECONFIG", &list)
            .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", b.port().to_string())
            .env("KUBECTL_SATOKEN_SA_DIR", &sa_dir);
        run(cmd, args, &fresh_token())
    };
    let r = in_pod(&[]);
    assert_eq!(r.json["servers"][0]["url"], b.url());
    assert_eq!(r.json["kubeconfig"], Value::Null);
    // ... unless a kubeconfig flag asks for it; and explicit flags beat the kubeconfig.
    let r = in_pod(&["--context", "ctx-a"]);
    assert_eq!(r.json["servers"][0]["url"], a.url(), "{}", r.stderr);
    let ca_a_path = pki_a.write_ca(dir.path(), "ca-a.crt");
    let r = in_pod(&[
        "--context",
        "ctx-b",
        "-s",
        &a.url(),
        "--cacert",
        ca_a_path.to_str().unwrap(),
    ]);
    assert_eq!(r.json["servers"][0]["url"], a.url(), "{}", r.stderr);
    assert_eq!(r.json["servers"][0]["tls"]["verified"], true);
}

/// Three control-plane replicas, the first serving the `kubernetes` Service's
/// endpoints; the third runs 90 s behind and missed a key rotation.
fn three_replicas(pki: &Pki) -> Vec<ApiServer> {
    let replicas: Vec<ApiServer> = (0..3)
        .map(|i| {
            let mut config = Config::new(base()).admin(ADMIN);
            if i == 2 {
                config.offset = TimeDelta::seconds(-90);
                config.kids = Some(vec![ES256_KID.to_owned()]);
            }
            ApiServer::start(config, pki)
        })
        .collect();
    let ports: Vec<u16> = replicas.iter().map(ApiServer::port).collect();
    replicas[0].set_endpoints(&ports);
    replicas
}

#[test]
fn all_endpoints_three_replicas_one_skewed_and_a_partial_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("replicas-ca");
    let replicas = three_replicas(&pki);
    let ports: Vec<u16> = replicas.iter().map(ApiServer::port).collect();
    let kc = kubeconfig(dir.path(), &replicas[0], &pki, ADMIN);
    let r = all_endpoints(dir.path(), &kc);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.json["endpoints"]["source"], "endpointslices");
    let servers = r.json["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 3);
    for (s, port) in servers.iter().zip(&ports) {
        assert_eq!(s["url"], format!("https://127.0.0.1:{port}"));
        assert_eq!(s["tls"]["verified"], true);
        assert_eq!(s["tls_server_name"], "127.0.0.1");
    }
    assert_eq!(servers[0]["classification"], "ok");
    assert_eq!(servers[2]["classification"], "401-invalid-token");
    assert!(servers[2]["clock_offset_seconds"].as_f64().unwrap() < -88.0);
    assert_eq!(servers[2]["jwks_kids"], json!([ES256_KID]));
    let d = &r.json["diagnosis"];
    assert_eq!(d["classification"], "replica-dependent");
    let text = crate::support::diagnosis::evidence(d);
    assert!(text.contains("1 of 3 reject"), "{text}");
    assert!(
        text.contains(&format!(
            "https://127.0.0.1:{}: serves kids [{ES256_KID}]",
            ports[2]
        )),
        "{text}"
    );
    // The skewed replica also lacks the token's key; both causes are listed.
    assert!(
        ["key-mismatch", "clock-skew"].contains(&r.cause()),
        "{text}"
    );
    // Every replica saw only verified TLS; the kubeconfig token reached none but these.
    for s in &replicas {
        assert_eq!(s.handshake_failures(), 0);
    }

    // A server named by DNS: each replica is reached at its address with the
    // name pinned to it (reqwest resolve), so SNI and verification use the name.
    let named = dir.path().join("named");
    std::fs::write(
        &named,
        std::fs::read_to_string(&kc)
            .unwrap()
            .replace("https://127.0.0.1:", "https://localhost:"),
    )
    .unwrap();
    let r = all_endpoints(dir.path(), &named);
    let servers = r.json["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 3, "{}", r.stderr);
    assert_eq!(servers[1]["url"], format!("https://127.0.0.1:{}", ports[1]));
    assert_eq!(servers[1]["tls_server_name"], "localhost");
    assert_eq!(servers[1]["tls"]["verified"], true);
    assert_eq!(r.json["diagnosis"]["classification"], "replica-dependent");

    // The Endpoints fallback.
    let mut config = Config::new(base()).admin(ADMIN);
    config.endpoint_slices = false;
    let only = ApiServer::start(config, &pki);
    only.set_endpoints(&[only.port()]);
    let kc = kubeconfig(dir.path(), &only, &pki, ADMIN);
    let r = all_endpoints(dir.path(), &kc);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["endpoints"]["source"], "endpoints");
}

/// How to break the server or the token for one TokenReview case.
type Breaker = Box<dyn Fn(&mut Config) -> String>;

/// A failure, the cause TokenReview must establish, and the era of the wording
/// that matched on a current server and on 1.22.
struct ReviewCase {
    name: &'static str,
    breaks: Breaker,
    cause: &'static str,
    era_now: &'static str,
    era_old: &'static str,
}

fn review_cases() -> Vec<ReviewCase> {
    let case = |name, breaks: Breaker, cause, era_now, era_old| ReviewCase {
        name,
        breaks,
        cause,
        era_now,
        era_old,
    };
    vec![
        case(
            "skew",
            Box::new(|c: &mut Config| {
                c.offset = TimeDelta::seconds(-90);
                tokens::sign(&tokens::projected(base(), 3607))
            }),
            "clock-skew",
            "1.23+",
            "≤1.22",
        ),
        case(
            "expiry",
            Box::new(|_: &mut Config| {
                tokens::sign(&tokens::projected(base() - TimeDelta::hours(3), 3607))
            }),
            "expired",
            "1.23+",
            "≤1.22",
        ),
        case(
            "deleted sa",
            Box::new(|c: &mut Config| {
                c.objects.retain(|o| o.resource != "serviceaccounts");
                fresh_token()
            }),
            "service-account-deleted",
            "all",
            "all",
        ),
        case(
            "recreated sa",
            Box::new(|c: &mut Config| {
                c.recreate_service_account();
                fresh_token()
            }),
            "service-account-recreated",
            "1.23+",
            "≤1.22, and every version for legacy tokens",
        ),
        case(
            "unknown kid",
            Box::new(|c: &mut Config| {
                c.kids = Some(vec![ES256_KID.to_owned()]);
                fresh_token()
            }),
            "key-mismatch",
            "1.31+",
            "≤1.32",
        ),
    ]
}

#[test]
fn token_review_reasons_in_two_wordings() {
    for ReviewCase {
        name,
        breaks,
        cause,
        era_now,
        era_old,
    } in review_cases()
    {
        for (wording, era) in [(Wording::Current, era_now), (Wording::V1_22, era_old)] {
            let mut config = Config::new(base());
            config.wording = wording;
            let token = breaks(&mut config);
            let r = probe_with(config, &["--token-review"], &token);
            let what = format!("{name} {wording:?}: {}", r.stderr);
            assert_eq!(r.code, 1, "{what}");
            assert_eq!(r.cause(), cause, "{what} {}", r.text());
            assert_eq!(r.json["diagnosis"]["confidence"], "high", "{what}");
            let review = &r.json["servers"][0]["token_review"];
            assert_eq!(review["outcome"], "rejected", "{what}");
            let error = review["error"].as_str().unwrap();
            assert!(
                error.starts_with("[invalid bearer token, "),
                "{what} {error}"
            );
            let eras: Vec<&str> = review["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|r| r["era"].as_str())
                .collect();
            assert!(eras.contains(&era), "{what} {eras:?}");
            assert!(r.text().contains("(wording of"), "{what}");
            let mut causes = crate::support::diagnosis::causes(&r.json["diagnosis"]);
            let n = causes.len();
            causes.sort_unstable();
            causes.dedup();
            assert_eq!(causes.len(), n, "{what}: a cause listed twice");
        }
    }
}

#[test]
fn token_review_forbidden_is_said_and_the_probe_continues() {
    let mut config = Config::new(base());
    config.objects.retain(|o| o.resource != "pods");
    // A user that authenticates but may not create tokenreviews.
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("ca");
    let server = ApiServer::start(config.user_token("dev-token", "jane"), &pki);
    let kc = kubeconfig(dir.path(), &server, &pki, "dev-token");
    let r = run(
        command(dir.path()),
        &["--kubeconfig", kc.to_str().unwrap(), "--token-review"],
        &fresh_token(),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let review = &r.json["servers"][0]["token_review"];
    assert_eq!(review["outcome"], "not-allowed");
    assert_eq!(review["status"], 403);
    assert!(
        review["message"]
            .as_str()
            .unwrap()
            .contains("User \"jane\" cannot create resource \"tokenreviews\"")
    );
    assert!(
        r.text().contains("TokenReview not possible"),
        "{}",
        r.text()
    );
    assert!(
        r.text()
            .contains("kubectl auth can-i create tokenreviews.authentication.k8s.io")
    );
    // Neither could jane read the pod: the guess stays, with the command.
    assert_eq!(r.confidence_of("pod-deleted").as_deref(), Some("low"));

    // system:auth-delegator alone (create tokenreviews): the review is the
    // authoritative cause even though nothing else is readable.
    let config = Config::new(base());
    let mut config = config
        .user_token("delegator-token", "reviewer")
        .allow_cluster(
            "reviewer",
            &["create"],
            "authentication.k8s.io",
            &["tokenreviews"],
        );
    config.objects.retain(|o| o.resource != "pods");
    let server = ApiServer::start(config, &pki);
    let kc = kubeconfig(dir.path(), &server, &pki, "delegator-token");
    let r = run(
        command(dir.path()),
        &["--kubeconfig", kc.to_str().unwrap(), "--token-review"],
        &fresh_token(),
    );
    assert_eq!(r.cause(), "pod-deleted", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "high");
    assert_eq!(r.json["bindings"][1]["state"], "unreadable");
    assert!(
        r.json["diagnosis"]["support"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("TokenReview on")
    );
}

#[test]
fn key_rotated_kid_unknown_with_jwks_readable() {
    let mut config = Config::new(base());
    config.kids = Some(vec![ES256_KID.to_owned()]);
    let r = probe_with(
        config.clone(),
        &["--use-kubeconfig-credentials"],
        &fresh_token(),
    );
    assert_eq!(r.cause(), "key-mismatch", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "high");
    assert_eq!(r.json["servers"][0]["jwks_kids"], json!([ES256_KID]));
    assert!(r.text().contains(tokens::RSA_KID));
    // Without credentials, but with discovery open to anonymous users.
    config.anonymous_discovery = true;
    let r = probe_with(config, &[], &fresh_token());
    assert_eq!(r.cause(), "key-mismatch", "{}", r.text());
}

#[test]
fn wrong_audience() {
    let mut claims = tokens::projected(base() - TimeDelta::minutes(10), 3607);
    claims["aud"] = json!(["vault"]);
    let token = tokens::sign(&claims);
    let r = probe_with(
        Config::new(base()),
        &["--use-kubeconfig-credentials"],
        &token,
    );
    assert_eq!(r.cause(), "audience-mismatch", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "medium");
    let r = probe_with(Config::new(base()), &["--token-review"], &token);
    assert_eq!(r.cause(), "audience-mismatch", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "high");
    assert!(
        r.text()
            .contains("token audiences [\\\"vault\\\"] is invalid"),
        "{}",
        r.text()
    );
}

#[test]
fn service_account_recreated_read_from_the_api_with_both_uids() {
    let mut config = Config::new(base());
    config.recreate_service_account();
    let r = probe_with(config, &["--use-kubeconfig-credentials"], &fresh_token());
    assert_eq!(r.cause(), "service-account-recreated", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "high");
    let evidence = crate::support::diagnosis::evidence(&r.json["diagnosis"]);
    assert!(
        evidence.contains(SA_UID) && evidence.contains(NEW_UID),
        "{evidence}"
    );
    let sa = &r.json["bindings"][0];
    assert_eq!(sa["kind"], "serviceaccount");
    assert_eq!(sa["state"], "uid-differs");
    assert_eq!(sa["claim_uid"], SA_UID);
    assert_eq!(sa["live_uid"], NEW_UID);
    // The pod is fine: ruled out.
    assert_eq!(r.json["bindings"][1]["state"], "matches");
    assert!(r.confidence_of("pod-deleted").is_none());
}

#[test]
fn pod_deleted() {
    let mut config = Config::new(base());
    config.objects.retain(|o| o.resource != "pods");
    let r = probe_with(config, &["--use-kubeconfig-credentials"], &fresh_token());
    assert_eq!(r.cause(), "pod-deleted", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "high");
    assert_eq!(r.json["bindings"][1]["state"], "missing");
    assert!(r.confidence_of("service-account-recreated").is_none());
}

#[test]
fn legacy_secret_deleted_or_invalidated() {
    let mut config = Config::new(base());
    config.issuers.push("kubernetes/serviceaccount".to_owned());
    let r = probe_with(
        config.clone(),
        &["--use-kubeconfig-credentials"],
        &tokens::legacy(),
    );
    assert_eq!(r.cause(), "secret-deleted", "{}", r.text());
    assert_eq!(r.json["diagnosis"]["confidence"], "high");
    config
        .objects
        .push(Object::invalidated_legacy_secret("2025-12-01"));
    let r = probe_with(config, &["--use-kubeconfig-credentials"], &tokens::legacy());
    assert_eq!(r.cause(), "legacy-token-invalidated", "{}", r.text());
    assert!(r.text().contains("2025-12-01"));
}

#[test]
fn confidence_rises_with_the_authority_of_the_source() {
    let rank = |c: Option<String>| match c.as_deref() {
        Some("high") => 3,
        Some("medium") => 2,
        Some("low") => 1,
        _ => 0,
    };
    // (case, cause, guess-only args, with-source args): the source is an API read,
    // the JWKS, or the TokenReview.
    let mut a = Config::new(base());
    a.recreate_service_account();
    let guess = probe_with(a.clone(), &[], &fresh_token());
    let read = probe_with(a.clone(), &["--use-kubeconfig-credentials"], &fresh_token());
    let review = probe_with(a, &["--token-review"], &fresh_token());
    let c = "service-account-recreated";
    assert_eq!(rank(guess.confidence_of(c)), 1);
    assert!(rank(read.confidence_of(c)) > rank(guess.confidence_of(c)));
    assert!(rank(review.confidence_of(c)) >= rank(read.confidence_of(c)));
    assert_eq!(review.cause(), c);
    // Clock arithmetic on the token probe sent and the server's measured
    // clock is proof (high), as is the TokenReview's word.
    let mut skew = Config::new(base());
    skew.offset = TimeDelta::seconds(-90);
    let token = tokens::sign(&tokens::projected(base(), 3607));
    let arithmetic = probe_with(skew.clone(), &[], &token);
    let review = probe_with(skew, &["--token-review"], &token);
    assert_eq!(
        arithmetic.confidence_of("clock-skew").as_deref(),
        Some("high")
    );
    assert_eq!(review.confidence_of("clock-skew").as_deref(), Some("high"));
    // A kid guess (low) < the JWKS read (high).
    let mut rotated = Config::new(base());
    rotated.kids = Some(vec![ES256_KID.to_owned()]);
    let guess = probe_with(rotated.clone(), &[], &fresh_token());
    let jwks = probe_with(rotated, &["--use-kubeconfig-credentials"], &fresh_token());
    assert_eq!(guess.confidence_of("key-mismatch").as_deref(), Some("low"));
    assert_eq!(jwks.confidence_of("key-mismatch").as_deref(), Some("high"));
}

/// Prints the walkthroughs of docs/probe.md (run with `-- --ignored --nocapture`).
#[test]
#[ignore]
fn docs_walkthrough_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("docs-ca");
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".kube")).unwrap();
    let show = |title: &str, args: &[&str], token: &str| {
        let output = command(dir.path())
            .env("COLUMNS", "80")
            .env("HOME", &home)
            .args(["probe", "--now", BASE, "-f", "-"])
            .args(args)
            .write_stdin(token.to_owned())
            .output()
            .unwrap();
        println!(
            "===== {title} (exit {})",
            output.status.code().unwrap_or(-1)
        );
        print!("{}", String::from_utf8_lossy(&output.stdout));
        print!("{}", String::from_utf8_lossy(&output.stderr));
    };
    // A laptop with ~/.kube/config; the ServiceAccount was recreated.
    let mut config = Config::new(base()).admin(ADMIN);
    config.recreate_service_account();
    let server = ApiServer::start(config, &pki);
    let kc = kubeconfig(dir.path(), &server, &pki, ADMIN);
    std::fs::copy(&kc, home.join(".kube/config")).unwrap();
    show("kubeconfig, no credentials", &[], &fresh_token());
    show(
        "kubeconfig, --use-kubeconfig-credentials",
        &["--use-kubeconfig-credentials"],
        &fresh_token(),
    );
    show(
        "kubeconfig, --token-review",
        &["--token-review"],
        &fresh_token(),
    );
    show(
        "kubeconfig, --token-review json",
        &["--token-review", "-o", "json"],
        &fresh_token(),
    );
    // Three replicas; the third runs 90 s behind and missed a key rotation.
    let replicas = three_replicas(&pki);
    let kc = kubeconfig(dir.path(), &replicas[0], &pki, ADMIN);
    std::fs::copy(&kc, home.join(".kube/config")).unwrap();
    let token = tokens::sign(&tokens::projected(base(), 3607));
    show(
        "--all-endpoints --token-review",
        &["--all-endpoints", "--token-review"],
        &token,
    );
    show(
        "--all-endpoints json",
        &["--all-endpoints", "--token-review", "-o", "json"],
        &token,
    );
}

#[test]
fn kubeadm_style_client_certificate_is_the_operator_identity() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("kubeadm-ca");
    let admin = pki.client("kubernetes-admin", "system:masters");
    let mut config = Config::new(base());
    config.objects.retain(|o| o.resource != "serviceaccounts");
    config
        .client_certs
        .push((admin.der.clone(), "kubernetes-admin".to_owned()));
    let server = ApiServer::start(config, &pki);
    std::fs::write(dir.path().join("admin.key"), &admin.key_pem).unwrap();
    let cert = base64::engine::general_purpose::STANDARD.encode(&admin.cert_pem);
    let ca = base64::engine::general_purpose::STANDARD.encode(&pki.ca_pem);
    let kc = dir.path().join("admin.conf");
    std::fs::write(
        &kc,
        format!(
            "current-context: kubernetes-admin@kubernetes\nclusters:\n- name: kubernetes\n  cluster: {{server: '{}', certificate-authority-data: {ca}}}\ncontexts:\n- name: kubernetes-admin@kubernetes\n  context: {{cluster: kubernetes, user: kubernetes-admin}}\nusers:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: {cert}\n    client-key: admin.key\n",
            server.url()
        ),
    )
    .unwrap();
    let r = run(
        command(dir.path()),
        &["--kubeconfig", kc.to_str().unwrap(), "--token-review"],
        &fresh_token(),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.json["kubeconfig"]["credentials"], "client-certificate");
    assert_eq!(r.cause(), "service-account-deleted", "{}", r.text());
    assert_eq!(r.json["servers"][0]["token_review"]["outcome"], "rejected");
    // The certificate client never carried the token under test in a header,
    // and the token's own requests carried no certificate-authenticated user.
    let seen = server.seen();
    let review = seen
        .iter()
        .find(|s| s.path.ends_with("/tokenreviews"))
        .unwrap();
    assert_eq!(review.header("authorization"), None);
    // An exec plugin is said to be unsupported (exit 2).
    let exec = dir.path().join("exec.conf");
    std::fs::write(&exec, format!("current-context: c\nclusters:\n- name: k\n  cluster: {{server: '{}'}}\ncontexts:\n- name: c\n  context: {{cluster: k, user: eks}}\nusers:\n- name: eks\n  user:\n    exec: {{apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}\n", server.url())).unwrap();
    let r = run(
        command(dir.path()),
        &["--kubeconfig", exec.to_str().unwrap(), "--token-review"],
        &fresh_token(),
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("exec plugin, which probe does not run"),
        "{}",
        r.stderr
    );
}

#[test]
fn token_file_user_and_an_unreadable_binding_names_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("ca");
    let mut config = Config::new(base()).admin(ADMIN);
    config.objects.retain(|o| o.resource != "pods");
    let server = ApiServer::start(config, &pki);
    std::fs::create_dir_all(dir.path().join("kube/tokens")).unwrap();
    std::fs::write(dir.path().join("kube/tokens/admin"), format!("{ADMIN}\n")).unwrap();
    let ca = base64::engine::general_purpose::STANDARD.encode(&pki.ca_pem);
    let kc = dir.path().join("kube/config");
    std::fs::write(
        &kc,
        format!(
            "current-context: c\nclusters:\n- name: k\n  cluster: {{server: '{}', certificate-authority-data: {ca}}}\ncontexts:\n- name: c\n  context: {{cluster: k, user: u}}\nusers:\n- name: u\n  user: {{tokenFile: tokens/admin}}\n",
            server.url()
        ),
    )
    .unwrap();
    let r = run(
        command(dir.path()),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--use-kubeconfig-credentials",
        ],
        &fresh_token(),
    );
    assert_eq!(
        r.json["kubeconfig"]["credentials"], "token-file",
        "{}",
        r.stderr
    );
    assert_eq!(r.cause(), "pod-deleted", "{}", r.text());
    // A user that may read nothing: the reads fail, the guess keeps its command.
    let mut config = Config::new(base());
    config.objects.retain(|o| o.resource != "pods");
    let plain = ApiServer::start(config, &pki);
    let kc = kubeconfig(dir.path(), &plain, &pki, &fresh_token());
    let r = run(
        command(dir.path()),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--use-kubeconfig-credentials",
        ],
        &fresh_token(),
    );
    assert_eq!(r.json["bindings"][1]["state"], "unreadable", "{}", r.stderr);
    assert_eq!(r.confidence_of("pod-deleted").as_deref(), Some("low"));
    assert!(
        r.text().contains(
            "kubectl get pod reporter-6c9d7b8f5-q7x2m -n debug-lab -o 'jsonpath={.metadata.uid} {.metadata.deletionTimestamp}'"
        ),
        "{}",
        r.text()
    );
}

/// A kubeconfig like [`kubeconfig`], whose cluster sets `proxy-url`.
fn kubeconfig_with_proxy(dir: &Path, server: &ApiServer, pki: &Pki, proxy_url: &str) -> PathBuf {
    let path = kubeconfig(dir, server, pki, ADMIN);
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "    certificate-authority-data:",
        &format!("    proxy-url: {proxy_url}\n    certificate-authority-data:"),
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn kubeconfig_proxy_url_tunnels_every_connection_and_env_proxies_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("proxy-ca");
    let server = ApiServer::start(Config::new(base()), &pki);
    let proxy = crate::support::proxy::Proxy::start();
    let with_credentials = proxy.url().replace("http://", "http://ops:hunter2@");
    let kc = kubeconfig_with_proxy(dir.path(), &server, &pki, &with_credentials);
    let r = run(
        command(dir.path()),
        &["--kubeconfig", kc.to_str().unwrap()],
        &fresh_token(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["servers"][0]["classification"], "ok");
    // Every connection went through the proxy, as a CONNECT tunnel to the server
    // (so TLS, and the token inside it, ran end to end), and the server saw them.
    let requests = proxy.requests();
    assert!(!requests.is_empty());
    let connect = format!("CONNECT 127.0.0.1:{} HTTP/1.1", server.port());
    assert!(requests.iter().all(|r| *r == connect), "{requests:?}");
    assert!(!server.seen().is_empty());
    // Named in the output, without its password.
    assert_eq!(r.json["kubeconfig"]["proxy"], format!("{}/", proxy.url()));
    assert!(!r.json.to_string().contains("hunter2") && !r.stderr.contains("hunter2"));
    let table = command(dir.path())
        .args(["probe", "--now", BASE, "-f", "-", "--kubeconfig"])
        .arg(&kc)
        .write_stdin(fresh_token())
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains(&format!(
            "Proxy:      {}/ (kubeconfig proxy-url)",
            proxy.url()
        )),
        "{table}"
    );

    // Without proxy-url, HTTPS_PROXY and friends do not divert the token.
    let before = proxy.requests().len();
    let plain = kubeconfig(dir.path(), &server, &pki, ADMIN);
    let mut cmd = command(dir.path());
    for var in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] {
        cmd.env(var, proxy.url());
    }
    let r = run(
        cmd,
        &["--kubeconfig", plain.to_str().unwrap()],
        &fresh_token(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.json["kubeconfig"]["proxy"].is_null());
    assert_eq!(proxy.requests().len(), before);
}

#[test]
fn unusable_proxy_urls_and_all_endpoints_through_a_proxy_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("proxy-ca");
    let server = ApiServer::start(Config::new(base()), &pki);
    for (proxy_url, says) in [
        ("socks5://127.0.0.1:1080", "SOCKS proxies are not supported"),
        ("ftp://127.0.0.1:21", "the scheme must be http or https"),
    ] {
        let kc = kubeconfig_with_proxy(dir.path(), &server, &pki, proxy_url);
        let r = run(
            command(dir.path()),
            &["--kubeconfig", kc.to_str().unwrap()],
            &fresh_token(),
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(
            r.stderr.contains("proxy-url") && r.stderr.contains(says),
            "{}",
            r.stderr
        );
    }
    let proxy = crate::support::proxy::Proxy::start();
    let kc = kubeconfig_with_proxy(dir.path(), &server, &pki, &proxy.url());
    let r = run(
        command(dir.path()),
        &["--kubeconfig", kc.to_str().unwrap(), "--all-endpoints"],
        &fresh_token(),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("--all-endpoints cannot reach each replica"),
        "{}",
        r.stderr
    );
    assert!(proxy.requests().is_empty() && server.seen().is_empty());
}

#[test]
fn audience_review_says_what_a_third_party_checker_sees() {
    // A checker asking for "vault" (a Vault role audience) with an API-audience token.
    let r = probe_with(
        Config::new(base()),
        &["--token-review", "--audience", "vault"],
        &fresh_token(),
    );
    assert_eq!(r.code, 0, "the API server itself accepts it: {}", r.stderr);
    let review = &r.json["servers"][0]["audience_review"];
    assert_eq!(review["audiences"], json!(["vault"]));
    assert_eq!(review["review"]["outcome"], "rejected", "{review}");
    let sees = review["checker_sees"].as_str().unwrap();
    assert!(
        sees.contains("is invalid for the target audiences") && sees.contains("--audience"),
        "{sees}"
    );
    // Asking for the token's own audience: authenticated, status.audiences names it.
    let r = probe_with(
        Config::new(base()),
        &[
            "--token-review",
            "--audience",
            crate::support::tokens::ISSUER,
        ],
        &fresh_token(),
    );
    let review = &r.json["servers"][0]["audience_review"];
    assert_eq!(review["review"]["outcome"], "authenticated", "{review}");
    assert_eq!(
        review["status_audiences"],
        json!([crate::support::tokens::ISSUER])
    );
    // --audience needs --token-review (a usage error, exit 2).
    let out = crate::support::satoken()
        .args([
            "probe",
            "--audience",
            "vault",
            "--server",
            "https://127.0.0.1:1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Outside a pod with no token given, probe tests the kubeconfig user's own
/// token, sent only to that kubeconfig's server; with `--server` there is no
/// kubeconfig in play and it says what to pass instead.
#[test]
fn outside_a_pod_with_no_token_the_kubeconfig_users_own_is_tested() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("cluster-ca");
    let mut config = Config::new(base());
    config.recreate_service_account();
    let server = ApiServer::start(config, &pki);
    let token = fresh_token();
    let kc = kubeconfig(dir.path(), &server, &pki, &token);
    let probe = |args: &[&str]| {
        let output = command(dir.path())
            .args(["probe", "--now", BASE])
            .args(args)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (
            output.status.code().unwrap_or(-1),
            text(&output.stdout),
            text(&output.stderr),
        )
    };
    let (code, out, err) = probe(&["--kubeconfig", kc.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("Token:      user admin's own, from the kubeconfig"),
        "{out}"
    );
    assert!(
        server
            .seen()
            .iter()
            .any(|s| s.header("authorization") == Some(&format!("Bearer {token}")))
    );
    let (code, out, _) = probe(&["--kubeconfig", kc.to_str().unwrap(), "-o", "json"]);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 1);
    assert_eq!(json["kubeconfig"]["own_token"], true);
    assert_eq!(
        json["token"]["subject"],
        "system:serviceaccount:debug-lab:reporter"
    );
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let (code, out, err) = probe(&["-s", &server.url(), "--cacert", ca.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no kubeconfig in play") && err.contains("-f FILE"),
        "{err}"
    );
}
