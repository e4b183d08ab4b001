//! The JSON Schemas in docs/schema/ are the `-o json` contract, generated
//! from the wire types (`support::schemas::all`): the checked-in files
//! must equal the generated ones (`SATOKEN_UPDATE_SCHEMAS=1 cargo nextest run
//! --test it schema::` rewrites them), and every subcommand's output over a
//! wide set of inputs (every token fixture, every evidence file including the
//! wild corpus, the skew fixtures, probe and doctor against the local test API
//! server, every cause `explain` knows) must validate against its file.
//!
//! No test compares the schemas' enums with the Rust enums: both come from one
//! place (a code enum's `ALL` and `as_str`, see `satoken::wire`), so they are
//! equal by construction; the generated-files test is what catches a schema
//! that was not regenerated. Validation is offline: each file stands alone.
//!
//! Over 800 lines: one validation per subcommand and scenario, sharing the
//! compiled schemas and the runners at the top.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use chrono::TimeDelta;
use serde_json::Value;

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::schemas as schema;
use crate::support::tokens::{self, NAMESPACE};
use crate::support::{BASE as NOW, base, fresh_token};
use satoken::diagnosis::{Cause, Classification};
use satoken::findings::Code;
use satoken::token::TokenKind;

/// The issuer and audience every token fixture was minted with.
const CLUSTER: &str = "https://kubernetes.default.svc.cluster.local";
const ADMIN: &str = "admin-static-token-0123456789";

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn schema_dir() -> PathBuf {
    repo("docs/schema")
}

/// docs/schema/<subcommand>.schema.json as checked in.
fn load(subcommand: &str) -> Value {
    let path = schema_dir().join(schema::file_name(subcommand));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A validator per schema file, and what was checked against them.
struct Checker {
    validators: Vec<(&'static str, jsonschema::Validator)>,
    /// (subcommand, label) of every document validated.
    checked: Vec<(String, String)>,
    failures: Vec<String>,
}

impl Checker {
    fn new() -> Checker {
        let validators = schema::all()
            .into_iter()
            .map(|(name, _)| {
                let validator = jsonschema::options()
                    .offline()
                    .should_validate_formats(true)
                    .build(&load(name))
                    .unwrap_or_else(|e| panic!("docs/schema/{name} does not compile: {e}"));
                (name, validator)
            })
            .collect();
        Checker {
            validators,
            checked: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// Validates `doc` against `docs/schema/<sub>.schema.json`; `label` names the output.
    fn check(&mut self, sub: &str, label: &str, doc: &Value) {
        let validator = &self
            .validators
            .iter()
            .find(|(name, _)| *name == sub)
            .unwrap_or_else(|| panic!("no schema for {sub}"))
            .1;
        for error in validator.iter_errors(doc) {
            // The message quotes the offending value: keep it to one readable line.
            let mut message = error.to_string();
            if message.len() > 300 {
                let cut = (0..=300)
                    .rev()
                    .find(|&i| message.is_char_boundary(i))
                    .unwrap();
                message.truncate(cut);
                message.push('…');
            }
            self.failures.push(format!(
                "{label}\n    at JSON pointer \"{}\" (schema {sub}#{}): {message}",
                error.instance_path(),
                error.schema_path(),
            ));
        }
        self.checked.push((sub.to_owned(), label.to_owned()));
    }

    /// Runs the command (stdin given) and validates its stdout: one JSON document,
    /// or JSON Lines with `lines`. Returns the exit code and the documents.
    fn run(&mut self, sub: &str, label: &str, cmd: &mut Command, lines: bool) -> (i32, Vec<Value>) {
        let output = cmd.timeout(Duration::from_secs(60)).output().unwrap();
        self.output(sub, label, output, lines)
    }

    fn output(
        &mut self,
        sub: &str,
        label: &str,
        output: std::process::Output,
        lines: bool,
    ) -> (i32, Vec<Value>) {
        let code = output.status.code().unwrap_or(-1);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let texts: Vec<&str> = if lines {
            stdout.lines().filter(|l| !l.trim().is_empty()).collect()
        } else {
            vec![stdout.as_str()]
        };
        let mut docs = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let label = if lines {
                format!("{label} (output line {})", i + 1)
            } else {
                label.to_owned()
            };
            match serde_json::from_str::<Value>(text) {
                Ok(doc) => {
                    self.check(sub, &label, &doc);
                    docs.push(doc);
                }
                Err(e) => self.failures.push(format!(
                    "{label}: exit {code}, stdout is not JSON ({e}); stderr: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                )),
            }
        }
        (code, docs)
    }

    fn finish(self, at_least: usize) {
        assert!(
            self.failures.is_empty(),
            "{} of {} outputs do not match their schema (docs/schema/):\n  {}",
            self.failures.len(),
            self.checked.len(),
            self.failures.join("\n  ")
        );
        assert!(
            self.checked.len() >= at_least,
            "only {} outputs validated, expected at least {at_least}: {:?}",
            self.checked.len(),
            self.checked
        );
    }
}

/// The binary, isolated from this machine's kubeconfig and pod environment.
fn bin(dir: &Path) -> Command {
    let mut cmd = crate::support::satoken();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env_remove("KUBECONFIG")
        .env("HOME", dir.join("no-home"))
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-such-sa-dir"))
        .env("NO_COLOR", "1");
    cmd
}

fn sorted_files(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(repo(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| keep(n))
        .collect();
    files.sort();
    files
}

fn token_files() -> Vec<String> {
    sorted_files("testdata/tokens", |n| n != "README.md" && n != "batch.txt")
}

#[test]
fn decode_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Checker::new();
    for name in token_files() {
        let path = format!("testdata/tokens/{name}");
        let (code, docs) = c.run(
            "decode",
            &format!("decode -f {path}"),
            bin(dir.path())
                .args(["decode", "--now", NOW, "-o", "json", "-f", &path])
                .write_stdin(""),
            false,
        );
        assert!(code == 0 || code == 1, "decode {path}: exit {code}");
        assert!(docs[0].get("line").is_none(), "decode {path}: no line");
    }
    // A batch: the fixture (with a bad line), then every raw token plus garbage.
    let (code, docs) = c.run(
        "decode",
        "decode -f testdata/tokens/batch.txt",
        bin(dir.path())
            .args(["decode", "--now", NOW, "-o", "json"])
            .args(["-f", "testdata/tokens/batch.txt"])
            .write_stdin(""),
        true,
    );
    // A bad line, and an expired token, which outranks it.
    assert_eq!(code, 1, "batch.txt has an expired token");
    let mut batch = String::new();
    for name in token_files().iter().filter(|n| n.ends_with(".jwt")) {
        batch.push_str(
            std::fs::read_to_string(repo("testdata/tokens").join(name))
                .unwrap()
                .trim(),
        );
        batch.push('\n');
    }
    batch.push_str("not.a.token\n");
    let (_, more) = c.run(
        "decode",
        "decode (stdin batch of every .jwt fixture and a bad line)",
        bin(dir.path())
            .args(["decode", "--now", NOW, "-o", "json", "-f", "-"])
            .write_stdin(batch),
        true,
    );
    let all: Vec<&Value> = docs.iter().chain(&more).collect();
    assert!(
        all.iter().any(|d| d.get("error").is_some()),
        "an error line"
    );
    assert!(all.iter().any(|d| d.get("kind").is_some()), "a token line");
    c.finish(token_files().len() + 10);
}

#[test]
fn verify_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("schema-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let ca = ca.to_str().unwrap();
    let mut c = Checker::new();
    let sources: Vec<Vec<&str>> = vec![
        vec![
            "--jwks",
            "testdata/jwks.json",
            "--issuer",
            CLUSTER,
            "--audience",
            CLUSTER,
        ],
        vec![
            "--jwks",
            "testdata/jwks.json",
            "--issuer",
            "https://elsewhere",
        ],
        vec!["--key", "testdata/keys/rsa.pub.pem"],
        vec![
            "--key",
            "testdata/keys/ec256.pub.pem",
            "--key",
            "testdata/keys/ec384.pub.pem",
            "--key",
            "testdata/keys/rsa-rotated.pub.pem",
        ],
        // A private key (its public half is used) and a certificate.
        vec!["--key", "testdata/keys/rsa.key.pem", "--key", ca],
    ];
    let mut runs = 0;
    for name in token_files() {
        for args in &sources {
            let path = format!("testdata/tokens/{name}");
            let (code, _) = c.run(
                "verify",
                &format!("verify -f {path} {}", args.join(" ")),
                bin(dir.path())
                    .args(["verify", "--now", NOW, "-o", "json", "-f", &path])
                    .args(args)
                    .write_stdin(""),
                false,
            );
            assert!(
                code == 0 || code == 1,
                "verify {path} {args:?}: exit {code}"
            );
            runs += 1;
        }
    }
    // Keys fetched from the API server: its JWKS and its discovery document.
    let server = ApiServer::start(Config::new(base()), &pki);
    let token = fresh_token();
    for url in [
        format!("{}/openid/v1/jwks", server.url()),
        format!("{}/.well-known/openid-configuration", server.url()),
    ] {
        let (code, _) = c.run(
            "verify",
            &format!("verify --jwks {url}"),
            bin(dir.path())
                .args(["verify", "--now", NOW, "-o", "json", "-f", "-"])
                .args(["--jwks", &url, "--cacert", ca])
                .write_stdin(token.clone()),
            false,
        );
        assert_eq!(code, 0, "verify --jwks {url}");
        runs += 1;
    }
    c.finish(runs);
}

#[test]
fn skew_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Checker::new();
    let leases = sorted_files("testdata/skew", |n| n.ends_with(".json"));
    let mut cases: Vec<Vec<String>> = vec![
        vec![
            "--clock".into(),
            "node-a=-90s".into(),
            "--clock".into(),
            "node-b=+0s".into(),
        ],
        vec![
            "-f".into(),
            "testdata/tokens/not-yet-valid.jwt".into(),
            "--clock".into(),
            "node-b=2026-01-01T00:01:30Z".into(),
        ],
        vec!["-f".into(), "testdata/tokens/legacy-secret.jwt".into()],
        vec![
            "-f".into(),
            "testdata/tokens/projected.jwt".into(),
            "--leases".into(),
            "testdata/skew/node-leases.json".into(),
            "--nodes".into(),
            "testdata/skew/nodes.json".into(),
        ],
    ];
    for file in &leases {
        let flag = if file == "nodes.json" {
            "--nodes"
        } else {
            "--leases"
        };
        cases.push(vec![flag.into(), format!("testdata/skew/{file}")]);
        cases.push(vec![
            "-f".into(),
            "testdata/tokens/expired.jwt".into(),
            flag.into(),
            format!("testdata/skew/{file}"),
        ]);
    }
    for args in &cases {
        let (code, _) = c.run(
            "skew",
            &format!("skew {}", args.join(" ")),
            bin(dir.path())
                .args(["skew", "--now", NOW, "-o", "json"])
                .args(args)
                .write_stdin(""),
            false,
        );
        assert!(code == 0 || code == 1, "skew {args:?}: exit {code}");
    }
    c.finish(cases.len());
}

#[test]
fn classify_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Checker::new();
    let mut seen = 0;
    for expected in sorted_files("testdata/evidence", |n| n.ends_with(".expected.json")) {
        let evidence = format!(
            "testdata/evidence/{}",
            expected.replace(".expected.json", "")
        );
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(repo("testdata/evidence").join(&expected)).unwrap(),
        )
        .unwrap();
        let mut cmd = bin(dir.path());
        cmd.args(["classify", "--now", NOW, "-o", "json", &evidence]);
        for arg in meta["args"].as_array().into_iter().flatten() {
            cmd.arg(arg.as_str().unwrap());
        }
        if let Some(token) = meta["token_file"].as_str() {
            cmd.args(["-f", &format!("testdata/tokens/{token}")]);
        }
        cmd.write_stdin("");
        if meta["exit"] == 2 {
            continue; // not evidence: no document to validate
        }
        seen += 1;
        c.run("classify", &format!("classify {evidence}"), &mut cmd, false);
        // The same evidence judged for a token, where it carries none.
        if meta["token_file"].is_null() {
            let mut cmd = bin(dir.path());
            cmd.args(["classify", "--now", NOW, "-o", "json", &evidence])
                .args(
                    meta["args"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|a| a.as_str().unwrap()),
                )
                .args(["-f", "testdata/tokens/expired.jwt"])
                .write_stdin("");
            c.run(
                "classify",
                &format!("classify {evidence} -f expired.jwt"),
                &mut cmd,
                false,
            );
            seen += 1;
        }
    }
    // Text nobody wrote for the tool: every case of the wild corpus that is
    // evidence at all (the rest exit 2 with no document).
    let mut wild = 0;
    for (_, evidence) in crate::wild::entries() {
        let output = bin(dir.path())
            .args(["classify", "--now", NOW, "-o", "json", &evidence])
            .write_stdin("")
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        if output.status.code() == Some(2) && output.stdout.is_empty() {
            continue;
        }
        c.output("classify", &format!("classify {evidence}"), output, false);
        wild += 1;
    }
    // About half the corpus is evidence classify reads (95 of 182 today).
    assert!(wild >= 80, "only {wild} wild cases are evidence");
    // A log: its report, and its events one JSON line each.
    let log = "testdata/logs/apiserver-day.log.gz";
    let mut cmd = bin(dir.path());
    cmd.args(["classify", "--now", NOW, "-o", "json", log])
        .write_stdin("");
    c.run("classify-log", &format!("classify {log}"), &mut cmd, false);
    let mut cmd = bin(dir.path());
    cmd.args(["classify", "--now", NOW, "--events", log])
        .write_stdin("");
    let (_, events) = c.run(
        "classify-events",
        &format!("classify --events {log}"),
        &mut cmd,
        true,
    );
    assert!(events.len() > 50, "{}", events.len());
    c.finish(seen + wild + 1 + events.len());
}

#[test]
fn audit_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.log");
    let api = dir.path().join("apiserver.log");
    let generated = std::process::Command::new("python3")
        .arg(repo("scripts/gen_audit.py"))
        .args(["--events", "3000", "--seed", "5", "--apiserver-log"])
        .arg(&api)
        .arg("-o")
        .arg(&log)
        .status()
        .unwrap();
    assert!(generated.success());
    let (log, api) = (log.to_str().unwrap(), api.to_str().unwrap());
    let mut c = Checker::new();
    let shard = dir.path().join("shard.json");
    for (label, args) in [
        ("audit", vec![log]),
        ("audit --apiserver-log", vec![log, "--apiserver-log", api]),
    ] {
        let mut cmd = bin(dir.path());
        cmd.args(["audit", "--now", NOW, "-o", "json"]).args(&args);
        let output = cmd.output().unwrap();
        std::fs::write(&shard, &output.stdout).unwrap();
        c.output("audit", label, output, false);
    }
    let shard = shard.to_str().unwrap();
    let mut cmd = bin(dir.path());
    cmd.args(["audit", "--now", NOW, "-o", "json", "--merge", shard, shard]);
    c.run("audit", "audit --merge", &mut cmd, false);
    c.finish(3);
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A kubeconfig for `server` with an inline CA and the admin token user.
fn kubeconfig(dir: &Path, server: &ApiServer, pki: &Pki) -> PathBuf {
    use base64::Engine as _;
    let ca = base64::engine::general_purpose::STANDARD.encode(&pki.ca_pem);
    let path = dir.join(format!("kubeconfig-{}", server.port()));
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: lab\nclusters:\n- name: lab\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\ncontexts:\n- name: lab\n  context: {{cluster: lab, user: admin, namespace: {NAMESPACE}}}\nusers:\n- name: admin\n  user:\n    token: {ADMIN}\n",
            server.url()
        ),
    )
    .unwrap();
    path
}

#[test]
fn probe_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("schema-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let other_ca = Pki::new("other-ca").write_ca(dir.path(), "other-ca.crt");
    let fresh = fresh_token();
    let expired = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
    // Minted just now by a server whose clock is right: not yet valid 90 s behind.
    let just_minted = tokens::sign(&tokens::projected(base(), 3607));
    let ok = ApiServer::start(Config::new(base()).admin(ADMIN), &pki);
    let mut skewed = Config::new(base()).admin(ADMIN);
    skewed.offset = TimeDelta::seconds(-90);
    let skewed = ApiServer::start(skewed, &pki);
    let mut recreated = Config::new(base()).admin(ADMIN);
    recreated.recreate_service_account();
    let recreated = ApiServer::start(recreated, &pki);
    let unreachable = format!("https://127.0.0.1:{}", closed_port());
    let pods = format!("/api/v1/namespaces/{NAMESPACE}/pods");
    let ca = ca.to_str().unwrap();
    let other_ca = other_ca.to_str().unwrap();
    let kc_ok = kubeconfig(dir.path(), &ok, &pki);
    let kc_recreated = kubeconfig(dir.path(), &recreated, &pki);
    let kc_ok = kc_ok.to_str().unwrap();
    let kc_recreated = kc_recreated.to_str().unwrap();
    let (ok_url, skewed_url) = (ok.url(), skewed.url());

    let mut c = Checker::new();
    let cases: Vec<(&str, Vec<&str>, &str, &[i32])> = vec![
        ("ok", vec!["--cacert", ca, "-s", &ok_url], &fresh, &[0]),
        (
            "401 expired",
            vec!["--cacert", ca, "-s", &ok_url],
            &expired,
            &[1],
        ),
        (
            "403",
            vec!["--cacert", ca, "-s", &ok_url, "--path", &pods],
            &fresh,
            &[1],
        ),
        (
            "two servers, one skewed",
            vec!["--cacert", ca, "-s", &ok_url, "-s", &skewed_url],
            &just_minted,
            &[1],
        ),
        (
            "unreachable",
            vec!["--cacert", ca, "-s", &unreachable],
            &fresh,
            &[3],
        ),
        (
            "untrusted CA",
            vec!["--cacert", other_ca, "-s", &ok_url],
            &fresh,
            &[3],
        ),
        (
            "kubeconfig, --token-review, bindings",
            vec!["--kubeconfig", kc_ok, "--token-review"],
            &fresh,
            &[0],
        ),
        (
            "recreated ServiceAccount, --token-review",
            vec!["--kubeconfig", kc_recreated, "--token-review"],
            &fresh,
            &[1],
        ),
        (
            "--use-kubeconfig-credentials, expired",
            vec!["--kubeconfig", kc_ok, "--use-kubeconfig-credentials"],
            &expired,
            &[1],
        ),
    ];
    for (label, args, token, codes) in &cases {
        let (code, _) = c.run(
            "probe",
            &format!("probe ({label})"),
            bin(dir.path())
                .args(["probe", "-o", "json", "--now", NOW, "-f", "-"])
                .args(args)
                .write_stdin(token.to_string()),
            false,
        );
        assert!(codes.contains(&code), "probe ({label}): exit {code}");
    }

    // Replicas that disagree: --all-endpoints.
    let mut replicas = Vec::new();
    for i in 0..2 {
        let mut config = Config::new(base()).admin(ADMIN);
        if i == 1 {
            config.offset = TimeDelta::seconds(-90);
        }
        replicas.push(ApiServer::start(config, &pki));
    }
    let ports: Vec<u16> = replicas.iter().map(ApiServer::port).collect();
    replicas[0].set_endpoints(&ports);
    let kc = kubeconfig(dir.path(), &replicas[0], &pki);
    let (_, docs) = c.run(
        "probe",
        "probe (--all-endpoints, replica-dependent)",
        bin(dir.path())
            .args([
                "probe",
                "-o",
                "json",
                "--now",
                NOW,
                "-f",
                "-",
                "--kubeconfig",
            ])
            .arg(&kc)
            .args(["--all-endpoints", "--token-review"])
            .write_stdin(just_minted.clone()),
        false,
    );
    assert_eq!(
        docs[0]["diagnosis"]["classification"], "replica-dependent",
        "the replica case is exercised"
    );
    c.finish(cases.len() + 1);
}

/// A pod's ServiceAccount directory holding `token`, the CA and the namespace.
fn sa_dir(pki: &Pki, token: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    pki.write_ca(dir.path(), "ca.crt");
    std::fs::write(dir.path().join("token"), token).unwrap();
    std::fs::write(dir.path().join("namespace"), NAMESPACE).unwrap();
    dir
}

#[test]
fn doctor_json_matches_its_schema() {
    let pki = Pki::new("schema-ca");
    let fresh = fresh_token();
    let expired = tokens::sign(&tokens::projected(base() - TimeDelta::hours(2), 3600));
    let ok = ApiServer::start(Config::new(base()), &pki);
    let mut skewed = Config::new(base());
    skewed.offset = TimeDelta::seconds(-90);
    let skewed = ApiServer::start(skewed, &pki);
    let closed = closed_port();
    let pods = format!("/api/v1/namespaces/{NAMESPACE}/pods");
    let other = Pki::new("other-ca");
    let cases: Vec<(&str, &Pki, u16, &str, Vec<&str>)> = vec![
        ("healthy", &pki, ok.port(), &fresh, vec![]),
        ("expired", &pki, ok.port(), &expired, vec![]),
        (
            "API server 90 s behind",
            &pki,
            skewed.port(),
            &fresh,
            vec![],
        ),
        ("403", &pki, ok.port(), &fresh, vec!["--path", &pods]),
        ("unreachable", &pki, closed, &fresh, vec![]),
        ("untrusted CA", &other, ok.port(), &fresh, vec![]),
    ];
    let mut c = Checker::new();
    let mut verdicts = BTreeSet::new();
    let mut keys_read = false;
    for (label, ca_of, port, token, extra) in &cases {
        let sa = sa_dir(ca_of, token);
        let output = crate::support::satoken_std()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .env("KUBECTL_SATOKEN_SA_DIR", sa.path())
            .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", port.to_string())
            .env_remove("KUBECONFIG")
            .env("NO_COLOR", "1")
            .args(["doctor", "-o", "json", "--now", NOW])
            .args(extra)
            .output()
            .unwrap();
        let (_, docs) = c.output("doctor", &format!("doctor ({label})"), output, false);
        if let Some(doc) = docs.first() {
            verdicts.insert(doc["verdict"].as_str().unwrap_or("?").to_owned());
            keys_read |= !doc["keys"].is_null();
        }
    }
    c.finish(cases.len());
    // Healthy, broken and unreachable all exercised (the keys document is null in some).
    assert!(verdicts.len() >= 3, "{verdicts:?}");
    assert!(keys_read, "an embedded verify document (keys) is validated");
}

#[test]
fn explain_json_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Checker::new();
    c.run(
        "explain",
        "explain (every cause)",
        bin(dir.path())
            .args(["explain", "-o", "json"])
            .write_stdin(""),
        false,
    );
    // Every cause, and every other code the tool prints: answers, findings,
    // token kinds.
    let others = Classification::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(Code::ALL.iter().map(|c| c.as_str()))
        .chain(TokenKind::ALL.iter().map(|k| k.as_str()))
        .filter(|code| code.parse::<Cause>().is_err());
    let codes: Vec<&str> = Cause::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(others)
        .collect();
    for code in &codes {
        c.run(
            "explain",
            &format!("explain {code}"),
            bin(dir.path())
                .args(["explain", "-o", "json", code])
                .write_stdin(""),
            false,
        );
    }
    c.finish(codes.len() + 1);
}

// ---------------------------------------------------------------- the schemas themselves

/// docs/schema/ holds exactly the generated files; `SATOKEN_UPDATE_SCHEMAS=1`
/// rewrites them (and removes files no subcommand has any more).
#[test]
fn checked_in_schemas_are_the_generated_ones() {
    let update = crate::support::rewrite_requested("SATOKEN_UPDATE_SCHEMAS");
    let generated = schema::all();
    let names: BTreeSet<String> = generated
        .iter()
        .map(|(name, _)| schema::file_name(name))
        .collect();
    let mut stale = Vec::new();
    for (name, value) in &generated {
        let path = schema_dir().join(schema::file_name(name));
        let want = serde_json::to_string_pretty(value).unwrap() + "\n";
        if update {
            std::fs::write(&path, &want).unwrap();
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != want {
            stale.push(schema::file_name(name));
        }
    }
    for entry in std::fs::read_dir(schema_dir()).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !names.contains(&file) {
            if update {
                std::fs::remove_file(schema_dir().join(&file)).unwrap();
            } else {
                stale.push(format!("{file} (not generated)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/schema/ is stale ({stale:?}): SATOKEN_UPDATE_SCHEMAS=1 cargo nextest run --test it schema::"
    );
}

/// Every `{"properties": …}` object in a schema, with its JSON pointer.
fn objects<'a>(value: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            if map.contains_key("properties") {
                out.push((pointer.clone(), value));
            }
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                objects(child, format!("{pointer}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                objects(child, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// What generation does not guarantee: a valid draft 2020-12 schema, and a
/// doc comment on every field of every wire type (its description).
#[test]
fn schemas_are_valid_and_every_property_is_described() {
    let mut problems = Vec::new();
    for (name, schema) in schema::all() {
        if let Err(e) = jsonschema::meta::validate(&schema) {
            problems.push(format!(
                "{name}: not a valid draft 2020-12 schema at \"{}\": {e}",
                e.instance_path()
            ));
        }
        let mut found = Vec::new();
        objects(&schema, String::new(), &mut found);
        for (pointer, object) in found {
            for (key, property) in object["properties"].as_object().unwrap() {
                if !property["description"].is_string() {
                    problems.push(format!(
                        "{name}#{pointer}/properties/{key}: no description (a /// on the field)"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n  {}", problems.join("\n  "));
}

/// What is wrong, and how to break a good document that way.
type Breakage = (&'static str, fn(&mut Value));

#[test]
fn the_checker_rejects_what_breaks_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let output = bin(dir.path())
        .args(["decode", "--now", NOW, "-o", "json"])
        .args(["-f", "testdata/tokens/projected.jwt"])
        .write_stdin("")
        .output()
        .unwrap();
    let good: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut c = Checker::new();
    c.check("decode", "good", &good);
    assert!(c.failures.is_empty(), "{:?}", c.failures);
    let breakages: [Breakage; 6] = [
        ("missing field", |d| {
            d.as_object_mut().unwrap().remove("expires_at");
        }),
        ("unknown field", |d| d["surprise"] = Value::Bool(true)),
        ("unknown code", |d| d["kind"] = "jwt".into()),
        ("wrong type", |d| d["leeway_seconds"] = "60".into()),
        ("not a time", |d| d["evaluated_at"] = "yesterday".into()),
        ("unknown finding code", |d| {
            d["findings"] =
                serde_json::json!([{"severity": "info", "code": "new-code", "message": "m"}]);
        }),
    ];
    for (what, breakage) in breakages {
        let mut doc = good.clone();
        breakage(&mut doc);
        let mut c = Checker::new();
        c.check("decode", what, &doc);
        assert_eq!(c.failures.len(), 1, "{what}: {:?}", c.failures);
        assert!(c.failures[0].starts_with(what), "{}", c.failures[0]);
    }
}
