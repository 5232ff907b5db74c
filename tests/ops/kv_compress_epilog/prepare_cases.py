"""The vector cases of this operator that `kvgold prepare` and the
kvgold.ttk plug-in are checked on (tests/python/test_prepare.py,
test_ttk.py): CASES it writes, REFUSED (case, words of the message) it
refuses, leaving everything untouched. Each case's `impl` picks its torch
API (the binding's "impl=..." selectors); CASES covers ot's three modes
and cr's and cr_v2's uint8 caches (cr_v2's 4-D one: layout 2 from the
cache's rank).

The fp8-cache cases (sgk, va, cr modes 1 / 2, cr_v2 mxfp8) are
PREPARE_ONLY: `kvgold prepare` writes them, but the torch of CI (1.13)
has no float8 dtype to hold their caches, so the plug-in's golden is not
called on them (test_kce_functions.py runs them as uint8 codes with
cache_dtype)."""

CASES = ["ot_m1_e8m0_d576_int32", "ot_m0_trunc_x3d", "ot_m2_hif8_fp4",
         "ot_m1_cache4d_wide", "cr_m3_hif8_row", "crv2_m4_mxfp4_g16_l1",
         "crv2_m4_mxfp4_g32_l2"]

PREPARE_ONLY = ["sgk_m2_mxfp8_g64_l1", "va_m1_fp8_e5m2_d256_wide_int64",
                "cr_m2_mxfp8_d576", "crv2_m2_mxfp8_l1"]

REFUSED = [
    # sgk's torch API has no x_scale: the call form cannot express it
    ("error_sgk_x_scale", ["x_scale", "no such argument"]),
]
