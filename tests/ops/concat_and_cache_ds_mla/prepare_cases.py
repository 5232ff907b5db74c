"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched. Only the vllm-fp8_ds_mla preset
has a call form (vLLM's concat_and_cache_mla, selected by the preset);
the Ascend composite has none, so its cases are refused.

vllm_e4m3_boundaries (a float8_e4m3fn cache) is PREPARE_ONLY: `kvgold
prepare` writes it, but the torch of CI (1.13) has no float8 dtype to
hold its cache (test_c8_functions.py runs it as uint8 codes)."""

CASES = ["vllm_rows_skip_negative", "vllm_all_skipped"]

PREPARE_ONLY = ["vllm_e4m3_boundaries"]

REFUSED = [
    # the Ascend path is four torch_npu calls, none of them this operator
    ("ascend_a2_int8_rows", ["no torch API", "preset=vllm-fp8_ds_mla"]),
]
