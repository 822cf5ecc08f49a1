#!/bin/sh
# Packages a release archive (default output dir: target/dist) the way `agentguard self-update` and `install.sh --version X`
# expect it: <out>/agentguard-<version>-<target>.tar.gz holding agentguard-<version>-<target>/
# (the binary, completions/, man/agentguard.1, README.md, CHANGELOG.md), and <out>/SHA256SUMS
# listing every archive in <out>. Upload both files to the GitHub release tagged v<version>.
#
#   scripts/package-release.sh [--binary PATH] [--target TRIPLE] [--out DIR]
#
# Without --binary it builds with scripts/build-release.sh (`cargo build --release --locked
# --target TRIPLE`, a static binary for Linux/glibc targets).
set -eu

die() { printf 'package-release.sh: error: %s\n' "$*" >&2; exit 2; }

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
binary=""
target=""
out="${CARGO_TARGET_DIR:-$root/target}/dist"
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || die "$1 needs a value"
    case "$1" in
        --binary) binary="$2" ;;
        --target) target="$2" ;;
        --out) out="$2" ;;
        *) die "unknown argument: $1" ;;
    esac
    shift 2
done

if [ -z "$target" ]; then
    target=$(rustc -vV | sed -n 's/^host: //p')
    [ -n "$target" ] || die "cannot read the host target from rustc -vV; pass --target"
fi
if [ -z "$binary" ]; then
    binary=$(sh "$root/scripts/build-release.sh" "$target")
fi
[ -x "$binary" ] || die "$binary is not an executable file"

version=$("$binary" --version | sed -n 's/^agentguard //p')
[ -n "$version" ] || die "$binary --version did not print 'agentguard <version>'"

stem="agentguard-$version-$target"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$stem"
cp "$binary" "$stage/$stem/agentguard"
chmod 755 "$stage/$stem/agentguard"
cp -R "$root/completions" "$root/man" "$stage/$stem/"
for doc in README.md CHANGELOG.md LICENSE LICENSE-MIT LICENSE-APACHE; do
    if [ -f "$root/$doc" ]; then cp "$root/$doc" "$stage/$stem/"; fi
done
tar -czf "$out/$stem.tar.gz" -C "$stage" "$stem"

# SHA256SUMS covers every archive in the output directory (one run per target fills it up).
if command -v sha256sum >/dev/null 2>&1; then
    sha() { sha256sum "$@"; }
elif command -v shasum >/dev/null 2>&1; then
    sha() { shasum -a 256 "$@"; }
else
    die "neither sha256sum nor shasum is installed"
fi
(cd "$out" && sha ./*.tar.gz | sed 's| \./| |; s| \*\./| |' >SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS)

printf '%s\n' "$out/$stem.tar.gz" "$out/SHA256SUMS"
