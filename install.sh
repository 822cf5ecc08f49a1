#!/bin/sh
# Installs agentguard for the current user: puts the binary in ~/.local/bin (or
# $AGENTGUARD_INSTALL_DIR) and adds its hooks to Claude Code's user settings.
# Run it again at any time: it only changes what is out of date, and says so.
# POSIX sh; checked with shellcheck.
set -eu

REPO="agentguard/agentguard"
DEFAULT_RELEASE_BASE_URL="https://github.com/$REPO/releases/download"

usage() {
    cat <<'EOF'
Usage: ./install.sh [OPTIONS]

Install agentguard for the current user and add its hooks to Claude Code
(~/.claude/settings.json). Run again to update; an up-to-date install is left alone.

Where the binary comes from (one of):
  (default)          build this checkout with `cargo build --release --locked`
                     (scripts/build-release.sh: a static binary on Linux with glibc)
  --binary PATH      install an already built binary (also: $AGENTGUARD_PREBUILT)
  --version X        download release X for this machine and verify it against the
                     release's SHA256SUMS (needs curl or wget, and sha256sum or shasum)

Options:
  --dir DIR          install directory (default: $AGENTGUARD_INSTALL_DIR, else ~/.local/bin)
  --no-hooks         only install the binary; do not run `agentguard install --yes`
  -h, --help         print this help

Environment:
  AGENTGUARD_INSTALL_DIR       install directory (default ~/.local/bin)
  AGENTGUARD_PREBUILT          same as --binary
  AGENTGUARD_RELEASE_BASE_URL  where releases are downloaded from
                               (default https://github.com/agentguard/agentguard/releases/download;
                               files are fetched from <base>/v<X>/)
  AGENTGUARD_TARGET            override the detected target triple (e.g. x86_64-unknown-linux-gnu)

Undo:
  agentguard uninstall --yes && rm ~/.local/bin/agentguard

Exit status: 0 installed or already up to date, 2 on any error (the message says what to do).
EOF
}

say() { printf '%s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() {
    printf 'install.sh: error: %s\n' "$1" >&2
    if [ $# -gt 1 ]; then printf '  hint: %s\n' "$2" >&2; fi
    exit 2
}

# --- arguments ---------------------------------------------------------------------------------
version=""
binary="${AGENTGUARD_PREBUILT:-}"
install_dir="${AGENTGUARD_INSTALL_DIR:-}"
hooks=yes
while [ $# -gt 0 ]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --no-hooks) hooks=no ;;
        --version | --binary | --dir)
            [ $# -ge 2 ] || die "$1 needs a value" "see ./install.sh --help"
            case "$1" in
                --version) version="${2#v}" ;;
                --binary) binary="$2" ;;
                --dir) install_dir="$2" ;;
            esac
            shift
            ;;
        --version=* | --binary=* | --dir=*)
            value="${1#*=}"
            case "$1" in
                --version=*) version="${value#v}" ;;
                --binary=*) binary="$value" ;;
                --dir=*) install_dir="$value" ;;
            esac
            ;;
        *) die "unknown argument: $1" "see ./install.sh --help" ;;
    esac
    shift
done
[ -z "$version" ] || [ -z "$binary" ] || die "--version and --binary (or \$AGENTGUARD_PREBUILT) exclude each other"

if [ -z "$install_dir" ]; then
    [ -n "${HOME:-}" ] || die "HOME is not set" "set AGENTGUARD_INSTALL_DIR to choose the install directory"
    install_dir="$HOME/.local/bin"
fi

tmp=""
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
trap 'exit 2' HUP INT TERM
new_tmp() {
    if [ -z "$tmp" ]; then tmp=$(mktemp -d 2>/dev/null || mktemp -d -t agentguard); fi
}

# --- release download --------------------------------------------------------------------------
detect_target() {
    if [ -n "${AGENTGUARD_TARGET:-}" ]; then
        say "$AGENTGUARD_TARGET"
        return
    fi
    os=$(uname -s)
    arch=$(uname -m)
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) die "no agentguard release for the $arch architecture" "build from a checkout: git clone, then ./install.sh" ;;
    esac
    case "$os" in
        Linux) say "$arch-unknown-linux-gnu" ;;
        Darwin)
            # An x86_64 shell under Rosetta on Apple silicon: install the native build.
            if [ "$arch" = x86_64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
                arch=aarch64
            fi
            say "$arch-apple-darwin"
            ;;
        *) die "no agentguard release for $os" "build from a checkout: git clone, then ./install.sh" ;;
    esac
}

download() { # url file
    case "$1" in
        https://* | http://127.0.0.1[:/]* | http://localhost[:/]* | http://\[::1\][:/]*) ;;
        *) die "refusing to download over an insecure URL: $1" "AGENTGUARD_RELEASE_BASE_URL must be https (plain http only on loopback)" ;;
    esac
    if command -v curl >/dev/null 2>&1; then
        curl --fail --silent --show-error --location --proto-redir =https --retry 2 --output "$2" "$1" ||
            die "cannot download $1" "check the version (releases: https://github.com/$REPO/releases) and the network"
    elif command -v wget >/dev/null 2>&1; then
        wget --quiet --output-document="$2" "$1" ||
            die "cannot download $1" "check the version (releases: https://github.com/$REPO/releases) and the network"
    else
        die "neither curl nor wget is installed" "install one of them, or build from a checkout"
    fi
}

sha256_of() { # file
    if command -v sha256sum >/dev/null 2>&1; then
        sum=$(sha256sum "$1")
    elif command -v shasum >/dev/null 2>&1; then
        sum=$(shasum -a 256 "$1")
    else
        die "neither sha256sum nor shasum is installed, so the download cannot be verified" \
            "install coreutils (sha256sum) or perl (shasum); agentguard is never installed unverified"
    fi
    say "${sum%% *}"
}

fetch_release() {
    target=$(detect_target)
    base="${AGENTGUARD_RELEASE_BASE_URL:-$DEFAULT_RELEASE_BASE_URL}"
    base="${base%/}/v$version"
    stem="agentguard-$version-$target"
    archive="$stem.tar.gz"
    new_tmp
    say "Downloading $archive from $base"
    download "$base/$archive" "$tmp/$archive"
    download "$base/SHA256SUMS" "$tmp/SHA256SUMS"

    expected=""
    while read -r line_sum line_name || [ -n "$line_sum" ]; do
        line_name="${line_name#\*}"
        if [ "${line_name##*/}" = "$archive" ]; then
            expected="$line_sum"
            break
        fi
    done <"$tmp/SHA256SUMS"
    [ -n "$expected" ] || die "SHA256SUMS of release $version has no entry for $archive" \
        "agentguard is never installed unverified; report this at https://github.com/$REPO/issues"
    actual=$(sha256_of "$tmp/$archive")
    # Digests are hex; some tools print them in upper case.
    [ "$(printf '%s' "$actual" | tr 'A-F' 'a-f')" = "$(printf '%s' "$expected" | tr 'A-F' 'a-f')" ] ||
        die "checksum mismatch for $archive: SHA256SUMS says $expected, the download is $actual; nothing was installed" \
            "the download was corrupted or altered; try again later, and report it if it persists"
    say "Checksum verified ($actual)"

    mkdir "$tmp/unpacked"
    tar -xzf "$tmp/$archive" -C "$tmp/unpacked" || die "cannot unpack $archive"
    binary="$tmp/unpacked/$stem/agentguard"
    [ -f "$binary" ] || die "$archive does not contain $stem/agentguard"
}

# --- build from the checkout -------------------------------------------------------------------
build_checkout() {
    case "$0" in
        */*) root="${0%/*}" ;;
        *) root="." ;;
    esac
    root=$(cd "$root" && pwd)
    if [ ! -f "$root/Cargo.toml" ] || ! grep -q '^name = "agentguard"' "$root/Cargo.toml"; then
        die "not run from an agentguard checkout, and no --version given" \
            "either clone the repository and run ./install.sh there, or pass --version X to download a release"
    fi
    command -v cargo >/dev/null 2>&1 ||
        die "cargo is not installed" "install Rust from https://rustup.rs, or pass --version X to download a release"
    # scripts/build-release.sh: `cargo build --release --locked`, static on Linux/glibc.
    binary=$(sh "$root/scripts/build-release.sh") || die "the build failed (see above)"
}

# --- main --------------------------------------------------------------------------------------
if [ -n "$version" ]; then
    fetch_release
elif [ -n "$binary" ]; then
    if [ ! -f "$binary" ] || [ ! -x "$binary" ]; then
        die "$binary is not an executable file" "check --binary / AGENTGUARD_PREBUILT"
    fi
else
    build_checkout
fi

changed=no
mkdir -p "$install_dir" || die "cannot create $install_dir" "choose another directory with --dir or AGENTGUARD_INSTALL_DIR"
install_dir=$(cd "$install_dir" && pwd)
dest="$install_dir/agentguard"
if [ -f "$dest" ] && cmp -s "$binary" "$dest"; then
    say "agentguard at $dest is already up to date"
else
    # Copy next to the destination, then rename: a running agentguard is never half-written.
    cp "$binary" "$dest.new.$$" || die "cannot write to $install_dir"
    chmod 755 "$dest.new.$$"
    mv -f "$dest.new.$$" "$dest" || { rm -f "$dest.new.$$"; die "cannot replace $dest"; }
    say "Installed $("$dest" --version 2>/dev/null || say agentguard) at $dest"
    changed=yes
fi

if [ "$hooks" = yes ]; then
    settings="$HOME/.claude/settings.json"
    new_tmp
    before="$tmp/settings.before"
    rm -f "$before"
    if [ -f "$settings" ]; then cp "$settings" "$before"; fi
    "$dest" install --yes ||
        die "adding the hooks failed (see above); the binary is installed at $dest" \
            "fix the problem it names, then run: $dest install"
    if [ -f "$settings" ] && [ -f "$before" ] && cmp -s "$before" "$settings"; then
        say "Hooks in $settings are already up to date"
    elif [ -f "$settings" ]; then
        say "Hooks added to $settings"
        changed=yes
    fi
fi

if [ "$changed" = no ]; then
    say "Nothing changed: agentguard is already installed."
fi

command_name="$dest"
case ":${PATH:-}:" in
    *":$install_dir:"*) command_name=agentguard ;;
    *) warn "$install_dir is not on your PATH; add this line to your shell profile:
    export PATH=\"$install_dir:\$PATH\"" ;;
esac

if [ "$hooks" = yes ]; then
    say "To undo: $command_name uninstall --yes && rm $dest"
else
    say "To undo: rm $dest"
fi
