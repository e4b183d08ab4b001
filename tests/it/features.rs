//! The Kubernetes 1.29–1.36 token features through the built binary, on
//! testdata/features/ (`cargo run --example gen_features`): structured
//! authentication configuration with CEL, external signers, lifetime caps and
//! the kubelet token without its grace, image-pull and CSI token documents,
//! legacy-token labels, cloud trust policies, and the causes' wordings.

use assert_cmd::Command;
use serde_json::Value;

const NOW: &str = "2026-01-01T00:00:00Z";
const CONFIG: &str = "testdata/features/authn-config.yaml";

fn satoken() -> Command {
    let mut cmd = crate::support::satoken();
    cmd.env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-test")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Runs a subcommand with `-o json`; (exit code, every JSON document printed).
fn json(args: &[&str]) -> (i32, Vec<Value>) {
    let out = satoken()
        .args(args)
        .args(["-o", "json", "--now", NOW])
        .output()
        .unwrap();
    let docs = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| {
            panic!(
                "{args:?}: {e}\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
    (out.status.code().unwrap(), docs)
}

fn finding<'a>(doc: &'a Value, code: &str) -> Option<&'a Value> {
    doc["findings"]
        .as_array()?
        .iter()
        .find(|f| f["code"] == code)
}

#[test]
fn authentication_config_routes_and_evaluates_cel() {
    let (code, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/oidc-ok.jwt",
        "--authentication-config",
        CONFIG,
    ]);
    assert_eq!(code, 0);
    let authn = &docs[0]["authentication_config"];
    assert_eq!(authn["routed"]["index"], 0);
    assert_eq!(authn["routed"]["user"]["username"], "idp:alice@example.com");
    assert_eq!(
        authn["routed"]["user"]["extra"]["example.com/tenant"][0],
        "example.com"
    );
    assert!(authn["rejection"].is_null());
    // A false CEL rule: its message, in kube-apiserver's words.
    let (code, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/oidc-email-unverified.jwt",
        "--authentication-config",
        CONFIG,
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        docs[0]["authentication_config"]["rejection"],
        "oidc: error evaluating claim validation expression: validation expression 'claims.email_verified == true' failed: the email address must be verified"
    );
    let f = finding(&docs[0], "authn-claim-rule-failed").unwrap();
    assert_eq!(f["severity"], "error");
    // A foreign audience fails before any rule.
    let (_, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/oidc-audience.jwt",
        "--authentication-config",
        CONFIG,
    ]);
    assert!(
        finding(&docs[0], "authn-audience-mismatch").is_some(),
        "{}",
        docs[0]
    );
    // An issuer no authenticator has, and not a ServiceAccount token: nothing takes it.
    let (code, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/oidc-other-issuer.jwt",
        "--authentication-config",
        CONFIG,
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        finding(&docs[0], "authn-no-authenticator").unwrap()["severity"],
        "error"
    );
    // A bad file is one line and exit 2.
    let out = satoken()
        .args([
            "decode",
            "-f",
            "testdata/features/oidc-ok.jwt",
            "--authentication-config",
        ])
        .arg("testdata/jwks.json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not an AuthenticationConfiguration"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn lifetimes_the_kubelet_grace_and_documents() {
    let (code, docs) = json(&["decode", "-f", "testdata/features/projected-no-grace.jwt"]);
    assert_eq!(code, 0, "a warning, not an error");
    assert!(
        finding(&docs[0], "no-extended-expiry").is_some(),
        "{}",
        docs[0]
    );
    let (_, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/token-request-shortened.json",
    ]);
    let f = finding(&docs[0], "lifetime-shortened").unwrap();
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("requested expiration of 31536000 seconds shortened to 172800 seconds")
    );
    let (_, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/credential-provider-request.json",
    ]);
    assert_eq!(docs[0]["input_shape"], "credential-provider-request");
    assert!(finding(&docs[0], "image-pull-token").is_some());
    for (file, field) in [
        ("csi-volume-context.json", "volume context"),
        ("csi-secrets.json", "secrets field"),
    ] {
        let (code, docs) = json(&["decode", "-f", &format!("testdata/features/{file}")]);
        assert_eq!(code, 0, "{file}");
        let audiences: Vec<&str> = docs
            .iter()
            .map(|d| d["csi_audience"].as_str().unwrap())
            .collect();
        assert_eq!(audiences, ["api://AzureADTokenExchange", "vault"], "{file}");
        assert_eq!(docs[1]["line"], 2);
        assert!(
            finding(&docs[1], "csi-token").unwrap()["message"]
                .as_str()
                .unwrap()
                .contains(field)
        );
    }
    // One token only: verify refuses a map of two, naming the audiences.
    let out = satoken()
        .args([
            "verify",
            "--jwks",
            "testdata/jwks.json",
            "-f",
            "testdata/features/csi-secrets.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("CSI audiences api://AzureADTokenExchange, vault")
    );
    let (code, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/legacy-secret-invalid.json",
    ]);
    assert_eq!(code, 1);
    let f = finding(&docs[0], "legacy-token-invalid-since").unwrap();
    assert!(
        f["message"].as_str().unwrap().contains("after 2026-06-01"),
        "{f}"
    );
}

#[test]
fn external_signer_kids_and_trust_policies() {
    // The signer's key as PEM: it verifies; the kid is the signer's own name.
    let (code, docs) = json(&[
        "verify",
        "--key",
        "testdata/features/signer.pub.pem",
        "-f",
        "testdata/features/external-signer.jwt",
    ]);
    assert_eq!(code, 0, "{}", docs[0]);
    let key = docs[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "key")
        .unwrap();
    assert!(key["ok"].is_null(), "{key}");
    assert!(finding(&docs[0], "kid-not-kubernetes").is_some());
    // Against the cluster's JWKS it is missing, and the message says why it may be.
    let (code, docs) = json(&[
        "verify",
        "--jwks",
        "testdata/jwks.json",
        "-f",
        "testdata/features/external-signer.jwt",
    ]);
    assert_eq!(code, 1);
    assert!(
        finding(&docs[0], "kid-not-found").unwrap()["message"]
            .as_str()
            .unwrap()
            .contains("excluded from /openid/v1/jwks")
    );
    // An Azure federated credential expecting another namespace.
    let (code, docs) = json(&[
        "verify",
        "--jwks",
        "testdata/jwks.json",
        "-f",
        "testdata/features/azure-workload.jwt",
        "--federated-credential",
        "testdata/features/federated-credential.json",
    ]);
    assert_eq!(code, 1);
    let m = finding(&docs[0], "trust-policy-mismatch").unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        m.starts_with("subject:") && m.contains("another namespace: shop instead of prod"),
        "{m}"
    );
    // The flags override the file: now it matches.
    let (code, _) = json(&[
        "verify",
        "--jwks",
        "testdata/jwks.json",
        "-f",
        "testdata/features/azure-workload.jwt",
        "--federated-credential",
        "testdata/features/federated-credential.json",
        "--expect-subject",
        "system:serviceaccount:shop:checkout",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn the_new_causes_list_their_wordings() {
    let (code, docs) = json(&["explain", "node-audience-not-allowed"]);
    assert_eq!(code, 0);
    let others: Vec<&str> = docs[0]["other_wordings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["said_by"].as_str().unwrap())
        .collect();
    assert!(
        others.contains(&"the kubelet") && others.contains(&"the NodeRestriction admission plugin"),
        "{others:?}"
    );
    let (_, docs) = json(&["explain", "jwt-authenticator-rejected"]);
    assert!(docs[0]["other_wordings"].as_array().unwrap().len() >= 5);
}

#[test]
fn classify_reads_a_jwt_authenticators_reason_and_node_restrictions_refusal() {
    for (file, cause) in [
        (
            "apiserver-oidc-claim-rule.log",
            "jwt-authenticator-rejected",
        ),
        ("apiserver-oidc-audience.log", "jwt-authenticator-rejected"),
        ("node-audience-403.json", "node-audience-not-allowed"),
    ] {
        let path = format!("testdata/features/texts/{file}");
        let (_, docs) = json(&["classify", &path]);
        let diagnosis = &docs[0]["results"][0]["diagnosis"];
        assert_eq!(diagnosis["cause"], cause, "{file}: {diagnosis}");
        assert_eq!(diagnosis["confidence"], "high", "{file}: {diagnosis}");
    }
}

/// A federated credential with no audience matches no token (Azure requires
/// one): it is refused as a credential, never reported as a match.
#[test]
fn a_federated_credential_without_audiences_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, audiences) in [("empty.json", r#""audiences": [], "#), ("none.json", "")] {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!(
                r#"{{{audiences}"issuer": "https://kubernetes.default.svc.cluster.local", "subject": "system:serviceaccount:shop:checkout", "name": "x"}}"#
            ),
        )
        .unwrap();
        let out = satoken()
            .args(["verify", "--now", NOW, "--jwks", "testdata/jwks.json"])
            .args(["-f", "testdata/features/azure-workload.jwt"])
            .arg("--federated-credential")
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains("no audience"), "{name}: {stderr}");
    }
}

/// A YAML error names where and what in words: never the YAML library's
/// Debug output or its advice to programmers.
#[test]
fn yaml_errors_are_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let bomb: String = std::iter::once("a: &a [1,1,1,1,1,1,1,1,1]\n".to_owned())
        .chain((b'b'..=b'g').map(|c| {
            let prev = (c - 1) as char;
            let c = c as char;
            format!("{c}: &{c} [{}]\n", vec![format!("*{prev}"); 9].join(","))
        }))
        .collect();
    for (yaml, want) in [
        (bomb.as_str(), "over this tool's bounds"),
        (
            "kind: AuthenticationConfiguration\nkind: x\n",
            "duplicate mapping key `kind`",
        ),
    ] {
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, yaml).unwrap();
        for flag in ["--authentication-config", "--kubeconfig"] {
            let sub = if flag == "--kubeconfig" {
                "probe"
            } else {
                "decode"
            };
            let out = satoken()
                .args([
                    sub,
                    "--now",
                    NOW,
                    "-f",
                    "testdata/features/oidc-ok.jwt",
                    flag,
                ])
                .arg(&path)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert!(stderr.contains(want), "{flag}: {stderr}");
            for internal in ["Events {", "Options", "budget breached", "error: line"] {
                assert!(!stderr.contains(internal), "{flag}: {stderr}");
            }
        }
    }
}

/// CEL bombs in an authentication configuration are refused within
/// kube-apiserver's per-call cost limit, naming the rule: one line, exit 2,
/// in decode and verify alike (each used to allocate gigabytes or never end).
#[test]
fn cel_bombs_are_over_the_cost_limit() {
    let replace = format!("'a'{}.size() > 0", ".replace('a', 'aaaaaaaaaa')".repeat(10));
    let bombs = [
        replace.as_str(),
        "lists.range(1000000).distinct().size() > 0",
        "lists.range(1000000).all(i, lists.range(1000000).size() > 0)",
        "lists.range(100000).map(i, lists.range(100000).map(j, i * j)).size() > 0",
    ];
    // The same, wrapped in a literal map; and 30 quotes doubling a string.
    let wrapped = format!("{{'k': {}}}.k.size() > 0", &replace[..replace.len() - 11]);
    let quoted = format!(
        "{}claims.email{}.size() > 0",
        "strings.quote(".repeat(30),
        ")".repeat(30)
    );
    let bombs = [&bombs[..], &[wrapped.as_str(), quoted.as_str()]].concat();
    let dir = tempfile::tempdir().unwrap();
    for (i, bomb) in bombs.iter().enumerate() {
        let config = std::fs::read_to_string("testdata/features/authn-config.yaml")
            .unwrap()
            .replacen(
                "claims.email_verified == true",
                &bomb.replace('"', "\\\""),
                1,
            );
        let path = dir.path().join(format!("bomb-{i}.yaml"));
        std::fs::write(&path, config).unwrap();
        for sub in [
            &["decode"][..],
            &["verify", "--jwks", "testdata/features/signer-jwks.json"],
        ] {
            let started = std::time::Instant::now();
            let out = satoken()
                .args(sub)
                .args(["--now", NOW, "-f", "testdata/features/oidc-ok.jwt"])
                .arg("--authentication-config")
                .arg(&path)
                .timeout(std::time::Duration::from_secs(60))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            eprintln!("{bomb}: {:?}", started.elapsed());
            assert_eq!(out.status.code(), Some(2), "{bomb}: {stderr}");
            assert!(
                stderr.contains("jwt[0].claimValidationRules[1].expression"),
                "{bomb}: {stderr}"
            );
            assert!(
                stderr.contains("per-call limit of 1000000"),
                "{bomb}: {stderr}"
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
        }
    }
}

/// Behind the estimate, each evaluation runs in a child process under a
/// memory and CPU limit: what the estimate would refuse, given to the child
/// directly, dies there (an allocation of gigabytes fails) and says nothing.
#[test]
fn cel_runs_in_a_child_under_limits() {
    let bomb = format!("'a'{}.size()", ".replace('a', 'aaaaaaaaaa')".repeat(10));
    let request = serde_json::json!({"source": bomb, "name": "claims", "value": {}});
    let out = satoken()
        .args(["__evaluate-cel", "5"])
        .write_stdin(request.to_string())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let small = format!("'a'{}.size()", ".replace('a', 'aaaaaaaaaa')".repeat(3));
    let request = serde_json::json!({"source": small, "name": "claims", "value": {}});
    let out = satoken()
        .args(["__evaluate-cel", "5"])
        .write_stdin(request.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        r#"{"Value":{"Int":1000}}"#
    );
}

/// All of a run's CEL together gets `--timeout`: spent, a rule is not
/// evaluated, and says why.
#[test]
fn cel_is_bounded_by_the_timeout() {
    let (_, docs) = json(&[
        "verify",
        "--jwks",
        "testdata/features/signer-jwks.json",
        "--timeout",
        "1ns",
        "-f",
        "testdata/features/oidc-ok.jwt",
        "--authentication-config",
        CONFIG,
    ]);
    let text = docs[0].to_string();
    assert!(
        text.contains("time bound on CEL (1ns, --timeout)"),
        "{text}"
    );
    let (code, docs) = json(&[
        "decode",
        "-f",
        "testdata/features/oidc-ok.jwt",
        "--authentication-config",
        CONFIG,
    ]);
    assert_eq!(code, 0);
    assert!(!docs[0].to_string().contains("time bound on CEL"));
}
