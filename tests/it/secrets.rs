//! Secret hygiene: no output of any subcommand that takes a token (decode, skew,
//! verify, classify --token, probe, doctor), table, JSON or YAML, success or
//! error, ever contains the token or its signature. Tokens: every fixture, plus
//! broken variants that take the error paths, given as argument, on stdin and in
//! a file; a server that echoes the credentials it was sent into every field;
//! tokens typed where a path or subcommand belongs; padded and bootstrap tokens.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use chrono::TimeDelta;

use crate::support::apiserver::{ApiServer, Config, Mode};
use crate::support::pki::Pki;
use crate::support::tokens;

use crate::support::{BASE as NOW, base, fresh_token};

const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// Every `.jwt` fixture.
fn fixtures() -> Vec<String> {
    let mut paths: Vec<_> = std::fs::read_dir(tokens::testdata("tokens"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jwt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "fixtures missing: {paths:?}");
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap().trim().to_owned())
        .collect()
}

/// Broken variants of a valid token: each fails at a different step.
fn broken(token: &str) -> Vec<String> {
    let parts: Vec<&str> = token.split('.').collect();
    let (h, p, s) = (parts[0], parts[1], parts[2]);
    vec![
        format!("{h}.{p}.{s}.{s}"),               // four segments
        format!("{h}.{p}!.{s}"),                  // payload not base64url
        format!("{h}.{}.{s}", &p[..p.len() - 1]), // truncated payload
        format!("{h}.e30x.{s}"),                  // payload not JSON
        format!("{h}.{p}.{s}+/"),                 // signature not base64url
        format!("{h}.{p} .{s}"),                  // inner whitespace
        format!("{}.{p}.{s}", &h[..h.len() - 2]), // header cut
        format!("{h}.{p}.{}", &s[..s.len() / 2]), // signature cut (verify fails)
        format!("{h}.{p}.{s}\u{7f}"),             // control character
    ]
}

/// What must never appear: the whole token, and its signature segment.
fn secrets(token: &str) -> Vec<String> {
    let mut out = vec![token.to_owned()];
    if let Some(sig) = token.rsplit('.').next().filter(|s| s.len() >= 8) {
        out.push(sig.to_owned());
    }
    out
}

/// Length of the signature pieces looked for: a table that wrapped a token
/// over lines would show pieces of it, none of which is the whole signature.
const FRAGMENT: usize = 24;

fn assert_clean(token: &str, what: &str, output: &std::process::Output) {
    // Signal deaths (a panic with panic=abort) are failures too.
    assert!(output.status.code().is_some(), "{what}: killed");
    for stream in [&output.stdout, &output.stderr] {
        let text = String::from_utf8_lossy(stream);
        for secret in secrets(token) {
            assert!(
                !text.contains(&secret),
                "{what}: output holds the token or its signature:\n{text}"
            );
        }
        // Pieces starting every 8 bytes: any shown run of 32 or more bytes of
        // the signature holds one of them.
        let signature = token.rsplit('.').next().unwrap_or("").as_bytes();
        for piece in signature.windows(FRAGMENT).step_by(8) {
            let piece = String::from_utf8_lossy(piece);
            assert!(
                !text.contains(piece.as_ref()),
                "{what}: output holds a piece of the signature ({piece}):\n{text}"
            );
        }
    }
}

fn bin() -> Command {
    let mut cmd = crate::support::satoken();
    cmd.env("NO_COLOR", "1")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("KUBECTL_SATOKEN_SA_DIR", "/nonexistent")
        .timeout(Duration::from_secs(30));
    cmd
}

/// Runs `args` with the token given three ways, in both output formats.
fn check_everywhere(token: &str, sub: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    for format in ["table", "json", "yaml"] {
        let base = |cmd: &mut Command| {
            cmd.args(sub).args(["--now", NOW, "-o", format]);
        };
        let mut by_arg = bin();
        base(&mut by_arg);
        let out = by_arg
            .args(["--token", token])
            .write_stdin("")
            .output()
            .unwrap();
        assert_clean(token, &format!("{sub:?} -o {format} --token"), &out);
        let mut by_stdin = bin();
        base(&mut by_stdin);
        let out = by_stdin
            .write_stdin(format!("Bearer {token}\n"))
            .output()
            .unwrap();
        assert_clean(token, &format!("{sub:?} -o {format} (stdin)"), &out);
        let mut by_file = bin();
        base(&mut by_file);
        let out = by_file
            .arg("-f")
            .arg(&file)
            .write_stdin("")
            .output()
            .unwrap();
        assert_clean(token, &format!("{sub:?} -o {format} -f"), &out);
    }
}

fn all_tokens() -> Vec<String> {
    let fixtures = fixtures();
    let mut all = broken(&fixtures[0]);
    all.extend(fixtures);
    all
}

#[test]
fn decode_never_prints_the_token() {
    for token in all_tokens() {
        check_everywhere(&token, &["decode"]);
    }
    // A batch, with broken lines among good ones.
    let batch = all_tokens().join("\n");
    for format in ["table", "json"] {
        let out = bin()
            .args(["decode", "--now", NOW, "-o", format])
            .write_stdin(batch.clone())
            .output()
            .unwrap();
        for token in all_tokens() {
            assert_clean(&token, &format!("decode batch -o {format}"), &out);
        }
    }
}

#[test]
fn verify_never_prints_the_token() {
    let jwks = tokens::testdata("jwks.json");
    let jwks = jwks.to_str().unwrap();
    for token in all_tokens() {
        check_everywhere(&token, &["verify", "--jwks", jwks, "--issuer", ISSUER]);
    }
}

#[test]
fn skew_never_prints_the_token() {
    for token in all_tokens() {
        check_everywhere(&token, &["skew", "--clock", "node-a=+90s"]);
    }
}

#[test]
fn classify_never_prints_the_token() {
    let evidence = tokens::testdata("evidence/apiserver-1.33-mixed.log");
    let evidence = evidence.to_str().unwrap();
    for token in all_tokens() {
        check_everywhere(&token, &["classify", evidence]);
    }
}

#[test]
fn probe_never_prints_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-secrets-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let wrong_ca = Pki::new("other-ca").write_ca(dir.path(), "other.crt");
    let server = ApiServer::start(Config::new(base()), &pki);
    let fresh = fresh_token();
    let expired = tokens::sign(&tokens::projected(base() - TimeDelta::hours(3), 3607));
    // The third: fresh claims under another token's signature (the server rejects it).
    let (claims, _) = fresh.rsplit_once('.').unwrap();
    let (_, other_signature) = expired.rsplit_once('.').unwrap();
    let forged = format!("{claims}.{other_signature}");
    for token in [fresh.clone(), expired.clone(), forged] {
        for ca in [&ca, &wrong_ca] {
            for format in ["table", "json"] {
                for sub in ["probe", "doctor"] {
                    let out = run_against(sub, dir.path(), ca, &server.url(), format, &token);
                    assert_clean(&token, &format!("{sub} -o {format}"), &out);
                    // It ran (a usage error would prove nothing).
                    assert!(
                        [0, 1, 3].contains(&out.status.code().unwrap()),
                        "{sub}: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            }
        }
    }
    // With --anonymous the contrast requests carry no token either.
    let out = bin()
        .args([
            "probe",
            "--now",
            NOW,
            "-o",
            "json",
            "--anonymous",
            "-f",
            "-",
            "-s",
        ])
        .arg(server.url())
        .arg("--cacert")
        .arg(&ca)
        .write_stdin(fresh.clone())
        .output()
        .unwrap();
    assert_clean(&fresh, "probe --anonymous", &out);
    let with_token = server
        .seen()
        .iter()
        .filter(|s| s.header("authorization").is_some())
        .count();
    assert!(with_token > 0 && with_token < server.seen().len());
}

fn run_against(
    sub: &str,
    dir: &Path,
    ca: &Path,
    url: &str,
    format: &str,
    token: &str,
) -> std::process::Output {
    bin()
        .env("KUBECTL_SATOKEN_SA_DIR", dir.join("no-sa"))
        .args([
            sub, "--now", NOW, "-o", format, "-f", "-", "-s", url, "--cacert",
        ])
        .arg(ca)
        .write_stdin(token.to_owned())
        .output()
        .unwrap()
}

/// A kubeconfig for `server` whose user authenticates with `token`.
fn kubeconfig(dir: &Path, server: &str, ca: &Path, token: &str) -> std::path::PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: echo\nclusters:\n- name: echo\n  cluster:\n    server: {server}\n    certificate-authority: {}\ncontexts:\n- name: echo\n  context:\n    cluster: echo\n    user: operator\nusers:\n- name: operator\n  user:\n    token: {token}\n",
            ca.display()
        ),
    )
    .unwrap();
    path
}

/// A server that echoes the request headers (so `Authorization: Bearer <token>`)
/// into every Status field, the SelfSubjectReview's username and groups, the
/// TokenReview's error, and the Location, WWW-Authenticate and Warning headers:
/// neither the token under test nor the kubeconfig operator's own token may
/// reach the output, in any format.
#[test]
fn a_server_echoing_the_credentials_gets_none_of_them_printed() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-echo-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    // Not token-shaped: only its registration as a kubeconfig credential masks it.
    let operator = "operator-static-credential-7f3a9c2e51d0";
    let mut config = Config::new(base()).admin(operator);
    config.mode = Mode::Echo;
    let server = ApiServer::start(config, &pki);
    let kubeconfig = kubeconfig(dir.path(), &server.url(), &ca, operator);
    let fresh = fresh_token();
    let expired = tokens::sign(&tokens::projected(base() - TimeDelta::hours(3), 3607));
    for token in [&fresh, &expired] {
        for format in ["table", "json", "yaml"] {
            for sub in ["probe", "doctor"] {
                let out = run_against(sub, dir.path(), &ca, &server.url(), format, token);
                assert_clean(token, &format!("echo: {sub} -o {format}"), &out);
                assert!(
                    [0, 1].contains(&out.status.code().unwrap()),
                    "{sub}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            let out = bin()
                .args([
                    "probe",
                    "--now",
                    NOW,
                    "-o",
                    format,
                    "-f",
                    "-",
                    "--token-review",
                ])
                .arg("--kubeconfig")
                .arg(&kubeconfig)
                .write_stdin(token.clone())
                .output()
                .unwrap();
            assert_clean(
                token,
                &format!("echo: probe --token-review -o {format}"),
                &out,
            );
            assert_clean(operator, &format!("echo: operator, -o {format}"), &out);
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("[token sha256:"),
                "the echo should show as a fingerprint: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    // The server did echo: it saw both tokens.
    let seen = server.seen();
    let sent = |t: &str| {
        seen.iter()
            .any(|s| s.header("authorization") == Some(&format!("Bearer {t}")))
    };
    assert!(sent(&fresh) && sent(operator));
}

/// A token typed where a path, a subcommand or a flag value belongs is echoed
/// by the error (clap's or ours): masked, with a hint that says what to do.
#[test]
fn a_token_in_the_wrong_argument_is_never_echoed() {
    let token = fresh_token();
    let other = tokens::sign(&tokens::projected(base() - TimeDelta::hours(3), 3607));
    let t = token.as_str();
    let url = "https://127.0.0.1:1";
    let cases: Vec<Vec<&str>> = vec![
        vec!["decode", "-f", t],
        vec!["decode", "Bearer", t],
        vec![t],
        vec![t, "decode"],
        vec!["probe", "-f", "-", "-s", url, "--cacert", t],
        vec!["probe", "-f", "-", "--kubeconfig", t],
        vec!["verify", "-f", "-", "--jwks", t],
        vec!["skew", "-f", "-", "--leases", t],
        vec!["skew", "-f", "-", "--nodes", t],
        vec!["doctor", "--sa-dir", t],
        vec!["decode", "-f", "-", "--leeway", t],
        vec!["decode", "-f", "-", "--now", t],
        vec!["decode", "-f", "-", "-o", t],
    ];
    for args in cases {
        let out = bin()
            .args(&args)
            .write_stdin(other.clone())
            .output()
            .unwrap();
        let what = format!(
            "{:?}",
            args.iter()
                .map(|a| if *a == t { "TOKEN" } else { a })
                .collect::<Vec<_>>()
        );
        assert_clean(t, &what, &out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Where the error repeated it (masked), a hint says what to do.
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("[token sha256:") {
            assert!(
                stderr.contains("looks like a token") || stderr.contains("split into two"),
                "{what}: no hint in {stderr}"
            );
        }
    }
}

/// `=`-padded JWS and bootstrap tokens (`[a-z0-9]{6}.[a-z0-9]{16}`) are masked
/// by their shape wherever an error would echo them.
#[test]
fn padded_and_bootstrap_tokens_are_masked_by_shape() {
    let token = fresh_token();
    let padded = token
        .split('.')
        .map(|s| format!("{s}{}", "=".repeat((4 - s.len() % 4) % 4)))
        .collect::<Vec<_>>()
        .join(".");
    assert_ne!(padded, token, "the fixture should need padding");
    let bootstrap = "07401b.f395accd246ae52d";
    for secret in [padded.as_str(), bootstrap] {
        for args in [
            vec!["decode", "-f", secret],
            vec![
                "probe",
                "-f",
                "-",
                "-s",
                "https://127.0.0.1:1",
                "--cacert",
                secret,
            ],
            vec!["decode", "-o", "yaml", "-f", "-", "--now", secret],
        ] {
            let out = bin()
                .args(&args)
                .write_stdin(token.clone())
                .output()
                .unwrap();
            for stream in [&out.stdout, &out.stderr] {
                let text = String::from_utf8_lossy(stream);
                assert!(!text.contains(secret), "{args:?}: {text}");
                let signature = secret.rsplit('.').next().unwrap().trim_end_matches('=');
                assert!(!text.contains(signature), "{args:?}: {text}");
            }
        }
    }
}
