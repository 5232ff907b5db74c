"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched.

The fp8 cases are PREPARE_ONLY: `kvgold prepare` writes them (checked by
test_prepare.py), but torch_npu returns fp8 y as torch.float8_*, which
the torch of CI (1.13) does not have, so the plug-in's golden refuses
them (test_dmq_functions.py checks that refusal) and test_ttk.py, which
calls the golden on every case of CASES, leaves them out."""

CASES = ["fp4_rint_bf16_last_odd", "fp4_floor_fp16_axis1_rank3",
         "fp4_round_fp32_partial", "zero_tiny_blocks_fp4_e2m1_bf16_alg0"]

PREPARE_ONLY = ["e4m3_ocp_bf16_vllm_k", "e5m2_cublas_bf16_axis1_bs64"]

REFUSED = [
    # what kvgold does not model, the operator's own check says why
    ("error_scale_alg2", ["scale_alg", "not modelled"]),
]
