"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched."""

CASES = ["norm_bf16", "norm_uint32", "norm_int16", "nz_hif8_key_e4m3_value",
         # the 950's compressed writes torch_npu reaches with a 4-D key
         "alibi_4d_key_fp16", "rope_4d_key_bf16_int64_index"]

REFUSED = [
    # what torch_npu.npu_scatter_pa_kv_cache cannot express: another
    # scatter_mode, a key-only call; and fp4, not mapped
    ("nct_fp16", ["scatter_mode"]),
    ("omni_4d_key_int8", ["scatter_mode \"Omni\""]),
    ("alibi_fp16", ["scatter_mode \"Alibi\""]),  # a 3-D key: None
    ("key_only_fp16", ["key-only"]),
    ("norm_fp4_e2m1", ["fp4_e2m1"]),
]
