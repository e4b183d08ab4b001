//! `probe` against the test API server (tests/it/support): status classes, clock,
//! bindings and transport for one token. Tokens are signed at test time relative to
//! the server's base instant, and the binary runs with `--now <base>`.

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use chrono::TimeDelta;
use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config, Mode, UNAUTHORIZED_BODY};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE, RECREATED_SA_UID, SA_UID};
use crate::support::{BASE, base, fresh_token};

const USER: &str = "system:serviceaccount:debug-lab:reporter";

pub(crate) struct Run {
    pub code: i32,
    pub json: Value,
    pub stderr: String,
}

/// The binary with a clean environment: no in-pod variables, no SA directory.
pub(crate) fn command(dir: &Path) -> Command {
    let mut cmd = crate::support::satoken();
    cmd.env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-such-sa-dir"))
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(30));
    cmd
}

fn probe(dir: &Path, ca: &Path, servers: &[&ApiServer], extra: &[&str], token: &str) -> Run {
    let mut cmd = command(dir);
    cmd.args(["probe", "-o", "json", "--now", BASE, "-f", "-", "--cacert"])
        .arg(ca);
    for server in servers {
        cmd.args(["-s", &server.url()]);
    }
    let output = cmd.args(extra).write_stdin(token).output().unwrap();
    finish(output)
}

pub(crate) fn finish(output: std::process::Output) -> Run {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    Run {
        code: output.status.code().unwrap_or(-1),
        json,
        stderr,
    }
}

pub(crate) fn setup() -> (tempfile::TempDir, Pki, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-test-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    (dir, pki, ca)
}

fn causes(json: &Value) -> Vec<String> {
    crate::support::diagnosis::causes(&json["diagnosis"])
}

use crate::support::diagnosis::{commands, evidence};

#[test]
fn valid_token_is_ok_and_the_token_is_only_sent_after_tls() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let run = probe(dir.path(), &ca, &[&server], &[], &fresh_token());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["url"], server.url());
    assert_eq!(s["tls"]["verified"], true);
    assert_eq!(s["classification"], "ok");
    assert_eq!(s["user"]["username"], USER);
    assert_eq!(s["user"]["uid"], SA_UID);
    assert_eq!(s["review_version"], "authentication.k8s.io/v1");
    assert!(
        s["clock_offset_seconds"].as_f64().unwrap().abs() < 1.5,
        "{s}"
    );
    assert!(s["clock_offset_uncertainty_seconds"].as_f64().unwrap() < 1.5);
    assert_eq!(s["requests"][1]["kind"], "self-subject-review");
    assert_eq!(s["requests"][1]["status"], 201);
    assert_eq!(run.json["diagnosis"]["classification"], "ok");
    assert_eq!(run.json["diagnosis"]["cause"], "none");
    // The preflight carried no token; the review did.
    let seen = server.seen();
    assert_eq!(seen[0].path, "/version");
    assert_eq!(seen[0].header("authorization"), None);
    assert!(
        seen[1]
            .header("authorization")
            .unwrap()
            .starts_with("Bearer ey")
    );
}

#[test]
fn missing_object_is_404_reported_as_authenticated() {
    let (dir, pki, ca) = setup();
    let config = Config::new(base()).allow(USER, &["get"], &["pods"], Some(NAMESPACE));
    let server = ApiServer::start(config, &pki);
    let path = "/api/v1/namespaces/debug-lab/pods/no-such-pod";
    let run = probe(
        dir.path(),
        &ca,
        &[&server],
        &["--path", path],
        &fresh_token(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["classification"], "404-not-found");
    let get = s["requests"].as_array().unwrap().last().unwrap();
    assert_eq!(get["kind"], "get");
    assert_eq!(get["status"], 404);
    assert_eq!(get["reason"], "NotFound");
    assert_eq!(get["message"], "pods \"no-such-pod\" not found");
    assert_eq!(get["details"]["name"], "no-such-pod");
    let d = &run.json["diagnosis"];
    assert_eq!(d["cause"], "object-not-found");
    assert!(evidence(d).contains("token was accepted"));
}

#[test]
fn missing_rbac_is_403_with_the_exact_grant_commands() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let run = probe(
        dir.path(),
        &ca,
        &[&server],
        &["--path", "/api/v1/namespaces/debug-lab/pods"],
        &fresh_token(),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["classification"], "403-forbidden");
    let get = s["requests"].as_array().unwrap().last().unwrap();
    assert_eq!(
        get["message"],
        "pods is forbidden: User \"system:serviceaccount:debug-lab:reporter\" cannot list resource \"pods\" in API group \"\" in the namespace \"debug-lab\""
    );
    assert_eq!(get["details"], serde_json::json!({"kind": "pods"}));
    let d = &run.json["diagnosis"];
    assert_eq!(d["cause"], "rbac-denied");
    // The 403 names no authorizer: RBAC most likely, a webhook authorizer
    // possibly (`auth can-i` tells them apart).
    assert_eq!(d["confidence"], "medium");
    assert_eq!(
        commands(d),
        [
            "kubectl auth can-i list pods -n debug-lab --as=system:serviceaccount:debug-lab:reporter",
            "kubectl create role reporter-list-pods --verb=list --resource=pods -n debug-lab",
            "kubectl create rolebinding reporter-list-pods --role=reporter-list-pods --serviceaccount=debug-lab:reporter -n debug-lab",
        ]
    );

    // The same question as a SelfSubjectAccessReview, for a named object.
    let run = probe(
        dir.path(),
        &ca,
        &[&server],
        &[
            "--verb",
            "get",
            "--resource",
            "configmaps",
            "--name",
            "settings",
        ],
        &fresh_token(),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "403-forbidden");
    assert_eq!(
        commands(d)[1],
        "kubectl create role reporter-get-configmaps --verb=get --resource=configmaps --resource-name=settings -n debug-lab"
    );
    let review = run.json["servers"][0]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "self-subject-access-review")
        .unwrap()
        .clone();
    assert_eq!(review["allowed"], false);
}

#[test]
fn anonymous_contrast_and_a_stripped_token() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let run = probe(
        dir.path(),
        &ca,
        &[&server],
        &["--anonymous"],
        &fresh_token(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let anonymous: Vec<&Value> = run.json["servers"][0]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["anonymous"] == true && r["kind"] == "self-subject-review")
        .collect();
    assert_eq!(anonymous[0]["status"], 403);
    assert_eq!(
        anonymous[0]["message"],
        "selfsubjectreviews.authentication.k8s.io is forbidden: User \"system:anonymous\" cannot create resource \"selfsubjectreviews\" in API group \"authentication.k8s.io\" at the cluster scope"
    );
    assert!(evidence(&run.json["diagnosis"]).contains("as system:anonymous"));

    // Anonymous authentication off: 401 without the token.
    let mut config = Config::new(base());
    config.anonymous = false;
    let strict = ApiServer::start(config, &pki);
    let run = probe(
        dir.path(),
        &ca,
        &[&strict],
        &["--anonymous"],
        &fresh_token(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(evidence(&run.json["diagnosis"]).contains("anonymous authentication is off"));

    // A proxy that drops Authorization: the token-carrying request is anonymous.
    let mut config = Config::new(base());
    config.strip_authorization = true;
    let stripping = ApiServer::start(config, &pki);
    let run = probe(dir.path(), &ca, &[&stripping], &[], &fresh_token());
    assert_eq!(run.code, 1, "{}", run.stderr);
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "403-forbidden");
    assert_eq!(d["cause"], "token-not-sent");
    assert!(evidence(d).contains("system:anonymous"));
}

#[test]
fn expired_token_is_401_expired_with_numbers() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let token = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
    let run = probe(dir.path(), &ca, &[&server], &[], &token);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.json["servers"][0]["classification"],
        "401-invalid-token"
    );
    let d = &run.json["diagnosis"];
    assert_eq!(d["cause"], "expired");
    // The token probe sent, past its exp on the server's measured clock.
    assert_eq!(d["confidence"], "high");
    assert!(evidence(d).contains("expired at 2025-12-31T23:00:00Z"));
    assert_eq!(
        server.rejections(),
        ["[invalid bearer token, service account token has expired]"]
    );
    // The 401 body is kube-apiserver's, byte for byte.
    let review = &run.json["servers"][0]["requests"][1];
    assert_eq!(review["status"], 401);
    assert_eq!(review["reason"], "Unauthorized");
    assert_eq!(review["message"], "Unauthorized");
}

#[test]
fn two_servers_90s_apart_one_401_clock_skew_one_ok() {
    let (dir, pki, ca) = setup();
    let ahead = ApiServer::start(Config::new(base()), &pki);
    let mut behind = Config::new(base());
    behind.offset = TimeDelta::seconds(-90);
    let behind = ApiServer::start(behind, &pki);
    // Minted just now by the server whose clock is right.
    let token = tokens::sign(&tokens::projected(base(), 3607));
    let started = Instant::now();
    let run = probe(dir.path(), &ca, &[&ahead, &behind], &[], &token);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));
    let servers = run.json["servers"].as_array().unwrap();
    assert_eq!(servers[0]["classification"], "ok");
    assert_eq!(servers[1]["classification"], "401-invalid-token");
    let offset = servers[1]["clock_offset_seconds"].as_f64().unwrap();
    assert!((-91.0..=-89.0).contains(&offset), "{offset}");
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["cause"], "clock-skew");
    assert_eq!(d["confidence"], "high");
    let evidence = evidence(d);
    assert!(evidence.contains("servers disagree"), "{evidence}");
    assert!(evidence.contains(&format!("{offset:+.1} s")), "{evidence}");
    assert!(evidence.contains("not valid yet"), "{evidence}");
    assert_eq!(
        behind.rejections(),
        ["[invalid bearer token, service account token is not valid yet]"]
    );
    assert!(ahead.rejections().is_empty());
}

#[test]
fn recreated_service_account_lists_the_binding_cause_with_uids() {
    let (dir, pki, ca) = setup();
    let new_uid = RECREATED_SA_UID;
    let mut config = Config::new(base());
    config.recreate_service_account();
    let server = ApiServer::start(config, &pki);
    let run = probe(dir.path(), &ca, &[&server], &[], &fresh_token());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        server.rejections(),
        [format!(
            "[invalid bearer token, service account UID ({new_uid}) does not match claim ({SA_UID})]"
        )]
    );
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    // Time is fine, so no single cause is claimed.
    assert_eq!(d["cause"], "unknown");
    assert_eq!(d["confidence"], "low");
    assert!(evidence(d).contains("time is not the cause"));
    let causes = causes(&run.json);
    for cause in [
        "service-account-recreated",
        "service-account-deleted",
        "pod-deleted",
        "key-mismatch",
        "issuer-mismatch",
        "audience-mismatch",
    ] {
        assert!(
            causes.iter().any(|c| c == cause),
            "{cause} missing from {causes:?}"
        );
    }
    let recreated = crate::support::diagnosis::candidate(d, "service-account-recreated").unwrap();
    assert_eq!(recreated["confidence"], "low");
    assert!(recreated["support"].to_string().contains(SA_UID));
    let confirm = &recreated["next"][0]["command"];
    assert_eq!(
        confirm["shell"],
        "kubectl get serviceaccount reporter -n debug-lab -o 'jsonpath={.metadata.uid} {.metadata.deletionTimestamp}'"
    );
    assert_eq!(
        confirm["expect"],
        format!("the token names uid {SA_UID}: another uid means recreated, NotFound deleted")
    );
}

#[test]
fn untrusted_ca_is_tls_error_and_the_token_is_never_sent() {
    let (dir, pki, _) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let other = Pki::new("some-other-ca");
    let wrong_ca = other.write_ca(dir.path(), "other-ca.crt");
    let run = probe(
        dir.path(),
        &wrong_ca,
        &[&server],
        &["--path", "/api"],
        &fresh_token(),
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["classification"], "tls-error");
    assert_eq!(s["tls"]["verified"], false);
    assert_eq!(s["tls"]["reason"], "unknown-ca");
    assert_eq!(s["requests"].as_array().unwrap().len(), 1);
    assert_eq!(run.json["diagnosis"]["cause"], "tls-untrusted-ca");
    assert!(
        eventually(|| server.handshake_failures() >= 1),
        "no failed handshake seen"
    );
    assert!(server.seen().is_empty());
    assert!(!server.saw_authorization());
}

#[test]
fn name_mismatch_and_expired_certificates_are_their_own_reasons() {
    let dir = tempfile::tempdir().unwrap();
    for (pki, reason, cause) in [
        (
            Pki::custom("ca", &["localhost"], false),
            "name-mismatch",
            "tls-name-mismatch",
        ),
        (
            Pki::custom("ca", &["127.0.0.1"], true),
            "expired",
            "tls-certificate-expired",
        ),
    ] {
        let ca = pki.write_ca(dir.path(), "ca.crt");
        let server = ApiServer::start(Config::new(base()), &pki);
        let run = probe(dir.path(), &ca, &[&server], &[], &fresh_token());
        assert_eq!(run.code, 3, "{}", run.stderr);
        assert_eq!(run.json["servers"][0]["tls"]["reason"], reason);
        assert_eq!(run.json["diagnosis"]["cause"], cause);
        assert!(server.seen().is_empty());
        // The server records the failed handshake on its own thread: give it a moment.
        assert!(
            eventually(|| server.handshake_failures() >= 1),
            "no failed handshake seen"
        );
    }
}

/// Polls `condition` for up to 5 s: for facts a server thread records asynchronously.
fn eventually(condition: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    condition()
}

#[test]
fn servers_are_probed_concurrently() {
    let (dir, pki, ca) = setup();
    // Each server takes 2 x 1.5 s (preflight + review): in sequence 3 would take 9 s,
    // concurrently about 3 s. The wide gap keeps the test honest on a loaded machine.
    let servers: Vec<ApiServer> = (0..3)
        .map(|_| {
            let mut config = Config::new(base());
            config.mode = Mode::Slow(Duration::from_millis(1500));
            ApiServer::start(config, &pki)
        })
        .collect();
    let refs: Vec<&ApiServer> = servers.iter().collect();
    let started = Instant::now();
    let run = probe(dir.path(), &ca, &refs, &[], &fresh_token());
    let elapsed = started.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["servers"].as_array().unwrap().len(), 3);
    assert!(elapsed < Duration::from_millis(6500), "{elapsed:?}");
}

#[test]
fn plain_http_is_refused_before_connecting() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let mut cmd = command(dir.path());
    let output = cmd
        .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
        .arg(&ca)
        .args(["-s", &format!("http://127.0.0.1:{}", server.port())])
        .write_stdin(fresh_token())
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("refusing plain http://"),
        "{}",
        run.stderr
    );
    assert_eq!(server.handshake_failures(), 0);
    assert!(server.seen().is_empty());
}

#[test]
fn redirects_are_not_followed_with_the_token() {
    let (dir, pki, ca) = setup();
    let target = ApiServer::start(Config::new(base()), &pki);
    let mut config = Config::new(base());
    config.mode = Mode::Redirect(format!("{}/api/v1/namespaces/debug-lab/pods", target.url()));
    let redirecting = ApiServer::start(config, &pki);
    let run = probe(dir.path(), &ca, &[&redirecting], &[], &fresh_token());
    assert_eq!(run.code, 1, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["classification"], "other-status");
    assert_eq!(s["requests"][1]["status"], 302);
    assert!(
        s["requests"][1]["location"]
            .as_str()
            .unwrap()
            .starts_with(&target.url())
    );
    assert_eq!(run.json["diagnosis"]["cause"], "redirected");
    assert!(
        target.seen().is_empty(),
        "the redirect target was contacted"
    );
}

#[test]
fn unreachable_server_exits_3() {
    let (dir, _pki, ca) = setup();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut cmd = command(dir.path());
    let output = cmd
        .args(["probe", "-o", "json", "--now", BASE, "-f", "-", "--cacert"])
        .arg(&ca)
        .args(["-s", &format!("https://127.0.0.1:{port}")])
        .write_stdin(fresh_token())
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(run.json["servers"][0]["classification"], "network-error");
    assert_eq!(run.json["diagnosis"]["cause"], "connection-refused");
    assert!(
        run.json["servers"][0]["requests"][0]["error"]
            .as_str()
            .unwrap()
            .contains("refused")
    );
}

#[test]
fn slow_server_times_out() {
    let (dir, pki, ca) = setup();
    let mut config = Config::new(base());
    config.mode = Mode::Slow(Duration::from_secs(4));
    let server = ApiServer::start(config, &pki);
    let started = Instant::now();
    let run = probe(
        dir.path(),
        &ca,
        &[&server],
        &["--request-timeout", "1s"],
        &fresh_token(),
    );
    let elapsed = started.elapsed();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert_eq!(run.json["servers"][0]["classification"], "network-error");
    assert_eq!(run.json["diagnosis"]["cause"], "timeout");
    // The token never left: the preflight is what timed out.
    assert!(!server.saw_authorization());
}

#[test]
fn in_pod_defaults_from_a_fake_serviceaccount_directory() {
    let (dir, pki, _) = setup();
    let config = Config::new(base()).allow(USER, &["list"], &["pods"], Some(NAMESPACE));
    let server = ApiServer::start(config, &pki);
    let sa_dir = dir.path().join("serviceaccount");
    std::fs::create_dir(&sa_dir).unwrap();
    pki.write_ca(&sa_dir, "ca.crt");
    std::fs::write(sa_dir.join("token"), fresh_token()).unwrap();
    std::fs::write(sa_dir.join("namespace"), NAMESPACE).unwrap();
    // A pod's stdin is /dev/null: not input, so the mounted token is read.
    let output = crate::support::satoken_std()
        .stdin(std::process::Stdio::null())
        .env("NO_COLOR", "1")
        .env("KUBECTL_SATOKEN_SA_DIR", &sa_dir)
        .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        .env("KUBERNETES_SERVICE_PORT", server.port().to_string())
        .args([
            "probe",
            "-o",
            "json",
            "--now",
            BASE,
            "--verb",
            "list",
            "--resource",
            "pods",
        ])
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["url"], server.url());
    assert_eq!(s["classification"], "ok");
    assert_eq!(s["user"]["username"], USER);
    assert!(evidence(&run.json["diagnosis"]).contains("in namespace \"debug-lab\""));
    let review = server
        .seen()
        .into_iter()
        .find(|s| s.path.ends_with("selfsubjectaccessreviews"));
    assert!(review.is_some());
}

#[test]
fn review_falls_back_to_v1beta1_and_says_so() {
    let (dir, pki, ca) = setup();
    let mut config = Config::new(base());
    config.review_v1 = false;
    let server = ApiServer::start(config, &pki);
    let run = probe(dir.path(), &ca, &[&server], &[], &fresh_token());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = &run.json["servers"][0];
    assert_eq!(s["review_version"], "authentication.k8s.io/v1beta1");
    assert_eq!(s["requests"][1]["status"], 404);
    assert_eq!(s["requests"][1]["api_version"], "authentication.k8s.io/v1");
    assert_eq!(s["requests"][2]["status"], 201);
}

/// The reusable client against the server directly: the exact 401 bytes and headers.
#[test]
fn the_server_401_is_kube_apiservers_byte_for_byte() {
    use satoken::clock::Clock;
    use satoken::http::{ClientConfig, HttpClient, Request, RunClock, Trust};
    let (_dir, pki, _) = setup();
    let mut config = Config::new(base());
    config.anonymous = false;
    let server = ApiServer::start(config, &pki);
    let trust = Trust::Roots {
        ca_pem: Some(pki.ca_pem.clone().into_bytes()),
        system: false,
    };
    let url = url::Url::parse(&server.url()).unwrap();
    let client = HttpClient::new(
        &url,
        &ClientConfig::new(trust),
        RunClock::start(Clock::Fixed(base())),
    )
    .unwrap();
    let exchange = client.send(&Request::get("/api")).unwrap();
    assert_eq!(exchange.status, 401);
    assert_eq!(exchange.body.len(), 129);
    assert_eq!(exchange.body, UNAUTHORIZED_BODY.as_bytes());
    assert_eq!(exchange.content_type.as_deref(), Some("application/json"));
    let date = exchange.date.unwrap();
    assert!((date - base()).num_seconds().abs() <= 2, "{date}");
    assert!(exchange.sent_at >= base() && exchange.received_at >= exchange.sent_at);
}

/// Prints the table output of the walkthrough scenarios in docs/probe.md:
/// `cargo test --test it probe::docs_walkthrough -- --ignored --nocapture`.
#[test]
#[ignore = "prints docs examples; run by hand"]
fn docs_walkthrough() {
    let (dir, pki, ca) = setup();
    let show = |title: &str, cmd: &mut Command| {
        let output = cmd.env("COLUMNS", "80").output().unwrap();
        println!(
            "===== {title} (exit {})",
            output.status.code().unwrap_or(-1)
        );
        print!("{}", String::from_utf8_lossy(&output.stdout));
        print!("{}", String::from_utf8_lossy(&output.stderr));
    };
    // In a pod: the defaults.
    let server = ApiServer::start(Config::new(base()), &pki);
    let sa_dir = dir.path().join("serviceaccount");
    std::fs::create_dir(&sa_dir).unwrap();
    pki.write_ca(&sa_dir, "ca.crt");
    std::fs::write(sa_dir.join("token"), fresh_token()).unwrap();
    std::fs::write(sa_dir.join("namespace"), NAMESPACE).unwrap();
    show(
        "in a pod",
        command(dir.path())
            .env("KUBECTL_SATOKEN_SA_DIR", &sa_dir)
            .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", server.port().to_string())
            .args([
                "probe",
                "--now",
                BASE,
                "--verb",
                "list",
                "--resource",
                "pods",
            ])
            .write_stdin(fresh_token()),
    );
    // From a laptop: two control-plane nodes, one 90 s behind.
    let mut behind = Config::new(base());
    behind.offset = TimeDelta::seconds(-90);
    let behind = ApiServer::start(behind, &pki);
    let token = tokens::sign(&tokens::projected(base(), 3607));
    show(
        "two servers",
        command(dir.path())
            .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
            .arg(&ca)
            .args(["-s", &server.url(), "-s", &behind.url()])
            .write_stdin(token),
    );
    show(
        "403",
        command(dir.path())
            .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
            .arg(&ca)
            .args([
                "-s",
                &server.url(),
                "--path",
                "/api/v1/namespaces/debug-lab/pods",
            ])
            .write_stdin(fresh_token()),
    );
    let config = Config::new(base()).allow(USER, &["get"], &["configmaps"], Some(NAMESPACE));
    let server = ApiServer::start(config, &pki);
    show(
        "404 and anonymous",
        command(dir.path())
            .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
            .arg(&ca)
            .args([
                "-s",
                &server.url(),
                "--path",
                "/api/v1/namespaces/debug-lab/configmaps/settings",
                "--anonymous",
            ])
            .write_stdin(fresh_token()),
    );
    // No token anywhere: what an anonymous request gets, anonymous auth on and off.
    show(
        "anonymous, no token",
        command(dir.path())
            .args(["probe", "--now", BASE, "--anonymous", "--cacert"])
            .arg(&ca)
            .args([
                "-s",
                &server.url(),
                "--path",
                "/api/v1/namespaces/debug-lab/pods",
            ]),
    );
    let mut strict = Config::new(base());
    strict.anonymous = false;
    let strict = ApiServer::start(strict, &pki);
    show(
        "anonymous off, no token",
        command(dir.path())
            .args(["probe", "--now", BASE, "--anonymous", "--cacert"])
            .arg(&ca)
            .args(["-s", &strict.url()]),
    );
    let mut config = Config::new(base());
    config.recreate_service_account();
    let recreated = ApiServer::start(config, &pki);
    show(
        "sa recreated",
        command(dir.path())
            .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
            .arg(&ca)
            .args(["-s", &recreated.url()])
            .write_stdin(fresh_token()),
    );
    let wrong = Pki::new("other").write_ca(dir.path(), "other.crt");
    show(
        "tls",
        command(dir.path())
            .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
            .arg(&wrong)
            .args(["-s", &server.url()])
            .write_stdin(fresh_token()),
    );
    show(
        "json",
        command(dir.path())
            .args(["probe", "-o", "json", "--now", BASE, "-f", "-", "--cacert"])
            .arg(&ca)
            .args(["-s", &behind.url()])
            .write_stdin(tokens::sign(&tokens::projected(base(), 3607))),
    );
}

/// A `Location` header on a 401 (a login page) is not a redirect: the
/// table shows the Status, not "redirect to … (not followed)".
#[test]
fn a_location_on_a_401_is_not_called_a_redirect() {
    let (dir, pki, ca) = setup();
    let mut config = Config::new(base());
    config.mode = Mode::LoginLocation("https://login.example/".to_owned());
    let server = ApiServer::start(config, &pki);
    let output = command(dir.path())
        .args(["probe", "--now", BASE, "-f", "-", "--cacert"])
        .arg(&ca)
        .args(["-s", &server.url()])
        .write_stdin(fresh_token())
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{table}");
    assert!(!table.contains("redirect to"), "{table}");
    let run = probe(dir.path(), &ca, &[&server], &[], &fresh_token());
    assert!(
        run.json["servers"][0]["requests"][1]["location"].is_null(),
        "{:#}",
        run.json
    );
}

/// Runs `SUBCOMMAND --allow-plain-http -s URL` (no CA) with the fresh token,
/// in `format`; returns the exit code and stdout.
fn plain(dir: &Path, sub: &str, server: &ApiServer, format: &str) -> (i32, String) {
    let output = command(dir)
        .args([sub, "--now", BASE, "-f", "-", "--allow-plain-http"])
        .args(["-s", &server.url(), "-o", format])
        .write_stdin(fresh_token())
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    (code, String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Over plain HTTP there is no TLS to have verified: the JSON of probe and
/// doctor says `tls: null`, the table says plain HTTP.
#[test]
fn plain_http_makes_no_tls_claim() {
    let (dir, pki, _ca) = setup();
    let mut config = Config::new(base());
    config.plain_http = true;
    let server = ApiServer::start(config, &pki);
    for sub in ["probe", "doctor"] {
        let (code, out) = plain(dir.path(), sub, &server, "json");
        assert!([0, 1].contains(&code), "{sub}: {out}");
        let json: Value = serde_json::from_str(&out).unwrap();
        let servers = match sub {
            "probe" => json["servers"].clone(),
            _ => json["probe"]["servers"].clone(),
        };
        assert!(servers[0]["tls"].is_null(), "{sub}: {servers:#}");
    }
    let (_, table) = plain(dir.path(), "probe", &server, "table");
    assert!(table.contains("none: plain HTTP"), "{table}");
    assert!(!table.contains("verified"), "{table}");
}
