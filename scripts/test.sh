#!/bin/sh
# The whole test suite, as the README and CI run it: installs the pinned agent CLIs the
# end-to-end tests drive (cached in .cache/), checks formatting and lints, runs every test.
# Extra arguments go to `cargo test` (e.g. `scripts/test.sh e2e::` runs only the E2E stage).
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"

./scripts/install-clis.sh
AGENTGUARD_TEST_CLI_BIN="$root/.cache/clis/main/node_modules/.bin"
AGENTGUARD_TEST_VIBE_GROK_BIN="$root/.cache/clis/vibe-kit/node_modules/.bin"
export AGENTGUARD_TEST_CLI_BIN AGENTGUARD_TEST_VIBE_GROK_BIN

cargo fmt --check
cargo clippy --all-targets --quiet -- -D warnings
# Default targets: unit, integration and doc tests (benches are built by clippy above, and run
# only by benches/ scripts, never as tests).
cargo test "$@"
