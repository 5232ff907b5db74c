#!/bin/sh
# kvgold's benchmark in one command (docs/performance.md):
#
#   sh tools/bench.sh [bench.py options: --quick, --only SUBSTR...,
#                      --rounds N, --no-scaling, --no-main,
#                      --markdown FILE, --json FILE]
#
# Every shape is measured once (--rounds 1; later options win): about 4
# minutes on the shared 2-core machine of docs/performance.md. --rounds 3
# measures each shape 3 times in turn and gives the ratios' ranges.
# Where python3-torch is installed the plain PyTorch golden
# (tools/bench/torch_golden.py) is timed as a peer; --no-torch leaves it out.
# Builds kvgold_bench twice with gcc, Release, the project's own flags
# (-O3 -std=c99 -ffp-contract=off, never fast-math): build/bench as a
# default configure builds it (the row kernels in SSE2, AVX2 and AVX-512
# clones, one picked per CPU at load time: src/kernels/dispatch.h) and
# build/bench-baseline with -DKVG_DISPATCH=OFF (x86-64 baseline only, SSE2:
# what a compiler or libc without ifunc gets). Both give the same results
# bit for bit. Then runs tools/bench/bench.py under /usr/bin/python3
# (Debian's NumPy).
# Not a test: it prints times, ratios and byte rates and judges none of
# them; it fails only if an operator's output differs from the golden.
set -eu
cd "$(dirname "$0")/.."
py=/usr/bin/python3
build() { # dir extra-cmake-args
  dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
    -DKVG_BUILD_TESTS=OFF -DCMAKE_C_FLAGS= "$@" >/dev/null
  cmake --build "$dir" -j2 --target kvgold_bench >/dev/null
}
build build/bench -DKVG_DISPATCH=ON
build build/bench-baseline -DKVG_DISPATCH=OFF
exec "$py" tools/bench/bench.py --bench-bin build/bench/tools/kvgold_bench \
  --second-bin build/bench-baseline/tools/kvgold_bench \
  --second-name baseline --rounds 1 "$@"
