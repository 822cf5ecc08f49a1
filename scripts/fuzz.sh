#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 30) and reports which ones crashed.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Needs cargo-fuzz (`cargo install cargo-fuzz`). The toolchain may be stable: the nightly
# flags cargo-fuzz passes are unlocked with RUSTC_BOOTSTRAP=1. Crashing inputs are kept in
# fuzz/artifacts/TARGET/; reproduce one with `cargo fuzz run TARGET fuzz/artifacts/TARGET/FILE`.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-30}
shift || true
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "scripts/fuzz.sh: cargo-fuzz is missing: cargo install cargo-fuzz" >&2
  exit 2
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
# -O: the fuzzed code is built optimized (with debug assertions), as CI would run it.
cargo fuzz build -O || exit 2
failed=()
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target" "artifacts/$target"
  seeds=()
  [ -d "seeds/$target" ] && seeds=("seeds/$target")
  log="artifacts/$target/last-run.log"
  extra=()
  # The shell analysis runs each parse on a worker thread under a time budget; glibc's record
  # of that thread's TLS destructors is reported by LeakSanitizer as a 32-byte leak per run.
  [ "$target" = shell ] && extra=(-detect_leaks=0)
  if cargo fuzz run -O "$target" "corpus/$target" "${seeds[@]}" -- \
      -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 "${extra[@]}" >"$log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -n1)
    echo "ok      $target (${runs:-done} in ${seconds}s)"
  else
    failed+=("$target")
    echo "CRASH   $target: see fuzz/$log and fuzz/artifacts/$target/"
    grep -m3 -E 'panicked|ERROR: libFuzzer|SUMMARY' "$log" | sed 's/^/        /'
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "${#failed[@]} target(s) crashed: ${failed[*]}"
  exit 1
fi
echo "all ${#targets[@]} targets ran ${seconds}s without a crash"
