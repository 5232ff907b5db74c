#!/bin/sh
# kvgold's whole test suite, as CI runs it (.ci/run calls this script).
#
# Each stage is a CMake workflow preset (CMakePresets.json: configure,
# build, test), so `cmake --workflow --preset <stage>` reproduces one stage
# exactly; this script only runs them in order:
#
#   ci-gcc           gcc, Release: every test, including the 2^32 encoder
#                    sweeps and the byte-for-byte regeneration of the
#                    vectors, and the unit tests again under valgrind
#                    memcheck (label valgrind). The row kernels run as the
#                    best clone this CPU has natively, and as the AVX2 clone
#                    under valgrind, which hides AVX-512
#                    (src/kernels/dispatch.h);
#   ci-gcc-baseline  gcc, Release, KVG_DISPATCH=OFF: the x86-64 baseline
#                    (SSE2) build of the row kernels, through every C test
#                    that reaches them and every 7th pattern of the row-codec
#                    sweeps (stage 1 sweeps all 2^32; its codec sweeps do not
#                    depend on dispatch;
#                    the Python package, ~55 s here, reaches the kernels only
#                    through the entry points test_vectors walks with every
#                    vector, and runs in the three other stages);
#   ci-gcc-shared    gcc, Release, BUILD_SHARED_LIBS=ON: the unit tests,
#                    vectors, CLI, consumers and the Python package against
#                    libkvgold.so (white-box and harness-based tests link the
#                    same objects as the archive kvgold_internal);
#   ci-asan          clang, AddressSanitizer + UBSan: every test (sweeps
#                    sampled), plus a bounded libFuzzer run of every fuzz
#                    target (label fuzz, ~2.5 min wall: the scan
#                    readers 30 s each, the others 12 s).
#
#   sh tools/test.sh                 every stage
#   sh tools/test.sh ci-gcc-shared   the named stages only
#
# Build trees go to build/<stage>. Both build and ctest use every core
# (CMAKE_BUILD_PARALLEL_LEVEL, CTEST_PARALLEL_LEVEL, unless already set).
# Exit status is non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
jobs=$(nproc 2>/dev/null || echo 2)
: "${CMAKE_BUILD_PARALLEL_LEVEL:=$jobs}" "${CTEST_PARALLEL_LEVEL:=$jobs}"
export CMAKE_BUILD_PARALLEL_LEVEL CTEST_PARALLEL_LEVEL

stages=${*:-ci-gcc ci-gcc-baseline ci-gcc-shared ci-asan}
for stage in $stages; do
  printf '\n==== %s ====\n' "$stage"
  start=$(date +%s)
  cmake --workflow --preset "$stage"
  printf '==== %s passed in %d s ====\n' "$stage" $(($(date +%s) - start))
done
printf '\n==== all stages passed: %s ====\n' "$stages"
