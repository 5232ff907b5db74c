#!/bin/sh
# kvgold's benchmark in one command (docs/performance.md):
#
#   sh tools/bench.sh [bench.py options: --quick, --only SUBSTR...,
#                      --rounds N, --no-scaling, --no-main,
#                      --markdown FILE, --json FILE]
#
# Every shape is measured 3 times in turn (--rounds 3, later options win):
# about 5 minutes on the 2-core machine of docs/performance.md; --rounds 1
# takes about 2.
# Builds kvgold_bench twice with gcc, Release, the project's own flags
# (-O3 -std=c99 -ffp-contract=off, never fast-math): build/bench is the
# portable build a default configure gives (x86-64 baseline, SSE2), and
# build/bench-native adds -march=native (wider vectors; the same results
# bit for bit, since nothing may contract into FMA). Then runs
# tools/bench/bench.py under /usr/bin/python3 (Debian's NumPy).
# Not a test: it prints times, ratios and byte rates and judges none of
# them; it fails only if an operator's output differs from the golden.
set -eu
cd "$(dirname "$0")/.."
py=/usr/bin/python3
build() { # dir extra-cflags
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
    -DKVG_BUILD_TESTS=OFF -DCMAKE_C_FLAGS="$2" >/dev/null
  cmake --build "$1" -j2 --target kvgold_bench >/dev/null
}
build build/bench ""
build build/bench-native "-march=native"
exec "$py" tools/bench/bench.py --bench-bin build/bench/tools/kvgold_bench \
  --native-bin build/bench-native/tools/kvgold_bench --rounds 3 "$@"
