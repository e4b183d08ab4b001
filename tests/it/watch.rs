//! `watch` against the test API server: three replicas on different clocks
//! (one 90 s ahead, as in seed 001), the scrape, state-change lines, the
//! label cap and memory over many short cycles, exit codes and signals.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use crate::probe_cluster::kubeconfig;
use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::{BASE, base, tokens};

const ADMIN: &str = "admin-static-token-0123456789";

/// A free loopback port (bound, then released for the child to take).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running `kubectl satoken watch`; SIGTERM on drop.
pub(crate) struct Watch {
    pub child: Child,
    pub port: u16,
    /// Its stdout lines (the state-change log).
    pub lines: Arc<Mutex<Vec<String>>>,
    /// When it was spawned, and when /healthz first answered: its clock
    /// started between the two.
    pub spawned: Instant,
    pub healthy: Instant,
}

impl Watch {
    pub fn start(dir: &Path, args: &[&str]) -> Watch {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let mut cmd = crate::support::satoken_std();
        cmd.env("HOME", dir.join("no-home"))
            .args(["watch", "--now", BASE, "--listen", &listen])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let spawned = Instant::now();
        let mut child = cmd.spawn().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let healthy = loop {
            if get(port, "/healthz").is_some_and(|(s, _)| s == 200) {
                break Instant::now();
            }
            assert!(spawned.elapsed() < Duration::from_secs(20), "never healthy");
            assert!(child.try_wait().unwrap().is_none(), "watch exited");
            std::thread::sleep(Duration::from_millis(5));
        };
        Watch {
            child,
            port,
            lines,
            spawned,
            healthy,
        }
    }

    pub fn scrape(&self) -> Scrape {
        let (status, body) = get(self.port, "/metrics").expect("scrape");
        assert_eq!(status, 200);
        Scrape(body)
    }

    /// Scrapes until `ready` holds (at most 30 s).
    pub fn scrape_until(&self, ready: impl Fn(&Scrape) -> bool) -> Scrape {
        let start = Instant::now();
        loop {
            let s = self.scrape();
            if ready(&s) {
                return s;
            }
            assert!(start.elapsed() < Duration::from_secs(30), "{}", s.0);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn log(&self) -> Vec<Value> {
        let lines = self.lines.lock().unwrap();
        lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
            .collect()
    }

    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap()
    }

    pub fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        let pid = i32::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let sent = Instant::now();
        while sent.elapsed() < Duration::from_secs(1) {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One plain HTTP/1.0 GET on the loopback: status and body.
pub(crate) fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let status = text.split_whitespace().nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n")?.1.to_owned();
    Some((status, body))
}

/// A scrape's text.
pub(crate) struct Scrape(pub String);

impl Scrape {
    /// The value of the sample `name{labels}` (labels as scraped, in order).
    pub fn value(&self, series: &str) -> Option<f64> {
        self.0.lines().find_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            (name == series).then(|| value.parse().ok()).flatten()
        })
    }

    /// The distinct values of `replica` labels.
    pub fn replicas(&self) -> std::collections::BTreeSet<String> {
        self.0
            .lines()
            .filter_map(|l| l.split_once("replica=\"")?.1.split_once('"'))
            .map(|(r, _)| r.to_owned())
            .collect()
    }
}

/// Three replicas on 127.0.0.1, the first serving the `kubernetes` Service's
/// endpoints, with these clock offsets; each with the instants around its start.
fn replicas(pki: &Pki, offsets: &[TimeDelta]) -> Vec<(ApiServer, Instant, Instant)> {
    let servers: Vec<_> = offsets
        .iter()
        .map(|&offset| {
            let mut config = Config::new(base()).admin(ADMIN);
            config.offset = offset;
            let before = Instant::now();
            let server = ApiServer::start(config, pki);
            (server, before, Instant::now())
        })
        .collect();
    let ports: Vec<u16> = servers.iter().map(|(s, _, _)| s.port()).collect();
    servers[0].0.set_endpoints(&ports);
    servers
}

fn seconds(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn instant(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// Seed 001: a token minted on the replica 90 s ahead. Each offset is within
/// its stated uncertainty of the truth (the configured offset plus the time
/// between the server's start and the watcher's, bounded from both sides), and
/// each replica's valid-on-replica flips when its clock reaches iat - 60 s.
#[test]
fn three_replicas_offsets_and_the_flip_of_a_token_from_the_fast_one() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("watch-ca");
    let offsets = [
        TimeDelta::zero(),
        TimeDelta::seconds(90),
        TimeDelta::milliseconds(-1_500),
    ];
    let servers = replicas(&pki, &offsets);
    // Minted by the fast replica 87 s into its day: iat is 3 s ahead of the
    // others' leeway, so they reject it for the first seconds (401).
    let iat = base() + TimeDelta::seconds(63);
    let token = tokens::sign(&tokens::projected(iat, 3607));
    let token_path = dir.path().join("token");
    std::fs::write(&token_path, &token).unwrap();
    let kc = kubeconfig(dir.path(), &servers[0].0, &pki, ADMIN);
    let w = Watch::start(
        dir.path(),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--use-kubeconfig-credentials",
            "-f",
            token_path.to_str().unwrap(),
            "--interval",
            "300ms",
        ],
    );
    let urls: Vec<String> = servers.iter().map(|(s, _, _)| s.url()).collect();
    let valid = |s: &Scrape, url: &str| {
        s.value(&format!(
            "satoken_token_valid_on_replica{{replica=\"{url}\"}}"
        ))
    };
    let last = w.scrape_until(|s| urls.iter().all(|u| valid(s, u) == Some(1.0)));
    for (i, (server, before, after)) in servers.iter().enumerate() {
        let url = server.url();
        let label = format!("{{replica=\"{url}\"}}");
        let estimate = last
            .value(&format!("satoken_replica_clock_offset_seconds{label}"))
            .unwrap();
        let stated = last
            .value(&format!(
                "satoken_replica_clock_offset_uncertainty_seconds{label}"
            ))
            .unwrap();
        let truth = offsets[i].num_milliseconds() as f64 / 1000.0;
        let low = truth + seconds(w.spawned.saturating_duration_since(*after));
        let high = truth + seconds(w.healthy.duration_since(*before));
        eprintln!(
            "replica {i}: measured {estimate:+.3} s ± {stated:.3} s; truth in [{low:+.3}, {high:+.3}] s; error from its middle {:+.3} s",
            estimate - (low + high) / 2.0
        );
        assert!(
            estimate - stated <= high && low <= estimate + stated,
            "replica {i}: {estimate} ± {stated} misses [{low}, {high}]"
        );
        assert!(stated <= 0.6, "{stated}");
    }
    eprintln!("{}", last.0);
    let spread = last.value("satoken_replicas_clock_spread_seconds").unwrap();
    assert!((90.0..=92.0).contains(&spread), "{spread}");
    // The on-time replicas answered 401 while the token was not yet valid on
    // their clocks; the fast one never did.
    let reviews = |url: &str, answer: &str| {
        last.value(&format!(
            "satoken_replica_reviews_total{{replica=\"{url}\",answer=\"{answer}\"}}"
        ))
    };
    assert!(reviews(&urls[0], "401").unwrap() >= 1.0, "{}", last.0);
    assert_eq!(reviews(&urls[1], "401"), None);
    assert!(reviews(&urls[1], "ok").unwrap() >= 1.0);
    // Each on-time replica's line: first invalid, then valid once its clock
    // (this run's --now clock plus its measured offset) reached iat - 60 s.
    let log = w.log();
    let accepted_from = iat - TimeDelta::seconds(60);
    for (i, url) in urls.iter().enumerate().filter(|(i, _)| *i != 1) {
        let flips: Vec<&Value> = log
            .iter()
            .filter(|l| l["subject"] == url.as_str() && l["aspect"] == "token-valid")
            .collect();
        assert_eq!(flips.len(), 2, "{log:?}");
        assert_eq!(flips[0]["to"], "invalid");
        assert_eq!(flips[1]["from"], "invalid");
        assert_eq!(flips[1]["to"], "valid");
        assert_eq!(
            instant(flips[1]["accepted_from"].as_str().unwrap()),
            accepted_from
        );
        let before = instant(flips[0]["replica_time"].as_str().unwrap());
        let at = instant(flips[1]["replica_time"].as_str().unwrap());
        assert!(
            before < accepted_from && accepted_from <= at,
            "{i}: {before} {at}"
        );
        // Within one cycle (interval + jitter + the cycle's own samples).
        assert!(at - accepted_from < TimeDelta::seconds(3), "{i}: {at}");
    }
    // The first lines: the two on-time replicas reject the token.
    assert!(
        log.iter()
            .any(|l| l["aspect"] == "answer" && l["to"] == "401")
    );
    assert!(!w.lines.lock().unwrap().iter().any(|l| l.contains(&token)));
    assert!(!last.0.contains(&token[token.len() - 20..]));
}

/// The scrape's series as names and labels, each replica named by its index
/// in `urls`, sorted within each family, for the snapshot of what is exported.
fn series_shapes(scrape: &Scrape, urls: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut family: Vec<String> = Vec::new();
    for line in scrape.0.lines() {
        if line.starts_with('#') {
            family.sort();
            out.append(&mut family);
            out.push(line.to_owned());
            continue;
        }
        let mut name = line.rsplit_once(' ').map_or(line, |(n, _)| n).to_owned();
        for (i, url) in urls.iter().enumerate() {
            name = name.replace(&format!("\"{url}\""), &format!("\"replica-{i}\""));
        }
        family.push(name);
    }
    out.join("\n")
}

#[test]
fn metric_names_and_labels() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("watch-ca");
    let servers = replicas(&pki, &[TimeDelta::zero(), TimeDelta::seconds(90)]);
    let token_path = dir.path().join("token");
    std::fs::write(&token_path, crate::support::fresh_token()).unwrap();
    let kc = kubeconfig(dir.path(), &servers[0].0, &pki, ADMIN);
    let w = Watch::start(
        dir.path(),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--use-kubeconfig-credentials",
            "-f",
            token_path.to_str().unwrap(),
            "--clock-samples",
            "2",
        ],
    );
    let s = w.scrape_until(|s| s.value("satoken_cycles_total") == Some(1.0));
    let urls: Vec<String> = servers.iter().map(|(s, _, _)| s.url()).collect();
    insta::assert_snapshot!(series_shapes(&s, &urls));
    // Every metric the reference documents is exported, and nothing else.
    let mut documented: Vec<String> = satoken::watch::metrics::DEFINITIONS
        .iter()
        .map(|d| format!("# TYPE {} ", d.name()))
        .collect();
    documented.sort();
    let mut typed: Vec<String> =
        s.0.lines()
            .filter(|l| l.starts_with("# TYPE "))
            .map(|l| l.rsplit_once(' ').unwrap().0.to_owned() + " ")
            .collect();
    typed.sort();
    assert_eq!(typed, documented);
    // A fresh kubelet token, so the one line is the replica 90 s ahead.
    let log = w.log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["subject"], urls[1].as_str());
    assert_eq!(log[0]["aspect"], "clock");
    assert_eq!(log[0]["to"], "beyond-half-leeway");
}

/// A compressed day: 10 ms cycles while the replicas come and go (three; one;
/// three and 37 addresses where nothing listens, past the cap of 32). Memory
/// stays flat, and the replica labels stay within the cap, the gone ones removed.
#[test]
fn memory_flat_and_labels_capped_while_replicas_come_and_go() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("watch-ca");
    let servers = replicas(
        &pki,
        &[
            TimeDelta::zero(),
            TimeDelta::seconds(90),
            TimeDelta::seconds(-5),
        ],
    );
    let live: Vec<u16> = servers.iter().map(|(s, _, _)| s.port()).collect();
    // 37 distinct ports (a freed port can be handed out twice), so that
    // exactly 8 of the 40 addresses are past the cap.
    let mut dead: Vec<u16> = Vec::new();
    while dead.len() < 37 {
        let port = free_port();
        if !dead.contains(&port) && !live.contains(&port) {
            dead.push(port);
        }
    }
    let crowd: Vec<u16> = live.iter().chain(&dead).copied().collect();
    let token_path = dir.path().join("token");
    std::fs::write(&token_path, crate::support::fresh_token()).unwrap();
    let kc = kubeconfig(dir.path(), &servers[0].0, &pki, ADMIN);
    let w = Watch::start(
        dir.path(),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--use-kubeconfig-credentials",
            "-f",
            token_path.to_str().unwrap(),
            "--interval",
            "10ms",
            "--clock-samples",
            "2",
            "--timeout",
            "1s",
        ],
    );
    let cycles = |s: &Scrape| s.value("satoken_cycles_total").unwrap_or(0.0);
    let endpoints = &servers[0].0;
    let phases: [&[u16]; 3] = [&live, &live[..1], &crowd];
    let mut warm = None;
    let mut seen_omitted = 0.0f64;
    let mut max_labels = 0;
    let mut shrank = false;
    let started = Instant::now();
    let mut round = 0usize;
    let target = 1500.0;
    loop {
        let phase = phases[round % 3];
        endpoints.set_endpoints(phase);
        let at = cycles(&w.scrape());
        // Two cycles in this phase, so the last one saw it whole.
        let s = w.scrape_until(|s| cycles(s) >= at + 2.0);
        let labels = s.replicas();
        max_labels = max_labels.max(labels.len());
        assert!(labels.len() <= 32, "{}", labels.len());
        if phase.len() == 1 {
            assert_eq!(labels.len(), 1, "{labels:?}");
            shrank = true;
        }
        seen_omitted = seen_omitted.max(s.value("satoken_replicas_omitted").unwrap_or(0.0));
        round += 1;
        let done = cycles(&s);
        if warm.is_none() && done >= 100.0 {
            warm = Some((done, w.rss_kib()));
        }
        if done >= target || started.elapsed() > Duration::from_secs(40) {
            break;
        }
    }
    let (warm_cycles, warm_rss) = warm.expect("100 cycles");
    let end = w.scrape();
    let (end_cycles, end_rss) = (cycles(&end), w.rss_kib());
    eprintln!(
        "cycles {warm_cycles} -> {end_cycles} ({round} endpoint changes): RSS {warm_rss} KiB -> {end_rss} KiB; at most {max_labels} replica labels, {seen_omitted} omitted"
    );
    assert!(shrank && max_labels == 32 && seen_omitted == 8.0);
    assert!(end_cycles - warm_cycles >= 200.0, "{end_cycles}");
    // Flat: growth under 4 MiB however many cycles ran after the warm-up.
    assert!(end_rss < warm_rss + 4096, "{warm_rss} -> {end_rss} KiB");
}

#[test]
fn bad_input_at_start_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, crate::support::fresh_token()).unwrap();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let busy = busy.local_addr().unwrap().to_string();
    let missing = dir.path().join("missing");
    let cases: [&[&str]; 4] = [
        &[
            "-f",
            missing.to_str().unwrap(),
            "-s",
            "https://127.0.0.1:1",
            "--insecure-skip-tls-verify",
        ],
        &["-f", token.to_str().unwrap(), "--interval", "0s"],
        &[
            "-f",
            token.to_str().unwrap(),
            "-s",
            "https://127.0.0.1:1",
            "--insecure-skip-tls-verify",
            "--no-discovery",
            "--listen",
            &busy,
        ],
        &["-f", "-", "-s", "https://127.0.0.1:1"],
    ];
    for args in cases {
        let out = crate::support::satoken()
            .arg("watch")
            .args(args)
            .timeout(Duration::from_secs(10))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
        if !args.contains(&"--interval") {
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
        }
    }
}

/// Started against nothing at all (every request a transport failure), it
/// keeps running, says so in a line, and SIGTERM ends it within a second.
#[test]
fn failures_after_start_are_metrics_and_sigterm_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, crate::support::fresh_token()).unwrap();
    let nothing = format!("https://127.0.0.1:{}", free_port());
    let mut w = Watch::start(
        dir.path(),
        &[
            "-f",
            token.to_str().unwrap(),
            "-s",
            &nothing,
            "--insecure-skip-tls-verify",
            "--no-discovery",
            "--interval",
            "50ms",
        ],
    );
    let s = w.scrape_until(|s| s.value("satoken_cycles_total").unwrap_or(0.0) >= 3.0);
    let series =
        format!("satoken_replica_reviews_total{{replica=\"{nothing}\",answer=\"transport\"}}");
    assert!(s.value(&series).unwrap() >= 3.0, "{}", s.0);
    // The token file goes away: a metric and a line, not an exit.
    std::fs::remove_file(&token).unwrap();
    w.scrape_until(|s| s.value("satoken_token_readable") == Some(0.0));
    let log = w.log();
    assert!(log.iter().any(|l| l["to"] == "transport"), "{log:?}");
    assert!(
        log.iter()
            .any(|l| l["aspect"] == "file" && l["to"] == "unreadable"),
        "{log:?}"
    );
    let status = w.terminate().expect("stopped within a second of SIGTERM");
    assert_eq!(status.code(), Some(0));
}
