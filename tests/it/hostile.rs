//! Hostile input against the built binary: a 1 GiB stdin, a 100 MB "token"
//! line, 10,000-deep JSON, for every reader of user input (decode, verify
//! --jwks, skew --leases/--nodes, classify, audit, probe --kubeconfig/--cacert). Each
//! must end quickly with exit 2 and a message naming the bound, within a peak RSS
//! bound. Also binary data, a text file of non-tokens, out-of-range flag values,
//! and inputs that once cost quadratic time (a 256 KB token as a table, a
//! multi-megabyte `err=` line): answered at once (the child is killed past a
//! generous guard, so a regression fails instead of hanging). Input is generated
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
    /// Bytes written to stdout (read and dropped as they come).
    stdout_bytes: u64,
}

/// Kills a child that runs longer (a hang, or quadratic work).
const GUARD: Duration = Duration::from_secs(60);

/// Runs the binary with `args`, stdin fed by `feed` from a thread (a write error
/// ends the feed: the binary stopped reading, which is the point). Stdout is
/// counted, stderr kept (its first MiB); past [`GUARD`] the child is killed.
#[allow(clippy::zombie_processes)] // reaped by wait4 below, which std cannot see
fn run(
    args: &[&str],
    feed: impl FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
) -> Ended {
    let start = Instant::now();
    let mut child = crate::support::satoken_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = feed(&mut stdin);
    });
    let mut stdout = child.stdout.take().unwrap();
    let counter = std::thread::spawn(move || io::copy(&mut stdout, &mut io::sink()).unwrap_or(0));
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        // Bounded: a flood of error lines must not exhaust the test's memory.
        let _ = (&mut stderr).take(1 << 20).read_to_end(&mut text);
        let _ = io::copy(&mut stderr, &mut io::sink());
        String::from_utf8_lossy(&text).into_owned()
    });
    let mut status = 0;
    // SAFETY: plain FFI calls with valid out-pointers; the pid is our child,
    // reaped here instead of by `Child::wait` (std does not expose its rusage).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as i32;
    loop {
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(reaped >= 0, "wait4 failed");
        if reaped == pid {
            break;
        }
        if start.elapsed() > GUARD {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = start.elapsed();
    feeder.join().unwrap();
    let stdout_bytes = counter.join().unwrap();
    let stderr = reader.join().unwrap();
    let status = std::process::ExitStatus::from_raw(status);
    Ended {
        code: status
            .code()
            .unwrap_or_else(|| panic!("killed: {status:?} after {elapsed:?}; stderr {stderr}")),
        stderr,
        peak_kib: usage.ru_maxrss as u64,
        elapsed,
        stdout_bytes,
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
fn classify_refuses_a_1_gib_line_of_evidence() {
    // A log of any size is streamed; one line is capped.
    let ended = run(&["classify", "--now", NOW], stream(Vec::new(), b'E', GIB));
    assert_refused(
        &ended,
        "line 1 is over the 32 MiB limit for one line",
        64 + 32,
    );
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

/// Pseudo-random bytes (xorshift: fast, and no dependency), `total` of them.
fn random_bytes(total: u64) -> impl FnOnce(&mut dyn Write) -> io::Result<()> {
    move |w| {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut chunk = vec![0u8; 64 * 1024];
        let mut left = total;
        while left > 0 {
            for b in chunk.chunks_mut(8) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                b.copy_from_slice(&state.to_le_bytes()[..b.len()]);
            }
            let n = left.min(chunk.len() as u64) as usize;
            w.write_all(&chunk[..n])?;
            left -= n as u64;
        }
        Ok(())
    }
}

/// `decode -f /dev/urandom` used to read random bytes as an endless batch of
/// broken tokens (25 MB/s of error lines): binary input is refused at once,
/// in one line.
#[test]
fn decode_refuses_binary_input_in_one_line() {
    let ended = run(&["decode", "--now", NOW], random_bytes(256 * MIB));
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(ended.stderr.contains("binary data"), "{ended:?}");
    assert_eq!(ended.stderr.lines().count(), 1, "{ended:?}");
    assert_eq!(ended.stdout_bytes, 0, "nothing on stdout");
    // A NUL in an otherwise textual batch ends it too.
    let mut input = format!("{}\n", token()).into_bytes();
    input.extend_from_slice(b"abc\0def\n");
    input.extend(format!("{}\n", token()).into_bytes());
    let ended = run(&["decode", "--now", NOW, "-o", "json"], bytes(input));
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(ended.stderr.contains("line 2 is binary data"), "{ended:?}");
}

/// A token, then text that is not a list of tokens: at most 100 error
/// lines, then one summary that says how many more there were. (Text from its
/// first line is named in one line: no batch starts.)
#[test]
fn decode_caps_the_error_lines_of_a_batch() {
    let text: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("not a token {i}\n").into_bytes())
        .collect();
    let ended = run(&["decode", "--now", NOW], bytes(text.clone()));
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(ended.stderr.contains("it is text"), "{ended:?}");
    assert_eq!(ended.stderr.lines().count(), 1, "{ended:?}");
    let mut lines = format!("{}\n", token().trim()).into_bytes();
    lines.extend(text);
    let ended = run(&["decode", "--now", NOW], bytes(lines));
    assert_eq!(ended.code, 2, "{ended:?}");
    assert!(
        ended.stderr.contains("unreadable lines: 2, 3,"),
        "{ended:?}"
    );
    assert!(ended.stderr.contains("11 and 19990 more"), "{ended:?}");
    assert!(
        ended.stderr.contains("the first 100 are shown"),
        "{ended:?}"
    );
    // A header and 100 lines of about 100 bytes.
    assert!(ended.stdout_bytes < 40 * 1024, "{ended:?}");
}

/// `--leeway` and `--now` past what a date can hold used to panic in date
/// arithmetic (exit 134); every duration and instant flag is bounded.
#[test]
fn out_of_range_times_and_durations_are_usage_errors() {
    let token = token();
    for args in [
        vec!["decode", "--leeway", "999999999999999s", &token],
        vec!["decode", "--leeway", "18446744073709551615", &token],
        vec!["decode", "--now", "8210298412799", &token],
        vec!["decode", "--now=-8210298412799", &token],
        vec![
            "skew",
            "--now",
            NOW,
            "--clock",
            "a=+999999999999s",
            "--token",
            &token,
        ],
        vec![
            "probe",
            "--now",
            NOW,
            "--request-timeout",
            "99999999999999s",
            &token,
        ],
        vec![
            "skew", "--leeway", "36601d", "--now", NOW, "--token", &token,
        ],
    ] {
        let ended = run(&args, bytes(Vec::new()));
        assert_eq!(ended.code, 2, "{args:?}: {ended:?}");
        assert!(
            ["100-year limit", "years 0 to 9999", "out of range"]
                .iter()
                .any(|m| ended.stderr.contains(m)),
            "{args:?}: {ended:?}"
        );
        assert!(
            !ended.stderr.contains("internal error"),
            "{args:?}: {ended:?}"
        );
        // The token is where it belongs: no hint about a misplaced one.
        assert!(
            !ended.stderr.contains("looks like a token"),
            "{args:?}: {ended:?}"
        );
    }
    // The bounds themselves are fine.
    for args in [
        vec![
            "decode",
            "--leeway",
            "36600d",
            "--now",
            "9999-12-31T23:59:59Z",
            &token,
        ],
        vec![
            "decode",
            "--now",
            "0000-01-01T00:00:00Z",
            "--leeway",
            "36600d",
            &token,
        ],
    ] {
        let ended = run(&args, bytes(Vec::new()));
        assert!([0, 1].contains(&ended.code), "{args:?}: {ended:?}");
    }
}

/// A token with a 200 KB `sub` (one unbroken word) used to take the table
/// renderer most of a minute (quadratic wrapping); the cell is now capped.
#[test]
fn decode_renders_a_256_kb_token_as_a_table() {
    use base64::Engine as _;
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let sub = "s".repeat(190 * 1024);
    let line = format!(
        "{}.{}.c2lnbmF0dXJl\n",
        b64(br#"{"alg":"RS256"}"#),
        b64(format!(r#"{{"sub":"{sub}","exp":1767229200,"iss":"x"}}"#).as_bytes())
    );
    assert!(
        line.len() > 250 * 1024 && line.len() < 262_144,
        "{}",
        line.len()
    );
    let ended = run(&["decode", "--now", NOW], bytes(line.into_bytes()));
    assert!([0, 1].contains(&ended.code), "{ended:?}");
    assert!(ended.stdout_bytes < 64 * 1024, "{ended:?}");
}

/// An API server log line whose `err=` holds megabytes of reasons used to
/// cost the reason splitter quadratic time; it is now bounded per line.
#[test]
fn classify_survives_a_multi_megabyte_err_line() {
    let mut line = b"E1231 23:58:10.000001       1 authentication.go:75] \"Unable to authenticate the request\" err=\"[invalid bearer token".to_vec();
    for _ in 0..(2 * MIB / 32) {
        line.extend_from_slice(b", service account UID (x");
    }
    line.extend_from_slice(b"]\"\n");
    for format in ["table", "json"] {
        let ended = run(
            &["classify", "--now", NOW, "-o", format],
            bytes(line.clone()),
        );
        assert!([0, 1].contains(&ended.code), "{ended:?}");
    }
    // And a 200 KB message on its own.
    let message = format!(
        "Error from server (Forbidden): {}\n",
        "pods is forbidden: User x cannot list ".repeat(5_500)
    );
    let ended = run(&["classify", "--now", NOW], bytes(message.into_bytes()));
    assert!([0, 1].contains(&ended.code), "{ended:?}");
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
        96,
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

/// `--apiserver-log /dev/zero` (or `/dev/urandom`) used to be read forever:
/// every file flag reads through the one reader, which refuses binary data
/// at its first block.
#[test]
fn audit_refuses_a_binary_apiserver_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.log");
    std::fs::write(&log, format!("{AUDIT_LINE}\n")).unwrap();
    for device in ["/dev/zero", "/dev/urandom"] {
        let ended = run(
            &[
                "audit",
                "--now",
                NOW,
                "--no-progress",
                "--apiserver-log",
                device,
                log.to_str().unwrap(),
            ],
            bytes(Vec::new()),
        );
        assert_refused(&ended, "binary data", 64);
    }
}

/// Trailing zero bytes after the last gzip member (block-device padding) are
/// skipped as gzip skips them, in audit logs and API server logs alike.
#[test]
fn audit_reads_gzip_with_trailing_zero_padding() {
    use flate2::write::GzEncoder;
    let gzip = |text: &str| {
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let mut data = gz.finish().unwrap();
        data.extend([0u8; 4096]);
        data
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("apiserver.log.gz");
    std::fs::write(&log, gzip("I0101 00:00:00.000000 1 x.go:1] started\n")).unwrap();
    let ended = run(
        &[
            "audit",
            "--now",
            NOW,
            "--no-progress",
            "-o",
            "json",
            "--apiserver-log",
            log.to_str().unwrap(),
        ],
        bytes(gzip(&format!("{AUDIT_LINE}\n"))),
    );
    assert_eq!(ended.code, 0, "{ended:?}");
}

/// A 401 audit event from `ip` with user agent `agent`, one line.
fn unauthorized_line(i: u64, ip: &str, agent: &str) -> String {
    format!(
        r#"{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a-{i}","stage":"ResponseStarted","requestURI":"/api/v1/pods","verb":"list","user":{{}},"sourceIPs":["{ip}"],"userAgent":"{agent}","responseStatus":{{"metadata":{{}},"status":"Failure","message":"Authentication failed, attempted: bearer","reason":"Unauthorized","code":401}},"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:{:02}:{:02}.000000Z"}}"#,
        i / 60 % 60,
        i % 60
    ) + "\n"
}

/// Audit memory is bounded by bytes, not by counts: 3,000 401s with
/// distinct 1 MiB user agents (a 4 MB gzip log; it grew past 5.9 GB and
/// aborted), and scanner traffic from 100,000 source IPs (2.7 GB). Each
/// stored string is cut with a marker, and past the findings listed the
/// rest are counted in `other`.
#[test]
fn audit_memory_is_bounded_by_bytes() {
    use flate2::write::GzEncoder;
    let args = ["audit", "--now", NOW, "--no-progress", "-o", "json"];
    let agents = move |w: &mut dyn Write| -> io::Result<()> {
        let mut gz = GzEncoder::new(w, flate2::Compression::fast());
        let big = "a".repeat(MIB as usize);
        for i in 0..3_000 {
            gz.write_all(unauthorized_line(i, "10.0.0.1", &format!("{i}/{big}")).as_bytes())?;
        }
        gz.finish().map(|_| ())
    };
    let scanners = move |w: &mut dyn Write| -> io::Result<()> {
        let mut gz = GzEncoder::new(w, flate2::Compression::fast());
        for i in 0..100_000u64 {
            let ip = format!("10.{}.{}.{}", i >> 16 & 255, i >> 8 & 255, i & 255);
            gz.write_all(unauthorized_line(i, &ip, "scanner/1.0").as_bytes())?;
        }
        gz.finish().map(|_| ())
    };
    for (name, ended) in [
        ("user agents", run(&args, agents)),
        ("source IPs", run(&args, scanners)),
    ] {
        eprintln!("{name}: {} KiB peak", ended.peak_kib);
        assert_eq!(ended.code, 1, "{name}: {ended:?}");
        assert!(ended.peak_kib < 128 * 1024, "{name}: {ended:?}");
        assert!(ended.stdout_bytes < 16 * MIB, "{name}: {ended:?}");
    }
}
