"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched."""

CASES = ["bf16_k_asym_v_sym", "bf16_k_int8_sym_v_plain"]

REFUSED = [
    # no q_out: torch_npu's API writes it in place and needs it
    ("large_bs_1536", ["q_out", "written in place"]),
]
