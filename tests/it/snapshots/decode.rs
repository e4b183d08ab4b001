//! `decode` snapshots: every file in testdata/tokens/ (one case each, named after
//! the file), the batch file on stdin without its bad line, and the JSON input
//! shapes (TokenRequest and ExecCredential on stdin, Secret from a file).

use super::{Invocation, NOW, check, crate_dir};

const AREA: &str = "decode";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(crate_dir().join("testdata/tokens").join(name)).unwrap()
}

#[test]
fn every_token_fixture() {
    let mut files: Vec<String> = std::fs::read_dir(crate_dir().join("testdata/tokens"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "README.md")
        .collect();
    files.sort();
    assert!(files.len() >= 28, "{files:?}");
    for file in files {
        let path = format!("testdata/tokens/{file}");
        check(
            AREA,
            &file,
            &Invocation::new(&["decode", "--now", NOW, "-f", &path]),
        );
    }
}

#[test]
fn batch_on_stdin_without_the_bad_line() {
    let good: String = fixture("batch.txt")
        .lines()
        .filter(|l| !l.contains("not-a-token"))
        .map(|l| format!("{l}\n"))
        .collect();
    check(
        AREA,
        "batch-stdin-good-lines",
        &Invocation::new(&["decode", "--now", NOW]).stdin("batch-without-line-4.txt", good),
    );
}

#[test]
fn json_input_shapes_on_stdin() {
    check(
        AREA,
        "token-request-json-stdin",
        &Invocation::new(&["decode", "--now", NOW, "-f", "-"]).stdin(
            "testdata/tokens/token-request.json",
            fixture("token-request.json"),
        ),
    );
    // client-go's ExecCredential (what an exec plugin prints), status.token.
    let exec = serde_json::json!({
        "kind": "ExecCredential",
        "apiVersion": "client.authentication.k8s.io/v1",
        "spec": {"interactive": false},
        "status": {
            "expirationTimestamp": "2026-01-01T00:59:30Z",
            "token": fixture("token-request.jwt").trim(),
        }
    });
    check(
        AREA,
        "exec-credential-json-stdin",
        &Invocation::new(&["decode", "--now", NOW]).stdin("exec-credential.json", exec.to_string()),
    );
}

#[test]
fn token_as_argument_and_bad_input() {
    let raw = fixture("token-request.jwt");
    check(
        AREA,
        "token-flag",
        &Invocation::new(&["decode", "--now", NOW, "--token"])
            .arg_shown(raw.trim(), "\"$(cat testdata/tokens/token-request.jwt)\""),
    );
    check(
        AREA,
        "not-a-token-stdin",
        &Invocation::new(&["decode", "--now", NOW]).stdin("not-a-token.txt", "not-a-token\n"),
    );
    check(
        AREA,
        "configmap-json-stdin",
        &Invocation::new(&["decode", "--now", NOW])
            .stdin("configmap.json", r#"{"kind":"ConfigMap","data":{}}"#),
    );
    check(
        AREA,
        "leeway-2m-not-yet-valid",
        &Invocation::new(&[
            "decode",
            "--now",
            NOW,
            "--leeway",
            "2m",
            "-f",
            "testdata/tokens/not-yet-valid.jwt",
        ]),
    );
}

/// What people pass where a token goes: a path as TOKEN, a kubeconfig, a PEM
/// key, a Secret's base64 `.data.token`, a text file. Each is read or named in
/// one line, never one error per line.
#[test]
fn what_people_pass_where_a_token_goes() {
    use base64::Engine as _;
    let jwt = fixture("token-request.jwt");
    check(
        AREA,
        "path-as-token",
        &Invocation::new(&["decode", "--now", NOW, "testdata/tokens/token-request.jwt"]),
    );
    let kubeconfig = |user: &str| {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: dev\ncontexts:\n- name: dev\n  context: {{cluster: dev, user: dev}}\nclusters:\n- name: dev\n  cluster: {{server: \"https://203.0.113.7:6443\"}}\nusers:\n- name: dev\n  user:\n    {user}\n"
        )
    };
    check(
        AREA,
        "kubeconfig-stdin",
        &Invocation::new(&["decode", "--now", NOW, "-f", "-"])
            .stdin("kubeconfig", kubeconfig(&format!("token: {}", jwt.trim()))),
    );
    check(
        AREA,
        "kubeconfig-token-file-stdin",
        &Invocation::new(&["decode", "--now", NOW, "-f", "-"])
            .stdin("kubeconfig", kubeconfig("tokenFile: /var/run/token")),
    );
    check(
        AREA,
        "pem-key-file",
        &Invocation::new(&["decode", "--now", NOW, "-f", "testdata/keys/rsa.pub.pem"]),
    );
    let wrapped = base64::engine::general_purpose::STANDARD.encode(jwt.trim());
    check(
        AREA,
        "base64-token-stdin",
        &Invocation::new(&["decode", "--now", NOW]).stdin("secret-data-token.txt", wrapped),
    );
    check(
        AREA,
        "text-file",
        &Invocation::new(&["decode", "--now", NOW, "-f", "testdata/tokens/README.md"]),
    );
    check(
        AREA,
        "missing-file",
        &Invocation::new(&["decode", "--now", NOW, "-f", "testdata/tokens/absent.jwt"]),
    );
}
