"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched."""

CASES = ["nd_fp16", "nd_int8"]

REFUSED = [
    # a parameter torch_npu._npu_reshape_and_cache does not have
    ("nz_fp16", ["cache_layout", "NZ"]),
    # a case the operator refuses
    ("error_duplicate_slots", ["slot"]),
    # key only (ATB's SISO kernel): the API writes value_cache in place
    ("siso_fp16", ["value_cache", "written in place"]),
]
