"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched.

The fp8 cases are PREPARE_ONLY: `kvgold prepare` writes them (checked by
test_prepare.py, as every case here), but torch_npu returns fp8 y as
torch.float8_*, which the torch of CI (1.13) does not have, so the
plug-in's golden refuses them (test_dbq_functions.py checks that refusal)
and test_ttk.py, which calls the golden on every case of CASES, leaves
them out."""

CASES = ["int8_fp16_2d_1x128_partial_cols", "hif8_fp16_3d_1x64",
         "min_scale_int8_fp16",
         # Atlas A2/A3 (the profile from ops-test-kit's soc_version): the
         # vllm-ascend C8 call [6, 1, 512], 1 x 128
         "a2a3_bf16_3d_vllm_c8"]

PREPARE_ONLY = ["e4m3_fp32_2d_512x64", "e5m2_fp32_3d_64x192"]

REFUSED = [
    # what the NPU refuses, the operator's own check says why
    ("error_hif8_rint", ["round_mode", "hif8"]),
]
