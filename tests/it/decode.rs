//! `decode` through the built binary: every input shape, every token kind, every
//! finding code, batches, and every class of bad input (exit 2, one clear line).

use std::process::Stdio;

use assert_cmd::Command;
use base64::Engine as _;
use serde_json::{Value, json};

const NOW: &str = "2026-01-01T00:00:00Z";

fn satoken() -> Command {
    let mut cmd = crate::support::satoken();
    // Never fall back to a real in-pod token on the machine running the tests.
    cmd.env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent/satoken-test")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm");
    cmd
}

/// The same, as a std Command, for stdin that is `/dev/null` as in most pods.
fn satoken_null_stdin(sa_dir: &std::path::Path) -> std::process::Command {
    let mut cmd = crate::support::satoken_std();
    cmd.env("KUBECTL_SATOKEN_SA_DIR", sa_dir)
        .stdin(Stdio::null());
    cmd
}

fn fixture(name: &str) -> String {
    format!("{}/testdata/tokens/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn read_fixture(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

/// Runs `decode -o json` on a fixture file; returns (exit code, JSON).
fn decode_json(args: &[&str]) -> (i32, Value) {
    let out = satoken()
        .args(["decode", "-o", "json", "--now", NOW])
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, json)
}

fn codes(json: &Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

/// Runs decode on stdin and expects exit 2 with a one-line error containing `want`.
fn expect_bad_input(stdin: impl Into<Vec<u8>>, want: &str) {
    let out = satoken()
        .args(["decode", "--now", NOW])
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{want}: {stderr}");
    assert!(stderr.contains(want), "want {want:?} in {stderr:?}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr:?}");
    assert!(stderr.starts_with("kubectl-satoken: error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn every_input_shape_is_detected() {
    let raw = read_fixture("token-request.jwt");
    let cases: Vec<(Vec<&str>, Option<String>, &str)> = vec![
        (vec!["-f", "testdata/tokens/token-request.jwt"], None, "raw"),
        (vec![], Some(format!("\n\n   {}  \n", raw.trim())), "raw"),
        (vec![raw.trim()], None, "raw"),
        (vec!["--token", raw.trim()], None, "raw"),
        (vec!["-f", "testdata/tokens/bearer.txt"], None, "bearer"),
        (
            vec!["-f", "testdata/tokens/authorization-header.txt"],
            None,
            "authorization-header",
        ),
        (
            vec!["-f", "-"],
            Some(read_fixture("token-request.json")),
            "token-request",
        ),
        (
            vec!["-f", "testdata/tokens/legacy-secret.json"],
            None,
            "secret",
        ),
    ];
    for (args, stdin, shape) in cases {
        let mut cmd = satoken();
        cmd.args(["decode", "-o", "json", "--now", NOW]).args(&args);
        if let Some(stdin) = stdin {
            cmd.write_stdin(stdin);
        }
        let out = cmd.output().unwrap();
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["input_shape"], shape, "{args:?}");
    }
}

#[test]
fn every_token_kind() {
    for (file, kind, binding) in [
        ("projected.jwt", "projected", "pod"),
        ("token-request.jwt", "token-request", "none"),
        ("token-request-secret-bound.jwt", "token-request", "secret"),
        ("token-request-node-bound.jwt", "token-request", "node"),
        ("legacy-secret.jwt", "legacy-secret", "secret"),
        ("oidc.jwt", "not-kubernetes", "none"),
    ] {
        let (_, json) = decode_json(&["-f", &fixture(file)]);
        assert_eq!(json["kind"], kind, "{file}");
        assert_eq!(json["binding"], binding, "{file}");
    }
}

#[test]
fn json_schema_of_a_projected_token() {
    let (code, json) = decode_json(&["-f", &fixture("projected.jwt")]);
    assert_eq!(code, 0);
    assert_eq!(json["header"]["alg"], "RS256");
    assert_eq!(json["header"]["typ"], Value::Null);
    assert_eq!(
        json["issuer"],
        "https://kubernetes.default.svc.cluster.local"
    );
    assert_eq!(json["subject"], "system:serviceaccount:shop:checkout");
    assert_eq!(
        json["audiences"],
        json!(["https://kubernetes.default.svc.cluster.local"])
    );
    assert_eq!(json["namespace"], "shop");
    assert_eq!(json["service_account"]["name"], "checkout");
    assert_eq!(
        json["service_account"]["uid"],
        "3f1c2a4e-8d1b-4c55-9a2e-1b7f5d0c9e41"
    );
    assert_eq!(json["pod"]["name"], "checkout-7d9f8b6c5-x2x4q");
    assert_eq!(json["node"]["name"], "node-a");
    assert_eq!(json["secret"], Value::Null);
    assert_eq!(json["issued_at"], "2025-12-31T23:50:00Z");
    assert_eq!(json["not_before"], "2025-12-31T23:50:00Z");
    assert_eq!(json["expires_at"], "2026-12-31T23:50:00Z");
    assert_eq!(json["warn_after"], "2026-01-01T00:50:07Z");
    assert_eq!(json["lifetime_seconds"], 31_536_000);
    assert_eq!(json["expires_in_seconds"], 31_536_000 - 600);
    assert!(json["credential_id"].as_str().unwrap().starts_with("JTI="));
    assert_eq!(json["claims"]["kubernetes.io"]["namespace"], "shop");
    assert_eq!(json["signature"], json!({"present": true, "bytes": 256}));
    assert_eq!(json["evaluated_at"], NOW);
    assert_eq!(json["leeway_seconds"], 60);
    assert_eq!(json["verdict"], "accept");
    assert_eq!(json["fingerprint"].as_str().unwrap().len(), 8);
}

/// A token built at test time for codes no realistic fixture carries.
fn handmade(header: Value, claims: Value, signature: &str) -> String {
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.{signature}", b64(&header), b64(&claims))
}

#[test]
fn every_finding_code() {
    let legacy_partial = handmade(
        json!({"alg": "RS256", "kid": ""}),
        json!({"iss": "kubernetes", "kubernetes.io/serviceaccount/namespace": "shop", "sub": "system:serviceaccount:shop:x"}),
        "c2ln",
    );
    let ps256 = handmade(
        json!({"alg": "PS256", "kid": "k"}),
        json!({"iss": "i", "exp": 1_767_229_200, "kubernetes.io": {"namespace": "shop",
            "serviceaccount": {"name": "checkout", "uid": "u"}}, "aud": ["a"]}),
        "c2ln",
    );
    let cases: Vec<(Vec<String>, &str, i32)> = vec![
        (vec!["-f".into(), fixture("expired.jwt")], "expired", 1),
        (
            vec!["-f".into(), fixture("not-yet-valid.jwt")],
            "not-yet-valid",
            1,
        ),
        (
            vec!["-f".into(), fixture("issued-in-future.jwt")],
            "issued-in-future",
            1,
        ),
        (
            vec!["-f".into(), fixture("legacy-secret.jwt")],
            "no-expiry",
            0,
        ),
        (
            vec!["-f".into(), fixture("legacy-secret.jwt")],
            "legacy-token",
            0,
        ),
        (
            vec!["-f".into(), fixture("legacy-secret.jwt")],
            "no-key-id",
            0,
        ),
        (
            vec!["-f".into(), fixture("projected.jwt")],
            "extended-expiry",
            0,
        ),
        (
            vec!["-f".into(), fixture("projected-stale.jwt")],
            "stale-token",
            0,
        ),
        (
            vec!["-f".into(), fixture("expires-soon.jwt")],
            "expires-soon",
            0,
        ),
        (vec!["-f".into(), fixture("alg-none.jwt")], "alg-none", 1),
        (vec!["-f".into(), fixture("unsigned.jwt")], "unsigned", 1),
        (vec!["-f".into(), fixture("hs256.jwt")], "hmac-algorithm", 1),
        (vec![ps256], "unusual-algorithm", 0),
        (vec!["-f".into(), fixture("oidc.jwt")], "unknown-kind", 0),
        (vec!["-f".into(), fixture("padded.jwt")], "padded-base64", 1),
        (
            vec!["-f".into(), fixture("subject-mismatch.jwt")],
            "subject-mismatch",
            1,
        ),
        (vec![legacy_partial.clone()], "legacy-issuer", 1),
        (vec![legacy_partial], "legacy-claims-missing", 1),
        (
            vec!["-f".into(), fixture("no-audience.jwt")],
            "no-audience",
            0,
        ),
        (
            vec!["-f".into(), fixture("newer-format.jwt")],
            "newer-token-format",
            0,
        ),
        (
            vec!["-f".into(), fixture("fractional-times.jwt")],
            "fractional-times",
            0,
        ),
        (
            vec!["-f".into(), fixture("authorization-extra-space.txt")],
            "bearer-extra-space",
            1,
        ),
    ];
    let mut seen = std::collections::HashSet::new();
    for (args, code, exit) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (got_exit, json) = decode_json(&args);
        assert!(
            codes(&json).iter().any(|c| c == code),
            "{code}: {:?}",
            codes(&json)
        );
        assert_eq!(got_exit, *exit, "{code}: {:?}", codes(&json));
        seen.insert(*code);
    }
    // Every decode finding code the library defines is exercised above.
    let decode_codes = [
        "expired",
        "not-yet-valid",
        "issued-in-future",
        "no-expiry",
        "legacy-token",
        "extended-expiry",
        "stale-token",
        "expires-soon",
        "alg-none",
        "unsigned",
        "hmac-algorithm",
        "unusual-algorithm",
        "unknown-kind",
        "padded-base64",
        "subject-mismatch",
        "legacy-issuer",
        "legacy-claims-missing",
        "no-key-id",
        "no-audience",
        "newer-token-format",
        "fractional-times",
        "bearer-extra-space",
    ];
    for code in decode_codes {
        assert!(seen.contains(code), "untested: {code}");
    }
}

#[test]
fn now_and_leeway_move_the_verdict() {
    // not-yet-valid.jwt has nbf = NOW + 90 s: rejected at NOW, accepted 30 s later.
    let (code, json) = decode_json(&["-f", &fixture("not-yet-valid.jwt")]);
    assert_eq!((code, json["verdict"].as_str()), (1, Some("not-yet-valid")));
    let out = satoken()
        .args([
            "decode",
            "-o",
            "json",
            "--now",
            "1767225630",
            "-f",
            &fixture("not-yet-valid.jwt"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (code, _) = decode_json(&["--leeway", "2m", "-f", &fixture("not-yet-valid.jwt")]);
    assert_eq!(code, 0);
}

#[test]
fn batch_reports_each_line_and_the_bad_one() {
    let out = satoken()
        .args([
            "decode",
            "-o",
            "json",
            "--now",
            NOW,
            "-f",
            &fixture("batch.txt"),
        ])
        .output()
        .unwrap();
    // An expired token outranks the line that could not be parsed.
    assert_eq!(out.status.code(), Some(1), "a problem was diagnosed");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let numbers: Vec<u64> = lines.iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 6]);
    assert_eq!(lines[2]["findings"][0]["code"], "expired");
    assert!(
        lines[3]["error"]
            .as_str()
            .unwrap()
            .contains("3 dot-separated segments")
    );
    assert_eq!(lines[4]["input_shape"], "bearer");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("unreadable lines: 4"), "{stderr}");

    // Without the bad line, exit 1 for the expired token; without it too, 0.
    let good: String = read_fixture("batch.txt")
        .lines()
        .filter(|l| !l.contains("not-a-token"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = satoken()
        .args(["decode", "--now", NOW])
        .write_stdin(good.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.starts_with(" LINE  SHA256"), "{table}");
    // One row per token (findings that would overflow 80 columns continue below).
    let rows = table
        .lines()
        .filter(|l| l.trim_start().starts_with(char::is_numeric));
    assert_eq!(rows.count(), 4, "{table}");
    assert!(table.lines().all(|l| l.chars().count() <= 80), "{table}");
    let expired = read_fixture("expired.jwt");
    let clean: String = good
        .lines()
        .filter(|l| !expired.contains(l.trim()))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = satoken()
        .args(["decode", "--now", NOW])
        .write_stdin(clean)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bad_input_classes_exit_2_with_one_clear_line() {
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256"}"#);
    let payload = |json: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json);
    expect_bad_input("", "the input is empty");
    expect_bad_input("  \n\n ", "the input is empty");
    expect_bad_input("abc.def", "expected 3 dot-separated segments");
    expect_bad_input("a.b.c.d.e", "JWE");
    expect_bad_input(
        format!("{header}.a*b.c2ln"),
        "payload (segment 2) is not base64url",
    );
    expect_bad_input(
        format!("{header}.{}.c2ln", payload("nope")),
        "payload (segment 2) is not JSON",
    );
    expect_bad_input(
        format!("{header}.{}.c2ln", payload("[1,2]")),
        "not an object",
    );
    expect_bad_input(
        format!("{header}.{}.c2ln", payload(r#"{"exp":"tomorrow"}"#)),
        "claim `exp` must be a NumericDate",
    );
    expect_bad_input(vec![159, 146, 150, 255, 1, 2], "cannot appear in a JWT");
    expect_bad_input(vec![0u8, 159, 146, 150, 255, 1, 2], "binary data");
    expect_bad_input(vec![b'a'; 2 * 1024 * 1024], "limit");
    expect_bad_input(
        r#"{"kind":"ConfigMap","data":{}}"#,
        "neither a TokenRequest",
    );
    let deep = "[".repeat(10_000);
    expect_bad_input(
        format!("{header}.{}.c2ln", payload(&deep)),
        "payload (segment 2) is not JSON",
    );
}

#[test]
fn missing_file_and_missing_in_pod_token() {
    let out = satoken()
        .args(["decode", "-f", "/nonexistent/token"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot read a token from file /nonexistent/token: No such file"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("/nonexistent/token").count(), 1, "{stderr}");

    // No token, stdin not readable (null): the in-pod default, absent here.
    let out = satoken_null_stdin("/nonexistent/satoken-test".as_ref())
        .arg("decode")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/nonexistent/satoken-test/token: it does not exist"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("/nonexistent/satoken-test").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn in_pod_default_reads_the_mounted_token() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), read_fixture("projected.jwt")).unwrap();
    let out = satoken_null_stdin(dir.path())
        .args(["decode", "-o", "json", "--now", NOW])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["kind"], "projected");

    // An empty pipe is input, and empty: it does not fall back to the mounted token.
    let out = satoken()
        .env("KUBECTL_SATOKEN_SA_DIR", dir.path())
        .arg("decode")
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn output_never_contains_the_token_or_its_signature() {
    for file in [
        "projected.jwt",
        "legacy-secret.jwt",
        "hs256.jwt",
        "batch.txt",
    ] {
        let text = read_fixture(file);
        for format in ["table", "json"] {
            let out = satoken()
                .args(["decode", "--now", NOW, "-o", format, "-f", &fixture(file)])
                .output()
                .unwrap();
            let all = [out.stdout, out.stderr].concat();
            let all = String::from_utf8_lossy(&all);
            for line in text.lines().filter(|l| l.matches('.').count() == 2) {
                let token = line.trim_start_matches("Bearer ").trim();
                let signature = token.rsplit('.').next().unwrap();
                assert!(!all.contains(token), "{file} {format}: token printed");
                assert!(
                    !all.contains(signature),
                    "{file} {format}: signature printed"
                );
            }
        }
    }
}

#[test]
fn table_output_is_plain_in_a_pipe() {
    let out = satoken()
        .args(["decode", "--now", NOW, "-f", &fixture("expired.jwt")])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "no colour in a pipe");
    assert!(text.contains("rejected: expired"), "{text}");
    assert!(
        text.lines().all(|l| l.chars().count() <= 80),
        "fits 80 columns:\n{text}"
    );
}

#[test]
fn broken_pipe_is_not_an_error() {
    // `decode … | head -1`: the reader goes away; we exit quietly.
    let mut batch = String::new();
    let token = read_fixture("token-request.jwt");
    for _ in 0..20_000 {
        batch.push_str(&token);
    }
    let script = format!(
        "{} decode -o json --now {NOW} | head -c 100 >/dev/null; echo ${{PIPESTATUS[0]}}",
        assert_cmd::cargo::cargo_bin("kubectl-satoken").display()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            // The pipeline may stop reading early: that is the point.
            let _ = child.stdin.take().unwrap().write_all(batch.as_bytes());
            child.wait_with_output()
        })
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0", "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

#[test]
fn local_time_changes_tables_not_json() {
    let run = |format: &str| {
        let out = satoken()
            .env("TZ", "JST-9")
            .args([
                "decode",
                "--local-time",
                "--now",
                NOW,
                "-o",
                format,
                "-f",
                &fixture("projected.jwt"),
            ])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run("table");
    assert!(table.contains("2026-01-01T08:50:00+09:00"), "{table}");
    assert!(
        table.contains("Verdict at 2026-01-01T09:00:00+09:00"),
        "{table}"
    );
    let json = run("json");
    assert!(
        json.contains("\"issued_at\": \"2025-12-31T23:50:00Z\""),
        "{json}"
    );
}

/// `Authorization: Basic …` (or Digest, Negotiate…) is another kind of
/// credential, not a bearer token with a stray space: it is named as such,
/// never called line-wrapped, and the credentials are not repeated.
#[test]
fn other_authorization_schemes_are_named_not_called_line_wrapped() {
    for (input, scheme) in [
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "`Basic`"),
        ("basic dXNlcjpwYXNzd29yZA==", "`Basic`"),
        (
            "Authorization: Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnag",
            "`Negotiate`",
        ),
    ] {
        expect_bad_input(input, scheme);
        let out = satoken()
            .args(["decode", "--now", NOW])
            .write_stdin(input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("line-wrapped"), "{stderr}");
        let credential = input.rsplit(' ').next().unwrap();
        assert!(!stderr.contains(credential), "{stderr}");
    }
}

/// The OS's own words for a missing file are said once, however many layers
/// of context name the file.
#[test]
fn a_missing_file_names_the_os_error_once() {
    for args in [
        &["decode", "-f", "/nonexistent/token"][..],
        &["audit", "--no-progress", "/nonexistent/audit.log"],
    ] {
        let out = satoken().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("No such file or directory").count(),
            1,
            "{stderr}"
        );
    }
}

/// A text file given where a token belongs is text, not a token that was
/// line-wrapped when copied; a token with a space inside still is.
#[test]
fn a_sentence_is_not_called_a_line_wrapped_token() {
    for text in ["hello world, this is a note\n", "apiVersion: v1\n"] {
        expect_bad_input(text, "not a token: this is text with spaces");
    }
    let token = read_fixture("projected.jwt");
    let wrapped = format!("{} {}", &token[..300], &token[300..]);
    expect_bad_input(wrapped, "line-wrapped");
}

/// UTF-16, as PowerShell's `>` writes it (little-endian with a byte order
/// mark), or without the mark: read as the text it is, for every file flag.
#[test]
fn utf16_files_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let utf16 = |name: &str, text: &str, bom: bool| {
        let mut bytes = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let token = read_fixture("projected.jwt");
    for bom in [true, false] {
        let file = utf16("token.txt", &format!("{}\r\n", token.trim()), bom);
        let (code, json) = decode_json(&["-f", &file]);
        assert_eq!(code, 0, "{json}");
        assert_eq!(json["kind"], "projected");
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let jwks = std::fs::read_to_string(format!("{root}/testdata/jwks.json")).unwrap();
    let config =
        std::fs::read_to_string(format!("{root}/testdata/features/authn-config.yaml")).unwrap();
    let out = satoken()
        .args(["verify", "--now", NOW, "-f", &fixture("projected.jwt")])
        .args(["--jwks", &utf16("jwks.json", &jwks, true)])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = satoken()
        .args(["decode", "--now", NOW, "-o", "json"])
        .args(["-f", &format!("{root}/testdata/features/oidc-ok.jwt")])
        .args([
            "--authentication-config",
            &utf16("authn.yaml", &config, true),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An expired token in a batch with an unreadable line: the diagnosed problem
/// (exit 1) is not hidden behind the bad line (exit 2); stderr still names it.
#[test]
fn a_bad_line_does_not_hide_an_expired_token() {
    let batch = format!(
        "{}\nnot-a-token\n{}",
        read_fixture("projected.jwt").trim(),
        read_fixture("expired.jwt").trim()
    );
    let out = satoken()
        .args(["decode", "--now", "2026-01-01"])
        .write_stdin(batch)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("unreadable lines: 2"), "{stderr}");
    let out = satoken()
        .args(["decode", "--now", "2026-01-01"])
        .write_stdin(format!(
            "{}\nnot-a-token\n",
            read_fixture("projected.jwt").trim()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `--now now`, `--now 2026-01-01T00:00:00`: refused in our words.
#[test]
fn now_is_refused_in_our_words() {
    for (now, want) in [
        ("now", "leave --now out"),
        ("2026-01-01T00:00:00", "add a zone"),
    ] {
        let out = satoken()
            .args(["decode", "--now", now, "-f", &fixture("projected.jwt")])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(want) && !stderr.contains("premature"),
            "{stderr}"
        );
    }
}
