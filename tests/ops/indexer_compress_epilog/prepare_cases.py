"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched.

cr mode 2's caches (uint8 HiF8 codes, fp32 scales) and va_v2's uint8
cache are torch 1.13 tensors. The fp8 cases (cr modes 0 / 1) are
PREPARE_ONLY: `kvgold prepare` writes them, but the torch of CI has no
float8 dtype to hold their caches, so the plug-in's golden is not called
on them. An int64 slot_mapping is no call of either torch form (both ops
take INT32 slots only)."""

CASES = ["cr_m2_hif8", "va_v2_bf16", "va_v2_wide_fp16"]

PREPARE_ONLY = ["cr_m0_ebump_e4m3", "cr_m1_e4m3_bf16"]

REFUSED = [
    ("error_slot_int64", ["slot_mapping", "int32 only"]),
]
