#!/bin/sh
# tests/ops/concat_and_cache_ds_mla/cli_test.sh - the kvgold command on
# the packed C8 MLA row (656 B): `explain-layout` prints each preset's
# byte map, and `compare` judges a device dump field by field, naming the
# slot, field and group of one planted fault at a time - a scale, a
# payload code, a rope byte, a byte of an unwritten row - each failing
# alone (issue 36). There is no pad in a 656-byte row: every byte of a
# written row is a payload code, a scale or a rope byte. flashmla-model1's
# 584-byte row has one, never written: any value passes, while the same
# byte of an unwritten slot and a block's tail must keep theirs.
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
  has "  a slot: 656 bytes"
  expect 0 "$K" explain-layout --help
  has "position s % block_size)"
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
model1_layout_compare)
  # flashmla-model1 (584 B a token, block-major) on a case built here from
  # the bytes of an ascend vector: kv_c [2, 448] and k_pe [2, 64] from its
  # finite bf16 inputs, int64 slots 3, 0, a uint8 cache [2, 1728]
  # (block_size 2) from its cache bytes. Slot 3 = block 1, row 1: nope at
  # 2304, scales at 1728 + 1152 + 8 = 2888, its pad 2895; slot 1's pad
  # 1167 and block 0's tail [1168, 1728) are never written.
  C=m1 && mkdir -p $C || exit 99
  F=$D/ascend_a2_int8_rows
  { npy_header '<u2' '(2, 448)'; strip_npy "$F/kv_c.npy" | head -c 1792; } > $C/kv_c.npy
  { npy_header '<u2' '(2, 64)'; strip_npy "$F/k_pe.npy" | head -c 256; } > $C/k_pe.npy
  { npy_header '<i8' '(2,)'; printf '\003\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'; } > $C/slot_mapping.npy
  { npy_header '|u1' '(2, 1728)'; strip_npy "$F/kv_cache.npy" | head -c 3456; } > $C/kv_cache.npy
  cat > $C/case.json <<'JSON'
{"op": "concat_and_cache_ds_mla",
 "attrs": {"preset": "flashmla-model1", "block_size": 2},
 "inputs": {"kv_c": {"file": "kv_c.npy", "dtype": "bf16"},
            "k_pe": {"file": "k_pe.npy", "dtype": "bf16"},
            "slot_mapping": {"file": "slot_mapping.npy", "dtype": "int64"},
            "kv_cache": {"file": "kv_cache.npy", "dtype": "uint8"}}}
JSON
  expect 0 "$K" explain-layout $C
  has "kv_cache (uint8, 3456 bytes): flashmla-model1"
  has "[0, 448)      payload   nope       fp8_e4m3fn        448  groups of 64: 7, scaled by scale"
  has "[448, 576)    copy      rope       bf16               64"
  has "[0, 7)        scale     scale      e8m0                7  one per group of nope"
  has "[7, 8)        ignored   pad        uint8               1  never written; any value"
  has "region 1 at + 1152, slot position p at + p * 8"
  has "a slot: 584 bytes (576 + 8); bytes [1168, 1728) of each block are written by no slot"
  expect 0 "$K" run $C --out npu
  expect 0 "$K" compare $C npu
  has "kvgold says PASS"
  cp -r npu pad && "$POKE" pad/kv_cache.npy 2895 5a || exit 99
  expect 0 "$K" compare $C pad
  has "kvgold says PASS"
  has "untouched     bitwise    PASS  0 of 2288 fail"
  has "2 bytes, 1 differ, not judged by value"
  cp -r npu s && "$POKE" s/kv_cache.npy 2889 01 || exit 99
  expect 1 "$K" compare $C s
  has "scales        bitwise    FAIL  1 of 14 fail"
  has "slot 3: scale of group 1 of nope"
  cp -r npu u && "$POKE" u/kv_cache.npy 1167 01 || exit 99
  expect 1 "$K" compare $C u
  has "slot 1 (not written): pad byte 0 is"
  cp -r npu t && "$POKE" t/kv_cache.npy 1200 01 || exit 99
  expect 1 "$K" compare $C t
  has "byte 1200 (in no slot's row) is"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
