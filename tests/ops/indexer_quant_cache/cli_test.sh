#!/bin/sh
# tests/ops/indexer_quant_cache/cli_test.sh - the kvgold command on
# IndexerQuantCache's two tensors: `explain-layout` prints each tensor's
# map of the one layout, and `compare` judges a device dump of cache and
# cache_scale field by field, one planted fault at a time: a scale, a
# payload code, a byte of a slot not written (the dropped-offset audit),
# a byte of a written scale row outside its scales; mode 2's unset scale
# bytes are not judged by value (issue 36).
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# Element numbers come from the cases' shapes and slots (their
# case.json comments): m0_e4m3_bf16_blocks: cache [3, 4, 1, 128] e4m3,
# cache_scale [3, 4, 1, 4] e8m0, slots 2, 3, 11, 1, 5 written;
# m2_hif8_bf16_xscale: cache_scale [2, 4, 1, 2] fp32, slots 5, 7, 0, 2.
. "$(dirname "$0")/../../cli/cli_lib.sh"
D=$V/indexer_quant_cache

case $S in
iqc_explain_layout)
  expect 0 "$K" explain-layout "$D/m0_e4m3_bf16_blocks" cache
  has "cache (fp8_e4m3fn, 1536 bytes): IndexerQuantCache mode 0 (MX-FP8) (tensor 0 of 2: cache, cache_scale)"
  has "[0, 128)      payload   codes      fp8_e4m3fn        128  groups of 32: 4, scaled by scale (in cache_scale)"
  expect 0 "$K" explain-layout "$D/m2_hif8_bf16_xscale" cache_scale
  has "[0, 4)        unset     scale      fp32                1"
  has "[4, 8)        -         (not written: keeps its bytes)"
  ;;
iqc_compare_fields)
  C=$D/m0_e4m3_bf16_blocks
  expect 0 "$K" run "$C" --out npu
  expect 0 "$K" compare "$C" npu
  # slot 11's scale of group 0: cache_scale element 11 * 4
  cp -r npu s && "$POKE" s/cache_scale.npy 44 01 || exit 99
  expect 1 "$K" compare "$C" s
  has "slot 11: scale of group 0 of codes is 2^-11 (0x74), golden 2^-10 (0x75)"
  # slot 11's code 0: cache element 11 * 128
  cp -r npu p && "$POKE" p/cache.npy 1408 04 || exit 99
  expect 1 "$K" compare "$C" p
  has "slot 11: codes code 0 of group 0 is 0x64 (48), golden 0x60 (32)"
  # slot 0 is not written: its scale bytes must keep their contents
  cp -r npu u && "$POKE" u/cache_scale.npy 0 01 || exit 99
  expect 1 "$K" compare "$C" u
  has "slot 0 (not written): scale byte 0 is 0x16, initial 0x17"
  # the scale tensor holds no payload: no vacuous "PASS 0 of 0" for it
  has "payload       none: no such bytes in this tensor's written rows"
  lacks "PASS  0 of 0 fail"
  # mode 2: column 0 of a written slot's fp32 scale row is unset by the
  # kernel (any value passes), column 1 is not written
  C=$D/m2_hif8_bf16_xscale
  expect 0 "$K" run "$C" --out n2
  cp -r n2 a && "$POKE" a/cache_scale.npy 10 3F800000 || exit 99
  expect 0 "$K" compare "$C" a
  has "undefined     any value (the kernel leaves these bytes unset): 4 bytes, 2 differ, not judged by value"
  cp -r n2 b && "$POKE" b/cache_scale.npy 11 01 || exit 99
  expect 1 "$K" compare "$C" b
  has "slot 5 (written): byte 4 of its row, outside its segments, is 0xcf, initial 0xce"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
