"""ReshapeAndCache in the forms ATB and torch_atb call it: enums as ints,
names and enum objects, wins / seq_len / offset_index as positional
inputs, key only (K_CACHE_V_BYPASS, _npu_reshape_and_cache_siso), and
KVHEAD reading past a short batch. Expected values are written here from
the operator's definition (docs/reshape_and_cache.md), on poisoned caches."""
import enum

import numpy as np
import pytest
import torch

import kvgold


class CompressType(enum.IntEnum):  # what a torch_atb-style binding hands over
    COMPRESS_TYPE_UNDEFINED = 0
    COMPRESS_TYPE_KVHEAD = 1
    COMPRESS_TYPE_KVHEAD_ROPE = 2


def poison(shape, dtype=np.float16, seed=1):
    """Random non-zero bit patterns (no NaN: equality stays meaningful)."""
    rng = np.random.RandomState(seed)
    return (rng.uniform(1, 2, size=shape) * rng.choice([-1, 1], size=shape)
            ).astype(dtype)


def kvhead_inputs():
    """B=3, N=2, D=32, seq_len [3, 1, 4] (cumulative ends 3, 4, 8); batch 1
    keeps w=2 > L=1 and w=4, batch 2 w=6 > L=4."""
    rng = np.random.RandomState(7)
    key = rng.uniform(-4, 4, (8, 2, 32)).astype(np.float16)
    value = rng.uniform(-4, 4, (8, 2, 32)).astype(np.float16)
    wins = np.array([3, 1, 2, 4, 6, 0], np.int32)
    seq = np.array([3, 1, 4], np.int32)
    slots = np.array([0, 3, 4, 6, 10, 16], np.int32)
    return key, value, poison((5, 4, 1, 32)), poison((5, 4, 1, 32), seed=2), \
        slots, wins, seq


def kvhead_expected(key, cache, slots, wins, seq):
    """Head i = b*N + h: rows end[b] - w .. end[b] - 1 of head h to slots
    slots[i] ..; `end` the cumulative end of batch b (ATB's kernel)."""
    out = cache.copy().reshape(-1, cache.shape[-1])
    ends = np.cumsum(seq)
    n = key.shape[1]
    for i, (s, w) in enumerate(zip(slots, wins)):
        for j in range(w):
            out[s + j] = key[ends[i // n] - w + j, i % n]
    return out.reshape(cache.shape)


@pytest.mark.parametrize("form", [1, "KVHEAD", "COMPRESS_TYPE_KVHEAD",
                                  "ReshapeAndCacheParam::COMPRESS_TYPE_KVHEAD",
                                  CompressType.COMPRESS_TYPE_KVHEAD,
                                  np.int32(1)])
def test_compress_type_forms_and_positional_inputs(form):
    key, value, kc, vc, slots, wins, seq = kvhead_inputs()
    want_k = kvhead_expected(key, kc, slots, wins, seq)
    want_v = kvhead_expected(value, vc, slots, wins, seq)
    # ATB's input order: key, value, key_cache, value_cache, slot_mapping,
    # wins, seq_len
    out = kvgold.reshape_and_cache(key, value, kc, vc, slots, wins, seq,
                                   compress_type=form)
    assert len(out) == 2 and out[0] is kc and out[1] is vc  # in place
    assert kc.tobytes() == want_k.tobytes()
    assert vc.tobytes() == want_v.tobytes()


def test_kvhead_batch_zero_cannot_read_before_key():
    key, value, kc, vc, slots, wins, seq = kvhead_inputs()
    before = kc.tobytes()
    wins[0] = 4                       # batch 0 ends at row 3
    with pytest.raises(kvgold.Error) as e:
        kvgold.reshape_and_cache(key, value, kc, vc, slots, wins, seq,
                                 compress_type=1)
    assert e.value.tensor == "wins" and e.value.position == 0
    assert "outside [0, 3]" in e.value.message
    assert kc.tobytes() == before


def test_kvhead_rope_positional_equals_keywords():
    rng = np.random.RandomState(3)
    key = rng.uniform(-1, 1, (10, 2, 32)).astype(np.float16)
    value = rng.uniform(-1, 1, (10, 2, 32)).astype(np.float16)
    wins = np.array([4, 2], np.int32)
    seq = np.array([10], np.int32)
    off = np.array([1, -1], np.int32)
    slots = np.array([0, 8], np.int32)
    a = kvgold.reshape_and_cache(key, value, poison((6, 4, 1, 32)),
                                 poison((6, 4, 1, 32)), slots, wins, seq, off,
                                 compress_type="COMPRESS_TYPE_KVHEAD_ROPE")
    b = kvgold.reshape_and_cache(key, value, poison((6, 4, 1, 32)),
                                 poison((6, 4, 1, 32)), slots, wins=wins,
                                 seq_len=seq, offset_index=off,
                                 compress_type=2)
    assert a[0].tobytes() == b[0].tobytes()
    assert a[1].tobytes() == b[1].tobytes()
    # head 1 (o = -1) is a plain copy of its 10 tokens from slot 8
    assert a[0].reshape(-1, 32)[8:18].tobytes() == key[:, 1].tobytes()


@pytest.mark.parametrize("field,kw", [
    ("compress_type", dict(compress_type=3)),
    ("compress_type", dict(compress_type="ROPE")),
    ("compress_type", dict(compress_type=True)),
    ("kv_cache_cfg", dict(kv_cache_cfg=5)),
    ("kv_cache_cfg", dict(kv_cache_cfg="BYPASS")),
    ("cache_layout", dict(kv_cache_cfg=2, cache_layout="ND")),
    ("cache_layout", dict(kv_cache_cfg=2, cache_layout=2)),
    ("cache_layout", dict(cache_layout=1)),
    ("cache_layout", dict(cache_layout="BNSD")),
])
def test_bad_enums_are_refused(field, kw):
    key = poison((2, 1, 16))
    kc = poison((1, 4, 1, 16), seed=3)
    before = kc.tobytes()
    with pytest.raises(kvgold.Error) as e:
        kvgold.reshape_and_cache(key, key, kc, kc.copy(),
                                 np.array([0, 1], np.int32), **kw)
    assert e.value.tensor == field
    assert kc.tobytes() == before


def nz_expected(src, cache, slots, c0):
    """cache [NB, N*D/C0, BS, C0]: chunk g of token t's N*D channels to
    cache[s // BS, g, s % BS]."""
    out = cache.copy()
    bs = cache.shape[2]
    flat = src.reshape(src.shape[0], -1)
    for t, s in enumerate(slots):
        if s >= 0:
            for g in range(flat.shape[1] // c0):
                out[s // bs, g, s % bs] = flat[t, g * c0:(g + 1) * c0]
    return out


def test_kv_cache_cfg_nz_is_cache_layout_nz():
    key = poison((3, 2, 16), seed=4)
    slots = np.array([17, -1, 2], np.int32)
    for cfg in (2, "K_CACHE_V_CACHE_NZ"):
        kc = poison((2, 2, 16, 16), seed=5)
        vc = poison((2, 2, 16, 16), seed=6)
        want = nz_expected(key, kc, slots, 16)
        kvgold.reshape_and_cache(key, key, kc, vc, slots, kv_cache_cfg=cfg)
        assert kc.tobytes() == want.tobytes()
    for layout in ("NZ", 29, "ACL_FORMAT_FRACTAL_NZ"):
        kc2 = poison((2, 2, 16, 16), seed=5)
        kvgold.reshape_and_cache(key, key, kc2, poison((2, 2, 16, 16)),
                                 slots, cache_layout=layout)
        assert kc2.tobytes() == kc.tobytes()


def siso_expected(key, cache, slots):
    out = cache.copy()
    bs = cache.shape[1]
    for t, s in enumerate(slots):
        if s >= 0:
            out[s // bs, s % bs] = key[t]
    return out


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int8])
def test_siso_torch_dtypes(dtype):
    """_npu_reshape_and_cache_siso and ATB's 3 positional inputs with
    kv_cache_cfg 1: key only, any D, in place, padding slots skipped."""
    g = torch.Generator().manual_seed(11)
    key = torch.randint(-100, 100, (5, 3, 7), generator=g).to(dtype)
    cache = torch.randint(-100, 100, (3, 4, 3, 7), generator=g).to(dtype)
    slots = torch.tensor([9, -1, 0, 4, -7], dtype=torch.int32)
    want = cache.clone()
    for t, s in enumerate(slots.tolist()):
        if s >= 0:
            want[s // 4, s % 4] = key[t]
    c1 = cache.clone()
    assert kvgold._npu_reshape_and_cache_siso(key, c1, slots) is None
    assert torch.equal(c1, want) and c1.dtype == dtype
    c2 = cache.clone()
    out = kvgold.reshape_and_cache(key, c2, slots, kv_cache_cfg=1)
    assert len(out) == 1 and out[0] is c2
    assert torch.equal(c2, want)
    c3 = cache.clone()
    out = kvgold.reshape_and_cache(key=key, key_cache=c3, slot_mapping=slots,
                                   kv_cache_cfg="K_CACHE_V_BYPASS",
                                   inplace=False)
    assert torch.equal(out[0], want) and torch.equal(c3, cache)


def test_siso_refusals_leave_the_cache():
    key = poison((4, 2, 8))
    kc = poison((2, 4, 2, 8), seed=9)
    before = kc.tobytes()
    with pytest.raises(kvgold.Error) as e:       # duplicate slot 5
        kvgold._npu_reshape_and_cache_siso(key, kc,
                                           np.array([0, 5, -1, 5], np.int32))
    assert e.value.tensor == "slot_mapping" and e.value.position == 3
    with pytest.raises(kvgold.Error) as e:       # BYPASS with a value
        kvgold.reshape_and_cache(key, key, kc, None,
                                 np.array([0, 1, 2, 3], np.int32),
                                 kv_cache_cfg=1)
    assert e.value.tensor == "value"
    with pytest.raises(kvgold.Error) as e:       # BYPASS with compression
        kvgold.reshape_and_cache(key, kc, np.array([0, 1, 2, 3], np.int32),
                                 kv_cache_cfg=1, compress_type=1)
    assert e.value.tensor == "kv_cache_cfg"
    assert kc.tobytes() == before
    assert kvgold.reshape_and_cache(key, kc, np.array([0, 1, 2, 3], np.int32),
                                    kv_cache_cfg=1)[0] is kc
    assert kc.tobytes() == siso_expected(key, np.frombuffer(
        before, np.float16).reshape(kc.shape), [0, 1, 2, 3]).tobytes()
