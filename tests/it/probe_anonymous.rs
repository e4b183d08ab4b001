//! `probe --anonymous` with no token anywhere: what an anonymous request gets
//! from the test API server, with anonymous authentication on and off; no
//! token is read and no request carries `Authorization`.

use std::path::Path;

use serde_json::Value;

use crate::probe::{Run, command, finish, setup};
use crate::support::BASE;
use crate::support::apiserver::{ApiServer, Config, Rule};
use crate::support::base;
use crate::support::diagnosis::evidence;

/// `probe --anonymous` with no token: no TOKEN, no -f, an empty stdin pipe,
/// and the (absent) ServiceAccount directory of [`command`].
fn anonymous(dir: &Path, ca: Option<&Path>, server: &ApiServer, extra: &[&str]) -> Run {
    let mut cmd = command(dir);
    cmd.args(["probe", "--now", BASE, "--anonymous", "-s", &server.url()]);
    if let Some(ca) = ca {
        cmd.arg("--cacert").arg(ca);
    }
    finish(cmd.args(extra).output().unwrap())
}

fn json(dir: &Path, ca: &Path, server: &ApiServer, extra: &[&str]) -> Run {
    let mut args = vec!["-o", "json"];
    args.extend_from_slice(extra);
    anonymous(dir, Some(ca), server, &args)
}

#[test]
fn anonymous_on_is_403_as_system_anonymous_with_no_token_read_or_sent() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let run = json(
        dir.path(),
        &ca,
        &server,
        &["--path", "/api/v1/namespaces/shop/pods"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json["token"], Value::Null);
    assert_eq!(run.json["anonymous"], true);
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "403-forbidden");
    assert_eq!(d["cause"], "anonymous-forbidden");
    assert!(
        evidence(d).contains("User \"system:anonymous\" cannot list resource \"pods\""),
        "{}",
        evidence(d)
    );
    let requests = run.json["servers"][0]["requests"].as_array().unwrap();
    assert!(requests.iter().all(|r| r["anonymous"] == true));
    assert!(!server.saw_authorization());

    // Who am I, when anonymous requests may ask it: system:anonymous (exit 0).
    let mut config = Config::new(base());
    config.rbac.push(Rule {
        subject: "system:anonymous".to_owned(),
        verbs: vec!["create".to_owned()],
        group: "authentication.k8s.io".to_owned(),
        resources: vec!["selfsubjectreviews".to_owned()],
        namespace: None,
    });
    let open = ApiServer::start(config, &pki);
    let run = json(dir.path(), &ca, &open, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json["servers"][0]["user"]["username"],
        "system:anonymous"
    );
    assert!(!open.saw_authorization());
}

#[test]
fn anonymous_off_is_401_this_server_refuses_anonymous_requests() {
    let (dir, pki, ca) = setup();
    let mut config = Config::new(base());
    config.anonymous = false;
    let server = ApiServer::start(config, &pki);
    let run = json(dir.path(), &ca, &server, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json["token"], Value::Null);
    let d = &run.json["diagnosis"];
    assert_eq!(d["classification"], "401-invalid-token");
    assert_eq!(d["cause"], "anonymous-refused");
    assert!(evidence(d).contains("this server refuses anonymous requests"));
    assert!(!server.saw_authorization());

    // The table says that no token was sent; stdin /dev/null is no token either.
    let output = crate::support::satoken_std()
        .env("KUBECTL_SATOKEN_SA_DIR", dir.path().join("no-such-sa-dir"))
        .env("NO_COLOR", "1")
        .args(["probe", "--now", BASE, "--anonymous", "-s", &server.url()])
        .arg("--cacert")
        .arg(&ca)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(table.contains("Token:      none sent"), "{table}");
    assert!(table.contains("anonymous-refused"), "{table}");
}

#[test]
fn anonymous_without_a_ca_or_with_token_only_flags_is_one_line_exit_2() {
    let (dir, pki, ca) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    let run = anonymous(dir.path(), None, &server, &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("no CA to verify the server with"),
        "{}",
        run.stderr
    );
    let run = anonymous(dir.path(), Some(&ca), &server, &["--token-review"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("need a token"), "{}", run.stderr);
    assert!(server.seen().is_empty());
}

#[test]
fn anonymous_takes_the_ca_from_a_kubeconfig_or_the_pod_and_never_a_token() {
    let (dir, pki, _) = setup();
    let server = ApiServer::start(Config::new(base()), &pki);
    // The kubeconfig's cluster gives the server and CA; its user's token stays home.
    let kubeconfig = crate::probe_cluster::kubeconfig(dir.path(), &server, &pki, "admin-token");
    let run = finish(
        command(dir.path())
            .args([
                "probe",
                "-o",
                "json",
                "--now",
                BASE,
                "--anonymous",
                "--kubeconfig",
            ])
            .arg(&kubeconfig)
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json["diagnosis"]["cause"], "anonymous-forbidden");
    assert_eq!(run.json["kubeconfig"]["credentials"], Value::Null);
    // In a pod with a CA and no mounted token: the in-pod server and CA.
    let sa_dir = dir.path().join("serviceaccount");
    std::fs::create_dir(&sa_dir).unwrap();
    pki.write_ca(&sa_dir, "ca.crt");
    let run = finish(
        command(dir.path())
            .env("KUBECTL_SATOKEN_SA_DIR", &sa_dir)
            .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", server.port().to_string())
            .args(["probe", "-o", "json", "--now", BASE, "--anonymous"])
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json["anonymous"], true);
    assert_eq!(run.json["diagnosis"]["cause"], "anonymous-forbidden");
    assert!(!server.saw_authorization());
}
