#!/usr/bin/env bash
# Builds a release archive and writes its URL and checksum into the krew manifest.
#
#   scripts/release.sh URL_BASE [STATIC_BINARY]
#
# URL_BASE is where the archive will be published, e.g.
# https://github.com/OWNER/kubectl-satoken/releases/download/v0.1.0
# Without STATIC_BINARY, scripts/build-static.sh builds one.
#
# Archive layout (docs/release.md): kubectl-satoken_v<VERSION>_linux_amd64.tar.gz holding
#   kubectl-satoken   the static x86_64 binary
#   LICENSE
#   README.md
set -euo pipefail
cd "$(dirname "$0")/.."

url_base=${1:?usage: scripts/release.sh URL_BASE [STATIC_BINARY]}
url_base=${url_base%/}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
binary=${2:-}
if [ -z "$binary" ]; then
  binary=$(scripts/build-static.sh | sed -n 's/^path: *//p')
fi
[ -x "$binary" ] || { echo "release: $binary is not an executable" >&2; exit 2; }

name="kubectl-satoken_v${version}_linux_amd64.tar.gz"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$binary" "$stage/kubectl-satoken"
cp LICENSE README.md "$stage/"
mkdir -p dist
# Reproducible archive: fixed order, owner and modification time.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='@0' \
    -C "$stage" -czf "dist/$name" kubectl-satoken LICENSE README.md
sha=$(sha256sum "dist/$name" | cut -d' ' -f1)

python3 - "$version" "$url_base/$name" "$sha" <<'PY'
import re, sys
version, uri, sha = sys.argv[1:]
path = "plugins/satoken.yaml"
text = open(path).read()
text = re.sub(r"(?m)^(  version: ).*$", rf"\g<1>v{version}", text)
text = re.sub(r"(?m)^(      uri: ).*$", rf"\g<1>{uri}", text)
text = re.sub(r'(?m)^(      sha256: ).*$', rf'\g<1>"{sha}"', text)
open(path, "w").write(text)
PY
echo "archive:  dist/$name"
echo "sha256:   $sha"
echo "manifest: plugins/satoken.yaml (uri and sha256 updated; check with cargo test --test it krew::)"
