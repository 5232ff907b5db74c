#!/bin/sh
# tests/ops/scatter_pa_kv_cache/cli_test.sh - the kvgold command on
# ScatterPaKvCache's packed fp4 cases: fp4 is judged per 4-bit code.
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# The "NPU outputs" are the golden's own (kvgold run), then one nibble is
# flipped with npy_poke. norm_fp4_e2m1 writes slots 0, 5, 4 and 2 of 8
# (slot_mapping), 16 bytes = 32 codes each: 128 of 256 codes are written,
# byte 0 (slot 0) is written, byte 16 (slot 1) is not. The helpers are
# tests/cli/cli_lib.sh; the registration tests/CMakeLists.txt's.
. "$(dirname "$0")/../../cli/cli_lib.sh"
SP=$V/scatter_pa_kv_cache

case $S in
compare_fp4_per_code)
  C=$SP/norm_fp4_e2m1
  npu_of "$C" npu
  "$POKE" npu/key_cache.npy 0 10 || exit 99     # byte 0, high nibble
  "$POKE" npu/value_cache.npy 16 01 || exit 99  # byte 16, low nibble
  expect 1 "$K" compare "$C" npu
  has "key_cache (fp4_e2m1, bitwise): FAIL: 1 of 128 written fp4 codes differ bitwise"
  has "1 (byte 0 hi)  block=0 slot=0 head=0 channel=0"
  has "value_cache (fp4_e2m1, bitwise): FAIL: 1 untouched fp4 code changed (first at index 32)"
  has "32 (byte 16 lo)  block=0 slot=1 head=0 channel=0"
  has "counts are of 4-bit codes"
  has "ops-test-kit would say: FAIL (binary_equal over all 256 elements: 1 mismatched)"
  expect 1 "$K" compare "$C" npu --json
  has '"codes_per_element":2'; has '"byte":0,"nibble":1'
  # the HTML page names the code too, and shows it as one hex digit
  expect 1 "$K" compare "$C" npu --html report.html
  cp report.html out.txt || exit 99
  has "<td>1 (byte 0 hi)</td>"; has "-0.5 (0x9)"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
