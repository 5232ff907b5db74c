# Every kvgold build option, in one place (included by the top-level
# CMakeLists.txt before any target exists). The CI stages of tools/test.sh
# are combinations of these, named in CMakePresets.json.
#
# Defaults differ when kvgold is embedded with add_subdirectory: a consumer
# gets the library only, without tests, tools, install rules or -Werror (a
# newer compiler's new warning must not break someone else's build).

# What gets built.
option(KVG_BUILD_TESTS "Build the cmocka test suite" ${PROJECT_IS_TOP_LEVEL})
option(KVG_BUILD_TOOLS "Build the kvgold command-line tool and benchmark"
       ${PROJECT_IS_TOP_LEVEL})
option(KVG_INSTALL "Generate install rules" ${PROJECT_IS_TOP_LEVEL})
option(KVG_BUILD_PYTHON
  "Build and install the kvgold Python package (tools/python; a shared libkvgold for ctypes)"
  ${PROJECT_IS_TOP_LEVEL})
# BUILD_SHARED_LIBS (CMake's own, default OFF): build libkvgold.so instead of
# libkvgold.a. Only KVG_API symbols are exported; white-box tests link the
# internal archive kvgold_internal (src/CMakeLists.txt).

# Warnings and instrumentation.
option(KVG_WERROR "Treat warnings as errors on kvgold's own targets"
       ${PROJECT_IS_TOP_LEVEL})
option(KVG_SANITIZE "Build everything with AddressSanitizer + UBSan" OFF)
option(KVG_FUZZ "Build libFuzzer targets (clang only)" OFF)
set(KVG_FUZZ_SECONDS 25 CACHE STRING
    "Seconds each libFuzzer target runs in ctest (with KVG_FUZZ)")
set(KVG_FUZZ_SCAN_SECONDS 75 CACHE STRING
    "Seconds each scan reader's libFuzzer target runs in ctest (with KVG_FUZZ)")

# Code generation.
option(KVG_DISPATCH
  "Build the row kernels for SSE2, AVX2 and AVX-512 and pick one at load time (GCC, x86-64, glibc; src/kernels/dispatch.h)"
  ON)

# Tests (with KVG_BUILD_TESTS).
option(KVG_VALGRIND "Also run the unit tests under valgrind memcheck" OFF)
set(KVG_EXHAUSTIVE_STRIDE 1 CACHE STRING
    "Test every Nth binary32 pattern in the exhaustive sweeps (1 = all)")
option(KVG_REGEN_TEST
  "Register the byte-for-byte vector regeneration test (needs Python 3 with NumPy)"
  ON)
set(KVG_PYTHON "" CACHE FILEPATH
    "Python 3 for the generator and Python tests (default: /usr/bin/python3, then python3 on PATH)")
