#!/bin/sh
# tests/ops/qkv_rms_norm_rope_cache/cli_test.sh - the kvgold command on
# QkvRmsNormRopeCache's cases: case.json read strictly (each of these was
# accepted, or read wrongly, by the lenient parser before; positions are
# this operator's case files'), and outputs too big to allocate refused.
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# The helpers are tests/cli/cli_lib.sh; the registration
# tests/CMakeLists.txt's.
. "$(dirname "$0")/../../cli/cli_lib.sh"
Q=$V/qkv_rms_norm_rope_cache

case $S in
# case.json is read strictly: each of these was accepted, or
# read wrongly, by the lenient parser before.
json_duplicate_key)
  # Python's json (the generator's) keeps the last of two equal keys
  copy_case "$Q/fp16_kv_plain" c
  sed -i 's/"cache_mode": "PA_NZ",/&  "cache_mode": "PA_BLK_NZ",/' c/case.json
  expect 2 "$K" check c
  has 'c/case.json:16:29: duplicate key "cache_mode" (first at 16:5)'
  ;;
json_trailing_text)
  copy_case "$Q/fp16_kv_plain" c
  printf '\n{"op": "another"}\n' >> c/case.json
  expect 2 "$K" run c --out o
  has "c/case.json:85:1: text after the end of the JSON value (character '{')"
  [ ! -e o ] || { echo "FAIL: run wrote o/ for a refused case"; fails=1; }
  ;;
json_nul)
  # a \u0000 used to end the string there, so this read as a valid op
  copy_case "$Q/fp16_kv_plain" c
  sed -i 's/"op": "qkv_rms_norm_rope_cache"/"op": "qkv_rms_norm_rope_cache\\u0000 and more"/' c/case.json
  expect 2 "$K" check c
  has 'c/case.json:2:33: \u0000 (NUL) is not allowed in a string'
  ;;
json_int_exact)
  # 2^53 + 1 reaches the operator as itself, not as the double 2^53
  copy_case "$Q/fp16_kv_plain" c
  sed -i '/"head_nums": \[/{n;s/[0-9][0-9]*/9007199254740993/}' c/case.json
  expect 2 "$K" check c
  has "head_nums: Nq + Nk + Nv must equal N = 4 (qkv_size[2]), got 9007199254740993 + 1 + 1"
  ;;
json_fraction)
  # 161002.9 is not the status 161002
  copy_case "$Q/err_head_dim_64" c
  sed -i 's/"status": 161002/"status": 161002.9/' c/case.json
  expect 2 "$K" check c
  has 'c/case.json:57:15: expect_error.status 161002.9 has a fraction'
  ;;
json_int64_max)
  # INT64_MAX is an int64: the operator judges it (and refuses it, naming
  # it); one more is out of range, refused where it is written
  copy_case "$Q/fp16_kv_plain" c
  sed -i '/"head_nums": \[/{n;s/[0-9][0-9]*/9223372036854775807/}' c/case.json
  expect 2 "$K" check c
  has "got 9223372036854775807 + 1 + 1"; lacks "must hold integers"
  sed -i 's/9223372036854775807/9223372036854775808/' c/case.json
  expect 2 "$K" check c
  has 'c/case.json:12:7: "head_nums" must hold integers: 9223372036854775808 is out of int64 range'
  ;;
json_syntax_position)
  copy_case "$Q/fp16_kv_plain" c
  sed -i 's/"cache_mode": "PA_NZ",/"cache_mode": "PA_NZ"/' c/case.json
  expect 2 "$K" check c
  has "c/case.json:17:5: unexpected character '\"', expected ',' or '}'"
  ;;
qkv_huge)
  # qkv of shape (2^30, 0) holds no data, but the outputs its shape
  # implies (q/k/v_out_before_quant) would take terabytes: refused before
  # allocating, with the amount and the limit
  copy_case "$V/qkv_rms_norm_rope_cache/bf16_k_asym_v_sym" c
  npy_header '<u2' '(1073741824, 0)' > c/qkv.npy
  expect 2 "$K" run c --out o; has "not enough memory"
  has "_out_before_quant needs"
  has "refused before allocating"; has ", default: "; lacks "operator refused"
  [ -e o ] && { echo "FAIL: o was created"; fails=1; }
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
