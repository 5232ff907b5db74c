"""The KvCompressEpilog NumPy golden (tools/gen/kvgen/kv_compress_epilog.py)
against values derived by hand from the kernels' formulas
(docs/kv_compress_epilog.md): row widths, E8M0 codes where R-CEIL and
R-EBUMP part, the 1e-4 floor, zero groups, cr_v2's bf16 scale patterns
(two of them are the values cann-recipes-infer's own layout-2 test expects)
and each preset's slot policy. The vectors are only as right as this
generator, and the C operator is checked against the vectors."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import kv_compress_epilog as kce  # noqa: E402

BF16 = {1.0: 0x3F80, -1.0: 0xBF80, 14.0: 0x4160, -14.0: 0xC160,
        0.5: 0x3F00}


def row(attrs, cache_dtype, xrow, width=None):
    """One token written to slot 0 of a cache poisoned with 0x5A: that
    row's bytes (so a pad left unwritten shows as 0x5A, not as zero)."""
    d = len(xrow)
    p = kce.preset(attrs, cache_dtype)
    need = kce.row_bytes_needed(p, d)
    cache = np.full((2, width or need), 0x5A, dtype=np.uint8)
    x = np.array([xrow], dtype=np.uint16)
    out = kce.golden(x, np.array([0]), cache, cache_dtype, attrs)
    assert (out[1] == 0x5A).all()    # slot 1 named by no token: untouched
    return out[0]


def ones_row(d, value=1.0):
    return [BF16[value]] * d


def test_row_widths_follow_the_tilings():
    # ot 25fb6b928: mode 1 128 + (d-64) + n E8M0, unpadded; mode 0 the
    # same with bf16 scales rounded up to 32; mode 2 64 hif8 rope +
    # (d-64)/2 fp4 + 2 bytes per group of 64, rounded up to 32 (64 + 256
    # + 16 = 336 -> 352); sgk/cr 128-B rows with fp32 scales per 128;
    # cr_v2 data + 2*d/g rounded up to 32
    cases = [({"impl": "ot", "quant_mode": 1}, "uint8", 576, 648),
             ({"impl": "ot", "quant_mode": 0}, "uint8", 576, 672),   # 656
             ({"impl": "ot", "quant_mode": 2}, "uint8", 576, 352),
             ({"impl": "sgk", "quant_mode": 1}, "fp8_e4m3fn", 576, 768),
             ({"impl": "cr", "quant_mode": 3}, "uint8", 192, 192),
             ({"impl": "cr_v2", "quant_mode": 2}, "fp8_e4m3fn", 512, 544),
             ({"impl": "cr_v2", "quant_mode": 4, "quant_group_size": 16},
              "uint8", 512, 320),
             ({"impl": "cr_v2", "quant_mode": 4}, "uint8", 512, 288)]
    for attrs, dt, d, want in cases:
        assert kce.row_bytes_needed(kce.preset(attrs, dt), d) == want, attrs
    # sgk layout 2, g 128: 640 value bytes, ceil(512/128) = 4 scales -> 8
    p = kce.preset({"impl": "sgk", "quant_mode": 2, "layout": 2},
                   "fp8_e4m3fn")
    assert kce.row_bytes_needed(p, 576) == (640, 8)


def test_ceil_and_ebump_part_at_amax_1_75_times_2_to_k():
    # 14 (x) fl(1/448) = 2^-5 exactly, so M(s) = 0: R-CEIL keeps E = 122,
    # R-EBUMP adds one (123). Payload 14 / 2^-5 = 448 = e4m3 0x7E, and
    # 14 / 2^-4 = 224 = 1.75 * 2^7 = 0x76; -14 sets the sign bit.
    x = [BF16[14.0], BF16[-14.0]] + [BF16[1.0]] * 62 + ones_row(64)
    ot = row({"impl": "ot", "quant_mode": 1}, "uint8", x)
    assert ot[128] == 0x7E and ot[129] == 0xFE
    assert ot[128 + 64] == 122
    sgk = row({"impl": "sgk", "quant_mode": 2, "quant_group_size": 64},
              "fp8_e4m3fn", x)
    assert sgk[128] == 0x76 and sgk[129] == 0xF6
    assert sgk[128 + 64] == 123
    cr = row({"impl": "cr", "quant_mode": 2}, "fp8_e4m3fn", x)
    assert cr[128 + 64] == 123


def test_amax_below_the_1e4_floor():
    # amax 0.5 * 2^-15 < 1e-4: s = fl(1e-4) (x) fl(1/448) ~ 2^-22.1, so
    # R-CEIL gives 2^-22 (code 105) and R-EBUMP E(s) + 1 = 104 + 1 = 105;
    # x = 2^-16 then quantises to 2^6 = e4m3 0x68 (e = 6 + 7 = 13)
    tiny = 0x3780                        # bf16 2^-16
    x = [tiny] * 64 + ones_row(64)
    ot = row({"impl": "ot", "quant_mode": 1}, "uint8", x)
    assert ot[128 + 64] == 105 and ot[128] == 0x68
    sgk = row({"impl": "sgk", "quant_mode": 2, "quant_group_size": 64},
              "fp8_e4m3fn", x)
    assert sgk[128 + 64] == 105 and sgk[128] == 0x68


def test_ot_mode0_scale_is_the_rounded_scale_in_bf16():
    # amax 1: s = fl(1/448) ~ 2^-8.8, R-CEIL -> 2^-8, stored bf16 0x3B80
    # (little-endian 0x80 0x3B); payload 1 / 2^-8 = 256 = e4m3 0x78;
    # 128 + 64 + 2 = 194 bytes, zero pad to 224 (25fb6b928)
    ot = row({"impl": "ot", "quant_mode": 0}, "uint8", ones_row(128))
    assert ot[128] == 0x78
    assert list(ot[192:194]) == [0x80, 0x3B]
    assert len(ot) == 224 and not ot[194:224].any()


def test_blk128_zero_group_stores_scale_zero_and_x():
    # amax 0: s = 0, q = x / 0 is not finite, so q := x: +0 -> 0x00,
    # -0 -> 0x80; the fp32 scale is 0.0. The second group (amax 1):
    # s = 1 (x) fl(1/448) = 0x3B124925, x / s = 448 (1 - 4e-8) -> 0x7E.
    x = [0x0000, 0x8000] * 64 + ones_row(64) + ones_row(64)
    r = row({"impl": "sgk", "quant_mode": 1}, "fp8_e4m3fn", x)
    assert r[0] == 0x00 and r[1] == 0x80
    assert r[128] == 0x7E
    scales = r[192 + 128:192 + 128 + 8].view("<u4")
    assert scales[0] == 0 and scales[1] == 0x3B124925


def test_cr_v2_matches_its_own_layout2_test_values():
    # cann-recipes-infer@26694f1e test/test_layout2.cpp: x all 1.0 gives
    # mxfp8 data 0x78 / scale 0x3B80 and mxfp4 data 0x66 / scale 0x3E80
    r8 = row({"impl": "cr_v2", "quant_mode": 2}, "fp8_e4m3fn", ones_row(64))
    assert (r8[:64] == 0x78).all()
    assert list(r8[64:68].view("<u2")) == [0x3B80, 0x3B80]
    r4 = row({"impl": "cr_v2", "quant_mode": 4}, "uint8", ones_row(64))
    assert (r4[:32] == 0x66).all()
    assert list(r4[32:36].view("<u2")) == [0x3E80, 0x3E80]


def test_cr_v2_mxfp4_exponent_two_group():
    # bf16 exponent field 2 (amax 3 * 2^-126): scale 0x0000 but the
    # multiplier is 2^127, so 2^-126 -> 2 (code 4) and 3 * 2^-126 -> 6
    # (code 7): 0x74 for the pair (low nibble first)
    x = [0x0080, 0x0140] * 8 + ones_row(16)
    r = row({"impl": "cr_v2", "quant_mode": 4, "quant_group_size": 16},
            "uint8", x)
    assert r[0] == 0x74
    assert list(r[16:18]) == [0, 0]


def test_cr_mode3_at_x_scale_flt_max():
    # scale = FLT_MAX = 2^128 (1 - 2^-24). bf16 2^-126 (0x0080) -> 4 (1 -
    # 2^-24), rounds to 4 = 0x20 (0xA0 negative); 1.5 * 2^-126 (0x00C0)
    # -> 6 (1 - 2^-24) -> 6 = 1.5 * 2^2 = 0x24; 2^-114 (0x0680) ->
    # 2^14 = 0x6C; 1.0 -> FLT_MAX itself, 1.0078125 (0x3F81) and 16
    # (0x4180) -> +-Inf in binary32: all saturate to +-32768 (0x6E / 0xEE,
    # the kernels' SAT cast); +-0 -> 0x00 (hif8 has no -0)
    x = [0x0080, 0x8080, 0x00C0, 0x0680, 0x3F80, 0xBF80, 0x3F81, 0xC180,
         0x0000, 0x8000] + [0x0080] * 54
    r = row({"impl": "cr", "quant_mode": 3,
             "x_scale": float(np.finfo(np.float32).max)}, "uint8",
            x + ones_row(64))
    assert list(r[:10]) == [0x20, 0xA0, 0x24, 0x6C, 0x6E, 0xEE, 0x6E,
                            0xEE, 0x00, 0x00]
    assert len(r) == 128 and (r[64:] == 0x6E).all()


def test_slot_policies():
    d, cache = 128, np.full((3, 128), 7, dtype=np.uint8)
    x = np.array([ones_row(d)] * 3, dtype=np.uint16)
    # cr_v2 skips -3 and 3 (= rows) and writes slot 1
    out = kce.golden(x, np.array([-3, 3, 1]), cache, "uint8",
                     {"impl": "cr_v2", "quant_mode": 4})
    assert (out[0] == 7).all() and (out[2] == 7).all()
    assert not (out[1] == 7).all()
    # cr mode 3 skips -1 only
    out = kce.golden(x, np.array([-1, 2, 0]), cache, "uint8",
                     {"impl": "cr", "quant_mode": 3})
    assert (out[1] == 7).all() and not (out[0] == 7).all()
