#!/usr/bin/env bash
# Builds the fully static Linux binary that runs in any pod (Alpine, distroless,
# scratch): glibc linked statically (-C target-feature=+crt-static), profile
# release-static (fat LTO, one codegen unit, stripped, panic=abort).
# See docs/in-pod.md. Prints the path, the size and what file(1)/ldd(1) say, and
# fails if the result is not static.
#
# Usage: scripts/build-static.sh [--musl] [--floors]
#   --musl   build x86_64-unknown-linux-musl instead (needs that rustup target
#            and a musl C compiler for aws-lc-sys, e.g. Debian's musl-tools)
#   --floors also build the benchmark floors (benches/minimal_*.rs) the same way,
#            for scripts/bench.sh's like-for-like comparison; prints `floors: DIR`
#
# The target is always given explicitly so that RUSTFLAGS reach only the binary,
# not build scripts and proc-macros (which cannot be static).
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-gnu
extra=()
for arg in "$@"; do
    case "$arg" in
    --musl) target=x86_64-unknown-linux-musl ;;
    --floors) extra=(--example minimal_decode --example minimal_verify) ;;
    *)
        echo "usage: $0 [--musl] [--floors]" >&2
        exit 2
        ;;
    esac
done

# getrandom 0.3+ (hickory's rand) finds glibc's getrandom() with dlsym, which a
# static binary cannot do, and would then fall back to /dev/urandom: not there
# in an empty root. Its linux_getrandom backend calls getrandom() directly.
# (aws-lc and std already use the getrandom(2) system call.)
rustflags='--cfg getrandom_backend="linux_getrandom"'
if [ "$target" = x86_64-unknown-linux-gnu ]; then
    rustflags="-C target-feature=+crt-static $rustflags"
fi
export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$rustflags"

start=$(date +%s)
cargo build --locked --profile release-static --target "$target" --bin kubectl-satoken "${extra[@]}"
end=$(date +%s)

target_dir=$(cargo metadata --no-deps --format-version 1 |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin="$target_dir/$target/release-static/kubectl-satoken"

size=$(stat -c %s "$bin")
if command -v file >/dev/null; then
    file_verdict=$(file -b "$bin")
else
    file_verdict="(file(1) not installed)"
fi
# ldd exits 1 on a static binary; its words are the verdict.
ldd_verdict=$(ldd "$bin" 2>&1 || true)

printf 'path:  %s\n' "$bin"
printf 'size:  %s bytes (%s KiB)\n' "$size" "$((size / 1024))"
printf 'build: %ss\n' "$((end - start))"
printf 'file:  %s\n' "$file_verdict"
printf 'ldd:   %s\n' "$ldd_verdict"
if [ ${#extra[@]} -gt 0 ]; then
    printf 'floors: %s\n' "$target_dir/$target/release-static/examples"
fi

case "$file_verdict" in
*"statically linked"* | *"static-pie linked"* | "(file(1) not installed"*) ;;
*)
    echo "error: $bin is not static (file: $file_verdict)" >&2
    exit 1
    ;;
esac
case "$ldd_verdict" in
*"statically linked"* | *"not a dynamic executable"*) ;;
*)
    echo "error: $bin needs shared libraries (ldd: $ldd_verdict)" >&2
    exit 1
    ;;
esac
