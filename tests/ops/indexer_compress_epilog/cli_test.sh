#!/bin/sh
# tests/ops/indexer_compress_epilog/cli_test.sh - the kvgold command on
# the indexer compress epilogs: `explain-layout` prints each preset's map
# (cr over two tensors, va_v2 block-major in one), and `compare` judges a
# device dump field by field, one planted fault at a time: a scale, a
# payload code, a byte of a slot not written, a byte of a block's tail
# that no slot owns; cr mode 2's unset scale rows are not judged by value
# (issue 36).
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# Element numbers come from the cases' shapes and slots (their case.json
# comments): cr_m1_e4m3_bf16: cache [12, 512] e4m3, cache_scale [12, 4]
# fp32, slots 7, 1, 3, 11, 0, 4, 5 written; va_v2_wide_fp16: cache
# uint8 [4, 2, 1, 280] (a block 560 bytes: 2 x 256 codes at p * 256, 2 x
# 8 scale bytes at 512 + p * 8, bytes 528..559 never written), slots 5, 1,
# 7, 0, 2 written; cr_m2_hif8: cache_scale [8, 2] fp32, slots 0, 5, 7, 6,
# 1 written.
. "$(dirname "$0")/../../cli/cli_lib.sh"
D=$V/indexer_compress_epilog

case $S in
ice_explain_layout)
  expect 0 "$K" explain-layout "$D/cr_m1_e4m3_bf16" cache
  has "cache (fp8_e4m3fn, 6144 bytes): cr mode 1 (fp8, fp32 scale) (tensor 0 of 2: cache, cache_scale)"
  has "[0, 512)      payload   codes      fp8_e4m3fn        512  groups of 128: 4, scaled by scale (in cache_scale)"
  expect 0 "$K" explain-layout "$D/va_v2_wide_fp16" cache
  has "[0, 8)        scale     scale      fp32                2  one per group of codes"
  has "block b at byte b * 560; region 0 at + 0, slot position p at + p * 256; region 1 at + 512, slot position p at + p * 8"
  expect 0 "$K" explain-layout "$D/cr_m2_hif8" cache_scale
  has "[0, 8)        unset     scale      fp32                2"
  ;;
ice_compare_fields)
  C=$D/cr_m1_e4m3_bf16
  expect 0 "$K" run "$C" --out npu
  expect 0 "$K" compare "$C" npu
  # slot 11's fp32 scale of group 0: cache_scale element 11 * 4
  cp -r npu s && "$POKE" s/cache_scale.npy 44 01 || exit 99
  expect 1 "$K" compare "$C" s
  has "slot 11: scale of group 0 of codes is 0x3bb24924 (0.00544084795), golden 0x3bb24925 (0.00544084841)"
  # slot 11's code 0: cache element 11 * 512
  cp -r npu p && "$POKE" p/cache.npy 5632 04 || exit 99
  expect 1 "$K" compare "$C" p
  has "slot 11: codes code 0 of group 0 is 0xe5 (-52), golden 0xe1 (-36)"
  # slot 2 is not written: its scale bytes keep their contents
  cp -r npu u && "$POKE" u/cache_scale.npy 8 01 || exit 99
  expect 1 "$K" compare "$C" u
  has "slot 2 (not written): scale byte 0 is 0x21, initial 0x20"
  ;;
ice_compare_va_v2)
  C=$D/va_v2_wide_fp16
  expect 0 "$K" run "$C" --out npu
  expect 0 "$K" compare "$C" npu
  # slot 7 = block 3, position 1: its scale of group 1 at 3 * 560 + 512 + 8 + 4
  cp -r npu s && "$POKE" s/cache.npy 2204 01 || exit 99
  expect 1 "$K" compare "$C" s
  has "slot 7: scale of group 1 of codes is 0x3cc7b6dd (0.0243791882), golden 0x3cc7b6dc (0.0243791863); its 128 payload codes are bit-identical"
  # slot 7's code 3: 3 * 560 + 256 + 3
  cp -r npu p && "$POKE" p/cache.npy 1939 01 || exit 99
  expect 1 "$K" compare "$C" p
  has "slot 7: codes code 3 of group 0 is 0xf1 (-144), golden 0xf0 (-128)"
  # block 3's tail (byte 528 of the block) belongs to no slot
  cp -r npu t && "$POKE" t/cache.npy 2208 01 || exit 99
  expect 1 "$K" compare "$C" t
  has "byte 2208 (in no slot's row) is 0x33, initial 0x32"
  ;;
ice_compare_unset)
  # cr mode 2: a written slot's scale row is unset by the kernel (any
  # value passes); an unwritten slot's row keeps its bytes
  C=$D/cr_m2_hif8
  expect 0 "$K" run "$C" --out n2
  cp -r n2 a && "$POKE" a/cache_scale.npy 10 3F800000 || exit 99
  expect 0 "$K" compare "$C" a
  has "not judged by value"
  cp -r n2 b && "$POKE" b/cache_scale.npy 4 01 || exit 99
  expect 1 "$K" compare "$C" b
  has "slot 2 (not written)"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
