//! The fully static in-pod binary (scripts/build-static.sh, docs/in-pod.md) runs
//! `decode` and `probe` from inside an otherwise empty root directory: `chroot`
//! into a temporary directory holding only the binary, a pod's ServiceAccount
//! files and an `/etc/hosts` (no libc, no loader, no `/dev`, no `/etc/ssl`, no
//! `/etc/resolv.conf`, no `/etc/nsswitch.conf`). The test API server
//! (tests/it/support) runs outside the chroot on 127.0.0.1; same network namespace.
//!
//! Runs only when `SATOKEN_STATIC_BIN` names the static binary, or several
//! separated by `:` (say the glibc x86_64 build and the musl arm64 one), and
//! the process is root (chroot(2) needs CAP_SYS_CHROOT); otherwise it is
//! skipped with the reason on stderr. A binary for another architecture runs
//! under a static qemu-user copied into the root (`qemu-aarch64-static`,
//! Debian's qemu-user-static), so the root stays otherwise empty. With `CI` set
//! and a binary given, a missing privilege, qemu or a refused chroot is a
//! failure, not a skip: `.ci/run` builds the binaries and runs this as root.
//!
//! In the root: `--version`; `decode` (in-pod default path, and `-f`); `probe`
//! and `doctor` with no flags (server from KUBERNETES_SERVICE_HOST/PORT); `probe`
//! by IP, by `localhost` and by a name only /etc/hosts knows; a name nowhere; a
//! server with another CA; and, as a control, the dynamic build, which cannot
//! start there.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::apiserver::{ApiServer, Config};
use crate::support::pki::Pki;
use crate::support::tokens::{self, NAMESPACE, POD, SA_UID};

const BIN_ENV: &str = "SATOKEN_STATIC_BIN";
const NOW: &str = "2026-01-01T00:00:00Z";
const SA_DIR: &str = "var/run/secrets/kubernetes.io/serviceaccount";
/// Resolvable only through the chroot's /etc/hosts.
const HOSTS_NAME: &str = "kube-apiserver.satoken.test";
const USER: &str = "system:serviceaccount:debug-lab:reporter";

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(NOW)
        .unwrap()
        .with_timezone(&Utc)
}

/// Whether a missing precondition fails the test instead of skipping it.
fn strict() -> bool {
    std::env::var_os("CI").is_some()
}

/// Skips (prints why, returns None), or panics under CI when the binary was given.
fn skip_or_fail(given: bool, why: &str) {
    if given && strict() {
        panic!("{BIN_ENV} is set and CI is set, but: {why}");
    }
    eprintln!("skipped: {why}");
}

/// The static binaries, if this test can run, each with the qemu-user that
/// runs it when it is not for this machine's architecture.
fn static_bins() -> Vec<(PathBuf, Option<PathBuf>)> {
    let Some(list) = std::env::var_os(BIN_ENV).filter(|v| !v.is_empty()) else {
        skip_or_fail(
            false,
            &format!("{BIN_ENV} is not set (scripts/build-static.sh builds the binary)"),
        );
        return Vec::new();
    };
    // The owner of /proc/self is this process's effective uid.
    let euid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    if euid != Some(0) {
        skip_or_fail(true, "not running as root (chroot needs CAP_SYS_CHROOT)");
        return Vec::new();
    }
    let mut bins = Vec::new();
    for bin in std::env::split_paths(&list) {
        if !bin.is_file() {
            // A wrong path is a mistake, not a missing privilege.
            panic!("{BIN_ENV}: {} is not a file", bin.display());
        }
        let foreign = match crate::platforms::format_of(&bin) {
            crate::platforms::Format::Elf { machine, .. } => {
                machine
                    != if cfg!(target_arch = "x86_64") {
                        "x86-64"
                    } else {
                        "aarch64"
                    }
            }
            other => panic!("{}: not a Linux binary: {other:?}", bin.display()),
        };
        if !foreign {
            bins.push((bin, None));
            continue;
        }
        match crate::platforms::qemu_aarch64().filter(|q| elf_dependencies(q) == (false, 0)) {
            Some(qemu) => bins.push((bin, Some(qemu))),
            None => {
                skip_or_fail(
                    true,
                    &format!(
                        "{} is for another architecture and there is no static qemu-aarch64-static (apt-get install qemu-user-static)",
                        bin.display()
                    ),
                );
            }
        }
    }
    bins
}

/// `name` on this process's PATH (root's PATH has /usr/sbin for chroot).
fn which(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| panic!("{name} is not on PATH"))
}

/// The empty root: the binary, the ServiceAccount volume and /etc/hosts.
struct Root {
    dir: tempfile::TempDir,
    /// The static qemu-user inside the root that runs a foreign binary.
    qemu: bool,
}

impl Root {
    fn new(bin: &Path, qemu: Option<&Path>, pki: &Pki, token: &str) -> Root {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (from, to) in [(Some(bin), "kubectl-satoken"), (qemu, "qemu")] {
            let Some(from) = from else { continue };
            let target = root.join(to);
            std::fs::copy(from, &target).unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let sa = root.join(SA_DIR);
        std::fs::create_dir_all(&sa).unwrap();
        std::fs::write(sa.join("token"), token).unwrap();
        std::fs::write(sa.join("ca.crt"), &pki.ca_pem).unwrap();
        std::fs::write(sa.join("namespace"), NAMESPACE).unwrap();
        std::fs::create_dir(root.join("etc")).unwrap();
        std::fs::write(
            root.join("etc/hosts"),
            format!("127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.0.1\t{HOSTS_NAME}\n"),
        )
        .unwrap();
        Root {
            dir,
            qemu: qemu.is_some(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `chroot ROOT PROGRAM ARGS` with an empty environment plus `env`, stdin
    /// `/dev/null` (opened outside; a pod's usual stdin), killed after 30 s
    /// (coreutils timeout(1): exit 124).
    fn run(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        // Absolute paths: the cleared environment has no PATH to search.
        let output = std::process::Command::new(which("timeout"))
            .arg("30")
            .arg(which("chroot"))
            .arg(self.path())
            .arg(program)
            .args(args)
            .env_clear()
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .expect("run timeout(1) and chroot(8)");
        let code = output.status.code().unwrap_or(-1);
        assert_ne!(code, 124, "{program} {args:?} timed out in the chroot");
        Run {
            code,
            json: serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// The static binary in the chroot.
    fn satoken(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        if self.qemu {
            let mut with = vec!["/kubectl-satoken"];
            with.extend(args);
            return self.run("/qemu", &with, env);
        }
        self.run("/kubectl-satoken", args, env)
    }
}

#[derive(Debug)]
struct Run {
    code: i32,
    json: Value,
    stdout: String,
    stderr: String,
}

/// chroot(8) exits 125 when chroot(2) itself fails.
const CHROOT_FAILED: i32 = 125;

fn command_output(program: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What the ELF program headers say: an interpreter (`PT_INTERP`), and the
/// shared libraries the dynamic section asks for (`DT_NEEDED`). Independent of
/// file(1), which a fresh machine may not have.
pub fn elf_dependencies(bin: &Path) -> (bool, usize) {
    const PT_INTERP: u32 = 3;
    const PT_DYNAMIC: u32 = 2;
    const DT_NEEDED: u64 = 1;
    let elf = std::fs::read(bin).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(elf[4], 2, "not a 64-bit ELF file");
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap());
    let (phoff, phentsize, phnum) = (u64_at(0x20) as usize, u16_at(0x36), u16_at(0x38));
    let mut interp = false;
    let mut needed = 0;
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        match u32_at(ph) {
            PT_INTERP => interp = true,
            PT_DYNAMIC => {
                let (offset, size) = (u64_at(ph + 8) as usize, u64_at(ph + 32) as usize);
                needed += (offset..offset + size)
                    .step_by(16)
                    .filter(|&entry| u64_at(entry) == DT_NEEDED)
                    .count();
            }
            _ => {}
        }
    }
    (interp, needed)
}

#[test]
fn file_and_ldd_say_static() {
    for (bin, _) in static_bins() {
        says_static(&bin);
    }
}

fn says_static(bin: &Path) {
    let (interp, needed) = elf_dependencies(bin);
    assert!(!interp, "the binary names a dynamic loader (PT_INTERP)");
    assert_eq!(needed, 0, "the binary needs shared libraries (DT_NEEDED)");
    // The control: the ordinary build does need them, so the parser can tell.
    let dynamic = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    let (interp, needed) = elf_dependencies(&dynamic);
    assert!(interp && needed > 0, "dynamic build: {interp} {needed}");

    let bin = bin.to_str().unwrap();
    let ldd = command_output("ldd", &[bin]);
    assert!(
        ldd.contains("statically linked") || ldd.contains("not a dynamic executable"),
        "ldd: {ldd}"
    );
    if std::process::Command::new("file")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("file(1) not installed: the ELF headers and ldd decided");
        return;
    }
    let file = command_output("file", &["-b", bin]);
    assert!(
        file.contains("statically linked") || file.contains("static-pie linked"),
        "file: {file}"
    );
    assert!(!file.contains("interpreter"), "file: {file}");
}

#[test]
fn decode_probe_and_doctor_run_in_an_empty_root() {
    for (bin, qemu) in static_bins() {
        runs_in_an_empty_root(&bin, qemu.as_deref());
    }
}

fn runs_in_an_empty_root(bin: &Path, qemu: Option<&Path>) {
    let pki = Pki::custom(
        "satoken-static-ca",
        &["127.0.0.1", "localhost", HOSTS_NAME],
        false,
    );
    let token = tokens::sign(&tokens::projected(now() - TimeDelta::minutes(10), 3607));
    let root = Root::new(bin, qemu, &pki, &token);

    let version = root.satoken(&["--version"], &[]);
    if version.code == CHROOT_FAILED {
        skip_or_fail(true, &format!("chroot refused: {}", version.stderr.trim()));
        return;
    }
    assert_eq!(version.code, 0, "{version:?}");
    assert!(
        version.stdout.starts_with("kubectl-satoken "),
        "{version:?}"
    );

    // The root really is empty of libraries: the dynamic test build cannot start.
    let dynamic = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    std::fs::copy(&dynamic, root.path().join("dynamic")).unwrap();
    let run = root.run("/dynamic", &["--version"], &[]);
    assert_eq!(
        run.code, 127,
        "the dynamic binary ran in the chroot: {run:?}"
    );

    // decode with no input at all: the in-pod default token path.
    let run = root.satoken(&["decode", "-o", "json", "--now", NOW], &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json["subject"], USER, "{run:?}");
    assert_eq!(run.json["binding"], "pod");
    assert_eq!(run.json["pod"]["name"], POD);
    assert_eq!(run.json["service_account"]["uid"], SA_UID);
    // and by path inside the root.
    let run = root.satoken(
        &[
            "decode",
            "-o",
            "json",
            "--now",
            NOW,
            "-f",
            &format!("/{SA_DIR}/token"),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json["subject"], USER);

    let server = ApiServer::start(Config::new(now()), &pki);
    let port = server.port().to_string();

    // probe as in a pod: no flags; the server from KUBERNETES_SERVICE_HOST/PORT,
    // token and ca.crt from the mounted directory.
    let pod_env = [
        ("KUBERNETES_SERVICE_HOST", "127.0.0.1"),
        ("KUBERNETES_SERVICE_PORT", port.as_str()),
    ];
    let run = root.satoken(&["probe", "-o", "json", "--now", NOW], &pod_env);
    assert_eq!(run.code, 0, "{run:?}");
    let s = &run.json["servers"][0];
    assert_eq!(s["url"], server.url());
    assert_eq!(s["tls"]["verified"], true);
    assert_eq!(s["classification"], "ok");
    assert_eq!(s["user"]["username"], USER);

    // doctor, as an init container runs it: no flags at all.
    let run = root.satoken(&["doctor", "-o", "json", "--now", NOW], &pod_env);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json["verdict"], "healthy", "{}", run.json["steps"]);
    assert_eq!(run.json["probe"]["servers"][0]["classification"], "ok");
    let run = root.satoken(&["doctor", "--now", NOW], &pod_env);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Verdict: HEALTHY"), "{run:?}");

    // By IP, by `localhost`, and by a name only /etc/hosts knows; CA and token
    // by path inside the root.
    let urls = [
        format!("https://127.0.0.1:{port}"),
        format!("https://localhost:{port}"),
        format!("https://{HOSTS_NAME}:{port}"),
    ];
    let ca = format!("/{SA_DIR}/ca.crt");
    let token_path = format!("/{SA_DIR}/token");
    let mut args = vec!["probe", "-o", "json", "--now", NOW, "--cacert", &ca];
    args.extend(["-f", &token_path]);
    for url in &urls {
        args.extend(["-s", url]);
    }
    let run = root.satoken(&args, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let servers = run.json["servers"].as_array().unwrap();
    assert_eq!(servers.len(), urls.len());
    for (s, url) in servers.iter().zip(&urls) {
        assert_eq!(s["url"], url.as_str());
        assert_eq!(s["tls"]["verified"], true, "{s}");
        assert_eq!(s["classification"], "ok", "{s}");
        assert_eq!(s["user"]["username"], USER, "{s}");
    }

    // A name in neither /etc/hosts nor DNS (the root has no resolv.conf): a DNS
    // failure that names the missing file, and no request was made.
    let before = server.seen().len();
    let unknown = format!("https://not-in-hosts.satoken.test:{port}");
    let run = root.satoken(
        &[
            "probe",
            "-o",
            "json",
            "--now",
            NOW,
            "--cacert",
            &ca,
            "-f",
            &token_path,
            "-s",
            &unknown,
        ],
        &[],
    );
    assert_eq!(run.code, 3, "{run:?}");
    assert_eq!(run.json["servers"][0]["classification"], "network-error");
    assert_eq!(run.json["diagnosis"]["cause"], "dns-failure", "{run:?}");
    let error = run.json["servers"][0]["requests"][0]["error"]
        .as_str()
        .unwrap();
    assert!(error.contains("/etc/resolv.conf"), "{error}");
    assert_eq!(server.seen().len(), before);

    // The default CA is the root's ca.crt: a server with another CA is refused.
    let other = Pki::new("another-ca");
    let stranger = ApiServer::start(Config::new(now()), &other);
    let run = root.satoken(
        &["probe", "-o", "json", "--now", NOW, "-s", &stranger.url()],
        &[],
    );
    assert_eq!(run.code, 3, "{run:?}");
    assert_eq!(run.json["servers"][0]["tls"]["reason"], "unknown-ca");
    assert!(!stranger.saw_authorization());
}

/// Everywhere, without root: the ordinary build resolves `localhost` through
/// the same resolver (src/http/resolve.rs) and reaches the server.
#[test]
fn the_ordinary_build_resolves_localhost_too() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("satoken-resolve-ca");
    let ca = pki.write_ca(dir.path(), "ca.crt");
    let token = dir.path().join("token");
    std::fs::write(
        &token,
        tokens::sign(&tokens::projected(now() - TimeDelta::minutes(10), 3607)),
    )
    .unwrap();
    let server = ApiServer::start(Config::new(now()), &pki);
    let output = crate::support::satoken_std()
        .args(["probe", "-o", "json", "--now", NOW, "-f"])
        .arg(&token)
        .arg("--cacert")
        .arg(&ca)
        .args(["-s", &format!("https://localhost:{}", server.port())])
        .env("KUBECTL_SATOKEN_SA_DIR", dir.path().join("no-such-sa-dir"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(json["servers"][0]["classification"], "ok", "{json}");
    assert_eq!(json["servers"][0]["user"]["username"], USER);
}
