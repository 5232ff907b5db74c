#!/bin/sh
# tests/ops/concat_and_cache_ds_mla/cli_test.sh - the kvgold command on
# the packed C8 MLA row (656 B): `explain-layout` prints each preset's
# byte map, and `compare` judges a device dump field by field, naming the
# slot, field and group of one planted fault at a time - a scale, a
# payload code, a rope byte, a byte of an unwritten row - each failing
# alone (issue 36). There is no pad in a 656-byte row: every byte of a
# written row is a payload code, a scale or a rope byte.
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# Helpers: tests/cli/cli_lib.sh. Offsets from the rows of
# docs/concat_and_cache_ds_mla.md; both cases write their last slot.
. "$(dirname "$0")/../../cli/cli_lib.sh"
D=$V/concat_and_cache_ds_mla

case $S in
c8_explain_layout)
  expect 0 "$K" explain-layout "$D/vllm_rows_skip_negative"
  has "kv_cache (uint8, 7872 bytes): vllm-fp8_ds_mla"
  has "[0, 512)      payload   nope       fp8_e4m3fn        512  groups of 128: 4, scaled by scale"
  has "[512, 528)    scale     scale      fp32                4  one per group of nope"
  has "[528, 656)    copy      rope       bf16               64"
  has "slot s: block s / 4, position s % 4; block b at byte b * 2624"
  expect 0 "$K" explain-layout "$D/ascend_a2_int8_rows"
  has "kv_cache (int8, 5248 bytes): ascend-sfa-c8"
  has "[0, 512)      payload   nope       int8              512  groups of 128: 4, scaled by scale"
  has "[512, 640)    copy      rope       bf16               64"
  has "[640, 656)    scale     scale      fp32                4  one per group of nope"
  expect 2 "$K" explain-layout "$D/ascend_a2_int8_rows" kv_c
  has "kv_c is not an output of this concat_and_cache_ds_mla call"
  ;;
c8_compare_fields)
  # vllm: slot 11 at 7216; scale of group 1 at +516 (byte 2 holds the
  # exponent's low bit), nope code 5 at +5, rope byte 3 at +531
  C=$D/vllm_rows_skip_negative
  expect 0 "$K" run "$C" --out npu
  expect 0 "$K" compare "$C" npu
  has "kvgold says PASS"
  cp -r npu s && "$POKE" s/kv_cache.npy 7734 80 || exit 99
  expect 1 "$K" compare "$C" s
  has "scales        bitwise    FAIL  1 of 12 fail"
  has "slot 11: scale of group 1 of nope is 0x3bb80000 (0.00561523438), golden 0x3b380000 (0.00280761719)"
  has "payload       bitwise    PASS"
  cp -r npu p && "$POKE" p/kv_cache.npy 7221 01 || exit 99
  expect 1 "$K" compare "$C" p
  has "payload       bitwise    FAIL  1 of 1536 fail"
  has "slot 11: nope code 5 of group 0 is 0x72 (160), golden 0x73 (176)"
  has "scales        bitwise    PASS"
  expect 0 "$K" compare "$C" p --standard single
  has "slot 11: nope code 5 of group 0 is 0x72 (160), golden 0x73 (176): 1 code apart"
  cp -r npu r && "$POKE" r/kv_cache.npy 7747 01 || exit 99
  expect 1 "$K" compare "$C" r
  has "pass-through  bitwise    FAIL  1 of 192 fail"
  has "slot 11: rope element 1 is 0x415e (13.875), golden 0x405e (3.46875)"
  cp -r npu u && "$POKE" u/kv_cache.npy 100 01 || exit 99
  expect 1 "$K" compare "$C" u
  has "slot 0 (not written): nope byte 100 is 0x6b, initial 0x6a"
  # ascend int8: slot 7 at 4592; scale of group 3 at +652, a code at
  # +200, the last rope byte at +639
  C=$D/ascend_a2_int8_rows
  expect 0 "$K" run "$C" --out a
  cp -r a a1 && "$POKE" a1/kv_cache.npy 5246 80 || exit 99
  expect 1 "$K" compare "$C" a1
  has "slot 7: scale of group 3 of nope is 0x3c4a952a (0.012364665), golden 0x3cca952a (0.0247293301)"
  cp -r a a2 && "$POKE" a2/kv_cache.npy 4792 01 || exit 99
  expect 1 "$K" compare "$C" a2
  has "slot 7: nope code 200 of group 1 is 0xd1 (-47), golden 0xd0 (-48)"
  cp -r a a3 && "$POKE" a3/kv_cache.npy 5231 01 || exit 99
  expect 1 "$K" compare "$C" a3
  has "slot 7: rope element 63 is 0xbec1 (-0.376953125), golden 0xbfc1 (-1.5078125)"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
