//! `classify` of a log: the prefilter changes nothing on any corpus (every
//! evidence file, the wild corpus, the seeds, the live clients' output, the
//! shipped sample and a log generated through every version, each read as a
//! log with and without it), the counts
//! per cause equal what scripts/gen_apiserver_log.py planted, reason lines
//! join their request's 401 (exact by audit ID, else a guess by time, never
//! across inputs or replicas), `--events` streams every failing event, a paste stays
//! a paste, and every reader (gzip, stdin, globbed parts, `kubectl logs
//! --prefix`) gives the same report.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use satoken::classify::Context;
use satoken::classify::log::{LogEvent, LogScan, Looked};
use serde_json::Value;

use crate::wild::{Set, corpus};

const SAMPLE: &str = "testdata/logs/apiserver-day.log.gz";
const NOW: &str = "2026-01-02T00:00:00Z";

fn ctx() -> Context<'static> {
    Context {
        token: None,
        at: None,
        now: satoken::timefmt::parse_instant(NOW).unwrap(),
        leeway: chrono::TimeDelta::seconds(60),
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Every event of `text` read as one log, in words that change when any
/// part of a result does, and the requests counted.
fn read(text: &str, prefilter: bool) -> (Vec<String>, String) {
    let mut scan = LogScan::new(ctx(), None, prefilter);
    let mut events = Vec::new();
    let mut keep = |ev: LogEvent| {
        let r = &ev.result;
        let reasons: Vec<&str> = r
            .evidence
            .facts
            .reasons
            .iter()
            .map(|x| x.message.as_str())
            .collect();
        events.push(format!(
            "line {} {} {} {} join {} {:?} {:?} {:?} {:?} {}",
            r.evidence.line,
            r.diagnosis.classification.as_str(),
            r.diagnosis.cause().as_str(),
            r.diagnosis.confidence().as_str(),
            ev.join.as_str(),
            ev.request_line,
            ev.origin,
            ev.at,
            reasons,
            r.evidence.excerpt
        ));
    };
    // The lines as the reader's cheap stage looks at them, then taken in order.
    let (mut looked, mut start) = (Looked::default(), 0);
    for line in text.split('\n') {
        looked.add(scan.look(), text.as_bytes(), start..start + line.len());
        start += line.len() + 1;
    }
    let mut take = |ev: LogEvent| {
        keep(ev);
        Ok(())
    };
    scan.take(0, 1, text.as_bytes(), looked, &mut take).unwrap();
    scan.finish();
    scan.events().for_each(&mut keep);
    (
        events,
        format!("{} lines, requests {:?}", scan.lines, scan.requests),
    )
}

/// Reads one line as the log reader does (its cheap stage, then the scan in
/// order): the events it settled.
fn feed(scan: &mut LogScan<'_>, source: usize, number: u64, line: &str) -> Vec<LogEvent> {
    let mut looked = Looked::default();
    looked.add(scan.look(), line.as_bytes(), 0..line.len());
    let mut events = Vec::new();
    let mut take = |ev: LogEvent| {
        events.push(ev);
        Ok(())
    };
    let text = line.as_bytes();
    scan.take(source, number, text, looked, &mut take).unwrap();
    events
}

fn sample() -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(repo(SAMPLE)).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// Every text of a corpus: (name, set, text); the wild corpus's evaluation
/// cases are sealed, so nothing of theirs is printed.
fn corpora() -> Vec<(String, Set, String)> {
    let mut out = Vec::new();
    let mut files = |dir: &str, keep: &dyn Fn(&Path) -> bool| {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(repo(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && keep(p))
            .collect();
        paths.sort();
        for p in paths {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            out.push((p.display().to_string(), Set::Development, text));
        }
    };
    let plain = |p: &Path| {
        let name = p.file_name().unwrap().to_string_lossy();
        !name.ends_with(".json") && !name.ends_with(".md") && !name.ends_with(".jwt")
    };
    files("testdata/evidence", &plain);
    files("testdata/seeds", &plain);
    for client in std::fs::read_dir(repo("testdata/evidence/live")).unwrap() {
        let dir = client.unwrap().path();
        if dir.is_dir() {
            let rel = dir.strip_prefix(repo("")).unwrap().display().to_string();
            files(&rel, &plain);
        }
    }
    for case in corpus() {
        out.push((format!("wild {}", case.id), case.set, case.text));
    }
    out.push((SAMPLE.to_owned(), Set::Development, sample()));
    // A generated log through every version's wordings, with every kind of
    // failure the generator plants.
    let dir = tempfile::tempdir().unwrap();
    let args = ["--lines", "20000", "--seed", "3", "--failures", "0.02"];
    let (log, _) = generate(
        dir.path(),
        &[&args[..], &["--no-reason", "0.005", "--forbidden", "0.01"]].concat(),
    );
    let text = std::fs::read_to_string(&log).unwrap();
    out.push((
        "generated (every version)".to_owned(),
        Set::Development,
        text,
    ));
    out
}

#[test]
fn the_prefilter_changes_nothing_on_any_corpus() {
    let mut differ = Vec::new();
    let mut sealed = 0;
    let mut events = 0;
    for (name, set, text) in corpora() {
        let with = read(&text, true);
        let without = read(&text, false);
        events += without.0.len();
        if with != without {
            match set {
                Set::Development => {
                    let missed: Vec<&String> =
                        without.0.iter().filter(|e| !with.0.contains(e)).collect();
                    differ.push(format!("{name}: without the prefilter also {missed:#?}"));
                }
                Set::Evaluation => sealed += 1,
            }
        }
    }
    assert!(events > 1_000, "the corpora hold events: {events}");
    assert!(
        differ.is_empty() && sealed == 0,
        "{sealed} sealed cases differ; {}",
        differ.join("\n")
    );
}

/// The query `--print-query` prints selects every line an event is read
/// from, on every corpus and a generated log: its regular expressions as the
/// platforms match them (found anywhere; Lucene's, matching the whole line).
#[test]
fn the_platform_query_selects_every_line_an_event_is_read_from() {
    use satoken::classify::prefilter::{Dialect, pattern};
    let search = regex::Regex::new(&pattern(Dialect::Search)).unwrap();
    let whole = regex::RegexBuilder::new(&format!("^(?:{})$", pattern(Dialect::Whole)))
        .case_insensitive(true)
        .dot_matches_new_line(true)
        .build()
        .unwrap();
    let (mut missed, mut sealed, mut events) = (Vec::new(), 0, 0);
    for (name, set, text) in corpora() {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut scan = LogScan::new(ctx(), None, false);
        let mut read_from = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            read_from.extend(
                feed(&mut scan, 0, i as u64 + 1, line)
                    .into_iter()
                    .flat_map(|ev| [Some(ev.result.evidence.line as u64), ev.request_line]),
            );
        }
        scan.finish();
        read_from.extend(
            scan.events()
                .flat_map(|ev| [Some(ev.result.evidence.line as u64), ev.request_line]),
        );
        for n in read_from.into_iter().flatten() {
            events += 1;
            let line = lines[n as usize - 1];
            if !(search.is_match(line) && whole.is_match(line)) {
                match set {
                    Set::Development => missed.push(format!("{name} line {n}: {line}")),
                    Set::Evaluation => sealed += 1,
                }
            }
        }
    }
    assert!(events > 1_000, "the corpora hold events: {events}");
    assert!(
        missed.is_empty() && sealed == 0,
        "{sealed} sealed lines missed; {}",
        missed.join("\n")
    );
    // What is printed holds the pattern, quoted as each platform quotes.
    let out = crate::support::satoken()
        .args(["classify", "--print-query", "loki"])
        .output()
        .unwrap();
    let quoted = serde_json::to_string(&pattern(Dialect::Search)).unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(&quoted));
}

fn generate(dir: &Path, args: &[&str]) -> (PathBuf, Value) {
    let log = dir.join("apiserver.log");
    let counts = dir.join("counts.json");
    let status = Command::new("python3")
        .arg(repo("scripts/gen_apiserver_log.py"))
        .args(args)
        .arg("-o")
        .arg(&log)
        .arg("--counts")
        .arg(&counts)
        .status()
        .expect("python3 runs the generator");
    assert!(status.success());
    let counts = serde_json::from_slice(&std::fs::read(counts).unwrap()).unwrap();
    (log, counts)
}

fn classify_json(args: &[&str]) -> (i32, Value) {
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "-o", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code().unwrap(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

/// Events per cause as the generator names them: a 401's cause, or
/// `401-no-reason` without the server's reason, or `403`.
fn per_planted_cause(doc: &Value) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for g in doc["groups"].as_array().unwrap() {
        let key = match g["classification"].as_str().unwrap() {
            "401-invalid-token" if g["reasons"].as_array().unwrap().is_empty() => {
                "401-no-reason".to_owned()
            }
            "401-invalid-token" => g["cause"].as_str().unwrap().to_owned(),
            "403-forbidden" => "403".to_owned(),
            _ => continue,
        };
        *counts.entry(key).or_default() += g["events"].as_u64().unwrap();
    }
    counts
}

fn planted(counts: &Value) -> BTreeMap<String, u64> {
    serde_json::from_value(counts["planted"].clone()).unwrap()
}

#[test]
fn the_counts_per_cause_are_what_the_generator_planted() {
    let dir = tempfile::tempdir().unwrap();
    let (log, counts) = generate(
        dir.path(),
        &[
            "--lines",
            "30000",
            "--seed",
            "11",
            "--failures",
            "0.01",
            "--no-reason",
            "0.002",
        ],
    );
    let (code, doc) = classify_json(&[log.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(per_planted_cause(&doc), planted(&counts));
    assert_eq!(doc["input"]["lines"], counts["lines"]);
    let requests: u64 = doc["requests"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(requests, counts["requests"].as_u64().unwrap());
    // The shipped sample, as the README reads it.
    let counts: Value = serde_json::from_slice(
        &std::fs::read(repo("testdata/logs/apiserver-day.counts.json")).unwrap(),
    )
    .unwrap();
    let (_, doc) = classify_json(&[&repo(SAMPLE).display().to_string()]);
    assert_eq!(per_planted_cause(&doc), planted(&counts));
}

#[test]
fn reason_lines_join_their_request_by_time_within_one_replica() {
    let line = |pod: &str, at: &str, text: &str| {
        format!(
            "[pod/{pod}/kube-apiserver] 2026-01-01T10:00:{at}Z stderr F E0101 10:00:{at}       1 {text}\n"
        )
    };
    let reason = r#"authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#;
    let request = |ip: &str| {
        format!(
            r#"httplog.go:134] "HTTP" verb="GET" URI="/api/v1/pods" latency="1ms" userAgent="app/1" audit-ID="a" srcIP="{ip}:4000" resp=401"#
        )
    };
    // cp-1: one reason and one 401; cp-2: two of each in one second; cp-3's
    // 401 has no reason on its own replica. By time, every join is a guess.
    let text = [
        line("cp-1", "00.100000", reason),
        line("cp-2", "00.200000", reason),
        line("cp-1", "00.100000", &request("10.0.0.1")),
        line("cp-2", "00.300000", reason),
        line("cp-2", "00.200000", &request("10.0.0.2")),
        line("cp-2", "00.300000", &request("10.0.0.3")),
        line("cp-3", "00.100000", &request("10.0.0.4")),
    ]
    .concat();
    let mut scan = LogScan::new(ctx(), None, true);
    let mut events = Vec::new();
    for (i, l) in text.lines().enumerate() {
        events.extend(feed(&mut scan, 0, i as u64 + 1, l));
    }
    scan.finish();
    let got: Vec<(String, String, String, String)> = events
        .into_iter()
        .chain(scan.events())
        .map(|e| {
            (
                e.origin.source_ip.unwrap_or_default(),
                e.join.as_str().to_owned(),
                e.result.diagnosis.cause().as_str().to_owned(),
                e.result.diagnosis.confidence().as_str().to_owned(),
            )
        })
        .collect();
    let row = |ip: &str, join: &str, cause: &str, conf: &str| {
        (
            ip.to_owned(),
            join.to_owned(),
            cause.to_owned(),
            conf.to_owned(),
        )
    };
    assert_eq!(
        got,
        [
            row("10.0.0.1", "guess", "expired", "medium"),
            row("10.0.0.2", "guess", "expired", "medium"),
            row("10.0.0.3", "guess", "expired", "medium"),
            row("10.0.0.4", "none", "unknown", "low"),
        ]
    );
}

/// (source IP, join, cause, confidence) of every event of `lines`, each
/// `(input, line)` read in order.
fn joins(lines: &[(usize, String)]) -> Vec<(String, String, String, String)> {
    let mut scan = LogScan::new(ctx(), None, true);
    let mut events = Vec::new();
    for (i, (source, l)) in lines.iter().enumerate() {
        events.extend(feed(&mut scan, *source, i as u64 + 1, l));
    }
    scan.finish();
    events
        .into_iter()
        .chain(scan.events())
        .map(|e| {
            (
                e.origin.source_ip.unwrap_or_default(),
                e.join.as_str().to_owned(),
                e.result.diagnosis.cause().as_str().to_owned(),
                e.result.diagnosis.confidence().as_str().to_owned(),
            )
        })
        .collect()
}

/// A reason line and its request's 401 at `at` (seconds past 10:00), under
/// a `kubectl logs --prefix` tag when `pod` is given.
fn failure(pod: Option<&str>, at: u32, ip: &str) -> [String; 2] {
    let tag = pod.map_or(String::new(), |p| format!("[pod/{p}/kube-apiserver] "));
    let head = format!("10:{:02}:{:02}.000000       1", at / 60, at % 60);
    [
        format!(
            r#"{tag}E0101 {head} authentication.go:75] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]""#
        ),
        format!(
            r#"{tag}I0101 {head} httplog.go:134] "HTTP" verb="GET" URI="/api/v1/pods" latency="1ms" userAgent="app/1" audit-ID="a-{ip}" srcIP="{ip}:4000" resp=401"#
        ),
    ]
}

/// Several files, or several replicas' `kubectl logs --prefix` one after the
/// other, each run from their own start: a later one starts before the
/// earlier one ended, and its joins are still made, once each.
#[test]
fn joins_keep_a_clock_per_file_and_per_stream() {
    // Input 0 runs 10:00 to 10:05; input 1 10:00 to 10:02.
    let mut files: Vec<(usize, String)> = Vec::new();
    let mut replicas: Vec<(usize, String)> = Vec::new();
    let routine = r#"I0101 10:05:00.000000       1 httplog.go:134] "HTTP" verb="GET" URI="/livez" latency="1ms" userAgent="kubelet" audit-ID="b" srcIP="10.0.1.1:4000" resp=200"#;
    for (n, (source, at)) in [(0, 0), (1, 0), (1, 60), (1, 120)].into_iter().enumerate() {
        let ip = format!("10.0.0.{n}");
        files.extend(failure(None, at, &ip).map(|l| (source, l)));
        let pod = format!("kube-apiserver-cp-{source}");
        replicas.extend(failure(Some(&pod), at, &ip).map(|l| (0, l)));
        if n == 0 {
            files.push((0, routine.to_owned()));
            replicas.push((0, format!("[pod/{pod}/kube-apiserver] {routine}")));
        }
    }
    for lines in [files, replicas] {
        let got = joins(&lines);
        assert_eq!(got.len(), 4, "one event per request: {got:?}");
        assert!(
            got.iter()
                .all(|(_, join, cause, _)| join != "none" && cause == "expired"),
            "{got:?}"
        );
    }
}

/// A 401 whose request presented no credential has no reason line of its
/// own; the only reason line in reach is a neighbour's, so taking it is a
/// guess, and a guess is never high. Only the same audit ID makes a join
/// exact.
#[test]
fn only_the_same_request_makes_a_join_exact() {
    let [reason, request] = failure(None, 0, "10.0.0.1");
    let got = joins(&[(0, reason.clone()), (0, request.clone())]);
    assert_eq!(got.len(), 1, "{got:?}");
    let (_, join, cause, confidence) = &got[0];
    assert_eq!((join.as_str(), cause.as_str()), ("guess", "expired"));
    assert_ne!(confidence, "high");
    // The reason line names its request (contextual logging's audit-ID).
    let named = format!(r#"{reason} audit-ID="a-10.0.0.1""#);
    let got = joins(&[(0, named.clone()), (0, request.clone())]);
    assert_eq!(
        got,
        [(
            "10.0.0.1".to_owned(),
            "exact".to_owned(),
            "expired".to_owned(),
            "high".to_owned()
        )]
    );
    // Another request's audit ID: the two stay apart.
    let other = named.replace("a-10.0.0.1", "a-10.0.0.9");
    let got = joins(&[(0, other), (0, request)]);
    assert!(got.iter().all(|(_, join, ..)| join == "none"), "{got:?}");
}

#[test]
fn events_stream_every_failing_event_and_a_paste_stays_a_paste() {
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "--events", SAMPLE])
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (_, doc) = classify_json(&[&repo(SAMPLE).display().to_string()]);
    assert_eq!(
        lines.len() as u64,
        doc["summary"]["events"].as_u64().unwrap()
    );
    assert!(
        lines
            .iter()
            .any(|l| l["join"] == "guess" && l["source_ip"].is_string())
    );
    assert!(
        lines
            .iter()
            .all(|l| l["diagnosis"]["classification"] != "ok")
    );
    // The same lines cut to a paste's size are answered one by one.
    let head: String = sample()
        .lines()
        .take(40)
        .map(|l| format!("{l}\n"))
        .collect();
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "-o", "json"])
        .write_stdin(head.clone())
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["results"].is_array(), "{doc}");
    // Past 100 log lines it is a log, and --log makes any text one.
    let lines: String = sample()
        .lines()
        .take(101)
        .map(|l| format!("{l}\n"))
        .collect();
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "-o", "json"])
        .write_stdin(lines)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["groups"].is_array(), "{doc}");
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "-o", "json", "--log"])
        .write_stdin(head)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["groups"].is_array(), "{doc}");
}

/// A group's classification, cause, confidence and events.
type GroupCount = (String, String, String, u64);

/// The counts of a report: events per group key, and requests.
fn counts(doc: &Value) -> (Vec<GroupCount>, Value, Value) {
    let mut groups: Vec<GroupCount> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["classification"].as_str().unwrap().to_owned(),
                g["cause"].as_str().unwrap().to_owned(),
                g["confidence"].as_str().unwrap().to_owned(),
                g["events"].as_u64().unwrap(),
            )
        })
        .collect();
    groups.sort();
    (groups, doc["requests"].clone(), doc["summary"].clone())
}

#[test]
fn every_reader_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let text = sample();
    let (_, from_gz) = classify_json(&[&repo(SAMPLE).display().to_string()]);
    // stdin, decompressed.
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "-o", "json", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let from_stdin: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(counts(&from_stdin), counts(&from_gz));
    // Two files, cut between lines at a quiet moment (no request is split
    // from its reason line), read as one log through a quoted glob.
    let lines: Vec<&str> = text.lines().collect();
    let cut = (lines.len() / 2..lines.len())
        .find(|&i| !lines[i - 1].contains("Unable to authenticate"))
        .unwrap();
    let part = |name: &str, range: &[&str]| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            range.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )
        .unwrap();
    };
    part("apiserver-1.log", &lines[..cut]);
    part("apiserver-2.log", &lines[cut..]);
    let glob = dir.path().join("apiserver-*.log").display().to_string();
    let (_, from_parts) = classify_json(&[&glob]);
    assert_eq!(counts(&from_parts), counts(&from_gz));
    assert_eq!(from_parts["input"]["sources"].as_array().unwrap().len(), 2);
    // `kubectl logs --prefix`: the replica's tag before each line.
    let prefixed: String = lines
        .iter()
        .map(|l| format!("[pod/kube-apiserver-cp-1/kube-apiserver] {l}\n"))
        .collect();
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "-o", "json"])
        .write_stdin(prefixed)
        .output()
        .unwrap();
    let from_prefixed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(counts(&from_prefixed), counts(&from_gz));
    let source = &from_prefixed["groups"][0]["sources"][0];
    assert_eq!(
        source["stream"], "pod/kube-apiserver-cp-1/kube-apiserver",
        "{source}"
    );
}

/// One worker or several: the same bytes out, report and events, from a
/// file and from stdin, on a log of many blocks whose lines' times go back
/// and forth (the joins settle as one worker settles them).
#[test]
fn one_worker_or_two_write_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--lines", "60000", "--seed", "5", "--failures", "0.02"];
    let (log, _) = generate(dir.path(), &[&args[..], &["--forbidden", "0.01"]].concat());
    let mut text = std::fs::read_to_string(&log).unwrap();
    // The sample's day after the generated one: times that go back.
    text.push_str(&sample());
    std::fs::write(&log, &text).unwrap();
    let log = log.to_str().unwrap();
    let run = |jobs: &str, args: &[&str], stdin: bool| {
        let mut cmd = crate::support::satoken();
        cmd.args(["classify", "--now", NOW, "--jobs", jobs])
            .args(args);
        if stdin {
            cmd.write_stdin(text.clone());
        } else {
            cmd.arg(log);
        }
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    for args in [&["-o", "json"][..], &["--events"], &["-o", "table"]] {
        for stdin in [false, true] {
            let one = run("1", args, stdin);
            assert!(one.len() > 1_000, "{args:?}");
            assert!(one == run("2", args, stdin), "{args:?} stdin {stdin}");
        }
    }
}

#[test]
fn a_log_that_is_not_text_or_not_there_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("binary.log");
    let mut bytes = "I0101 00:00:00.000000       1 get.go:262] \"Starting watch\"\n".repeat(200);
    bytes.push('\0');
    std::fs::write(&binary, bytes).unwrap();
    for file in [binary, dir.path().join("missing.log")] {
        let out = crate::support::satoken()
            .args(["classify", "--now", NOW, "--log"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", file.display());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("kubectl-satoken: error: "), "{stderr}");
    }
}

/// `--events` on a live stream: each event is written and flushed as it
/// settles, while the input is still open (it used to wait for 1 MiB or EOF).
#[test]
fn events_stream_while_the_input_is_open() {
    use std::io::{BufRead as _, Write as _};
    let line = |at: &str, ip: &str| {
        format!(
            "I0101 10:{at}.000000       1 httplog.go:134] \"HTTP\" verb=\"GET\" URI=\"/api/v1/pods\" latency=\"1ms\" userAgent=\"app/1\" audit-ID=\"a\" srcIP=\"{ip}:4000\" resp=401\n"
        )
    };
    let mut child = crate::support::satoken_std()
        .args(["classify", "--events", "--now", "2026-01-02T00:00:00Z"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The second line, a minute later, settles the first (its join window passed).
    stdin
        .write_all((line("00:00", "10.0.0.1") + &line("01:00", "10.0.0.2")).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut first);
        let _ = tx.send(first);
    });
    // Liveness, not speed: without streaming nothing comes until stdin closes.
    let first = rx.recv_timeout(std::time::Duration::from_secs(120));
    drop(stdin);
    let _ = child.wait();
    let first = first.expect("no event while the input was open");
    let event: Value = serde_json::from_str(&first).unwrap();
    assert!(first.contains("10.0.0.1"), "{event}");
}

/// `--events -o yaml`: one YAML document per event, not JSON lines.
#[test]
fn events_as_yaml_are_yaml_documents() {
    let out = crate::support::satoken()
        .args(["classify", "--now", NOW, "--events", "-o", "yaml", SAMPLE])
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("---\n") && !text.contains("\n{"), "{text}");
    let json = crate::support::satoken()
        .args(["classify", "--now", NOW, "--events", SAMPLE])
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert_eq!(
        text.matches("\n---\n").count() + 1,
        String::from_utf8(json.stdout).unwrap().lines().count()
    );
}

/// With the token given as `-f FILE`, the log report's next steps name that
/// file, as a paste's do.
#[test]
fn the_log_reports_next_steps_name_the_token_file_given() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("apiserver.log");
    std::fs::write(&log, sample()).unwrap();
    let run = |args: &[&str]| {
        let out = crate::support::satoken()
            .args([
                "classify",
                "--log",
                "-o",
                "json",
                "--now",
                "2026-01-02T00:00:00Z",
            ])
            .arg(&log)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(
        run(&[]).contains("TOKEN_FILE"),
        "the sample asks for the token"
    );
    let named = run(&["-f", "testdata/tokens/projected.jwt"]);
    assert!(!named.contains("TOKEN_FILE"));
    assert!(named.contains("-f testdata/tokens/projected.jwt"));
}

/// Three generated API server logs in `dir/logs` (a-0.log …), each of one
/// replica's day, their names relative to that directory.
fn three_logs(dir: &Path) -> (PathBuf, Vec<&'static str>) {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let names = vec!["a-0.log", "a-1.log", "a-2.log"];
    for (i, name) in names.iter().enumerate() {
        let seed = (i + 3).to_string();
        let status = Command::new("python3")
            .arg(repo("scripts/gen_apiserver_log.py"))
            .args([
                "--lines",
                "20000",
                "--failures",
                "0.02",
                "--seed",
                &seed,
                "-o",
            ])
            .arg(logs.join(name))
            .arg("--counts")
            .arg(dir.join(format!("{name}.counts.json")))
            .status()
            .expect("python3 runs the generator");
        assert!(status.success());
    }
    (logs, names)
}

/// `classify` with `args`, run in `dir`: its exit code and output.
fn classify_in(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let out = crate::support::satoken()
        .current_dir(dir)
        .args(["classify", "--now", NOW])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), out.stdout, stderr)
}

/// A log read in shards, one `classify --log --shard -o json` per file, and
/// the shards merged: the report one run over every file writes, byte for
/// byte, as JSON and as the table, though groups have more sources than a
/// report lists (a shard lists every one).
#[test]
fn merged_shards_are_the_report_of_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (logs, names) = three_logs(dir.path());
    let mut shards = Vec::new();
    for name in &names {
        let (code, doc, stderr) = classify_in(&logs, &["--log", "--shard", "-o", "json", name]);
        assert_eq!(code, Some(1), "{stderr}");
        let shard = dir.path().join(format!("{name}.json"));
        std::fs::write(&shard, doc).unwrap();
        shards.push(shard.to_str().unwrap().to_owned());
    }
    let shards: Vec<&str> = shards.iter().map(String::as_str).collect();
    for output in ["json", "table"] {
        let whole = classify_in(&logs, &[&["--log", "-o", output][..], &names].concat());
        let merged = classify_in(&logs, &[&["-o", output, "--merge"][..], &shards].concat());
        assert_eq!(merged.0, Some(1), "{}", merged.2);
        assert!(whole.1.len() > 2_000);
        assert!(merged.1 == whole.1, "-o {output}");
    }
    let doc: Value = serde_json::from_slice(
        &classify_in(&logs, &[&["-o", "json", "--merge"][..], &shards].concat()).1,
    )
    .unwrap();
    assert!(doc["summary"]["by_classification"]["401-invalid-token"].as_u64() > Some(100));
}

/// What `--merge` refuses, each in one line and exit 2: one document, a
/// document of another kind, a code or a time this version does not know,
/// shards read with different leeways. Strings are sanitised. (`--shard`
/// reads a line as a log, as `--log` does.)
#[test]
fn merge_refuses_what_is_not_a_log_report_and_sanitises_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = "I0101 00:00:01.000000       1 httplog.go:132] \"HTTP\" verb=\"GET\" URI=\"/api/v1/pods\" latency=\"1ms\" userAgent=\"kubectl/v1.31.0\" audit-ID=\"a1\" srcIP=\"10.0.0.7:51234\" resp=401\n";
    std::fs::write(d.join("one.log"), log).unwrap();
    let (_, shard, stderr) = classify_in(d, &["--shard", "-o", "json", "one.log"]);
    let shard: Value = serde_json::from_slice(&shard).unwrap_or_else(|_| panic!("{stderr}"));
    let write = |name: &str, doc: &Value| {
        std::fs::write(d.join(name), doc.to_string()).unwrap();
        name.to_owned()
    };
    let good = write("good.json", &shard);
    let mut hostile = shard.clone();
    hostile["groups"][0]["sources"][0]["user_agent"] = "kubectl\u{1b}]52;c;aGk=\u{7}/v1".into();
    let hostile = write("hostile.json", &hostile);
    let (code, table, stderr) = classify_in(d, &["--merge", &good, &hostile]);
    assert_eq!(code, Some(1), "{stderr}");
    let table = String::from_utf8(table).unwrap();
    assert!(table.contains("Found: 2 401s"), "{table}");
    assert!(!table.contains('\u{1b}'), "{table}");
    let mut unknown_cause = shard.clone();
    unknown_cause["groups"][0]["cause"] = "gremlins".into();
    let mut bad_time = shard.clone();
    bad_time["groups"][0]["first_seen"] = "yesterday".into();
    let mut leeway = shard.clone();
    leeway["leeway_seconds"] = 5.into();
    let (_, paste, _) = classify_in(d, &["-o", "json", "one.log"]);
    std::fs::write(d.join("paste.json"), paste).unwrap();
    let cases: [(&str, &[String]); 6] = [
        ("two or more", std::slice::from_ref(&good)),
        (
            "gremlins",
            &[good.clone(), write("cause.json", &unknown_cause)],
        ),
        ("RFC 3339", &[good.clone(), write("time.json", &bad_time)]),
        (
            "different leeways",
            &[good.clone(), write("leeway.json", &leeway)],
        ),
        (
            "classify --log -o json",
            &[good.clone(), "paste.json".to_owned()],
        ),
        ("cannot open", &[good.clone(), "missing.json".to_owned()]),
    ];
    for (words, files) in cases {
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        let (code, _, stderr) = classify_in(d, &[&["--merge"][..], &files].concat());
        assert_eq!(code, Some(2), "{words}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(words), "{words}: {stderr}");
    }
}

/// `classify` as a Spark partition stage (scripts/spark_satoken.py, local
/// mode) over a directory of logs: the shards Spark wrote are each file's
/// own run, and their merge is, byte for byte, one run over every file.
#[test]
fn a_spark_stage_over_a_directory_is_one_run_over_its_files() {
    if !crate::support::spark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (logs, names) = three_logs(dir.path());
    let spark_out = dir.path().join("spark");
    let stdout =
        crate::support::spark("classify", &logs, &spark_out, &["--now", NOW, "-o", "json"]);
    for (i, name) in names.iter().enumerate() {
        let (_, one, _) = classify_in(&logs, &["--log", "--shard", "-o", "json", name]);
        let shard = spark_out.join(format!("shard-{i:05}.json"));
        assert!(std::fs::read(&shard).unwrap() == one, "{}", shard.display());
    }
    let (_, whole, _) = classify_in(&logs, &[&["--log", "-o", "json"][..], &names].concat());
    assert!(stdout == whole);
}
