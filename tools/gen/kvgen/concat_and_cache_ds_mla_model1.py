"""concat_and_cache_ds_mla preset "flashmla-model1": DeepSeek's MODEL1
(DSv4) FP8 sparse cache as FlashMLA's test quantiser writes it, independent
of kvgold's C.

Source: deepseek-ai/FlashMLA@520fec6a7fd98028705ccad373b7f0e3e2ae75fb
tests/quant.py: MODEL1_FP8Sparse meta (d 512, nope 448, rope 64, tile 64,
7 tiles) :14; _cast_scale_inv_to_ue8m0 :17-18; quantize_k_cache's MODEL1
branch :55-75. Read there, written here in kvgen's own terms:

- Block b of a [num_blocks, block_bytes] cache, block_bytes =
  ceil(block_size * 584 / 576) * 576 (:56-58). Row r of the block: the 448
  nope codes at r * 576 + [0, 448), the rope's bf16 bytes at r * 576 +
  [448, 576) (:59-61, :64); its 7 E8M0 scale bytes at block_size * 576 +
  r * 8 + [0, 7) (:62). Byte r * 8 + 7 and the tail [block_size * 584,
  block_bytes) are never written (torch.empty there; kvgold leaves them).
- Tile j (64 elements): amax = max |x| (bf16, exact in fp32), v =
  fl(amax / 448) (:66), v = max(v, fl(1e-4)), scale = 2^k with k the
  smallest integer with 2^k >= v (:18: pow(2, ceil(log2(v))); the byte is
  k + 127, :68). Codes: e4m3fn RNE of x / 2^k (:71) - exact in fp32 save
  an underflow far below e4m3's smallest subnormal, and |x / 2^k| <= 448
  always (asserted), so saturating and NaN-on-overflow casts agree.
- slot s < 0 skipped; 0 <= s < num_blocks * block_size writes block
  s // block_size, row s % block_size (the contract's; quantize_k_cache
  itself quantises a whole cache and has no slots). Refusals are the
  operator's business: only valid calls are modelled.

ceil_log2_self_check() is the proof, run at every generation, that the
exact k used here is FlashMLA's pow(2, ceil(log2(.))) for every positive
finite bf16 amax (module doc of that function); pow2_codes() checks that
kvgen.formats' e4m3fn encoder agrees with a nearest-value search over the
256 decoded codes on every quotient a case produces.
"""
import numpy as np

from . import formats

F32 = np.float32
NOPE, ROPE, TILE = 448, 64, 64
TILES = NOPE // TILE                          # 7
PAIR = NOPE + 2 * ROPE                        # 576: nope codes + rope bytes
SCALE_STRIDE = 8                              # 7 E8M0 bytes + 1 pad
TOKEN_BYTES = PAIR + SCALE_STRIDE             # 584
ALIGN = 576
E4M3_MAX = F32(448.0)
FLOOR = F32(1e-4)                             # HFAI's FP8_AMAX_MARGIN (:18)
E8M0_BIAS = 127


def block_bytes(block_size):
    """ceil(block_size * 584 / 576) * 576 (quant.py:57)."""
    return -(-block_size * TOKEN_BYTES // ALIGN) * ALIGN


def scale_exponent(amax):
    """amax float32 [...] (>= 0, finite) -> k int64: the smallest integer
    with 2^k >= max(fl(amax / 448), fl(1e-4)), from frexp (v = m * 2^e,
    0.5 <= m < 1: 2^k >= v at k = e, or k = e - 1 when m == 0.5). Exact:
    no logarithm is evaluated."""
    v = np.maximum((np.asarray(amax, dtype=F32) / E4M3_MAX).astype(F32),
                   FLOOR)
    m, e = np.frexp(v.astype(np.float64))
    return np.where(m == 0.5, e - 1, e).astype(np.int64)


def pow2_scale(k):
    """2^k as float32 (k from scale_exponent: -13 <= k <= 120, normal)."""
    return np.ldexp(np.ones(np.shape(k), dtype=F32), k).astype(F32)


def pow2_codes(tiles, k):
    """tiles float32 [T, n, w] (finite), k int64 [T, n] from
    scale_exponent -> e4m3fn RNE codes uint8 [T, n, w] of tiles / 2^k.
    The rule's payload, whatever the tile width (vLLM's use_ue8m0 rows
    use it with 128-tiles: kvgen.concat_and_cache_ds_mla)."""
    q = (tiles / pow2_scale(k)[:, :, None]).astype(F32)
    exact = tiles.astype(np.float64) / np.ldexp(1.0, k)[:, :, None]
    assert np.all(np.abs(exact) <= 448.0), "a quotient above 448"
    codes = formats.e4m3fn_encode(q, "sat")
    # the fp32 quotient is x / 2^k exactly unless it underflows, far below
    # e4m3's smallest subnormal: the codes of the exact quotient are equal
    assert np.array_equal(codes, formats.e4m3fn_encode(exact, "sat")), \
        "fp32 quotient changed a code"
    assert np.array_equal(e4m3_nearest(exact), codes), \
        "e4m3fn encoder != nearest-code search"
    return codes.astype(np.uint8)


def quantize_tiles(x):
    """x float32 [T, 448] (finite) -> (codes uint8 [T, 448], E8M0 bytes
    uint8 [T, 7])."""
    t = x.shape[0]
    tiles = x.reshape(t, TILES, TILE)
    k = scale_exponent(np.abs(tiles).max(axis=2))
    codes = pow2_codes(tiles, k).reshape(t, NOPE)
    return codes, (k + E8M0_BIAS).astype(np.uint8)


def written_slots(slots):
    return slots >= 0


def golden(ins, block_size):
    """The final kv_cache (storage array, same shape and dtype) of a valid
    call. ins: kv_c, k_pe bf16 codes (uint16), slot_mapping, kv_cache
    [num_blocks, block_bytes] (uint8 storage)."""
    slots = np.asarray(ins["slot_mapping"], dtype=np.int64).reshape(-1)
    keep = written_slots(slots)
    cache = ins["kv_cache"]
    out = np.array(cache, copy=True).view(np.uint8)
    assert out.ndim == 2 and out.shape[1] == block_bytes(block_size)
    if not keep.any():
        return out.view(cache.dtype)
    kv = np.asarray(ins["kv_c"]).reshape(-1, NOPE)[keep]
    pe = np.asarray(ins["k_pe"]).reshape(-1, ROPE)[keep]
    x = formats.bf16_decode(kv).astype(F32)
    assert np.all(np.isfinite(x)), "a valid case with non-finite kv_c"
    codes, e8m0 = quantize_tiles(x)
    rope = np.ascontiguousarray(pe.astype("<u2")).view(np.uint8)
    for i, s in enumerate(slots[keep]):
        b, r = divmod(int(s), block_size)
        out[b, r * PAIR:r * PAIR + NOPE] = codes[i]
        out[b, r * PAIR + NOPE:(r + 1) * PAIR] = rope[i]
        at = block_size * PAIR + r * SCALE_STRIDE
        out[b, at:at + TILES] = e8m0[i]
    return out.view(cache.dtype)


# ---- self-checks ------------------------------------------------------------

def ceil_log2_self_check():
    """FlashMLA's scale is pow(2, ceil(log2(max(v, 1e-4)))) with v =
    amax / 448 in fp32 (quant.py:18, :66). Over every positive finite bf16
    amax (0x0001..0x7F7F):

    1. k from frexp (scale_exponent) is the smallest k with 2^k >= v.
    2. A log2 that is off by less than `margin` (the smallest distance,
       in the log domain, from a v that is not a power of two to the
       integer below its log2) gives the same ceil: fl(log2 v) may only
       round onto that integer (ceil one too small) if the error exceeds
       it, and a power of two's log2 is an integer any faithful log2
       returns. The margin is asserted > 2^-10 (it is about 0.0064: v's
       significand is amax's 8 bits over 7, never within 1/224 of a power
       of two unless it is one), thousands of ulps of any |log2 v| <= 128
       in fp32, so torch's CPU log2 and CUDA's log2f agree.
    3. v = amax * fl(1/448) (how CUDA's torch divides by a Python scalar)
       gives the same k as the true division.
    Torch 1.13 (CPU) was also run once on all 32639 values: torch.pow(2,
    torch.clamp_min(v, 1e-4).log2().ceil()) == 2^k for every one, with v
    = amax / 448 and with v = amax * fl(1/448) alike."""
    codes = np.arange(1, 0x7F80, dtype=np.uint32)
    amax = formats.bf16_decode(codes).astype(F32)
    k = scale_exponent(amax)
    v = np.maximum((amax / E4M3_MAX).astype(F32), FLOOR).astype(np.float64)
    assert np.all(np.ldexp(1.0, k) >= v) and np.all(
        np.ldexp(1.0, k - 1) < v), "k is not the smallest power >= v"
    lg = np.log2(v)
    off = ~(np.ldexp(1.0, k) == v)
    margin = float((lg[off] - (k[off] - 1)).min())
    assert margin > 2.0 ** -10, "log2 margin %g" % margin
    recip = formats.bits_f32(np.uint32(0x3B124925))     # fl(1/448)
    v2 = (amax * recip).astype(F32)
    m2, e2 = np.frexp(np.maximum(v2, FLOOR).astype(np.float64))
    assert np.array_equal(np.where(m2 == 0.5, e2 - 1, e2), k), \
        "amax * fl(1/448) moves a scale"
    return margin


_E4M3_TABLE = None


def e4m3_nearest(q):
    """e4m3fn RNE by search: the finite code whose decoded value is
    nearest to q (float64), ties to the even code (mantissa LSB 0),
    -0 -> 0x80 for negative q that round to zero."""
    global _E4M3_TABLE
    if _E4M3_TABLE is None:
        c = np.arange(0, 0x7F, dtype=np.uint8)           # +0 .. 448
        _E4M3_TABLE = (c, formats.e4m3fn_decode(c).astype(np.float64))
    c, val = _E4M3_TABLE
    a = np.abs(np.asarray(q, dtype=np.float64)).reshape(-1)
    d = np.abs(val[None, :] - a[:, None])
    best = d.min(axis=1, keepdims=True)
    tie = d == best
    even = tie & (c[None, :] % 2 == 0)
    pick = np.where(even.any(axis=1), np.argmax(even, axis=1),
                    np.argmax(tie, axis=1))
    out = c[pick] | np.where(np.signbit(q).reshape(-1), 0x80, 0)
    return out.astype(np.uint8).reshape(np.shape(q))
