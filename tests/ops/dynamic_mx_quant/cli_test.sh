#!/bin/sh
# tests/ops/dynamic_mx_quant/cli_test.sh - the kvgold command on
# DynamicMxQuant's cases: its byte-stored outputs (fp4 pairs, E8M0 codes)
# written as the generator's .npy files, and a device dump whose scale is
# one code off (the whole block off by 2) failed by compare, naming it.
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# The helpers are tests/cli/cli_lib.sh; the registration
# tests/CMakeLists.txt's.
. "$(dirname "$0")/../../cli/cli_lib.sh"
D=$V/dynamic_mx_quant

case $S in
dmq_run_bytes)
  # run writes y (fp4 pairs) and mxscale (e8m0) byte for byte as the
  # NumPy generator's expected files; check agrees
  expect 0 "$K" run "$D/fp4_rint_bf16_axis0_interleave" --out o
  strip_npy o/y.npy > y.bin
  strip_npy "$D/fp4_rint_bf16_axis0_interleave/expected_y.npy" > ey.bin
  same y.bin ey.bin
  strip_npy o/mxscale.npy > s.bin
  strip_npy "$D/fp4_rint_bf16_axis0_interleave/expected_mxscale.npy" > es.bin
  same s.bin es.bin
  expect 0 "$K" check "$D/fp4_rint_bf16_axis0_interleave"
  ;;
dmq_compare_scale_code)
  # one E8M0 code one higher in a device dump: compare fails it, bit for
  # bit, and names mxscale; the golden itself passes
  npu_of "$D/e4m3_ocp_bf16_vllm_k" npu
  expect 0 "$K" compare "$D/e4m3_ocp_bf16_vllm_k" npu
  "$POKE" npu/mxscale.npy 5 01 || exit 99
  expect 1 "$K" compare "$D/e4m3_ocp_bf16_vllm_k" npu
  has "mxscale"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
