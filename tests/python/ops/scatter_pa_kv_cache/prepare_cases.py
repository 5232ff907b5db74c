"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched."""

CASES = ["norm_bf16", "norm_uint32", "norm_int16", "nz_hif8_key_e4m3_value"]

REFUSED = [
    # what torch_npu.npu_scatter_pa_kv_cache cannot express: another
    # scatter_mode, a key-only call; and fp4, not mapped
    ("nct_fp16", ["scatter_mode"]),
    ("key_only_fp16", ["key-only"]),
    ("norm_fp4_e2m1", ["fp4_e2m1"]),
]
