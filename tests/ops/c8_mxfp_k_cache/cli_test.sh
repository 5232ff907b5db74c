#!/bin/sh
# tests/ops/c8_mxfp_k_cache/cli_test.sh - the kvgold command on the
# C8-MXFP K write's two caches: `explain-layout` prints the PA_NZ payload
# (heads, pieces) and the tiled scale cache, and `compare` judges a dump
# of both field by field, naming slot, head and group of one planted
# fault at a time; slot 0's scales with two pad rows are counted
# UNDEFINED (not judged), while slot 0's payload, never written by a pad
# row, stays judged (issue 36).
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# The helpers are tests/cli/cli_lib.sh; the registration
# tests/CMakeLists.txt's. Byte offsets come from the source's index
# formulas (docs/c8_mxfp_k_cache.md, section 2).
. "$(dirname "$0")/../../cli/cli_lib.sh"
D=$V/c8_mxfp_k_cache

case $S in
mxk_explain_layout)
  # N 2, D 128, Bs 64, 2 blocks
  expect 0 "$K" explain-layout "$D/one_pad_row_int32"
  has "key_cache (fp8_e4m3fn, 32768 bytes)"
  has "in pieces of 32 elements: piece k at + k * 2048 (4 pieces)"
  has "heads: 2 (every segment once per head); region 0: head h at + h * 8192"
  has "key_scale_cache (e8m0, 1024 bytes)"
  has "in pieces of 2 elements: piece k at + k * 32 (2 pieces)"
  has "slot position p at + (p / 16) * 64 + (p % 16) * 2 (tiles of 16 slots)"
  has "region 1: head h at + h * 256"
  ;;
mxk_compare_fields)
  # slots [88, 93, -1, 37, 127, 87]; key_scale_cache [2, 2, 4, 2, 16, 2]
  # key_cache [2, 2, 4, 64, 32]
  C=$D/one_pad_row_int32
  npu_of "$C" npu
  expect 0 "$K" compare "$C" npu
  has "kvgold says PASS"
  # slot 93 (b 1, o 29) head 1 scale of block 2 (j 1, p 0):
  # ((((1*2 + 1)*4 + 1)*2 + 1)*16 + 13)*2 + 0 = 890
  cp -r npu s && "$POKE" s/key_scale_cache.npy 890 01 || exit 99
  expect 1 "$K" compare "$C" s
  has "slot 93 head 1: scale of group 2 of key is 2^-126 (0x01), golden 2^-127 (0x00)"
  has "untouched     bitwise    PASS  0 of 976 fail"
  # slot 37 (b 0, o 37) head 0 element 5: (37*32) + 5 = 1189
  cp -r npu p && "$POKE" p/key_cache.npy 1189 01 || exit 99
  expect 1 "$K" compare "$C" p
  has "slot 37 head 0: key code 5 of group 0 is 0x79 (288), golden 0x78 (256)"
  # slot 0's payload: the pad row's is skipped, so it is untouched
  cp -r npu u && "$POKE" u/key_cache.npy 0 01 || exit 99
  expect 1 "$K" compare "$C" u
  has "slot 0 head 0 (not written): key element 0 is"
  has "untouched     bitwise    FAIL  1 of 31488 fail"
  ;;
mxk_sink)
  # two pad rows: slot 0's 2 scale bytes raced, not judged
  C=$D/two_pad_rows_int64
  expect 0 "$K" explain-layout "$C" key_scale_cache
  has "sink slot 0: the pad rows clamped to it are written in an order the kernel does not define"
  npu_of "$C" npu
  cp -r npu s && "$POKE" s/key_scale_cache.npy 0 01 || exit 99
  "$POKE" s/key_scale_cache.npy 1 40 || exit 99
  expect 0 "$K" compare "$C" s
  has "2 bytes, 2 differ, not judged by value"
  has "kvgold says PASS"
  # ... while slot 0's payload stays judged, and another slot's scale too
  # (slot 26: o 26, ((0*8 + 1)*1 + 0)*16 + 10)*2 = 52)
  cp -r npu p && "$POKE" p/key_cache.npy 0 01 && \
    "$POKE" p/key_scale_cache.npy 52 01 || exit 99
  expect 1 "$K" compare "$C" p
  has "slot 0 (not written): key element 0 is"
  has "slot 26: scale of group 0 of key is"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
