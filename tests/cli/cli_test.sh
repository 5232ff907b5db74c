#!/bin/sh
# tests/cli/cli_test.sh - the kvgold command's exit codes and reports, on
# the example cases (vectors/examples).
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# Each scenario runs the real command and asserts its exit status and the
# lines its report must contain. The scenarios built on one operator's
# cases are that operator's, tests/ops/<op>/cli_test.sh; both kinds are
# registered by tests/CMakeLists.txt from their "name)" lines.
. "$(dirname "$0")/cli_lib.sh"

case $S in
usage)
  expect 0 "$K" --help;            has "usage: kvgold"; has "compare CASE NPU_DIR"
  expect 0 "$K" help compare;      has "MERE"
  expect 0 "$K" run --help;        has "kvgold run CASE"
  expect 0 "$K" --version;         has "kvgold 0."
  expect 2 "$K";                   has "usage: kvgold"
  expect 2 "$K" frobnicate;        has "unknown command frobnicate"
  expect 2 "$K" run;               has "missing CASE"
  expect 2 "$K" compare "$V/examples/qwen3_qkv_decode"; has "needs CASE and NPU_DIR"
  expect 2 "$K" check --bogus x;   has "unknown option --bogus"
  expect 0 "$K" help explain-layout; has "kvgold explain-layout CASE [OUTPUT]"
  # caches without a packed-row layout say so, each; a missing CASE is 2
  expect 0 "$K" explain-layout "$V/examples/qwen3_qkv_decode"
  has "k_cache: no packed-row layout"; has "v_cache: no packed-row layout"
  expect 2 "$K" explain-layout;    has "give CASE [OUTPUT]"
  expect 2 "$K" explain-layout no_such_case
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
  expect 1 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu_bf16_intermediate" --standard single
  has "q_out (bf16, float_re): FAIL: MARE"; has "k_cache  int8   int_abs1   PASS"
  ;;
compare_default)
  # ops-test-kit's rule is the default, named with its commit everywhere,
  # with ops-test-kit's own verdict next to kvgold's
  X=$V/examples
  expect 0 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu_bf16_intermediate"
  has "q_out    bf16   float_re   PASS"; has "standards and thresholds: mixed_ttk@3675093"
  # int8 caches one step off: |delta| <= 1 passes, ops-test-kit's
  # binary_equal for integers does not
  has "ops-test-kit would say: FAIL (binary_equal over all 131072 elements: 43 mismatched); kvgold says PASS"
  expect 0 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu_bf16_intermediate" --json
  has '"standard":"mixed_ttk@3675093"'; has '"standard_version":"mixed_ttk@3675093"'
  has '"ops_test_kit":{"verdict":"FAIL","rule":"binary_equal"'
  expect 0 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu_bf16_intermediate" --standard mixed_ttk@3675093 --junit j.xml --html h.html
  cp j.xml out.txt; has '<property name="kvgold.standard" value="mixed_ttk@3675093"/>'
  has '<property name="ops_test_kit.q_out" value="PASS (mix_tolerance)"/>'
  cp h.html out.txt; has "mixed_ttk@3675093: mixed:"; has "ops-test-kit would say: FAIL (binary_equal)"
  expect 2 "$K" compare "$X/qwen3_qkv_decode" "$X/qwen3_qkv_decode/npu" --standard mixed_ttk@03a2bfd
  has "--standard needs"
  ;;
jobs_memory_share)
  # N workers share --max-memory evenly: checking the Qwen3 example (between
  # 800 and 1000 KiB) fits 1000K one at a time, not 500K each two at a time
  Q3=$V/examples/qwen3_qkv_decode
  expect 0 "$K" check "$Q3" "$Q3" --jobs 1 --max-memory 1000K
  has "totals: 2 cases: 2 PASS"
  expect 2 "$K" check "$Q3" "$Q3" --jobs 2 --max-memory 1000K
  has "over the limit of 512000 bytes"; has "1/2 of 1024000 bytes for each of 2 workers; --max-memory"
  has "totals: 2 cases: 0 PASS, 0 INCOMPLETE, 0 FAIL, 2 INVALID, 0 ERROR"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
