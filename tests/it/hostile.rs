//! Hostile input against the built binary: a 1 GiB stdin, a 100 MB "token"
//! line, 10,000-deep JSON, for every reader of user input (decode, verify
//! --jwks, skew --leases/--nodes, classify, audit, probe --kubeconfig/--cacert). Each
//! must end quickly with exit 2 and a message naming the bound, within a peak RSS
//! bound. Input is generated
//! and streamed into stdin from a thread (nothing large is written to disk or
//! held by the test); the peak RSS is the child's `ru_maxrss` from `wait4`. Linux
//! counts the spawning process's RSS at exec in it, so the test process itself
//! must stay small: generators stream, they never build the input in memory.

use std::io::{self, Read as _, Write};
use std::os::unix::process::ExitStatusExt as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

const NOW: &str = "2026-01-01T00:00:00Z";
const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// How a run ended.
#[derive(Debug)]
struct Ended {
    code: i32,
    stderr: String,
    peak_kib: u64,
    elapsed: Duration,
}

/// Runs the binary with `args`, stdin fed by `feed` from a thread (a write error
/// ends the feed: the binary stopped reading, which is the point).
#[allow(clippy::zombie_processes)] // reaped by wait4 below, which std cannot see
fn run(
    args: &[&str],
    feed: impl FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
) -> Ended {
    let start = Instant::now();
    let mut child = crate::support::satoken_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = feed(&mut stdin);
    });
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut status = 0;
    // SAFETY: plain FFI call with valid out-pointers; the pid is our child, reaped
    // here instead of by `Child::wait` (std does not expose its rusage).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    let elapsed = start.elapsed();
    feeder.join().unwrap();
    let stderr = reader.join().unwrap();
    let status = std::process::ExitStatus::from_raw(status);
    Ended {
        code: status
            .code()
            .unwrap_or_else(|| panic!("killed: {status:?}; stderr {stderr}")),
        stderr,
        peak_kib: usage.ru_maxrss as u64,
        elapsed,
    }
}

/// `total` bytes: `head`, then `fill` repeated.
fn stream(head: Vec<u8>, fill: u8, total: u64) -> impl FnOnce(&mut dyn Write) -> io::Result<()> {
    move |w| {
        w.write_all(&head)?;
        let chunk = vec![fill; 64 * 1024];
        let mut left = total.saturating_sub(head.len() as u64);
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            w.write_all(&chunk[..n])?;
            left -= n as u64;
        }
        Ok(())
    }
}

fn bytes(data: Vec<u8>) -> impl FnOnce(&mut dyn Write) -> io::Result<()> {
    move |w| w.write_all(&data)
}

/// JSON nested `depth` arrays deep inside `{"<key>": …}`.
fn deep_json(key: &str, depth: usize) -> Vec<u8> {
    let mut doc = format!("{{\"{key}\":").into_bytes();
    doc.extend(std::iter::repeat_n(b'[', depth));
    doc.extend(std::iter::repeat_n(b']', depth));
    doc.extend_from_slice(b"}\n");
    doc
}

/// Asserts exit 2, a message containing `needle`, a peak RSS under `max_mib`
/// and a run under 30 s (debug build, shared machine).
fn assert_refused(ended: &Ended, needle: &str, max_mib: u64) {
    eprintln!("{ended:?}");
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(
        ended.stderr.contains(needle),
        "{needle:?} not in {:?}",
        ended.stderr
    );
    assert_eq!(
        ended.stderr.lines().count(),
        1,
        "one line: {:?}",
        ended.stderr
    );
    assert!(
        ended.peak_kib < max_mib * 1024,
        "peak RSS {} KiB over {max_mib} MiB",
        ended.peak_kib
    );
    assert!(ended.elapsed < Duration::from_secs(30), "{ended:?}");
}

fn token() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/tokens/projected.jwt"
    ))
    .unwrap()
    .trim()
    .to_owned()
}

#[test]
fn decode_refuses_a_1_gib_line_after_reading_1_mib() {
    let ended = run(&["decode", "--now", NOW], stream(Vec::new(), b'a', GIB));
    assert_refused(&ended, "line is over the 262144-byte limit", 64);
}

#[test]
fn decode_refuses_a_100_mb_token_line() {
    let head = b"eyJhbGciOiJSUzI1NiJ9.".to_vec();
    let ended = run(&["decode", "--now", NOW], stream(head, b'A', 100 * MIB));
    assert_refused(&ended, "line is over the 262144-byte limit", 64);
}

#[test]
fn decode_refuses_a_1_gib_json_document() {
    let ended = run(&["decode", "--now", NOW], stream(b"{".to_vec(), b' ', GIB));
    assert_refused(
        &ended,
        "over the 1048576-byte limit for a JSON document",
        64,
    );
}

#[test]
fn decode_refuses_10000_deep_json_document() {
    let ended = run(
        &["decode", "--now", NOW],
        bytes(deep_json("status", 10_000)),
    );
    assert_refused(&ended, "recursion limit exceeded", 64);
}

#[test]
fn decode_refuses_a_token_with_a_10000_deep_payload() {
    use base64::Engine as _;
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let line = format!(
        "{}.{}.c2ln\n",
        b64(br#"{"alg":"RS256"}"#),
        b64(&deep_json("aud", 10_000))
    );
    let ended = run(&["decode", "--now", NOW], bytes(line.into_bytes()));
    assert_refused(&ended, "is not JSON: recursion limit exceeded", 64);
}

#[test]
fn decode_batch_memory_stays_flat_over_256_mib_of_overlong_lines() {
    // A valid first token, then 256 lines of 1 MiB: each is reported and skipped.
    let mut head = token().into_bytes();
    head.push(b'\n');
    let feed = move |w: &mut dyn Write| -> io::Result<()> {
        w.write_all(&head)?;
        let mut line = vec![b'x'; MIB as usize];
        *line.last_mut().unwrap() = b'\n';
        for _ in 0..256 {
            w.write_all(&line)?;
        }
        Ok(())
    };
    let ended = run(&["decode", "-o", "json", "--now", NOW], feed);
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(ended.stderr.contains("257 tokens"), "{:?}", ended.stderr);
    assert!(ended.peak_kib < 64 * 1024, "{ended:?}");
}

#[test]
fn verify_refuses_a_1_gib_jwks_on_stdin() {
    let token = token();
    let ended = run(
        &["verify", "--now", NOW, "--jwks", "-", &token],
        stream(b"{\"keys\":[".to_vec(), b' ', GIB),
    );
    assert_refused(&ended, "over the 4194304-byte limit", 64);
    assert!(!ended.stderr.contains(&token));
}

#[test]
fn verify_refuses_a_10000_deep_jwks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jwks.json");
    std::fs::write(&path, deep_json("keys", 10_000)).unwrap();
    let token = token();
    let ended = run(
        &[
            "verify",
            "--now",
            NOW,
            "--jwks",
            path.to_str().unwrap(),
            &token,
        ],
        bytes(Vec::new()),
    );
    assert_refused(&ended, "recursion limit exceeded", 64);
}

#[test]
fn skew_refuses_a_1_gib_lease_list_on_stdin() {
    let token = token();
    let ended = run(
        &["skew", "--now", NOW, "--leases", "-", "--token", &token],
        stream(b"{\"items\":[".to_vec(), b' ', GIB),
    );
    assert_refused(&ended, "over the 64 MiB limit", 64 + 32);
}

#[test]
fn skew_refuses_10000_deep_lease_and_node_lists() {
    let token = token();
    for flag in ["--leases", "--nodes"] {
        let ended = run(
            &["skew", "--now", NOW, flag, "-", "--token", &token],
            bytes(deep_json("items", 10_000)),
        );
        assert_refused(&ended, "recursion limit exceeded", 64);
    }
}

#[test]
fn classify_refuses_1_gib_of_evidence() {
    let ended = run(&["classify", "--now", NOW], stream(Vec::new(), b'E', GIB));
    assert_refused(&ended, "over the 64 MiB limit", 64 + 32);
}

#[test]
fn classify_survives_10000_deep_json_evidence() {
    let ended = run(
        &["classify", "--now", NOW],
        bytes(deep_json("kind", 10_000)),
    );
    assert_refused(&ended, "cannot classify", 64);
}

/// A token file, for subcommands whose stdin carries the hostile input.
fn token_file() -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "{}", token()).unwrap();
    file
}

#[test]
fn probe_refuses_a_1_gib_kubeconfig_and_ca_bundle() {
    let file = token_file();
    let token = file.path().to_str().unwrap();
    for args in [
        vec![
            "probe",
            "--now",
            NOW,
            "-f",
            token,
            "--kubeconfig",
            "/dev/stdin",
        ],
        vec![
            "probe",
            "--now",
            NOW,
            "-f",
            token,
            "-s",
            "https://127.0.0.1:1",
            "--cacert",
            "/dev/stdin",
        ],
    ] {
        let ended = run(&args, stream(b"apiVersion: v1\n".to_vec(), b'#', GIB));
        assert_refused(&ended, "over the 16777216-byte limit", 64);
    }
}

#[test]
fn probe_refuses_a_10000_deep_kubeconfig() {
    let file = token_file();
    let token = file.path().to_str().unwrap();
    let ended = run(
        &[
            "probe",
            "--now",
            NOW,
            "-f",
            token,
            "--kubeconfig",
            "/dev/stdin",
        ],
        bytes(deep_json("clusters", 10_000)),
    );
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(ended.stderr.contains("kubeconfig"), "{ended:?}");
    assert!(ended.peak_kib < 64 * 1024, "{ended:?}");
}

#[test]
fn audit_refuses_a_1_gib_line() {
    let ended = run(
        &["audit", "--now", NOW, "--no-progress"],
        stream(b"{\"kind\":\"Event\",\"x\":\"".to_vec(), b'a', GIB),
    );
    assert_refused(
        &ended,
        "line 1 is over the 32 MiB limit for one audit event",
        192,
    );
}

/// An accepted audit event, one line.
const AUDIT_LINE: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods","verb":"list","user":{"username":"system:serviceaccount:shop:web","uid":"u-1","groups":["system:serviceaccounts"]},"sourceIPs":["10.0.0.7"],"userAgent":"kubectl/v1.33.0","objectRef":{"resource":"pods","namespace":"shop","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.004213Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}"#;

#[test]
fn audit_refuses_a_line_that_is_not_utf8() {
    let mut data = format!("{AUDIT_LINE}\n{AUDIT_LINE}\n").into_bytes();
    data.extend_from_slice(b"{\"kind\":\"Event\",\"auditID\":\"\xff\xfe\"}\n");
    data.extend_from_slice(format!("{AUDIT_LINE}\n").as_bytes());
    let ended = run(&["audit", "--now", NOW, "--no-progress"], bytes(data));
    assert_refused(&ended, "stdin: line 3 is not UTF-8 text", 64);
}

#[test]
fn audit_refuses_a_truncated_gzip_stream() {
    use flate2::write::GzEncoder;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..20_000 {
        writeln!(gz, "{AUDIT_LINE}").unwrap();
    }
    let mut data = gz.finish().unwrap();
    data.truncate(data.len() / 2);
    let ended = run(&["audit", "--now", NOW, "--no-progress"], bytes(data));
    assert_refused(
        &ended,
        "cannot read stdin: the gzip stream is truncated",
        64,
    );
}
