#!/bin/sh
# kvgold's whole test suite, as CI runs it (.ci/run calls this script).
#
#   1. gcc, Release: every test, including the 2^32 encoder sweeps and the
#      byte-for-byte regeneration of the vectors, and the unit tests again
#      under valgrind memcheck (label valgrind). The row kernels run as
#      the best clone this CPU has natively, and as the AVX2 clone under
#      valgrind, which hides AVX-512 (src/kernels/dispatch.h);
#   2. gcc, Release, KVG_DISPATCH=OFF: the x86-64 baseline (SSE2) build of
#      the row kernels, through every test that reaches them, the 2^32
#      row-codec sweeps included (the codec sweeps of stage 1 do not
#      depend on dispatch);
#   3. clang, AddressSanitizer + UBSan: every test (sweeps sampled), plus a
#      bounded libFuzzer run of every fuzz target (label fuzz, ~2 min total);
#
# Build trees go to build/ci-*. Exit status is non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
jobs=$(nproc 2>/dev/null || echo 2)

stage() { printf '\n==== %s ====\n' "$*"; }

stage "gcc release: configure, build, all tests"
cmake -S . -B build/ci-gcc -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
  -DKVG_VALGRIND=ON
cmake --build build/ci-gcc -j "$jobs"
ctest --test-dir build/ci-gcc -j "$jobs" --output-on-failure

stage "gcc release, baseline row kernels (KVG_DISPATCH=OFF): tests that reach them"
cmake -S . -B build/ci-gcc-baseline -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=gcc -DKVG_DISPATCH=OFF -DKVG_REGEN_TEST=OFF
cmake --build build/ci-gcc-baseline -j "$jobs"
ctest --test-dir build/ci-gcc-baseline -j "$jobs" --output-on-failure \
  -LE 'consumer' -E '^exhaustive\.[a-z0-9_]+\.(pos|neg)$'

stage "clang ASan+UBSan: configure, build, all tests (sweeps sampled) + fuzzing"
cmake -S . -B build/ci-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
  -DKVG_SANITIZE=ON -DKVG_EXHAUSTIVE_STRIDE=97 -DKVG_REGEN_TEST=OFF \
  -DKVG_FUZZ=ON -DKVG_FUZZ_SECONDS=20
cmake --build build/ci-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/ci-asan -j "$jobs" --output-on-failure

stage "all stages passed"
