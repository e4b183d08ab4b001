#!/usr/bin/env bash
# Builds a fully static Linux binary that runs in any pod (Alpine, distroless,
# scratch), profile release-static (fat LTO, one codegen unit, stripped,
# panic=abort). See docs/in-pod.md. Prints the path, the size and what
# file(1)/ldd(1) say, and fails if the result is not static.
#
# Usage: scripts/build-static.sh [--musl | --target TRIPLE] [--floors]
#   (default) x86_64-unknown-linux-gnu: glibc linked statically
#            (-C target-feature=+crt-static), with the host's toolchain
#   --musl   x86_64-unknown-linux-musl, what the release archive ships
#   --target x86_64-unknown-linux-gnu, x86_64-unknown-linux-musl or
#            aarch64-unknown-linux-musl (the arm64 archive)
#   --floors also build the benchmark floors (benches/minimal_*.rs) the same way,
#            for scripts/bench.sh's like-for-like comparison; prints `floors: DIR`
#
# musl targets are built with cargo-zigbuild (zig is the linker and the C
# compiler for aws-lc-sys; `pip install ziglang cargo-zigbuild`) and need the
# rustup target (`rustup target add TRIPLE`).
#
# The target is always given explicitly so that RUSTFLAGS reach only the binary,
# not build scripts and proc-macros (which cannot be static).
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-gnu
floors=false
link_args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --musl) target=x86_64-unknown-linux-musl ;;
    --target)
        target=${2:?--target needs a triple}
        shift
        ;;
    --floors) floors=true ;;
    *)
        echo "usage: $0 [--musl | --target TRIPLE] [--floors]" >&2
        exit 2
        ;;
    esac
    shift
done

case "$target" in
x86_64-unknown-linux-gnu)
    build=(cargo rustc)
    # getrandom 0.3+ (hickory's rand) finds glibc's getrandom() with dlsym, which
    # a static binary cannot do, and would then fall back to /dev/urandom: not
    # there in an empty root. Its linux_getrandom backend calls getrandom()
    # directly. (aws-lc and std already use the getrandom(2) system call.) musl
    # builds resolve with musl itself, and have no getrandom crate at all.
    rustflags='-C target-feature=+crt-static --cfg getrandom_backend="linux_getrandom"'
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$rustflags"
    ;;
x86_64-unknown-linux-musl | aarch64-unknown-linux-musl)
    # musl links statically by default. rustc asks for a static PIE
    # (-static-pie), which zig ignores unless also told -fPIE: without it the
    # binary would load at a fixed address (no ASLR for its own code). Given
    # through `cargo rustc`, the flag reaches only the final link, not every
    # crate's fingerprint.
    build=(cargo-zigbuild rustc)
    link_args=(-- -C link-arg=-fPIE)
    ;;
*)
    echo "error: $target is not a static Linux target this script builds" >&2
    exit 2
    ;;
esac

start=$(date +%s)
# One target per invocation (cargo rustc), the binary on its own as the
# release builds it; the floors after it, the same way.
selections=("--bin kubectl-satoken")
if $floors; then
    selections+=("--example minimal_decode" "--example minimal_verify")
fi
for selection in "${selections[@]}"; do
    # shellcheck disable=SC2086 # "--bin NAME": two words on purpose
    "${build[@]}" --locked --profile release-static --target "$target" $selection ${link_args[@]+"${link_args[@]}"}
done
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
if $floors; then
    printf 'floors: %s\n' "$target_dir/$target/release-static/examples"
fi

case "$file_verdict" in
*"statically linked"* | *"static-pie linked"* | "(file(1) not installed"*) ;;
*)
    echo "error: $bin is not static (file: $file_verdict)" >&2
    exit 1
    ;;
esac
case "$target:$file_verdict" in
*"static-pie linked"* | *"(file(1) not installed"*) ;;
*)
    echo "error: $bin is not position-independent: its code would load at a fixed address (file: $file_verdict)" >&2
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
