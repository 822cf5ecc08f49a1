#!/bin/sh
# Installs the pinned agent CLIs that the end-to-end, launch and doctor tests drive, into
# .cache/clis (inside the checkout, ignored by git). Idempotent: a CLI already installed at its
# pinned version is not fetched again.
#
# Two packages both install a `grok` command (xAI's Grok Build and @vibe-kit/grok-cli), so each
# prefix gets its own bin directory:
#   .cache/clis/main/node_modules/.bin      claude codex opencode gemini grok (xAI)
#   .cache/clis/vibe-kit/node_modules/.bin  grok (@vibe-kit/grok-cli)
# The tests find them through AGENTGUARD_TEST_CLI_BIN and AGENTGUARD_TEST_VIBE_GROK_BIN
# (set by scripts/test.sh).
#
# Nothing is written outside .cache/: npm and every package's install script run with HOME,
# the XDG directories, npm's cache and TMPDIR pointed into .cache/ (xAI's postinstall copies
# its binary to ~/.grok/bin, opencode and node-gyp fill ~/.cache and ~/.local: all of that
# lands in .cache/home). The user's npm configuration (~/.npmrc: registry, proxy) is still read.
set -eu

root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
clis="$root/.cache/clis"

sandbox="$root/.cache/home"
if [ -z "${NPM_CONFIG_USERCONFIG:-}" ] && [ -f "${HOME:-/nonexistent}/.npmrc" ]; then
    NPM_CONFIG_USERCONFIG="$HOME/.npmrc"
    export NPM_CONFIG_USERCONFIG
fi
HOME="$sandbox"
XDG_CONFIG_HOME="$sandbox/.config"
XDG_CACHE_HOME="$sandbox/.cache"
XDG_DATA_HOME="$sandbox/.local/share"
XDG_STATE_HOME="$sandbox/.local/state"
npm_config_cache="$root/.cache/npm"
TMPDIR="$root/.cache/tmp"
export HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME npm_config_cache TMPDIR
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" \
    "$npm_config_cache" "$TMPDIR"

# Pinned versions: the CLIs change monthly; bump deliberately and re-run the suite.
PACKAGES="
@anthropic-ai/claude-code@2.1.332
@openai/codex@0.171.0
opencode-ai@1.18.33
@google/gemini-cli@0.61.0
@xai-official/grok@1.0.41
"
VIBE_KIT_PACKAGES="@vibe-kit/grok-cli@0.0.34"

command -v npm >/dev/null 2>&1 || { echo "install-clis: npm is required (install Node.js 20+)" >&2; exit 1; }
# install_missing PREFIX SPEC...: npm-installs the specs not already present at their version.
install_missing() {
    prefix=$1
    shift
    mkdir -p "$prefix"
    missing=""
    for spec in "$@"; do
        name=${spec%@*}
        version=${spec##*@}
        manifest="$prefix/node_modules/$name/package.json"
        if [ -f "$manifest" ] && grep -q "\"version\": *\"$version\"" "$manifest"; then
            continue
        fi
        missing="$missing $spec"
    done
    if [ -n "$missing" ]; then
        echo "install-clis: installing$missing into $prefix" >&2
        # shellcheck disable=SC2086
        npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error $missing >&2
    fi
}

# shellcheck disable=SC2086
install_missing "$clis/main" $PACKAGES
# shellcheck disable=SC2086
install_missing "$clis/vibe-kit" $VIBE_KIT_PACKAGES
