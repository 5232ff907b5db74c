"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched."""

CASES = ["bcast_pa_blk_bnsd_bf16", "ds_950_pa_fp16_both_hif8_asym",
         "ds_950_norm_bf16_ckv_e5m2_out", "v2_a2a3_norm_bcast_noout",
         "v2_a2a3_pa_nz_bf16_int8_asym_n2"]

REFUSED = [
    # a v torch_npu would ignore (it runs V1 unless v's dim 3 is 128)
    ("v2_m_pa_bf16_kint8_cint8_asym_out", ["V1"]),
]
