#!/bin/sh
# Proves that the whole suite stays in its folder: runs scripts/test.sh (arguments are passed
# on) under a fresh, empty HOME and fails when anything was left outside the clone:
#   - any file or directory in that HOME (each CLI install, each test, each agent CLI run);
#   - any entry in /tmp or /dev/shm that the run created and did not remove.
# When it can (root, or unprivileged user namespaces), the run gets private /tmp and /dev/shm
# mounts, so other processes on the machine cannot disturb the comparison and every entry
# left there is the suite's; otherwise it compares listings taken before and after.
#
# The Rust toolchain stays where it is (CARGO_HOME, RUSTUP_HOME are pinned to the current
# ones: building is not the suite's business), and npm keeps reading the user's ~/.npmrc.
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)

if [ "${AGENTGUARD_CLEAN_HOME_INNER:-}" != 1 ]; then
    CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
    RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
    export CARGO_HOME RUSTUP_HOME
    if [ -z "${NPM_CONFIG_USERCONFIG:-}" ] && [ -f "$HOME/.npmrc" ]; then
        NPM_CONFIG_USERCONFIG="$HOME/.npmrc"
        export NPM_CONFIG_USERCONFIG
    fi
    AGENTGUARD_CLEAN_HOME_INNER=1
    export AGENTGUARD_CLEAN_HOME_INNER
    # A clone under /tmp or /dev/shm would vanish under the private mounts: compare listings.
    case "$root/" in
    /tmp/* | /dev/shm/*) private_ok=no ;;
    *) private_ok=yes ;;
    esac
    if [ "$private_ok" = yes ] && unshare --mount true 2>/dev/null; then
        exec unshare --mount sh -c \
            'mount --make-rprivate / && mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm &&
             AGENTGUARD_PRIVATE_TMP=1 exec "$0" "$@"' "$0" "$@"
    elif [ "$private_ok" = yes ] && unshare --mount --map-root-user true 2>/dev/null; then
        exec unshare --mount --map-root-user sh -c \
            'mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm &&
             AGENTGUARD_PRIVATE_TMP=1 exec "$0" "$@"' "$0" "$@"
    fi
fi

# listing DIR: one line per entry (path, type, size), sorted.
listing() {
    (cd "$1" && find . -mindepth 1 -printf '%p %y %s\n' 2>/dev/null | sort)
}
# top_entries DIR: the names directly in DIR, sorted.
top_entries() {
    (cd "$1" && find . -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort)
}

mkdir -p "$root/.cache"
work=$(mktemp -d "$root/.cache/clean-home.XXXXXX")
home=$(mktemp -d /tmp/agentguard-fresh-home.XXXXXX)
trap 'rm -rf "$work" "$home"' EXIT
listing "$home" >"$work/home.before"
top_entries /tmp | grep -vx "$(basename "$home")" >"$work/tmp.before" || true
top_entries /dev/shm >"$work/shm.before" || true

status=0
HOME="$home" "$root/scripts/test.sh" "$@" || status=$?

listing "$home" >"$work/home.after"
top_entries /tmp | grep -vx "$(basename "$home")" >"$work/tmp.after" || true
top_entries /dev/shm >"$work/shm.after" || true

clean=0
if ! cmp -s "$work/home.before" "$work/home.after"; then
    echo "check-clean-home: the suite wrote into the fresh HOME:" >&2
    diff "$work/home.before" "$work/home.after" | sed -n 's/^> /  /p' >&2
    clean=1
fi
for area in tmp shm; do
    left=$(comm -13 "$work/$area.before" "$work/$area.after")
    if [ -n "$left" ]; then
        dir=/tmp
        [ "$area" = shm ] && dir=/dev/shm
        echo "check-clean-home: entries left in $dir:" >&2
        echo "$left" | sed 's/^/  /' >&2
        if [ "${AGENTGUARD_PRIVATE_TMP:-}" != 1 ]; then
            echo "  ($dir is shared with other processes here: some may not be the suite's)" >&2
        fi
        clean=1
    fi
done
if [ "$clean" -eq 0 ]; then
    echo "check-clean-home: the fresh HOME is unchanged, nothing was left in /tmp or /dev/shm"
fi
[ "$status" -eq 0 ] && [ "$clean" -eq 0 ]
