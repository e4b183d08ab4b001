//! `watch` with the real Prometheus (Debian's `prometheus` package, which
//! brings `promtool`): the shipped rules pass `promtool check rules` and their
//! unit tests, a scrape passes `promtool check metrics`, Prometheus scrapes
//! `watch` on the loopback and an alert fires; the manifests validate against
//! Kubernetes' OpenAPI schemas offline (PyPI's `kubernetes-validate`). Where a
//! tool is missing the test is skipped, except with `CI` set (`.ci/run`
//! installs them), where it fails.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::TimeDelta;
use serde_json::Value;

use crate::probe_cluster::kubeconfig;
use crate::support::apiserver::{ApiServer, Config};
use crate::support::base;
use crate::support::pki::Pki;
use crate::watch::{Watch, free_port, get};

const ADMIN: &str = "admin-static-token-0123456789";

fn deploy(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(file)
}

/// `tool` on PATH, or `None` (a failure with `CI` set).
fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    });
    assert!(
        found.is_some() || std::env::var_os("CI").is_none(),
        "{name} is not installed, and CI is set (.ci/run installs it)"
    );
    if found.is_none() {
        eprintln!("skipped: {name} is not installed");
    }
    found
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?}: {text}");
    text
}

fn yaml(path: &Path) -> Value {
    serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn shipped_rules_pass_promtool_and_the_prometheus_rule_holds_the_same() {
    let rules = yaml(&deploy("rules.yaml"));
    let operator = yaml(&deploy("prometheusrule.yaml"));
    assert_eq!(operator["spec"]["groups"], rules["groups"]);
    let Some(promtool) = tool("promtool") else {
        return;
    };
    run_ok(
        Command::new(&promtool)
            .args(["check", "rules"])
            .arg(deploy("rules.yaml")),
    );
    run_ok(
        Command::new(&promtool)
            .args(["test", "rules", "rules.test.yaml"])
            .current_dir(deploy("")),
    );
}

#[test]
fn manifests_validate_against_the_kubernetes_schemas() {
    let Some(validate) = tool("kubernetes-validate") else {
        return;
    };
    let text = run_ok(
        Command::new(validate)
            .args(["--strict", "--quiet"])
            .arg(deploy("watch.yaml"))
            .arg(deploy("prometheusrule.yaml")),
    );
    // Only the prometheus-operator kinds have no schema there.
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            line.contains("ServiceMonitor") || line.contains("PrometheusRule"),
            "{line}"
        );
    }
}

/// A Prometheus on the loopback, killed on drop.
struct Prometheus {
    child: Child,
    port: u16,
    _data: tempfile::TempDir,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Prometheus {
    /// Scrapes `target` every second, evaluating `rules` every second.
    fn start(binary: &Path, target: u16, rules: &Path) -> Prometheus {
        let data = tempfile::tempdir().unwrap();
        let config = data.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global: {{scrape_interval: 1s, evaluation_interval: 1s}}\nrule_files: [{}]\nscrape_configs:\n  - job_name: satoken-watch\n    static_configs: [{{targets: ['127.0.0.1:{target}']}}]\n",
                rules.display()
            ),
        )
        .unwrap();
        let port = free_port();
        let child = Command::new(binary)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                data.path().join("tsdb").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Prometheus {
            child,
            port,
            _data: data,
        }
    }

    fn api(&self, path: &str) -> Option<Value> {
        let (status, body) = get(self.port, path)?;
        (status == 200).then(|| serde_json::from_str(&body).ok())?
    }

    /// Polls `path` until `ready` finds something (at most 40 s).
    fn until<T>(&self, path: &str, ready: impl Fn(&Value) -> Option<T>) -> T {
        let start = Instant::now();
        loop {
            if let Some(found) = self.api(path).as_ref().and_then(&ready) {
                return found;
            }
            assert!(
                start.elapsed() < Duration::from_secs(40),
                "{path}: {:?}",
                self.api(path)
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

/// Three replicas, one 90 s ahead: Prometheus scrapes `watch`, reads back the
/// offsets, and the clock-offset alert (its `for` shortened in a test copy of
/// the shipped rules) fires for the fast replica only.
#[test]
fn prometheus_scrapes_watch_and_the_clock_alert_fires() {
    let (Some(prometheus), Some(promtool)) = (tool("prometheus"), tool("promtool")) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("watch-prom-ca");
    let servers: Vec<ApiServer> = [0, 90, -3]
        .into_iter()
        .map(|s| {
            let mut config = Config::new(base()).admin(ADMIN);
            config.offset = TimeDelta::seconds(s);
            ApiServer::start(config, &pki)
        })
        .collect();
    let ports: Vec<u16> = servers.iter().map(ApiServer::port).collect();
    servers[0].set_endpoints(&ports);
    let token = dir.path().join("token");
    std::fs::write(&token, crate::support::fresh_token()).unwrap();
    let kc = kubeconfig(dir.path(), &servers[0], &pki, ADMIN);
    let w = Watch::start(
        dir.path(),
        &[
            "--kubeconfig",
            kc.to_str().unwrap(),
            "--use-kubeconfig-credentials",
            "-f",
            token.to_str().unwrap(),
            "--interval",
            "500ms",
            "--clock-samples",
            "2",
        ],
    );
    // promtool check metrics on a scrape as any client gets it.
    let scrape = w.scrape_until(|s| s.value("satoken_cycles_total").unwrap_or(0.0) >= 1.0);
    let mut check = Command::new(&promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    check
        .stdin
        .take()
        .unwrap()
        .write_all(scrape.0.as_bytes())
        .unwrap();
    let out = check.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The shipped rules with every `for` shortened to 2 s.
    let shipped = std::fs::read_to_string(deploy("rules.yaml")).unwrap();
    let quick = regex::Regex::new(r"for: \d+m")
        .unwrap()
        .replace_all(&shipped, "for: 2s");
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, quick.as_bytes()).unwrap();
    let p = Prometheus::start(&prometheus, w.port, &rules);
    let offsets = p.until(
        "/api/v1/query?query=satoken_replica_clock_offset_seconds",
        |v| {
            let result = v["data"]["result"].as_array()?;
            (result.len() == 3).then(|| result.clone())
        },
    );
    let fast = servers[1].url();
    for series in &offsets {
        let replica = series["metric"]["replica"].as_str().unwrap();
        let value: f64 = series["value"][1].as_str().unwrap().parse().unwrap();
        let want = if replica == fast { 90.0 } else { 0.0 };
        assert!((value - want).abs() < 4.0, "{replica}: {value}");
    }
    let firing = p.until("/api/v1/alerts", |v| {
        let alerts = v["data"]["alerts"].as_array()?;
        let firing: Vec<&Value> = alerts.iter().filter(|a| a["state"] == "firing").collect();
        firing
            .iter()
            .any(|a| a["labels"]["alertname"] == "SatokenReplicaClockOffset")
            .then(|| firing.iter().map(|a| (*a).clone()).collect::<Vec<Value>>())
    });
    let clock: Vec<&Value> = firing
        .iter()
        .filter(|a| a["labels"]["alertname"] == "SatokenReplicaClockOffset")
        .collect();
    assert_eq!(clock.len(), 1, "{firing:?}");
    assert_eq!(clock[0]["labels"]["replica"], fast.as_str());
    assert!(
        !firing
            .iter()
            .any(|a| a["labels"]["alertname"] == "SatokenReplicaUnauthorized"),
        "{firing:?}"
    );
    // Scrapes and alerts ran through the OpenMetrics exposition.
    let up = p.until("/api/v1/query?query=up", |v| {
        v["data"]["result"].as_array().cloned()
    });
    assert_eq!(up[0]["value"][1], "1");
}
