"""The IndexerCompressEpilog NumPy golden
(tools/gen/kvgen/indexer_compress_epilog.py) against values worked out by
hand from the kernels' formulas (cann-recipes-infer@fbc225d
ops/ascendc/src/indexer_compress_epilog, vllm-ascend@182b75ea84
csrc/attention/indexer_compress_epilog_v2): E8M0 codes where R-EBUMP and
R-CEIL part and on the 1e-4 floor, R-TRUNC, the fp32 scale per 128 with
its zero group, fp8 ties, HiF8, the short last group, which bytes each
preset writes and which it leaves. The vectors are only as right as this
generator, and the C operator is checked against the vectors."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import formats  # noqa: E402
from kvgen import indexer_compress_epilog as ice  # noqa: E402

POISON = 0x5A


def bf16(vals):
    return formats.bf16_encode(np.asarray(vals, dtype=np.float32))


def cr_row(x, xdtype, mode, cache_dtype, attrs=None):
    """x [1, d] written to slot 1 of 3-row caches poisoned with 0x5A
    (fp32 scale caches with 5.0): (cache row 1, scale row 1, caches)."""
    d = x.shape[-1]
    cache = np.full((3, d), POISON, dtype=np.uint8)
    sc = ice.scale_cols(d)
    if mode == 0:
        scale = np.full((3, sc), POISON, dtype=np.uint8)
    else:
        scale = np.full((3, sc), 5.0, dtype=np.float32)
    a = {"impl": "cr", "quant_mode": mode}
    a.update(attrs or {})
    out_c, out_s = ice.golden_cr(x, xdtype, np.array([1]), cache,
                                 cache_dtype, scale, a)
    return out_c[1], out_s[1], out_c, out_s


def group_of(amax, n=128, fill=0.5):
    """n values `fill` with -amax at 0 and +amax at 1."""
    v = np.full(n, fill)
    v[0], v[1] = -amax, amax
    return v


def test_coefficients_are_the_kernel_constants():
    # static_cast<float>(1.0) / 448.0f (single_row_mx_fp8.h SetMaxValue)
    # and the INV_* bit patterns of base.h
    one = np.float32(1.0)
    assert (one / np.float32(448.0)).view(np.uint32) == 0x3B124925
    assert (one / np.float32(57344.0)).view(np.uint32) == 0x37924925
    assert ice.INV_MAX_BITS["fp8_e4m3fn"] == 0x3B124925


def test_mode0_ebump_is_one_code_above_ceil_where_s_is_a_power_of_two():
    # 7 (x) fl(1/448) = 2^-6 (1 + 4.47e-8) rounds to 2^-6: E = 121, and
    # R-EBUMP adds one whatever the mantissa: code 122, divisor 2^-5
    # (R-CEIL would keep 121). 7 * 32 = 224 = 1.75 * 2^7 = e4m3 0x76,
    # -7 -> 0xF6; 0.5 * 32 = 16 = 2^4 -> 0x58.
    # One bf16 ulp below, 6.96875: s < 2^-6, E = 120, code 121, divisor
    # 2^-6: 6.96875 * 64 = 446 rounds to 448 (0x7E). One above, 7.03125:
    # E = 121, code 122: 7.03125 * 32 = 225 -> 224 (0x76).
    x = np.concatenate([group_of(7.0), group_of(6.96875),
                        group_of(7.03125)])
    row, sc, _, _ = cr_row(bf16([x]), "bf16", 0, "fp8_e4m3fn")
    assert list(sc) == [122, 121, 122]
    assert row[0] == 0xF6 and row[1] == 0x76 and row[2] == 0x58
    assert row[129] == 0x7E and row[257] == 0x76


def test_mode0_floor_zero_group_and_trunc():
    # amax 0: s = fl(1e-4) (x) fl(1/448) ~ 2^-22.1, E = 104, R-EBUMP 105
    # (divisor 2^-22); -0 keeps its sign (0x80). round_scale false
    # (R-TRUNC): code E(s) = 104, divisor s itself.
    x = np.zeros(128)
    x[3] = -0.0
    row, sc, _, _ = cr_row(bf16([x]), "bf16", 0, "fp8_e4m3fn")
    assert list(sc) == [105] and row[0] == 0 and row[3] == 0x80
    _, sc, _, _ = cr_row(bf16([x]), "bf16", 0, "fp8_e4m3fn",
                         {"round_scale": False})
    assert list(sc) == [104]
    # R-TRUNC, amax 1: s = fl(1/448) (E = 118: 2^-9 <= 1/448 < 2^-8);
    # 1 / s = 447.99998 -> 448 = 0x7E; 0.5 / s -> 224 = 0x76
    row, sc, _, _ = cr_row(bf16([group_of(1.0)]), "bf16", 0, "fp8_e4m3fn",
                           {"round_scale": False})
    assert list(sc) == [118] and row[1] == 0x7E and row[2] == 0x76


def test_mode0_e5m2():
    # 14 (x) fl(1/57344) = 2^-12 exactly: E 115, R-EBUMP 116, divisor
    # 2^-11: 14 * 2^11 = 28672 = 1.75 * 2^14 = e5m2 0x77 (exponent field
    # 14 + 15 = 29 -> 0x74, mantissa 0.75 -> 3)
    x = bf16([group_of(14.0, n=64, fill=1.0)])
    row, sc, _, _ = cr_row(x, "bf16", 0, "fp8_e5m2")
    assert list(sc) == [116] and row[1] == 0x77 and row[0] == 0xF7


def test_mode1_scale_ties_and_zero_group():
    # amax 7: s = 7 (x) bits 0x3B124925 = 2^-6 exactly; 7 / s = 448 = 0x7E;
    # ties of x / s round to even: 1.0625 -> 1.0 (0x38, not 1.125 0x39),
    # 17 -> 16 (0x58: exponent field 4 + 7 = 11; not 18 = 0x59),
    # 1.5 * 2^-9 -> 2 * 2^-9 (subnormal codes 1 | 2: 0x02).
    # Group 2 all +-0: s = 0, x / 0 is not finite, q := x: 0x00 / 0x80.
    g = group_of(7.0)
    g[2:5] = np.array([1.0625, 17.0, 1.5 * 2.0 ** -9]) * 2.0 ** -6
    z = np.zeros(128)
    z[1] = -0.0
    row, sc, _, _ = cr_row(bf16([np.concatenate([g, z])]), "bf16", 1,
                           "fp8_e4m3fn")
    assert sc[0] == np.float32(2.0 ** -6)
    assert sc[1] == 0.0 and not np.signbit(sc[1])
    assert list(row[:5]) == [0xFE, 0x7E, 0x38, 0x58, 0x02]
    assert row[128] == 0x00 and row[129] == 0x80


def test_mode1_scale_is_the_product_not_the_quotient():
    # amax 1: s = 1 (x) bits 0x3B124925 = the constant itself (true
    # division would give the same bits here); amax 3: 3 (x) C rounds to
    # 0x3BDB6DB8, 3 / 448 to 0x3BDB6DB7 (the vendor golden's value)
    x = np.concatenate([group_of(1.0), group_of(3.0)])
    _, sc, _, _ = cr_row(bf16([x]), "bf16", 1, "fp8_e4m3fn")
    assert sc.view(np.uint32)[0] == 0x3B124925
    assert sc.view(np.uint32)[1] == 0x3BDB6DB8


def test_mode2_hif8_and_the_undefined_scale_row():
    # 2.125 * 0.5 = 1.0625, a HiF8 tie (3 mantissa bits at 2^0) -> 1.125
    # (half away from zero); 81920 * 0.5 = 40960 saturates to 32768; the
    # written slot's scale row is undefined in the kernel: written as 0
    x = np.full(200, 1.0)
    x[0], x[1], x[2] = 2.125, -2.125, 81920.0
    row, sc, _, cs = cr_row(bf16([x]), "bf16", 2, "uint8", {"scale": 0.5})
    assert list(formats.hif8_decode(row[:3])) == [1.125, -1.125, 32768.0]
    assert list(sc) == [0.0, 0.0]
    assert (cs[[0, 2]] == 5.0).all()
    with pytest.raises(AssertionError):     # a misspelt attribute
        cr_row(bf16([x]), "bf16", 2, "uint8", {"x_scale": 0.5})


def test_short_last_group():
    # d 200: groups [0, 128) and [128, 200); amax 7 in the second group
    # only scales columns 128..199
    x = np.full(200, 0.25)
    x[150] = 7.0
    row, sc, _, _ = cr_row(bf16([x]), "bf16", 1, "fp8_e4m3fn")
    assert sc[1] == np.float32(2.0 ** -6) and row[150] == 0x7E
    assert sc[0] == np.float32(0.25) * np.uint32(0x3B124925).view(np.float32)


def test_cr_writes_its_slot_rows_only():
    # slot 1 written (d bytes, scale_col scales); rows 0 and 2 and a -1
    # token untouched; all -1: nothing changes
    x = bf16(np.ones((2, 128)))
    cache = np.full((3, 128), POISON, dtype=np.uint8)
    scale = np.full((3, 1), 5.0, dtype=np.float32)
    out_c, out_s = ice.golden_cr(x, "bf16", np.array([-1, 1]), cache,
                                 "fp8_e4m3fn", scale, {"quant_mode": 1})
    assert (out_c[[0, 2]] == POISON).all() and (out_s[[0, 2]] == 5.0).all()
    assert (out_c[1] == 0x7E).all()          # every x = amax: 448
    out_c, out_s = ice.golden_cr(x, "bf16", np.array([-1, -1]), cache,
                                 "fp8_e4m3fn", scale, {"quant_mode": 1})
    assert np.array_equal(out_c, cache) and np.array_equal(out_s, scale)


def test_va_v2_block_major_offsets():
    # cache [2, 3, 1, 140], d 128: block b = 3 x 128 codes at b * 420,
    # then 3 x 4 scale bytes at b * 420 + 384; slot 4 = block 1, pos 1:
    # codes at 420 + 128, scale at 420 + 384 + 4; bytes 396..419 of each
    # block never written
    x = bf16([group_of(7.0)])
    cache = np.full((2, 3, 1, 140), POISON, dtype=np.uint8)
    out = ice.golden_va_v2(x, "bf16", np.array([4]), cache,
                           {"impl": "va_v2"}).reshape(-1)
    changed = np.flatnonzero(out != POISON)
    assert changed.min() == 548 and changed.max() <= 420 + 384 + 7
    assert out[548] == 0xFE and out[549] == 0x7E
    s = out[420 + 388:420 + 392].view("<f4")[0]
    assert s == np.float32(2.0 ** -6)
    assert (out[:420] == POISON).all() and (out[420 + 396:] == POISON).all()
    # an explicit block_stride equal to block_size * cacheD: the same
    out2 = ice.golden_va_v2(x, "bf16", np.array([4]), cache,
                            {"impl": "va_v2", "block_stride": 420})
    assert np.array_equal(out2.reshape(-1), out)
