//! The release archives scripts/release.sh writes to dist/: for each of the
//! five platforms, the archive's layout (the binary, LICENSE, README.md and
//! nothing else), its SHA-256 against dist/SHA256SUMS and the krew manifest, the
//! binary's format and architecture from its own object headers (and file(1)
//! when installed), and a run of `--version` and `decode` where this Linux
//! machine can run it:
//!
//! | platform      | format checked                     | run                        |
//! |---------------|------------------------------------|----------------------------|
//! | linux amd64   | ELF x86-64, static (no interpreter, no DT_NEEDED) | natively    |
//! | linux arm64   | ELF AArch64, static                | under qemu-user (qemu-aarch64[-static]) |
//! | darwin amd64  | Mach-O x86_64, links only /usr/lib (no framework) | cannot run here |
//! | darwin arm64  | Mach-O arm64, same, and an ad-hoc code signature whose page hashes match (arm64 macOS runs nothing unsigned) | cannot run here |
//! | windows amd64 | PE32+ x86-64 console               | under wine, when installed (see [`PRNG_SHIM`]) |
//!
//! Runs when `SATOKEN_DIST_DIR` names the directory (release.sh's dist/); a
//! missing archive, qemu or wine skips that part with the reason on stderr.
//! The static Linux binaries' empty-chroot runs are tests/it/static_chroot.rs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::krew::{self, RELEASED};

const DIST_ENV: &str = "SATOKEN_DIST_DIR";
const NOW: &str = "2026-01-01T00:00:00Z";
const TOKEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tokens/projected.jwt");

/// What the headers of a binary say.
#[derive(Debug, PartialEq, Eq)]
pub enum Format {
    /// ELF: machine, whether it names a loader or shared libraries.
    Elf {
        machine: &'static str,
        dynamic: bool,
    },
    /// Mach-O: CPU, the dylibs it loads, and how many pages its code
    /// signature's SHA-256 hashes cover, all of them checked (0: unsigned).
    MachO {
        cpu: &'static str,
        dylibs: Vec<String>,
        signed_pages: usize,
        /// The oldest macOS it starts on (LC_BUILD_VERSION), major and minor.
        min_macos: (u32, u32),
    },
    /// PE: machine and whether it is a console program.
    Pe {
        machine: &'static str,
        console: bool,
    },
}

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap()) as usize
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Reads the object headers (64-bit little-endian ELF, Mach-O or PE32+).
pub fn format_of(bin: &Path) -> Format {
    let b = std::fs::read(bin).unwrap();
    if b.starts_with(b"\x7fELF") {
        let machine = match u16_at(&b, 0x12) {
            0x3e => "x86-64",
            0xb7 => "aarch64",
            other => panic!("ELF machine {other:#x}"),
        };
        let (interp, needed) = crate::static_chroot::elf_dependencies(bin);
        return Format::Elf {
            machine,
            dynamic: interp || needed > 0,
        };
    }
    if b.starts_with(&[0xcf, 0xfa, 0xed, 0xfe]) {
        const LC_LOAD_DYLIB: u32 = 0xc;
        const LC_LOAD_WEAK_DYLIB: u32 = 0x8000_0018;
        const LC_REEXPORT_DYLIB: u32 = 0x8000_001f;
        const LC_CODE_SIGNATURE: u32 = 0x1d;
        const LC_BUILD_VERSION: u32 = 0x32;
        let cpu = match u32_at(&b, 4) {
            0x0100_0007 => "x86_64",
            0x0100_000c => "arm64",
            other => panic!("Mach-O cputype {other:#x}"),
        };
        assert_eq!(u32_at(&b, 12), 2, "not MH_EXECUTE");
        let (mut at, mut dylibs, mut signed_pages) = (32usize, Vec::new(), 0);
        let mut min_macos = (0, 0);
        for _ in 0..u32_at(&b, 16) {
            let (cmd, size) = (u32_at(&b, at), u32_at(&b, at + 4) as usize);
            match cmd {
                LC_LOAD_DYLIB | LC_LOAD_WEAK_DYLIB | LC_REEXPORT_DYLIB => {
                    let name = &b[at + u32_at(&b, at + 8) as usize..at + size];
                    let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
                    dylibs.push(String::from_utf8_lossy(&name[..end]).into_owned());
                }
                LC_BUILD_VERSION => {
                    // minos is xxxx.yy.zz in nibbles.
                    let minos = u32_at(&b, at + 12);
                    min_macos = (minos >> 16, (minos >> 8) & 0xff);
                }
                LC_CODE_SIGNATURE => {
                    let offset = u32_at(&b, at + 8) as usize;
                    signed_pages = verify_code_signature(&b, offset);
                }
                _ => {}
            }
            at += size;
        }
        return Format::MachO {
            cpu,
            dylibs,
            signed_pages,
            min_macos,
        };
    }
    if b.starts_with(b"MZ") {
        let pe = u32_at(&b, 0x3c) as usize;
        assert_eq!(&b[pe..pe + 4], b"PE\0\0");
        let machine = match u16_at(&b, pe + 4) {
            0x8664 => "x86-64",
            0xaa64 => "aarch64",
            other => panic!("PE machine {other:#x}"),
        };
        let optional = pe + 24;
        assert_eq!(u16_at(&b, optional), 0x20b, "not PE32+");
        // IMAGE_SUBSYSTEM_WINDOWS_CUI: a console program (stdin/stdout work).
        let console = u16_at(&b, optional + 68) == 3;
        return Format::Pe { machine, console };
    }
    panic!("{}: not ELF, Mach-O or PE", bin.display());
}

/// Checks the ad-hoc code signature at `offset` the way the macOS kernel does
/// before running a page: each page's SHA-256 against the CodeDirectory's hash
/// slots (a signature left stale by a later strip fails here). Returns the
/// number of pages checked.
fn verify_code_signature(b: &[u8], offset: usize) -> usize {
    let be = |at: usize| u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(
        be(offset),
        0xfade_0cc0,
        "not an embedded signature SuperBlob"
    );
    for i in 0..be(offset + 8) {
        let cd = offset + be(offset + 12 + i * 8 + 4);
        // A CodeDirectory hashed with SHA-256 (hashType 2).
        if be(cd) != 0xfade_0c02 || b[cd + 37] != 2 {
            continue;
        }
        let (hash_offset, code_slots, code_limit) = (be(cd + 16), be(cd + 28), be(cd + 32));
        let (hash_size, page_size) = (b[cd + 36] as usize, 1usize << b[cd + 39]);
        assert_eq!(code_slots, code_limit.div_ceil(page_size));
        for slot in 0..code_slots {
            let page = &b[slot * page_size..((slot + 1) * page_size).min(code_limit)];
            let want = &b[cd + hash_offset + slot * hash_size..][..hash_size];
            let got = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, page);
            assert_eq!(got.as_ref(), want, "code signature stale at page {slot}");
        }
        return code_slots;
    }
    panic!("no SHA-256 CodeDirectory in the code signature");
}

/// What `platform`'s binary must look like.
fn expected(os: &str, arch: &str, format: &Format) {
    match (os, arch, format) {
        ("linux", "amd64", Format::Elf { machine, dynamic }) => {
            assert_eq!((*machine, *dynamic), ("x86-64", false), "{format:?}")
        }
        ("linux", "arm64", Format::Elf { machine, dynamic }) => {
            assert_eq!((*machine, *dynamic), ("aarch64", false), "{format:?}")
        }
        (
            "darwin",
            _,
            Format::MachO {
                cpu,
                dylibs,
                signed_pages,
                min_macos,
            },
        ) => {
            // macOS 11 (the first with arm64): dyld refuses a newer minimum.
            assert!(
                *min_macos > (0, 0) && *min_macos <= (11, 0),
                "{min_macos:?}"
            );
            assert_eq!(*cpu, if arch == "arm64" { "arm64" } else { "x86_64" });
            // Only the system's own libraries; no framework (those need the
            // macOS SDK to link, and the build has none).
            assert!(
                dylibs.iter().any(|d| d.starts_with("/usr/lib/libSystem")),
                "{dylibs:?}"
            );
            assert!(
                dylibs.iter().all(|d| d.starts_with("/usr/lib/")),
                "{dylibs:?}"
            );
            if arch == "arm64" {
                assert!(*signed_pages > 0, "arm64 macOS kills unsigned binaries");
            }
        }
        ("windows", "amd64", Format::Pe { machine, console }) => {
            assert_eq!((*machine, *console), ("x86-64", true), "{format:?}")
        }
        _ => panic!("{os}/{arch}: unexpected {format:?}"),
    }
}

/// What file(1) must say, if installed.
fn file_says(os: &str, arch: &str) -> &'static [&'static str] {
    match (os, arch) {
        ("linux", "amd64") => &["ELF 64-bit", "x86-64", "static"],
        ("linux", "arm64") => &["ELF 64-bit", "ARM aarch64", "static"],
        ("darwin", "amd64") => &["Mach-O 64-bit", "x86_64"],
        ("darwin", "arm64") => &["Mach-O 64-bit", "arm64"],
        ("windows", "amd64") => &["PE32+", "x86-64", "console"],
        _ => unreachable!(),
    }
}

/// `name` on PATH.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The qemu-user for AArch64, if installed.
pub fn qemu_aarch64() -> Option<PathBuf> {
    which("qemu-aarch64-static").or_else(|| which("qemu-aarch64"))
}

/// Runs `program args…` with the token on stdin (a clean environment but PATH
/// and HOME, which wine needs); a guard kills it after 120 s.
fn run(program: &[&Path], args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(which("timeout").unwrap());
    cmd.arg("120").args(program).args(args);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("WINEDEBUG", "-all")
        .stdin(std::fs::File::open(TOKEN).unwrap())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--version` and one-token `decode` through `runner` (empty: natively).
fn runs(runner: &[&Path], bin: &Path) {
    let mut program = runner.to_vec();
    program.push(bin);
    let (code, out, err) = run(&program, &["--version"]);
    assert_eq!(code, 0, "{program:?} --version: {err}");
    assert!(
        out.starts_with(&format!("kubectl-satoken {}", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    let (code, out, err) = run(&program, &["decode", "-o", "json", "--now", NOW, "-f", "-"]);
    assert_eq!(code, 0, "{program:?} decode: {err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        json["subject"], "system:serviceaccount:shop:checkout",
        "{out}"
    );
}

/// Rust's std on Windows draws randomness from `ProcessPrng` in
/// bcryptprimitives.dll (Windows 10 and later), which Wine before 9.0 (Debian
/// 12 ships 8.0) does not provide. This stand-in, built with zig next to the
/// binary, forwards to `RtlGenRandom`; it exists only for this test.
const PRNG_SHIM: &str = r#"
#include <windows.h>
BOOLEAN NTAPI SystemFunction036(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    for (; len > 0x10000000; data += 0x10000000, len -= 0x10000000)
        if (!SystemFunction036(data, 0x10000000)) return FALSE;
    return SystemFunction036(data, (ULONG)len);
}
"#;

/// Builds the [`PRNG_SHIM`] into `dir`, if zig is installed (pip's ziglang).
fn prng_shim(dir: &Path) -> bool {
    let source = dir.join("prng_shim.c");
    std::fs::write(&source, PRNG_SHIM).unwrap();
    let built = Command::new("python3")
        .args([
            "-m",
            "ziglang",
            "cc",
            "-target",
            "x86_64-windows-gnu",
            "-shared",
            "-o",
        ])
        .arg(dir.join("bcryptprimitives.dll"))
        .arg(&source)
        .arg("-ladvapi32")
        .status()
        .is_ok_and(|s| s.success());
    std::fs::remove_file(source).unwrap();
    if !built {
        eprintln!("no zig (pip install ziglang) to build the ProcessPrng shim wine needs");
    }
    built
}

/// Unpacks `archive` into `into` (tar.gz with tar(1), zip with Python's zipfile).
fn unpack(archive: &Path, into: &Path) {
    let status = if archive.extension().is_some_and(|e| e == "zip") {
        Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(archive)
            .arg(into)
            .status()
    } else {
        Command::new("tar")
            .arg("-xzf")
            .arg(archive)
            .arg("-C")
            .arg(into)
            .status()
    };
    assert!(status.unwrap().success(), "unpack {}", archive.display());
}

// Ignored, so that a run without the archives says it skipped this test
// rather than passing it having checked nothing (docs/release.md runs it).
#[test]
#[ignore = "needs the archives scripts/release.sh writes (SATOKEN_DIST_DIR, docs/release.md)"]
fn release_archives_are_laid_out_checked_and_run() {
    let dist = std::env::var_os(DIST_ENV)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            panic!("{DIST_ENV} is not set (scripts/release.sh URL_BASE writes dist/)")
        });
    let dist = PathBuf::from(dist);
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS"))
        .unwrap_or_else(|e| panic!("{}/SHA256SUMS: {e}", dist.display()));
    let manifest = krew::manifest();
    let has_file = which("file").is_some();
    let mut checked = 0;
    for (os, arch) in RELEASED {
        let ext = if *os == "windows" { "zip" } else { "tar.gz" };
        let name = format!(
            "kubectl-satoken_v{}_{os}_{arch}.{ext}",
            env!("CARGO_PKG_VERSION")
        );
        let archive = dist.join(&name);
        if !archive.is_file() {
            eprintln!("skipped {os}/{arch}: no {}", archive.display());
            continue;
        }
        checked += 1;
        // Checksum: the sums file, and the manifest's entry (release.sh writes both).
        let digest = aws_lc_rs::digest::digest(
            &aws_lc_rs::digest::SHA256,
            &std::fs::read(&archive).unwrap(),
        );
        let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        assert!(
            sums.lines().any(|l| l == format!("{hex}  {name}")),
            "{name} not in SHA256SUMS"
        );
        let entry = manifest.platform(os, arch).unwrap();
        assert_eq!(
            entry.sha256, hex,
            "plugins/satoken.yaml has another sha256 for {name}"
        );

        // Layout: what krew's `files` copy, and nothing else.
        let dir = tempfile::tempdir().unwrap();
        unpack(&archive, dir.path());
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut want = vec![
            entry.bin.clone(),
            "LICENSE".to_owned(),
            "README.md".to_owned(),
            "man".to_owned(),
        ];
        want.sort();
        assert_eq!(names, want, "{name}");
        // The man pages, as docs/man holds them.
        for page in
            std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man")).unwrap()
        {
            let page = page.unwrap();
            let shipped = std::fs::read(dir.path().join("man").join(page.file_name()));
            assert_eq!(
                shipped.ok(),
                std::fs::read(page.path()).ok(),
                "{name}: man/{:?}",
                page.file_name()
            );
        }
        assert!(
            entry.files().iter().all(|f| names.contains(&f.from)),
            "{name}"
        );
        let bin = dir.path().join(&entry.bin);
        if *os != "windows" {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&bin).unwrap().permissions().mode();
            assert_eq!(mode & 0o111, 0o111, "{name}: the binary is not executable");
        }

        // Format, from the headers and from file(1).
        expected(os, arch, &format_of(&bin));
        if has_file {
            let out = Command::new("file").arg("-b").arg(&bin).output().unwrap();
            let says = String::from_utf8_lossy(&out.stdout);
            for word in file_says(os, arch) {
                assert!(says.contains(word), "{name}: file says {says}");
            }
        } else {
            eprintln!("file(1) not installed: the headers alone decided for {name}");
        }

        // Runs, where this machine can run it.
        match (*os, *arch) {
            ("linux", "amd64") if cfg!(target_arch = "x86_64") => runs(&[], &bin),
            ("linux", "arm64") => match qemu_aarch64() {
                Some(qemu) => runs(&[&qemu], &bin),
                None => eprintln!(
                    "skipped running {name}: no qemu-aarch64 (apt-get install qemu-user-static)"
                ),
            },
            ("windows", "amd64") => match which("wine").or_else(|| which("wine64")) {
                Some(wine) => {
                    let (code, _, _) = run(&[&wine, &bin], &["--version"]);
                    if code != 0 && prng_shim(dir.path()) {
                        eprintln!(
                            "{name}: wine lacks bcryptprimitives.dll; running with a ProcessPrng shim"
                        );
                    }
                    runs(&[&wine], &bin)
                }
                None => eprintln!("skipped running {name}: wine is not installed"),
            },
            _ => eprintln!("{name}: cannot run on this machine; headers checked"),
        }
    }
    assert!(
        checked > 0,
        "{DIST_ENV}={} holds no archive of this version",
        dist.display()
    );
}

/// The binary the tests run is position-independent (ELF type ET_DYN, not
/// ET_EXEC): its code and static data load at a random address (ASLR), as
/// the release archives' static-pie binaries do.
#[cfg(target_os = "linux")]
#[test]
fn the_built_binary_is_position_independent() {
    let bin = assert_cmd::cargo::cargo_bin("kubectl-satoken");
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF");
    const ET_DYN: u16 = 3;
    let e_type = u16::from_le_bytes([bytes[16], bytes[17]]);
    assert_eq!(
        e_type,
        ET_DYN,
        "{} is not position-independent",
        bin.display()
    );
}
