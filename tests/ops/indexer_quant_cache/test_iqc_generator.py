"""The IndexerQuantCache NumPy golden (tools/gen/kvgen/indexer_quant_cache.py)
against values worked out by hand from the kernel's formulas
(ops-transformer@25fb6b928 attention/indexer_quant_cache): E8M0 codes where
the MX-FP8 rule turns and under the 1e-4 floor, the Normal mode's scales
with and without round_scale, HiF8 ties, MX-FP4 codes (clamp, zero and
subnormal groups, ties, saturation, the fp16 route), E1M2, the nibble order
and what stays untouched. The vectors are only as right as this generator,
and the C operator is checked against the vectors."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import formats, formats_mx  # noqa: E402
from kvgen import indexer_quant_cache as iqc  # noqa: E402

POISON = 0x5A


def bf16(vals):
    return formats.bf16_encode(np.asarray(vals, dtype=np.float32))


def fp16(vals):
    return np.asarray(vals, dtype=np.float16)


def run(x, xdtype, mode, cache_dtype, attrs=None, cache_cols=None,
        scale_cols=None):
    """x [1, d] written to slot 1 of 1 x 3 slot caches poisoned with 0x5A
    (fp32 scale caches with 5.0): (cache row 1, scale row 1, the caches)."""
    d = x.shape[-1]
    cc = cache_cols or iqc.cache_cols(mode, d)
    sc = scale_cols or iqc.scale_cols(mode, d)
    cache = np.full((1, 3, 1, cc), POISON, dtype=np.uint8)
    if mode in (1, 2):
        scale = np.full((1, 3, 1, sc), 5.0, dtype=np.float32)
    else:
        scale = np.full((1, 3, 1, sc), POISON, dtype=np.uint8)
    a = {"quant_mode": mode}
    a.update(attrs or {})
    out_c, out_s = iqc.golden(x, xdtype, np.array([1]), cache, cache_dtype,
                              scale, a)
    return out_c[0, 1, 0], out_s[0, 1, 0], out_c, out_s


def unpack(row):
    codes = np.empty(row.size * 2, dtype=np.uint8)
    codes[0::2], codes[1::2] = row & 0xF, row >> 4
    return codes


def test_coefficients_are_the_kernel_constants():
    # fl(1/448) and fl(1/57344) as the kernel's constexpr float division
    # and its INV_* bit patterns (base.h)
    one = np.float32(1.0)
    assert (one / np.float32(448.0)).view(np.uint32) == 0x3B124925
    assert (one / np.float32(57344.0)).view(np.uint32) == 0x37924925


def test_mx_fp8_codes_turn_where_s_is_a_power_of_two():
    # 7 (x) fl(1/448) = 2^-6 (1 + 4.47e-8) rounds to 2^-6 exactly: code
    # 127 - 6 = 121, payload 7 * 2^6 = 448 = e4m3 0x7E (-7: 0xFE). One bf16
    # ulp below (6.96875) still rounds up to 2^-6 (121), one above
    # (7.03125) to 2^-5 (122), where 7.03125 * 32 = 225 -> 224 = 0x76.
    groups = [7.0, 6.96875, 7.03125]
    x = np.concatenate([np.full(32, 1.0) * 0.5 for _ in groups])
    for i, a in enumerate(groups):
        x[i * 32] = -a if i == 0 else a
    row, sc, _, _ = run(bf16([x]), "bf16", 0, "fp8_e4m3fn")
    assert list(sc) == [121, 121, 122]
    assert row[0] == 0xFE and row[64] == 0x76
    # 0.5 * 64 = 32 = 2^5: e4m3 exponent 5 + 7 = 12 -> 0x60
    assert row[1] == 0x60 and row[33] == 0x60


def test_mx_fp8_floor_and_zero_group():
    # amax 0 and amax 2^-16 are both below the floor: s = fl(1e-4) (x)
    # fl(1/448) ~ 2^-22.1 -> code 127 - 22 = 105; 2^-16 * 2^22 = 64 =
    # e4m3 0x68 (e 6 + 7 = 13); -0 keeps its sign (0x80)
    x = np.zeros(64)
    x[1] = -0.0
    x[32] = 2.0 ** -16
    row, sc, _, _ = run(bf16([x]), "bf16", 0, "fp8_e4m3fn")
    assert list(sc) == [105, 105]
    assert row[0] == 0x00 and row[1] == 0x80 and row[32] == 0x68


def test_mx_fp8_e5m2_and_round_scale_ignored():
    # 14 (x) fl(1/57344) = 2^-12 exactly: code 115, 14 * 2^12 = 57344 =
    # e5m2 0x7B; round_scale false changes nothing in mode 0
    x = np.full(32, 1.0)
    x[5] = 14.0
    for rs in (True, False):
        row, sc, _, _ = run(fp16([x]), "fp16", 0, "fp8_e5m2",
                            {"round_scale": rs})
        assert list(sc) == [115] and row[5] == 0x7B


def test_normal_scale_round_and_trunc():
    # rowmax 7: s = 7 (x) bits(0x3B124925) = 2^-6 either way
    x = np.full(64, 0.25)
    x[9] = 7.0
    for rs in (True, False):
        row, sc, _, _ = run(bf16([x]), "bf16", 1, "fp8_e4m3fn",
                            {"round_scale": rs})
        assert sc[0] == np.float32(2.0 ** -6) and row[9] == 0x7E
    # rowmax 1: s = fl(1/448) (mantissa != 0); rounded up: 2^-8 (inv 256:
    # 0.25 -> 64 = 0x68); not rounded: s stored, inv = fl(1/s) =
    # 448 - 2^-15, 1 -> 447.99997 -> 448 = 0x7E
    x = np.full(64, 0.25)
    x[0] = 1.0
    row, sc, _, _ = run(bf16([x]), "bf16", 1, "fp8_e4m3fn")
    assert sc[0] == np.float32(2.0 ** -8) and row[1] == 0x68
    row, sc, _, _ = run(bf16([x]), "bf16", 1, "fp8_e4m3fn",
                        {"round_scale": False})
    assert sc[0].view(np.uint32) == 0x3B124925 and row[0] == 0x7E


def test_normal_zero_row():
    # s = 0 (no floor in mode 1); round: inv 2^127, x * inv = +-0;
    # not rounded: inv = +inf, 0 * inf is NaN and the kernel keeps x
    x = np.zeros(32)
    x[2] = -0.0
    for rs in (True, False):
        row, sc, _, _ = run(fp16([x]), "fp16", 1, "fp8_e5m2",
                            {"round_scale": rs})
        assert sc[0] == 0.0 and not np.signbit(sc[0])
        assert row[0] == 0 and row[2] == 0x80


def test_hif8_ties_away_and_the_scale_hole():
    # binade 0 keeps 3 mantissa bits: 1.0625 is a tie -> 1.125 (away);
    # 40960 = 2.5 * 2^14 ties up to 49152 > 32768: saturates; 2^-24 -> +0;
    # x_scale 0.5 first: 2.125 * 0.5 = 1.0625
    x = np.array([1.0625, -1.0625, 40960.0, 2.0 ** -24] + [1.0] * 28)
    row, sc, _, cs = run(bf16([x]), "bf16", 2, "uint8", scale_cols=2)
    got = formats.hif8_decode(row[:4])
    assert list(got) == [1.125, -1.125, 32768.0, 0.0] and row[3] == 0
    assert sc[0] == 0.0 and sc[1] == 5.0      # column 0: the 4 unset bytes
    x2 = np.array([2.125] + [1.0] * 31)
    row, _, _, _ = run(bf16([x2]), "bf16", 2, "uint8", {"x_scale": 0.5})
    assert formats.hif8_decode(row[:1])[0] == 1.125


def test_mx_fp4_ties_saturation_and_nibbles():
    # amax 6: bf16 exponent field 129, code 129 - 2 = 127, multiplier 1;
    # RINT ties to the even code: 0.25 -> 0, 0.75 -> 1, 2.5 -> 2, 5 -> 4,
    # 3.5 -> 4; element 2j in the low nibble
    t = [0.25, 0.75, 2.5, 5.0, 3.5, -1.25, 6.0, 1.75]
    x = np.resize(np.array(t), 32)
    row, sc, _, _ = run(bf16([x]), "bf16", 3, "fp4_e2m1")
    assert list(sc) == [127]
    vals = formats_mx.fp4_decode(unpack(row))
    assert list(vals[:8]) == [0.0, 1.0, 2.0, 4.0, 4.0, -1.0, 6.0, 2.0]
    assert row[0] == (0x2 << 4) | 0x0     # codes 0.0 (low), 1.0 (high)
    # amax 4 - 2^-6 (exponent field 128 -> code 126, multiplier 2):
    # 3.984375 * 2 = 7.97 saturates to 6
    x = np.full(32, 1.0)
    x[3] = -(4.0 - 2.0 ** -6)
    row, sc, _, _ = run(bf16([x]), "bf16", 3, "fp4_e2m1")
    assert list(sc) == [126] and unpack(row)[3] == 0xF
    x[3] = 4.0                            # a power of two: code 127
    _, sc, _, _ = run(bf16([x]), "bf16", 3, "fp4_e2m1")
    assert list(sc) == [127]


def test_mx_fp4_zero_subnormal_and_clamped_groups():
    # all zero / only bf16 subnormals (exponent field 0): code 0 and
    # multiplier 0, so every payload is a zero of x's sign; exponent
    # field 2 (x ~ 2^-125): clamped to emax, code 0, multiplier 2^127:
    # 1.25 * 2^-125 -> 5 -> 4 (tie), 1.75 * 2^-125 -> 7 -> 6
    sub = np.full(32, 3.0 * 2.0 ** -130)
    sub[1] = -sub[1]
    clamp = np.full(32, 1.25 * 2.0 ** -125)
    clamp[4] = 1.75 * 2.0 ** -125
    x = np.concatenate([np.zeros(32), sub, clamp])
    row, sc, _, _ = run(bf16([x]), "bf16", 3, "fp4_e2m1")
    codes = unpack(row)
    assert list(sc) == [0, 0, 0]
    assert not codes[:32].any()
    assert codes[32] == 0 and codes[33] == 0x8
    assert codes[64] == 0x6 and codes[68] == 0x7


def test_mx_fp4_fp16_route():
    # normal fp16: 5 + 2^-8 has only mantissa bit 0 set; the kernel ORs
    # bit 3 in before the TRUNC cast, so it still rounds up to 6; 5 -> 4
    x = np.full(32, 1.0)
    x[0], x[1], x[2] = 6.0, 5.0 + 2.0 ** -8, 5.0
    row, sc, _, _ = run(fp16([x]), "fp16", 3, "fp4_e2m1")
    assert list(sc) == [127] and list(unpack(row)[:3]) == [0x7, 0x7, 0x6]
    # fp16 subnormals m * 2^-24, max m = 5 (exponent field 105, code 103,
    # multiplier 2^24): m = 5 becomes 13 (bit 3 ORed in) and saturates
    x = np.zeros(32)
    x[0], x[1] = 5.0 * 2.0 ** -24, 2.0 * 2.0 ** -24
    row, sc, _, _ = run(fp16([x]), "fp16", 3, "fp4_e2m1")
    assert list(sc) == [103] and list(unpack(row)[:2]) == [0x7, 0x7]
    # m = 641 (code 110, multiplier 2^17): TRUNC keeps 8 significant
    # bits, 640 * 2^-7 = 5 is a tie -> 4, where 5.0078 would give 6
    x = np.zeros(32)
    x[0] = 641.0 * 2.0 ** -24
    row, sc, _, _ = run(fp16([x]), "fp16", 3, "fp4_e2m1")
    assert list(sc) == [110] and unpack(row)[0] == 0x6


def test_mx_fp4_e1m2():
    # emax 0: code = the exponent field (127 for amax in [1, 2)); grid
    # 0.25: 0.125 -> 0, 0.375 -> 0.5 (k 2), 1.125 -> 1 (k 4), 1.875 -> 1.75
    x = np.resize(np.array([0.125, 0.375, 1.125, 1.875, -0.625]), 32)
    row, sc, _, _ = run(bf16([x]), "bf16", 3, "fp4_e1m2")
    assert list(sc) == [127]
    assert list(unpack(row)[:5]) == [0, 2, 4, 7, 0x8 | 2]


def test_untouched_bytes_and_skipped_slots():
    # slot 1 written: its first d (fp4: d/2) bytes and scaleCol scales;
    # slots 0 and 2, the row tails and a -1 token's data stay as they were
    x = bf16(np.ones((2, 64)))
    cache = np.full((1, 3, 1, 40), POISON, dtype=np.uint8)
    scale = np.full((1, 3, 1, 3), POISON, dtype=np.uint8)
    out_c, out_s = iqc.golden(x, "bf16", np.array([-1, 1]), cache,
                              "fp4_e2m1", scale, {"quant_mode": 3})
    assert (out_c[0, [0, 2]] == POISON).all()
    assert (out_c[0, 1, 0, 32:] == POISON).all()
    assert (out_c[0, 1, 0, :32] != POISON).all()
    assert (out_s[0, 1, 0, 2] == POISON) and (out_s[0, [0, 2]] == POISON).all()
    out_c, out_s = iqc.golden(x, "bf16", np.array([-1, -1]), cache,
                              "fp4_e2m1", scale, {"quant_mode": 3})
    assert np.array_equal(out_c, cache) and np.array_equal(out_s, scale)
