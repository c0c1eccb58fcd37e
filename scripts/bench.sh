#!/usr/bin/env bash
# Runs the benchmarks of Benchmarks/ and writes Benchmarks/results/:
#   micro-benchmarks.md   ordo-one `benchmark`: time, throughput and mallocs per operation
#   results.md/.csv/.json upload-throughput: bytes/s by link and depth, limits, other tools side by side
#   upload-throughput.png the plot (gnuplot)
# Usage: scripts/bench.sh [--smoke] [upload-throughput options…]
#   --smoke   one tiny row of each kind, results in a temporary directory (CI: the command works)
# Installs what it needs first: the venv of scripts/bootstrap.sh, and gnuplot-nox (Debian) for the full run.
# Either builds the package, the benchmarks and the tools in release mode first: about 7 minutes on
# two cores the first time (Benchmarks/.build), seconds when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

smoke=0
args=()
for a in "$@"; do
  if [ "$a" = "--smoke" ]; then smoke=1; else args+=("$a"); fi
done

scripts/bootstrap.sh
# The smoke run draws no plot (--no-plot below): gnuplot only for the full run.
if [ "$smoke" = 0 ] && ! command -v gnuplot >/dev/null 2>&1; then
  echo "bench: installing gnuplot-nox"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq gnuplot-nox >/dev/null
fi

cd Benchmarks
start=$(date +%s)
echo "bench: release build of upload-throughput, mcumgr and mcumgr-sim first (about 7 minutes on two cores the first time, seconds after)"
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (results are only comparable on a quiet machine)"
for product in upload-throughput mcumgr mcumgr-sim; do
  # (no build-manifest cache: it misses changes in the parent package, a new file or dependency)
  swift build -c release --disable-build-manifest-caching --product "$product" 2>&1 | grep -v '^\[' || true
  test -x ".build/release/$product" || { echo "bench: building $product failed" >&2; exit 1; }
done
built=$(date +%s)
echo "bench: release build ready in $((built - start)) s"

if [ "$smoke" = 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  .build/release/upload-throughput --smoke --no-plot --output "$out" "${args[@]}"
  test -s "$out/results.csv" && test -s "$out/results.md"
  echo "bench-smoke: ok ($(($(date +%s) - start)) s)"
  exit 0
fi

mkdir -p results
swift package --allow-writing-to-package-directory benchmark --no-progress --format markdown --path stdout \
  | sed -n '/^## Baseline/,$p' > results/micro-benchmarks.md.tmp
mv results/micro-benchmarks.md.tmp results/micro-benchmarks.md
micro=$(date +%s)
echo "bench: micro-benchmarks in $((micro - built)) s"
.build/release/upload-throughput --output results "${args[@]}"
echo "bench: all done in $(($(date +%s) - start)) s (build $((built - start)) s, micro $((micro - built)) s, uploads $(($(date +%s) - micro)) s)"
