"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched.

Mode 2's caches (uint8 HiF8 codes, fp32 scales) are torch 1.13 tensors.
The fp8 cases (modes 0 / 1) are PREPARE_ONLY: `kvgold prepare` writes
them, but the torch of CI has no float8 dtype to hold their caches, so the
plug-in's golden is not called on them. Mode 3's packed fp4 cache is
refused by `kvgold prepare` (ops-test-kit's 4-bit shapes count codes,
kvgold's bytes: no mapping yet). An int64 slot_mapping is no call of the
torch form (the op takes INT32 slots only)."""

CASES = ["m2_hif8_bf16_xscale"]

PREPARE_ONLY = ["m0_e4m3_bf16_blocks", "m1_e4m3_bf16_round",
                "m1_e4m3_bf16_trunc_d160"]

REFUSED = [
    ("m1_e5m2_fp16_trunc_int64", ["slot_mapping", "int32 only"]),
    ("m3_e2m1_bf16_edges", ["cache", "fp4_e2m1 is not mapped"]),
]
