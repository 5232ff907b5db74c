#!/bin/sh
# tests/ops/kv_compress_epilog/cli_test.sh - the kvgold command on
# KvCompressEpilog's packed cache rows: `explain-layout` prints the byte
# map the operator writes through, and `compare` judges a device dump
# field by field, naming the slot, field and group of one planted fault
# at a time (a scale, a payload code, a rope byte, a pad byte, a byte of
# a written row outside its fields), each failing alone (issue 36).
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# The helpers are tests/cli/cli_lib.sh; the registration
# tests/CMakeLists.txt's. Byte offsets come from the presets' rows as
# docs/kv_compress_epilog.md tables them; every case writes its last slot.
. "$(dirname "$0")/../../cli/cli_lib.sh"
D=$V/kv_compress_epilog

case $S in
kce_explain_layout)
  # ot mode 1, d 256: [rope bf16 128 | nope e4m3 192 (3 groups of 64) |
  # 3 e8m0] = 323 bytes of a 448-byte row, 2 slots a block
  expect 0 "$K" explain-layout "$D/ot_m1_cache4d_wide"
  has "cache (uint8, 2688 bytes): ot mode 1"
  has "[0, 128)      copy      rope       bf16               64"
  has "[128, 320)    payload   nope       fp8_e4m3fn        192  groups of 64: 3, scaled by scale"
  has "[320, 323)    scale     scale      e8m0                3  one per group of nope"
  has "[323, 448)    -         (not written: keeps its bytes)"
  has "slot s: block s / 2, position s % 2; block b at byte b * 896"
  # sgk layout 2: a block's values, then its scales with an unset tail
  expect 0 "$K" explain-layout "$D/va_m2_l2_g128_scale_pad" cache
  has "region 1: 8 bytes a slot (a block's scales)"
  has "[4, 8)        unset     scale tail uint8               4"
  # a tensor that is not an output (layouts of other operators' caches:
  # tests/cli/cli_test.sh)
  expect 2 "$K" explain-layout "$D/ot_m1_cache4d_wide" x
  has "x is not an output of this kv_compress_epilog call"
  ;;
kce_compare_fields)
  # ot mode 1, d 576, 648-byte rows, 8 slots: slot 7 at 4536; its scale
  # of group 0 at +640, nope code 5 at +133, rope byte 3 at +3
  C=$D/ot_m1_e8m0_d576_int32
  expect 0 "$K" run "$C" --out npu
  expect 0 "$K" compare "$C" npu
  has "kvgold says PASS"
  cp -r npu s && "$POKE" s/cache.npy 5176 01 || exit 99
  expect 1 "$K" compare "$C" s
  has "scales        bitwise    FAIL  1 of 32 fail"
  has "slot 7: scale of group 0 of nope is 2^-9 (0x76), golden 2^-8 (0x77)"
  has "pass-through  bitwise    PASS"
  # a payload code: bit for bit under ops-test-kit's standard (the
  # default: its binary_equal sees the uint8 cache), by code distance
  # under CANN's (one code of 2048 > 1 apart is within its 0.001)
  cp -r npu p && "$POKE" p/cache.npy 4669 04 || exit 99
  expect 1 "$K" compare "$C" p
  has "payload       bitwise    FAIL  1 of 2048 fail"
  has "slot 7: nope code 5 of group 0 is 0xbe (-1.75), golden 0xba (-1.25)"
  has "scales        bitwise    PASS"
  expect 0 "$K" compare "$C" p --standard single
  has "slot 7: nope code 5 of group 0 is 0xbe (-1.75), golden 0xba (-1.25): 4 codes apart"
  cp -r npu r && "$POKE" r/cache.npy 4539 01 || exit 99
  expect 1 "$K" compare "$C" r
  has "pass-through  bitwise    FAIL  1 of 256 fail"
  has "slot 7: rope element 1 is 0xc04d (-3.203125), golden 0xc14d (-12.8125)"
  has "scales        bitwise    PASS"
  # ot mode 0, d 576: 672-byte rows, 7 slots, zero pad at [656, 672)
  expect 0 "$K" run "$D/ot_m0_scale16_d576" --out m0
  "$POKE" m0/cache.npy 4692 01 || exit 99
  expect 1 "$K" compare "$D/ot_m0_scale16_d576" m0
  has "slot 6: pad byte 4 is 0x01, golden 0x00"
  has "payload       bitwise    PASS"
  # a 448-byte row holding 323 bytes: byte 400 of written slot 5
  expect 0 "$K" run "$D/ot_m1_cache4d_wide" --out w
  "$POKE" w/cache.npy 2640 01 || exit 99
  expect 1 "$K" compare "$D/ot_m1_cache4d_wide" w
  has "slot 5 (written): byte 400 of its row, outside its segments"
  has "untouched     bitwise    FAIL  1 of 1719 fail"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
