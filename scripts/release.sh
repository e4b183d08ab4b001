#!/usr/bin/env bash
# Builds the release archives for every platform on this Linux machine, their
# SHA-256 sums, and the krew manifest that points at them.
#
#   scripts/release.sh URL_BASE [PLATFORM...]
#
# URL_BASE is where the archives will be published, e.g.
# https://github.com/OWNER/kubectl-satoken/releases/download/v0.1.0
# PLATFORM is any of linux_amd64 linux_arm64 darwin_amd64 darwin_arm64
# windows_amd64 (default: all five). Existing archives of this version in dist/
# are kept, so a platform can be rebuilt alone.
#
# Writes (docs/release.md):
#   dist/kubectl-satoken_v<VERSION>_<os>_<arch>.tar.gz   linux, darwin
#   dist/kubectl-satoken_v<VERSION>_windows_amd64.zip
#       each: the binary (kubectl-satoken, or kubectl-satoken.exe), LICENSE, README.md,
#       man/ (the pages of docs/man)
#   dist/SHA256SUMS                                      for `sha256sum -c`
#   plugins/satoken.yaml   version and one platforms entry per archive in dist/
#
# Needs: the rustup targets (rustup target add x86_64-unknown-linux-musl
# aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin
# x86_64-pc-windows-gnu), cargo-zigbuild and zig (pip install ziglang
# cargo-zigbuild) as cross linker and C compiler for aws-lc-sys, python3.
# One build at a time; set NICE=15 to be gentle on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/release.sh URL_BASE [linux_amd64|linux_arm64|darwin_amd64|darwin_arm64|windows_amd64...]"
url_base=${1:?$usage}
shift
url_base=${url_base%/}
case "$url_base" in
https://*) ;;
*)
    echo "release: URL_BASE must be an https:// URL (krew downloads from it)" >&2
    exit 2
    ;;
esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
all=(linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64)
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=("${all[@]}")
nice=(nice -n "${NICE:-0}")

triple_of() {
    case "$1" in
    linux_amd64) echo x86_64-unknown-linux-musl ;;
    linux_arm64) echo aarch64-unknown-linux-musl ;;
    darwin_amd64) echo x86_64-apple-darwin ;;
    darwin_arm64) echo aarch64-apple-darwin ;;
    windows_amd64) echo x86_64-pc-windows-gnu ;;
    *)
        echo "release: unknown platform $1; $usage" >&2
        exit 2
        ;;
    esac
}
for platform in "${platforms[@]}"; do triple_of "$platform" >/dev/null; done

target_dir=$(cargo metadata --no-deps --format-version 1 |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')

# build PLATFORM: prints the binary's path.
build() {
    local platform=$1 triple
    triple=$(triple_of "$platform")
    case "$platform" in
    linux_*)
        # Fully static musl (docs/in-pod.md), with the static-binary checks.
        "${nice[@]}" scripts/build-static.sh --target "$triple" >&2
        echo "$target_dir/$triple/release-static/kubectl-satoken"
        ;;
    *)
        # darwin: no Apple framework is linked (src/http/connect.rs, tls.rs),
        # so zig links against its own libSystem stubs without the macOS SDK.
        # Without a deployment target zig would stamp its newest macOS as the
        # minimum (dyld then refuses older systems); 11.0 is the first with
        # arm64, and rustc's own minimum for aarch64-apple-darwin.
        MACOSX_DEPLOYMENT_TARGET=11.0 \
            "${nice[@]}" cargo zigbuild --locked --release --target "$triple" --bin kubectl-satoken >&2
        local exe=kubectl-satoken
        [ "$platform" = windows_amd64 ] && exe=kubectl-satoken.exe
        echo "$target_dir/$triple/release/$exe"
        ;;
    esac
}

mkdir -p dist
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
start=$SECONDS
for platform in "${platforms[@]}"; do
    began=$SECONDS
    binary=$(build "$platform")
    [ -f "$binary" ] || {
        echo "release: $binary was not built" >&2
        exit 1
    }
    exe=kubectl-satoken
    [ "$platform" = windows_amd64 ] && exe=kubectl-satoken.exe
    rm -rf "$stage/$platform"
    mkdir -p "$stage/$platform"
    install -m 0755 "$binary" "$stage/$platform/$exe"
    cp LICENSE README.md "$stage/$platform/"
    mkdir "$stage/$platform/man"
    cp docs/man/*.1 "$stage/$platform/man/"
    base="dist/kubectl-satoken_v${version}_${platform}"
    rm -f "$base.tar.gz" "$base.zip"
    # Reproducible archives: fixed order, owner and modification time.
    if [ "$platform" = windows_amd64 ]; then
        python3 - "$stage/$platform" "$base.zip" "$exe" <<'PY'
import os, sys, zipfile
src, out, exe = sys.argv[1:]
man = [f"man/{page}" for page in os.listdir(f"{src}/man")]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted([exe, "LICENSE", "README.md", *man]):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (0o100755 if name == exe else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, open(f"{src}/{name}", "rb").read())
PY
        archive=$base.zip
    else
        tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='@0' \
            -C "$stage/$platform" -cf - "$exe" LICENSE README.md man | gzip -n -9 >"$base.tar.gz"
        archive=$base.tar.gz
    fi
    printf '%-14s %-48s %9s bytes  %4ss  %s\n' "$platform" "$archive" \
        "$(stat -c %s "$archive")" "$((SECONDS - began))" "$(file -b "$binary" | cut -c1-90)"
done

# Sums and manifest over every archive of this version in dist/.
(
    cd dist
    shopt -s nullglob
    sha256sum kubectl-satoken_v"${version}"_*.tar.gz kubectl-satoken_v"${version}"_*.zip
) >dist/SHA256SUMS
python3 - "$version" "$url_base" <<'PY'
import re, sys
version, url_base = sys.argv[1:]
order = ["linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64"]
sums = {}
for line in open("dist/SHA256SUMS"):
    sha, name = line.split()
    platform = re.fullmatch(rf"kubectl-satoken_v{re.escape(version)}_(\w+?)\.(tar\.gz|zip)", name).group(1)
    sums[platform] = (sha, name)
entries = []
for platform in sorted(sums, key=order.index):
    sha, name = sums[platform]
    os_, arch = platform.split("_")
    exe = "kubectl-satoken.exe" if os_ == "windows" else "kubectl-satoken"
    entries.append(f"""    - selector:
        matchLabels:
          os: {os_}
          arch: {arch}
      uri: {url_base}/{name}
      sha256: "{sha}"
      files:
        - from: {exe}
          to: .
        - from: LICENSE
          to: .
      bin: {exe}
""")
path = "plugins/satoken.yaml"
text = open(path).read()
text = re.sub(r"(?m)^(  version: ).*$", rf"\g<1>v{version}", text)
head = text[: text.index("  platforms:\n") + len("  platforms:\n")]
open(path, "w").write(head + "".join(entries))
missing = [p for p in order if p not in sums]
if missing:
    print(f"warning: no archive for {', '.join(missing)}: the manifest leaves them out", file=sys.stderr)
PY
echo "sums:     dist/SHA256SUMS"
echo "manifest: plugins/satoken.yaml ($(grep -c 'os:' plugins/satoken.yaml) platforms; check: cargo nextest run -E 'test(/krew/)')"
echo "took:     $((SECONDS - start))s"
