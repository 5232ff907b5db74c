"""Designed 128-tiles for the packed C8 MLA row cases, and "exact rows".

A tile is 128 integers k standing for the bf16 values k / 128 (|k| < 256:
every such value is a bf16, and its square a multiple of 2^-14). Each
builder searches the property it names with kvgen's own arithmetic and
asserts it, so a tile cannot silently stop testing what its name says:

- ties_e4m3: amax 1.75, so s = 1.75 / 448 = 2^-8 exactly and x / s = 2k:
  quotients exactly halfway between e4m3 codes in every binade from 16 to
  448 (RNE picks the even code).
- div_vs_recip: an amax whose amax / 448 differs from amax * fl(1/448)
  (0x3B124925) in the last bit, and elements whose code differs with it.
- sat_e4m3: an amax whose quotient amax / fl(amax / 448) is above 448 in
  binary32 (the saturating cast gives 448).
- ties_int8 (a2a3): amax 254/128, where fl(fl(1/amax) * 127) = 64 exactly,
  so y * m = k / 2: odd k are ties, and RNE differs from half-away where
  the floor is even.
- sat_int8 (a2a3): an amax whose amax * m rounds above 127.
- zero: +0 and -0.
- flt_min_* (vLLM, values not k/128): amaxes at and below 448 * 2^-126,
  where amax / 448 is FLT_MIN or subnormal and the kernel's floor
  fmaxf(., FLT_MIN) decides.

exact_row puts designed tiles in a 512-column row whose other values are
chosen so that the sum of squares is exactly 2^23 (in units of 2^-14: the
sum of x^2 is 512 exactly in any order, every partial sum being a multiple
of 2^-14 below 2^9).
"""
import numpy as np

from . import formats

F32 = np.float32
TILE, COLS = 128, 512
TARGET = 1 << 23               # sum of k^2 for sum of x^2 = 512
INV_448 = formats.bits_f32(np.uint32(0x3B124925))


def values(k):
    return (np.asarray(k, dtype=np.float64) / 128.0).astype(F32)


def fill(rng, fixed, amax_k):
    """A tile: the `fixed` k values first, then random |k| < amax_k with
    random signs, shuffled; amax_k itself is in `fixed`."""
    fixed = list(fixed)
    rest = rng.randint(1, amax_k, TILE - len(fixed))
    rest *= np.where(rng.randint(0, 2, rest.size) == 0, -1, 1)
    t = np.concatenate([np.array(fixed, dtype=np.int64), rest])
    return t[rng.permutation(TILE)]


def ties_e4m3(rng):
    ties = [k for k in range(17, 224)
            if (16 <= k < 32 and k % 2 == 1) or (32 <= k < 64 and k % 4 == 2)
            or (64 <= k < 128 and k % 8 == 4)
            or (128 <= k < 224 and k % 16 == 8)]
    fixed = [224, -224] + [k if i % 2 else -k for i, k in enumerate(ties)]
    s = values(224) / F32(448)
    assert s == F32(2.0 ** -8)
    return fill(rng, fixed, 224)


def div_vs_recip(rng):
    """The first amax k (from 255 down) where the two scales differ and
    some element's code differs; that amax, both signs, and every
    differing element."""
    ks = np.arange(1, 256)
    for a in range(255, 0, -1):
        va = values(a)
        s1, s2 = F32(va / F32(448)), F32(va * INV_448)
        if s1 == s2:
            continue
        v = values(ks[:a])
        q1 = formats.e4m3fn_encode((v / s1).astype(F32))
        q2 = formats.e4m3fn_encode((v / s2).astype(F32))
        diff = list(ks[:a][q1 != q2])
        if diff:
            return fill(rng, [a, -a] + diff + [-d for d in diff], a), a
    raise AssertionError("no amax where amax/448 and amax*fl(1/448) "
                         "change a code")


def sat_e4m3(rng):
    for a in range(255, 0, -1):
        va = values(a)
        if F32(va / F32(va / F32(448))) > F32(448):
            return fill(rng, [a, -a], a), a
    raise AssertionError("no amax whose quotient exceeds 448")


def m_a2(va):
    return F32(F32(F32(1) / va) * F32(127))


def ties_int8(rng):
    va = values(254)
    assert m_a2(va) == F32(64)
    odd = [k if i % 2 else -k for i, k in enumerate(range(1, 254, 2))]
    return fill(rng, [254] + odd[:TILE - 1], 254)


def sat_int8(rng):
    for a in range(255, 0, -1):
        va = values(a)
        if F32(va * m_a2(va)) > F32(127):
            return fill(rng, [a, -a], a), a
    raise AssertionError("no amax whose a2a3 product exceeds 127")


def zero_tile():
    v = np.zeros(TILE, dtype=F32)
    v[1::3] = -0.0
    return v


def flt_min_tile(rng, amax):
    """float32 values (bf16-exact, normal) of magnitude <= amax, amax
    itself included with both signs."""
    lo = np.log2(2.0 ** -126)
    mag = 2.0 ** rng.uniform(lo + 0.5, np.log2(amax), TILE)
    v = formats.bf16_decode(formats.bf16_encode(mag.astype(F32)))
    v = np.minimum(v, F32(amax)).astype(F32)
    v *= np.where(rng.randint(0, 2, TILE) == 0, -1, 1).astype(F32)
    v[0], v[1] = F32(amax), F32(-amax)
    assert np.all(np.abs(v) >= F32(2.0 ** -126))
    return v[rng.permutation(TILE)]


# ---- exact rows ---------------------------------------------------------

_TWO_SQ = None


def two_squares():
    """{c^2 + d^2: (c, d)} for 1 <= d <= c <= 255."""
    global _TWO_SQ
    if _TWO_SQ is None:
        _TWO_SQ = {}
        for c in range(1, 256):
            for d in range(1, c + 1):
                _TWO_SQ.setdefault(c * c + d * d, (c, d))
    return _TWO_SQ


def four_squares(d):
    sq = two_squares()
    for a in range(255, 0, -1):
        for b in range(a, 0, -1):
            r = d - a * a - b * b
            if r in sq:
                return [a, b] + list(sq[r])
    raise AssertionError("no four squares for %d" % d)


def exact_row(rng, designed):
    """k [512] with the tiles of `designed` ({tile: k[128]}) and the other
    columns chosen so that sum(k^2) = 2^23 exactly."""
    k = np.zeros(COLS, dtype=np.int64)
    free = np.ones(COLS, dtype=bool)
    for t, tk in designed.items():
        k[t * TILE:(t + 1) * TILE] = tk
        free[t * TILE:(t + 1) * TILE] = False
    cols = np.flatnonzero(free)
    fix, filler = cols[-4:], cols[:-4]
    k[filler] = rng.randint(60, 200, filler.size)
    rest = lambda: TARGET - int((k[cols[:-4]] ** 2).sum()) - int(
        (k[~free] ** 2).sum())
    while rest() > 4 * 200 ** 2:           # too little: grow a filler
        j = filler[rng.randint(filler.size)]
        k[j] = min(k[j] + 1, 255)
    while rest() < 4 * 100 ** 2:           # too much: shrink one
        j = filler[rng.randint(filler.size)]
        k[j] = max(k[j] - 1, 1)
    k[fix] = four_squares(rest())
    sign = np.where(rng.randint(0, 2, cols.size) == 0, -1, 1)
    k[cols] *= sign
    assert int((k.astype(np.int64) ** 2).sum()) == TARGET
    assert np.all(np.abs(k[cols]) >= 1) and np.all(np.abs(k) <= 255)
    return k
