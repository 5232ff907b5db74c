#!/bin/sh
# tests/cli/cli_test.sh - the kvgold command's exit codes and reports.
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# Each scenario runs the real command and asserts its exit status and the
# lines its report must contain. Cases come from the committed vectors; the
# "NPU outputs" are the golden's own (kvgold run), then corrupted with
# npy_poke where a scenario needs a failure.
set -u
K=$1 POKE=$2 V=$3 W=$4 S=$5
KV=$V/kv_rms_norm_rope_cache
Q=$V/qkv_rms_norm_rope_cache
rm -rf "$W/$S" && mkdir -p "$W/$S" && cd "$W/$S" || exit 99
fails=0
# expect RC CMD...: run CMD, keep stdout+stderr in out.txt, check the status
expect() {
  want=$1; shift
  "$@" > out.txt 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; cat out.txt; fails=1
  fi
}
# has TEXT: the last command's output must contain TEXT
has() {
  if ! grep -F -q -- "$1" out.txt; then
    echo "FAIL: output lacks '$1'"; cat out.txt; fails=1
  fi
}
# lacks TEXT: the last command's output must not contain TEXT
lacks() {
  if grep -F -q -- "$1" out.txt; then
    echo "FAIL: output has '$1'"; cat out.txt; fails=1
  fi
}
npu_of() { # npu_of CASE DIR: the golden's outputs as a stand-in NPU dump
  mkdir -p "$2" && "$K" run "$1" --out "$2" > /dev/null || exit 99
}
copy_case() { cp -r "$1" "$2" || exit 99; }

case $S in
usage)
  expect 0 "$K" --help;            has "usage: kvgold"; has "compare CASE NPU_DIR"
  expect 0 "$K" help compare;      has "MERE"
  expect 0 "$K" run --help;        has "kvgold run CASE"
  expect 0 "$K" --version;         has "kvgold 0."
  expect 2 "$K";                   has "usage: kvgold"
  expect 2 "$K" frobnicate;        has "unknown command frobnicate"
  expect 2 "$K" run;               has "missing CASE"
  expect 2 "$K" compare "$KV/index_pa_last_slot"; has "needs CASE and NPU_DIR"
  expect 2 "$K" check --bogus x;   has "unknown option --bogus"
  ;;
check_pass)
  expect 0 "$K" check "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out"
  has "k_cache"; has "PASS: 4 of 4 tensors bit-exact"
  expect 0 "$K" check "$KV/err_pa_duplicate_slot"; has "PASS"
  ;;
check_mismatch)
  copy_case "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" c
  "$POKE" c/expected_c_kv.npy 10 0001 || exit 99
  expect 1 "$K" check c; has "c_kv"; has "FAIL (first at element 10)"
  ;;
compare_pass)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  expect 0 "$K" compare "$C" npu
  has "PASS: 4 tensors, 4 passed, 0 failed, 0 untouched elements changed"
  has "ckv_cache  fp8_e4m3fn  code_dist  PASS"
  expect 0 "$K" compare "$C" npu --json; has '"verdict":"PASS"'
  ;;
compare_corrupt)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  "$POKE" npu/c_kv.npy 0 4000 || exit 99    # flips an exponent bit
  expect 1 "$K" compare "$C" npu
  has "c_kv       bf16        float_re   FAIL"; has "worst written elements"
  has "FAIL: 4 tensors, 3 passed, 1 failed"
  expect 1 "$K" compare "$C" npu --json; has '"verdict":"FAIL"'
  ;;
compare_untouched)
  # every index is negative: the op writes no cache element at all, so any
  # change to a cache is a write where the kernel must not write
  C=$KV/index_all_negative_pa_nz
  npu_of "$C" npu
  "$POKE" npu/k_cache.npy 0 01 || exit 99
  expect 1 "$K" compare "$C" npu
  has "1 untouched element changed"; has "untouched elements that changed"
  has "block=0 slot=0 head=0 channel=0"
  ;;
malformed)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" unknown_key
  sed -i 's/"op":/"colour": "blue", "op":/' unknown_key/case.json
  expect 2 "$K" check unknown_key; has 'unknown key "colour"'
  copy_case "$C" missing_file; rm missing_file/gamma.npy
  expect 2 "$K" run missing_file --out .; has "gamma.npy"; has "cannot open"
  copy_case "$C" bad_dtype
  sed -i '0,/"dtype": "bf16"/s//"dtype": "bf17"/' bad_dtype/case.json
  expect 2 "$K" check bad_dtype; has 'unknown dtype tag "bf17"'
  copy_case "$C" bad_attr
  sed -i 's/"cache_mode": "PA_NZ"/"cache_mode": "PA_ZN"/' bad_attr/case.json
  expect 2 "$K" check bad_attr; has "PA_ZN"
  npu_of "$C" npu; cp npu/c_kv.npy npu/k_rope.npy   # wrong shape for k_rope
  expect 2 "$K" compare "$C" npu; has "k_rope"
  mkdir -p empty
  expect 2 "$K" compare "$C" empty; has "holds none of the outputs"
  expect 2 "$K" compare "$KV/err_pa_duplicate_slot" empty; has "must refuse"
  ;;
examples)
  # the verdicts tools/demo.sh prints: honest kernels pass, buggy ones fail
  X=$V/examples
  expect 0 "$K" compare "$X/deepseek_mla_decode" "$X/deepseek_mla_decode/npu"
  has "PASS: 2 tensors, 2 passed"
  expect 1 "$K" compare "$X/deepseek_mla_decode" "$X/deepseek_mla_decode/npu_faulty"
  has "block=1 slot=73 head=0 channel=0"   # overwritten, owned by no token
  has "block=1 slot=72 head=0"             # token 3's slot, left stale
  expect 0 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu"
  has "PASS: 3 tensors, 3 passed"
  expect 1 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu_bf16_intermediate"
  has "q_out (bf16, float_re): FAIL: MARE"; has "k_cache  int8   int_abs1   PASS"
  ;;
# case.json is read strictly (issue 12): each of these was accepted, or
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
  printf '\n{"op": "reshape_and_cache"}\n' >> c/case.json
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
*) echo "unknown scenario $S"; exit 99 ;;
esac
[ "$fails" -eq 0 ] && echo "cli scenario $S: ok"
exit $fails
