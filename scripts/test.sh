#!/bin/sh
# The whole test suite, as the README and CI run it: installs the pinned agent CLIs the
# end-to-end tests drive (cached in .cache/), checks formatting and lints, runs every test.
# Extra arguments go to `cargo test` (e.g. `scripts/test.sh e2e::` runs only the E2E stage).
#
# Every stage runs even when an earlier one fails; the last line counts them all together:
# `N passed, N failed` (each test, plus the CLI install, fmt and clippy as one check each).
# The exit status is non-zero when anything failed.
#
# The suite stays in its folder: temporary files go to .cache/tmp (TMPDIR), the CLIs'
# installs to .cache/ (scripts/install-clis.sh), and every test process gets a temporary HOME
# (tests/cli/support.rs). scripts/check-clean-home.sh proves it on a fresh HOME.
set -u
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"

TMPDIR="$root/.cache/tmp"
export TMPDIR
mkdir -p "$TMPDIR"
log="$TMPDIR/test-output.$$"
trap 'rm -f "$log"' EXIT

passed=0
failed=0
# check NAME COMMAND...: one check that passes when the command exits 0.
check() {
    name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "test.sh: FAILED: $name" >&2
    fi
}

check "install the pinned CLIs" ./scripts/install-clis.sh
AGENTGUARD_TEST_CLI_BIN="$root/.cache/clis/main/node_modules/.bin"
AGENTGUARD_TEST_VIBE_GROK_BIN="$root/.cache/clis/vibe-kit/node_modules/.bin"
export AGENTGUARD_TEST_CLI_BIN AGENTGUARD_TEST_VIBE_GROK_BIN

check "cargo fmt --check" cargo fmt --check
check "cargo clippy" cargo clippy --all-targets --quiet -- -D warnings

# Default targets: unit, integration and doc tests (benches are built by clippy above, and run
# only by benches/ scripts, never as tests). Every test binary runs (--no-fail-fast); the
# counts come from their `test result:` lines.
status_file="$log.status"
{
    cargo test --no-fail-fast "$@" 2>&1
    echo $? >"$status_file"
} | tee "$log"
test_status=$(cat "$status_file")
rm -f "$status_file"
counts=$(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$log" |
    awk '{ p += $1; f += $2 } END { printf "%d %d", p, f }')
test_passed=${counts% *}
test_failed=${counts#* }
passed=$((passed + test_passed))
failed=$((failed + test_failed))
if [ "$test_status" -ne 0 ] && [ "$test_failed" -eq 0 ]; then
    # cargo failed without a failing test: a build error, or a test binary that crashed.
    failed=$((failed + 1))
    echo "test.sh: FAILED: cargo test exited $test_status" >&2
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
