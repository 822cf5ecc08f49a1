#!/bin/sh
# Builds the release binary the way users get it (install.sh, scripts/package-release.sh, the
# benchmarks) and prints its path on stdout; cargo's output goes to stderr.
#
#   scripts/build-release.sh [TARGET]      (default: the host target)
#
# On Linux with glibc the binary is static and position-dependent
# (`-C target-feature=+crt-static -C relocation-model=static`): a hook is a process started on
# every stop and tool call, and most of its cost is start-up. A static binary starts without the
# dynamic loader (loading libc, resolving symbols); a position-dependent one also skips the tens
# of thousands of relocations a PIE applies at every start (each pointer in an embedded table is
# one) and the page faults of writing them. The price: the executable's own code and data sit at
# a fixed address (the stack, heap and mappings stay randomized). AGENTGUARD_PIE=1 builds a static
# PIE instead, keeping full address-space randomization, for about 0.3 ms more per hook call.
# Name lookup uses glibc's built-in `files` and `dns` sources only (no NSS plugins such as LDAP),
# which is all agentguard needs (the judge API hosts). Without glibc's static library (`libc.a`:
# Debian/Ubuntu libc6-dev, Fedora glibc-static) the build is the default dynamic one, with a
# warning.
set -eu

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
target="${1:-}"
if [ -z "$target" ]; then
    target=$(rustc -vV | sed -n 's/^host: //p')
    [ -n "$target" ] || { echo "build-release.sh: cannot read the host target from rustc -vV" >&2; exit 2; }
fi
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in
    /*) ;;
    *) target_dir="$root/$target_dir" ;;
esac

flags=""
case "$target" in
    *-linux-gnu*)
        libc_a=$(${CC:-cc} -print-file-name=libc.a 2>/dev/null || true)
        case "$libc_a" in
            /*) [ -f "$libc_a" ] && flags="-C target-feature=+crt-static" ;;
        esac
        if [ -n "$flags" ] && [ "${AGENTGUARD_PIE:-}" != 1 ]; then
            flags="$flags -C relocation-model=static"
        fi
        if [ -z "$flags" ]; then
            echo "build-release.sh: warning: glibc's static library (libc.a) is not installed, so the" \
                "binary is dynamically linked and each hook call costs about 0.7 ms more; install libc6-dev" \
                "(Debian, Ubuntu) or glibc-static (Fedora) for the static build" >&2
        fi
        ;;
esac

case "$flags" in
    *relocation-model=static*) kind=" (static)" ;;
    *crt-static*) kind=" (static PIE)" ;;
    *) kind="" ;;
esac
echo "Building agentguard for $target$kind" >&2
(cd "$root" && RUSTFLAGS="${RUSTFLAGS:-}${flags:+ $flags}" cargo build --release --locked --target "$target" >&2)
echo "$target_dir/$target/release/agentguard"
