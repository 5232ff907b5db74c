"""Golden C8-MXFP K write (vllm-ascend AscendC8MXFPAttentionBackend, the K
half of its cache write), vectorised over whole tensors.

Written from the source's own steps (docs/c8_mxfp_k_cache.md;
quant_epilogs.md section 6.3; vllm_ascend/attention/mxfp_kv_cache.py), not
from kvgold's C:

1. key [T, N, D] -> MX quantisation (e4m3fn, axis -1, block 32, scale
   algorithm 0 = OCP): kvgen's own block quantiser (kvgen/mx_block_quant.py)
   on the [T*N, D] view gives fp8 codes [T, N, D] and E8M0 codes
   [T, N, D/64, 2] (pair p of group j = block 2j+p).
2. fp8 codes -> key_cache [Bn, N, D/32, Bs, 32] (the paged cache's PA_NZ
   scatter): token t at slot s >= 0, b = s // Bs, o = s % Bs:
   key_cache[b, n, g, o, c] = y[t, n, 32 g + c]. Negative slots skip.
3. E8M0 codes -> key_scale_cache [Bn, N, Bs/16, D/64, 16, 2]
   (mxfp_k_scale_slot_index + scatter_mxfp_k_scale_cache): every slot
   clamped to >= 0 (clamp(min=0): a pad row lands on slot 0), then
   key_scale_cache[b, :, o // 16, :, o % 16, :] = scale[t].
Both writes are also done through flat byte offsets (the row layout's
strides) and must agree, so an index slip in either formulation shows.

Slot 0 as the sink: with one pad row its scales are that row's; with two
or more the pad rows race for it (index_put_ without accumulate), so the
bytes are undefined. The expected file holds the last pad row's (token
order: what a writer in token order leaves), and the case says the bytes
are "don't care" (see cases_c8_mxfp_k_cache.py).

check_shapes, check_slots and check_values raise Refused(tensor,
message) for a call the operator refuses (the contract in
docs/c8_mxfp_k_cache.md); golden runs the last two itself.
"""
import numpy as np

from . import mx_block_quant as mxq

MX_ATTRS = {"axis": -1, "round_mode": "rint", "dst_type": "fp8_e4m3fn",
             "block_size": 32, "scale_alg": 0, "dst_type_max": 0.0,
             "max_low_bound": 0.0}
NZ = 32          # PA_NZ piece: 32 one-byte elements
FRAG = 16        # K-scale cache: slots per tile
GROUP = 64       # K-scale cache: columns per (even, odd) pair of blocks
BS_LIMIT = 65536  # the PA_NZ scatter: block_size below UINT16_MAX + 1
KEY_TAGS = ("bf16", "fp16", "fp32")
SCALE_TAGS = ("e8m0", "uint8")


class Refused(Exception):
    def __init__(self, tensor, message):
        Exception.__init__(self, "%s: %s" % (tensor, message))
        self.tensor = tensor


def _need(ok, tensor, message):
    if not ok:
        raise Refused(tensor, message)


def check_shapes(key, ktag, slot, stag, kc, kctag, ksc, ksctag):
    """The dtype and shape refusals, in the contract's order."""
    _need(ktag in KEY_TAGS, "key",
          "dtype %s (want bf16, fp16 or fp32)" % ktag)
    _need(key.ndim == 3, "key", "rank %d (want [T, N, D])" % key.ndim)
    t, n, d = key.shape
    _need(d % GROUP == 0, "key", "head_dim %d not a multiple of 64" % d)
    _need(stag in ("int32", "int64"), "slot_mapping",
          "dtype %s (want int32 or int64)" % stag)
    _need(slot.shape == (t,), "slot_mapping",
          "shape %s (want [%d])" % (list(slot.shape), t))
    _need(kctag == "fp8_e4m3fn", "key_cache",
          "dtype %s (want fp8_e4m3fn)" % kctag)
    _need(kc.ndim == 5 and kc.shape[1:3] == (n, d // NZ) and
          kc.shape[4] == NZ, "key_cache",
          "shape %s (want [Bn, %d, %d, Bs, 32])" % (list(kc.shape), n,
                                                     d // NZ))
    bn, bs = kc.shape[0], kc.shape[3]
    _need(bs % GROUP == 0, "key_cache",
          "block_size %d not a multiple of 64" % bs)
    _need(bs < BS_LIMIT, "key_cache", "block_size %d >= 65536" % bs)
    _need(ksctag in SCALE_TAGS, "key_scale_cache",
          "dtype %s (want e8m0 or uint8)" % ksctag)
    want = (bn, n, bs // FRAG, d // GROUP, FRAG, 2)
    _need(ksc.shape == want, "key_scale_cache",
          "shape %s (want %s)" % (list(ksc.shape), list(want)))


def check_slots(slot, rows):
    """Refused, as the paged scatter refuses them: a slot past the cache,
    two real tokens on one slot. And a real token on slot 0 beside a pad
    row: both write slot 0's scales, a race (vLLM never does it: slot 0 is
    its null block)."""
    s = np.asarray(slot, dtype=np.int64)
    for t in np.flatnonzero(s >= rows)[:1]:
        raise Refused("slot_mapping", "token %d: slot %d outside [0, %d)"
                      % (t, s[t], rows))
    real = s[s >= 0]
    _need(np.unique(real).size == real.size, "slot_mapping",
          "duplicate slots")
    _need(not ((s == 0).any() and (s < 0).any()), "slot_mapping",
          "a token writes slot 0 and a pad row (negative slot) is clamped "
          "to slot 0: their scales race")


def check_values(key, ktag):
    """The MX quantiser's own refusals of key's values (subnormals)."""
    t, n, d = key.shape
    bad = mxq.refusals(key.reshape(t * n, d), ktag, MX_ATTRS)
    _need(bad.size == 0, "key", "the MX quantiser refuses element %s"
          % (bad[:1].tolist(),))


def quantise(key, ktag):
    """(fp8 codes [T, N, D], E8M0 codes [T, N, D/64, 2])."""
    t, n, d = key.shape
    y, sc = mxq.golden(key.reshape(t * n, d), ktag, MX_ATTRS)
    return y.reshape(t, n, d), sc.reshape(t, n, d // GROUP, 2)


def write_payload(kc, y, slot):
    """PA_NZ scatter of the fp8 codes, negative slots skipped."""
    out = kc.copy()
    bs = kc.shape[3]
    keep = slot >= 0
    s = slot[keep]
    k, n, d = y[keep].shape
    b, o = (s // bs)[:, None, None], (s % bs)[:, None, None]
    hn = np.arange(n)[None, :, None]
    g = np.arange(d // NZ)[None, None, :]
    out[b, hn, g, o, :] = y[keep].reshape(k, n, d // NZ, NZ)
    assert np.array_equal(out, payload_by_offset(kc, y, slot))
    return out


def payload_by_offset(kc, y, slot):
    """The payload write through flat byte offsets: block stride N*D*Bs,
    head stride D*Bs, slot stride 32, pieces of 32 codes Bs*32 apart."""
    bn, n, pieces, bs, _ = kc.shape
    d = pieces * NZ
    out = kc.copy().reshape(-1)
    e = np.arange(d)
    for t in np.flatnonzero(slot >= 0):
        b, o = int(slot[t]) // bs, int(slot[t]) % bs
        for h in range(n):
            at = (b * (n * d * bs) + h * (d * bs) + o * NZ +
                  (e // NZ) * (bs * NZ) + e % NZ)
            out[at] = y[t, h]
    return out.reshape(kc.shape)


def write_scales(ksc, sc, slot):
    """K-scale scatter with slots clamped to 0: the real tokens, then the
    pad rows in token order (of several, the last one stays in slot 0)."""
    out = ksc.copy()
    bs = ksc.shape[2] * FRAG
    real = np.flatnonzero(slot >= 0)
    pads = np.flatnonzero(slot < 0)
    for toks in (real, pads[-1:]):
        s = np.maximum(slot[toks], 0)
        b, o = s // bs, s % bs
        # advanced indices split by slices: their axis comes first, so the
        # target is [tokens, N, D/64, 2] like the token's scales
        out[b, :, o // FRAG, :, o % FRAG, :] = sc[toks]
    assert np.array_equal(out, scales_by_offset(ksc, sc, slot))
    return out


def scales_by_offset(ksc, sc, slot):
    """The scale write through flat byte offsets: block stride N*Bs*D/32,
    head stride Bs*D/32, tiles of 16 slots (D/64)*32 apart, slot stride 2
    within a tile, pieces of 2 codes 32 bytes apart."""
    bn, n, tiles, pairs, _, _ = ksc.shape
    bs, d = tiles * FRAG, pairs * GROUP
    out = ksc.copy().reshape(-1)
    toks = list(np.flatnonzero(slot >= 0)) + list(np.flatnonzero(slot < 0))
    codes = sc.reshape(sc.shape[0], n, -1)    # element e = 2j + p
    e = np.arange(d // NZ)
    for t in toks:
        s = max(int(slot[t]), 0)
        b, o = s // bs, s % bs
        for h in range(n):
            at = (b * (n * bs * d // NZ) + h * (bs * d // NZ) +
                  (o // FRAG) * (pairs * NZ) + (o % FRAG) * 2 +
                  (e // 2) * NZ + (e % 2))
            out[at] = codes[t, h]
    return out.reshape(ksc.shape)


def golden(key, ktag, slot, kc, ksc):
    """(key_cache', key_scale_cache', pad rows) of a valid call."""
    slot = np.asarray(slot, dtype=np.int64)
    check_slots(slot, kc.shape[0] * kc.shape[3])
    check_values(key, ktag)
    y, sc = quantise(key, ktag)
    return (write_payload(kc, y, slot), write_scales(ksc, sc, slot),
            int((slot < 0).sum()))
