"""Golden C8-MXFP K write (vllm-ascend AscendC8MXFPAttentionBackend's
reshape_and_cache, K side), vectorised over whole tensors.

Written from the source's own steps (quant_epilogs.md section 6.3, the
backend's reshape_and_cache and vllm_ascend/attention/mxfp_kv_cache.py),
not from kvgold's C:

1. key [T, N, D] -> npu_dynamic_mx_quant(e4m3fn, axis -1, block 32,
   scale_alg 0): kvgen's own DynamicMxQuant model on the [T*N, D] view
   gives fp8 codes [T, N, D] and E8M0 codes [T, N, D/64, 2] (pair p of
   group j = block 2j+p).
2. fp8 codes -> key_cache [Bn, N, D/32, Bs, 32] (npu_scatter_pa_kv_cache,
   PA_NZ): token t at slot s >= 0, b = s // Bs, o = s % Bs:
   key_cache[b, n, g, o, c] = y[t, n, 32 g + c]. Negative slots skip.
3. E8M0 codes -> key_scale_cache [Bn, N, Bs/16, D/64, 16, 2]
   (scatter_mxfp_k_scale_cache after mxfp_k_scale_slot_index): every slot
   clamped to >= 0 (clamp(min=0): a pad row lands on slot 0), then
   key_scale_cache[b, :, o // 16, :, o % 16, :] = scale[t].

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

from . import dynamic_mx_quant as dmq
from . import scatter_pa_kv_cache as spkc

DMQ_ATTRS = {"axis": -1, "round_mode": "rint", "dst_type": "fp8_e4m3fn",
             "block_size": 32, "scale_alg": 0, "dst_type_max": 0.0,
             "max_low_bound": 0.0}
NZ = 32          # PA_NZ piece: 32 one-byte elements
FRAG = 16        # K-scale cache: slots per tile
GROUP = 64       # K-scale cache: columns per (even, odd) pair of blocks
BS_LIMIT = 65536  # ScatterPaKvCache: block_size below UINT16_MAX + 1
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
    """Slots past the cache and two real tokens on one slot are refused
    (ScatterPaKvCache); a real token on slot 0 beside a pad row is a race
    on slot 0's scales (vLLM never does it: slot 0 is its null block)."""
    s = np.asarray(slot, dtype=np.int64)
    try:
        spkc.check_slots(s, rows)
    except ValueError as e:
        raise Refused("slot_mapping", str(e))
    _need(not ((s == 0).any() and (s < 0).any()), "slot_mapping",
          "a token writes slot 0 and a pad row (negative slot) is clamped "
          "to slot 0: their scales race")


def check_values(key, ktag):
    """DynamicMxQuant's own refusals of key's values."""
    t, n, d = key.shape
    bad = dmq.refusals(key.reshape(t * n, d), ktag, DMQ_ATTRS)
    _need(bad.size == 0, "key", "DynamicMxQuant refuses element %s"
          % (bad[:1].tolist(),))


def quantise(key, ktag):
    """(fp8 codes [T, N, D], E8M0 codes [T, N, D/64, 2])."""
    t, n, d = key.shape
    y, sc = dmq.golden(key.reshape(t * n, d), ktag, DMQ_ATTRS)
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
    # the same bytes as kvgen's ScatterPaKvCache PA_NZ model
    same = spkc.pa_nz(kc, y.reshape(y.shape[0], -1), slot)
    assert np.array_equal(out, same)
    return out


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
    """The same write through flat byte offsets, as a row layout states
    them: block stride N*Bs*D/32, head stride Bs*D/32, tile of 16 slots
    with tile stride (D/64)*32, slot stride 2, pieces of 2 codes 32 bytes
    apart. A second formulation, so an index slip in either shows."""
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
