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
compare_not_judged)
  # issue 12: an output that is not judged never passes, and says why
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu; rm npu/k_rope.npy
  expect 1 "$K" compare "$C" npu
  has "NOT JUDGED: k_rope: missing: no npu/k_rope.npy"
  has "INCOMPLETE: 4 tensors, 3 passed, 0 failed, 1 not judged"
  expect 1 "$K" compare "$C" npu --json
  has '"verdict":"INCOMPLETE"'; has '"name":"k_rope"'; has '"verdict":"NOT JUDGED"'
  npu_of "$C" misnamed; mv misnamed/k_rope.npy misnamed/krope.npy
  expect 1 "$K" compare "$C" misnamed
  has "krope.npy, which matches no output"; has "INCOMPLETE"
  npu_of "$C" dangling; rm dangling/k_rope.npy; ln -s gone.npy dangling/k_rope.npy
  expect 1 "$K" compare "$C" dangling; has "dangling link: dangling/k_rope.npy"
  npu_of "$C" dir; rm dir/k_rope.npy; mkdir dir/k_rope.npy
  expect 1 "$K" compare "$C" dir; has "unreadable: dir/k_rope.npy is a directory"
  if [ "$(id -u)" -ne 0 ]; then   # root reads a mode-000 file anyway
    npu_of "$C" locked; chmod 000 locked/k_rope.npy
    expect 1 "$K" compare "$C" locked; has "unreadable: locked/k_rope.npy"
  fi
  expect 2 "$K" compare "$C" no_such_dir
  has "NPU_DIR no_such_dir: No such file or directory"
  expect 0 "$K" compare "$C" npu --only c_kv,ckv_cache
  has "PASS: 2 tensors, 2 passed, 0 failed"
  expect 2 "$K" compare "$C" npu --only c_kv,kcache; has "kcache is not an output"
  ;;
compare_standard)
  # issue 14: --standard picks the rule for float compute outputs and the
  # report names it, its source and its thresholds per tensor
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  expect 0 "$K" compare "$C" npu
  has "c_kv: single, float_re: MERE < 0.0078125, MARE < 0.078125"
  has "experimental_standard.md @3e62966"; has "max_ulp"
  expect 0 "$K" compare "$C" npu --standard mixed
  has "c_kv: mixed, float_re: |a-g| <= 0.0078125 + 0.0078125*|g| for >= 99%"
  has "mixed_tolerance_standard.md @233ee24"
  expect 0 "$K" compare "$C" npu --standard mixed_ttk
  has "c_kv: mixed_ttk, float_re: |a-g| <= 0.015625 + 0.015625*|g|"
  has "Precision_Comparison.md @3675093"
  expect 0 "$K" compare "$C" npu --standard mixed --json
  has '"standard_name":"mixed"'; has '"matched_ratio":1'; has '"ulp":{"max":0'
  has '"error_balance":{"eb":0'
  "$POKE" npu/c_kv.npy 0 4000 || exit 99      # one element, far off
  expect 1 "$K" compare "$C" npu --standard mixed
  has "1 element beyond |a-g| <= 0.1 and 32 ULP (first at index 0)"
  expect 1 "$K" compare "$C" npu --standard commercial
  has "NOT JUDGED: c_kv: the commercial standard needs a third-party result"
  has "INCOMPLETE"
  expect 2 "$K" compare "$C" npu --standard double; has "--standard needs"
  expect 2 "$K" compare "$C" npu --level L3; has "--level needs"
  ;;
compare_third_party)
  # issue 14: the commercial standard's dual benchmark against another
  # implementation's outputs
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu; npu_of "$C" tp
  "$POKE" tp/c_kv.npy 5 0001 || exit 99       # the third party is 1 ULP off
  expect 0 "$K" compare "$C" npu --standard commercial --third-party tp
  has "dual benchmark: MARE ratio 0, MERE ratio 0, RMSE ratio 0 over 1536"
  has "commercial_standard.md @3e62966 (4.5)"; has "L1: MARE/MERE/RMSE ratio <= 5/1.5/1.5"
  expect 0 "$K" compare "$C" npu --standard commercial --third-party tp --level L2 --json
  has '"mare_ratio_max":2'; has '"level":"L2"'; has '"third_party_mare":'
  "$POKE" npu/c_kv.npy 0 4000 || exit 99
  expect 1 "$K" compare "$C" npu --standard commercial --third-party tp
  has "MARE ratio"; has "> 5 (L1)"
  expect 2 "$K" compare "$C" npu --third-party no_such_dir
  has "--third-party no_such_dir: No such file or directory"
  ;;
compare_repeat)
  # issue 14: repeated runs are judged each and must be bit-identical
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" run1; npu_of "$C" run2; npu_of "$C" run3
  expect 0 "$K" compare "$C" run1 run2 run3
  has "run 3 of 3: run3"; has "c_kv: run 3 is bit-identical to run 1 (1536 elements)"
  has "PASS: the runs are bit-identical"
  "$POKE" run3/c_kv.npy 10 0001 || exit 99    # passes alone, differs
  expect 1 "$K" compare "$C" run1 run2 run3
  has "c_kv: run 3 differs from run 1 in 1 of 1536 elements (first at index 10"
  has "FAIL: the runs are not bit-identical"
  expect 1 "$K" compare "$C" run1 run3 --json
  has '"identical":false'; has '"differ":1'; has '"npu_dir":"run3"'
  rm run2/k_rope.npy
  expect 1 "$K" compare "$C" run1 run2; has "k_rope: not checked (missing from a run)"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
[ "$fails" -eq 0 ] && echo "cli scenario $S: ok"
exit $fails
