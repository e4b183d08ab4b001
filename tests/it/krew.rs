//! The krew manifest (plugins/satoken.yaml, written by scripts/release.sh)
//! passes krew's own checks and matches this build: one platform per release
//! archive.
//!
//! The rules are krew's: `ValidatePlugin`/`validatePlatform`/`validateSelector`
//! in kubernetes-sigs/krew `internal/index/validation/validate.go` (apiVersion,
//! kind, safe name equal to the file name, one-line short description, semver
//! version, per platform: uri, lower-case hex sha256, bin, non-empty `files`
//! entries, a selector on `os`/`arch` only), the krew-index checks in
//! `cmd/validate-krew-manifest` (each selector matches a platform krew runs on,
//! no two select the same os/arch, description lines within 80 columns), and
//! what `install` does with `files` and `bin` (`internal/installation`: bin is a
//! path inside the install directory after the file operations; on Windows
//! krew links `kubectl-<name>.exe`, so bin is the `.exe`).

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    api_version: String,
    kind: String,
    metadata: Metadata,
    spec: Spec,
}

#[derive(Debug, Clone, Deserialize)]
struct Metadata {
    name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    version: String,
    homepage: String,
    short_description: String,
    description: String,
    #[serde(default)]
    caveats: String,
    platforms: Vec<Platform>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Platform {
    selector: Option<Selector>,
    #[serde(default)]
    pub uri: String,
    #[serde(default)]
    pub sha256: String,
    files: Option<Vec<FileOp>>,
    #[serde(default)]
    pub bin: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Selector {
    match_labels: Option<BTreeMap<String, String>>,
    match_expressions: Option<Vec<Expression>>,
}

#[derive(Debug, Clone, Deserialize)]
struct Expression {
    key: String,
    operator: String,
    #[serde(default)]
    values: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FileOp {
    pub from: String,
    pub to: String,
}

/// The os/arch pairs krew runs on (validate-krew-manifest's list, with the
/// arm64 and other pairs krew has released for since).
const KREW_PLATFORMS: &[(&str, &str)] = &[
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];

/// The platforms scripts/release.sh builds, each exactly once in the manifest.
pub const RELEASED: &[(&str, &str)] = &[
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];

/// Windows device names krew refuses as plugin names.
const WINDOWS_FORBIDDEN: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

pub const MANIFEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/plugins/satoken.yaml");

/// The checked-in manifest.
pub fn manifest() -> Manifest {
    serde_saphyr::from_str(&std::fs::read_to_string(MANIFEST).unwrap()).unwrap()
}

impl Manifest {
    /// The platform entry krew would pick on `os`/`arch`, if exactly one.
    pub fn platform(&self, os: &str, arch: &str) -> Option<&Platform> {
        let mut matching = self
            .spec
            .platforms
            .iter()
            .filter(|p| p.selector.as_ref().is_some_and(|s| s.matches(os, arch)));
        let first = matching.next();
        first.filter(|_| matching.next().is_none())
    }
}

impl Platform {
    /// The archive files krew copies into the plugin directory.
    pub fn files(&self) -> &[FileOp] {
        self.files.as_deref().unwrap_or_default()
    }
}

impl Selector {
    /// metav1.LabelSelector semantics over the labels {os, arch}.
    fn matches(&self, os: &str, arch: &str) -> bool {
        let label = |key: &str| match key {
            "os" => Some(os),
            "arch" => Some(arch),
            _ => None,
        };
        let labels_ok = self
            .match_labels
            .iter()
            .flatten()
            .all(|(k, v)| label(k) == Some(v.as_str()));
        let expressions_ok = self.match_expressions.iter().flatten().all(|e| {
            let value = label(&e.key);
            let listed = value.is_some_and(|v| e.values.iter().any(|x| x == v));
            match e.operator.as_str() {
                "In" => listed,
                "NotIn" => !listed,
                "Exists" => value.is_some(),
                "DoesNotExist" => value.is_none(),
                _ => false,
            }
        });
        labels_ok && expressions_ok
    }
}

/// krew's semver: `v` then MAJOR.MINOR.PATCH, optional -pre and +build.
fn is_krew_semver(version: &str) -> bool {
    let Some(rest) = version.strip_prefix('v') else {
        return false;
    };
    let core = rest.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars().all(|c| c.is_ascii_digit())
                && (p == &"0" || !p.starts_with('0'))
        })
}

/// Lines over `max` columns that contain a space (krew allows one long word).
fn long_lines(text: &str, max: usize) -> Vec<&str> {
    text.lines()
        .filter(|l| l.chars().count() > max && l.trim().contains(' '))
        .collect()
}

/// Every rule the manifest breaks, as krew (and its index) would say it.
pub fn krew_problems(m: &Manifest, file_name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |p: String| problems.push(p);
    if m.api_version != "krew.googlecontainertools.github.com/v1alpha2" {
        fail(format!("apiVersion {:?} is not krew's", m.api_version));
    }
    if m.kind != "Plugin" {
        fail(format!("kind {:?} is not Plugin", m.kind));
    }
    let name = &m.metadata.name;
    let safe = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !safe
        || WINDOWS_FORBIDDEN
            .iter()
            .any(|f| f.eq_ignore_ascii_case(name))
    {
        fail(format!("plugin name {name:?} is not allowed"));
    }
    if file_name.strip_suffix(".yaml") != Some(name.as_str()) {
        fail(format!(
            "plugin {name:?} must live in {name}.yaml, not {file_name}"
        ));
    }
    let short = &m.spec.short_description;
    if short.is_empty() || short.contains(['\r', '\n']) {
        fail("shortDescription must be one non-empty line".to_owned());
    }
    if short.chars().count() > 70 {
        fail("shortDescription over 70 characters".to_owned());
    }
    for (field, text) in [
        ("description", &m.spec.description),
        ("caveats", &m.spec.caveats),
    ] {
        for line in long_lines(text, 80) {
            fail(format!("{field} line over 80 columns: {line:?}"));
        }
    }
    if !is_krew_semver(&m.spec.version) {
        fail(format!(
            "version {:?} is not vMAJOR.MINOR.PATCH",
            m.spec.version
        ));
    }
    if m.spec.platforms.is_empty() {
        fail("no platform".to_owned());
    }
    for (i, p) in m.spec.platforms.iter().enumerate() {
        let mut bad = |what: String| fail(format!("platforms[{i}]: {what}"));
        if p.uri.is_empty() {
            bad("uri has to be set".to_owned());
        }
        if !(p.sha256.len() == 64 && p.sha256.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))) {
            bad(format!("sha256 {:?} must match ^[a-f0-9]{{64}}$", p.sha256));
        }
        if p.bin.is_empty() {
            bad("bin has to be set".to_owned());
        }
        if let Some(files) = &p.files {
            if files.is_empty() {
                bad("files has to be unspecified or non-empty".to_owned());
            }
            if files.iter().any(|f| f.from.is_empty() || f.to.is_empty()) {
                bad("every files entry needs from and to".to_owned());
            }
        }
        match &p.selector {
            None => bad("nil selector".to_owned()),
            Some(s) => {
                let keys: Vec<&str> = s
                    .match_labels
                    .iter()
                    .flatten()
                    .map(|(k, _)| k.as_str())
                    .chain(s.match_expressions.iter().flatten().map(|e| e.key.as_str()))
                    .collect();
                if keys.is_empty() {
                    bad("empty selector".to_owned());
                }
                if let Some(k) = keys.iter().find(|k| !matches!(**k, "os" | "arch")) {
                    bad(format!("selector key {k:?} not supported"));
                }
                if !KREW_PLATFORMS.iter().any(|(os, arch)| s.matches(os, arch)) {
                    bad("selector matches no platform krew runs on".to_owned());
                }
            }
        }
        // install: bin must be a file the operations put in the plugin directory.
        let bin = p.bin.as_str();
        if bin.contains(['/', '\\']) || bin == ".." {
            bad(format!(
                "bin {bin:?} must be a file in the plugin directory"
            ));
        }
        let installed = match &p.files {
            None => true, // krew's default copies the whole archive: `* -> .`
            Some(files) => files
                .iter()
                .any(|f| (f.from == bin || f.from == "*") && f.to == "."),
        };
        if !installed {
            bad(format!("no files entry installs bin {bin:?}"));
        }
        let windows = p
            .selector
            .as_ref()
            .is_some_and(|s| s.matches("windows", "amd64"));
        if windows != bin.ends_with(".exe") {
            bad(format!("bin {bin:?}: .exe on Windows and only there"));
        }
    }
    for (os, arch) in KREW_PLATFORMS {
        let count = m
            .spec
            .platforms
            .iter()
            .filter(|p| p.selector.as_ref().is_some_and(|s| s.matches(os, arch)))
            .count();
        if count > 1 {
            fail(format!("{count} platforms select {os}/{arch}"));
        }
    }
    problems
}

#[test]
fn manifest_passes_krews_validation() {
    let m = manifest();
    assert_eq!(krew_problems(&m, "satoken.yaml"), Vec::<String>::new());
}

#[test]
fn manifest_matches_this_build_and_every_release_archive() {
    let m = manifest();
    assert_eq!(
        m.metadata.name, "satoken",
        "krew name = the kubectl subcommand"
    );
    assert_eq!(m.spec.version, format!("v{}", env!("CARGO_PKG_VERSION")));
    assert!(m.spec.homepage.starts_with("https://"));
    assert!(!m.spec.short_description.to_lowercase().contains("kubectl"));
    assert!(m.spec.description.len() > m.spec.short_description.len());
    assert_eq!(
        m.spec.platforms.len(),
        RELEASED.len(),
        "one entry per archive"
    );
    for (os, arch) in RELEASED {
        let p = m
            .platform(os, arch)
            .unwrap_or_else(|| panic!("no single platform entry for {os}/{arch}"));
        let ext = if *os == "windows" { "zip" } else { "tar.gz" };
        let archive = format!("kubectl-satoken_{}_{os}_{arch}.{ext}", m.spec.version);
        assert!(p.uri.starts_with("https://"), "{}", p.uri);
        assert_eq!(p.uri.rsplit('/').next(), Some(archive.as_str()));
        let exe = if *os == "windows" {
            "kubectl-satoken.exe"
        } else {
            "kubectl-satoken"
        };
        assert_eq!(p.bin, exe);
        assert!(
            p.files().iter().any(|f| f.from == "LICENSE"),
            "krew wants the licence shipped"
        );
    }
}

/// The validator itself: each rule catches what it is for.
#[test]
fn the_validator_rejects_what_krew_rejects() {
    let good = manifest();
    let broken = |change: &dyn Fn(&mut Manifest), says: &str| {
        let mut m = good.clone();
        change(&mut m);
        let problems = krew_problems(&m, "satoken.yaml");
        assert!(
            problems.iter().any(|p| p.contains(says)),
            "{says}: {problems:?}"
        );
    };
    broken(
        &|m| m.spec.platforms[0].sha256 = m.spec.platforms[0].sha256.to_uppercase(),
        "sha256",
    );
    broken(&|m| m.spec.version = "0.1.0".to_owned(), "vMAJOR");
    broken(
        &|m| m.metadata.name = "kubectl satoken".to_owned(),
        "not allowed",
    );
    broken(
        &|m| m.spec.short_description.push('\n'),
        "one non-empty line",
    );
    broken(
        &|m| m.spec.platforms.push(m.spec.platforms[1].clone()),
        "2 platforms select linux/arm64",
    );
    broken(
        &|m| {
            let windows = m
                .spec
                .platforms
                .iter_mut()
                .find(|p| p.bin.ends_with(".exe"))
                .unwrap();
            windows.bin = "kubectl-satoken".to_owned();
        },
        ".exe on Windows",
    );
    broken(
        &|m| m.spec.platforms[0].files = Some(Vec::new()),
        "unspecified or non-empty",
    );
    broken(
        &|m| {
            let s = m.spec.platforms[0].selector.as_mut().unwrap();
            s.match_labels
                .as_mut()
                .unwrap()
                .insert("distro".to_owned(), "alpine".to_owned());
        },
        "selector key \"distro\"",
    );
    broken(
        &|m| {
            let s = m.spec.platforms[0].selector.as_mut().unwrap();
            s.match_labels
                .as_mut()
                .unwrap()
                .insert("os".to_owned(), "plan9".to_owned());
        },
        "matches no platform",
    );
    broken(
        &|m| m.spec.platforms[0].bin = "../kubectl-satoken".to_owned(),
        "plugin directory",
    );
    let m = good.clone();
    assert!(
        krew_problems(&m, "other.yaml")
            .iter()
            .any(|p| p.contains("must live in"))
    );
}
