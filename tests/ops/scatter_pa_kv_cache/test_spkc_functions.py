"""ScatterPaKvCache from Python: the aclnn name (scatter_pa_kv_cache) and
torch_npu's npu_scatter_pa_kv_cache / _functional, with expected caches
built here from the kernels' addressing (not from kvgold)."""
import numpy as np
import pytest

import kvgold


def _data(shape, seed, dtype=np.float16):
    rng = np.random.RandomState(seed)
    return rng.uniform(-4, 4, size=shape).astype(dtype)


def test_norm_in_place_and_padding():
    key, value = _data((3, 2, 16), 1), _data((3, 2, 8), 2)
    kc = np.full((2, 4, 2, 16), 7, np.float16)
    vc = np.full((2, 4, 2, 8), 5, np.float16)
    slots = np.array([6, -1, 1], np.int64)
    assert kvgold.npu_scatter_pa_kv_cache(key, value, kc, vc, slots,
                                          cache_mode="Norm") is None
    want_k = np.full((8, 2, 16), 7, np.float16)
    want_k[6], want_k[1] = key[0], key[2]
    assert kc.tobytes() == want_k.tobytes()
    assert np.array_equal(vc.reshape(8, 2, 8)[6], value[0])
    assert np.all(vc.reshape(8, 2, 8)[[0, 2, 3, 4, 5, 7]] == 5)


def test_torch_npu_default_is_pa_nz():
    """The default trap: without cache_mode, torch_npu writes NZ bytes."""
    key = _data((2, 1, 32), 3)
    kc = np.full((1, 2, 4, 16), 9, np.float16)  # [NB, N*D/16, BS, 16]
    vc = kc.copy()
    slots = np.array([3, 0], np.int32)
    kvgold.npu_scatter_pa_kv_cache(key, key, kc, vc, slots)
    for t, s in enumerate(slots):
        for g in range(2):  # chunk g of 16 channels
            assert np.array_equal(kc[0, g, s], key[t, 0, 16 * g:16 * g + 16])
    assert np.all(kc[0, :, [1, 2]] == 9)


def test_functional_leaves_inputs():
    key = _data((2, 1, 32), 4)
    kc = np.full((1, 2, 4, 16), 9, np.float16)
    vc = kc.copy()
    k2, v2 = kvgold.npu_scatter_pa_kv_cache_functional(
        key, key, kc, vc, np.array([1, 2], np.int32))
    assert np.all(kc == 9) and np.all(vc == 9)
    assert np.array_equal(k2[0, 1, 2], key[1, 0, 16:])


def test_key_only_and_nct():
    storage = _data((100,), 5)
    kc = np.full((1, 4, 1, 16), 1, np.float16)
    k2, v2 = kvgold.scatter_pa_kv_cache(
        storage, kc, np.array([2, 0], np.int32), scatter_mode="Nct",
        strides=(40, 40), offsets=(3, 0))
    assert v2 is None and k2 is kc
    assert np.array_equal(kc[0, 2, 0], storage[3:19])
    assert np.array_equal(kc[0, 0, 0], storage[43:59])


def test_refusals_name_token_and_slot():
    key = _data((3, 1, 16), 6)
    kc = np.full((1, 4, 1, 16), 2, np.float16)
    before = kc.copy()
    with pytest.raises(kvgold.Error) as e:
        kvgold.scatter_pa_kv_cache(key, kc, np.array([1, 3, 1], np.int32))
    assert "tokens 0 and 2 both write slot 1" in str(e.value)
    with pytest.raises(kvgold.Error) as e:
        kvgold.scatter_pa_kv_cache(key, kc, np.array([1, 4, 0], np.int32))
    assert "token 1: slot 4" in str(e.value)
    assert kc.tobytes() == before.tobytes()


def test_cache_mode_shared_vocabulary():
    """cache_mode is the operators' shared vocabulary: "" is Norm here (as
    aclnn reads it), another operator's mode is refused by name, a word
    that is no mode is refused as such; nothing is written on refusal."""
    key = _data((2, 1, 16), 7)
    kc = np.full((1, 4, 1, 16), 3, np.float16)
    kvgold.scatter_pa_kv_cache(key, kc, np.array([2, 0], np.int32),
                               cache_mode="")
    assert np.array_equal(kc[0, 2, 0], key[0, 0])
    assert np.array_equal(kc[0, 0, 0], key[1, 0])
    before = kc.copy()
    for mode, words in (("PA_BNSD", "PA_BNSD is not a mode of "
                         "ScatterPaKvCache"),
                        ("pa_nz", '"pa_nz"')):
        with pytest.raises(kvgold.Error) as e:
            kvgold.scatter_pa_kv_cache(key, kc, np.array([1, 3], np.int32),
                                       cache_mode=mode)
        assert words in str(e.value) and "cache_mode" in str(e.value)
        assert kc.tobytes() == before.tobytes()


def test_copy_only_dtypes_by_tag():
    key = np.arange(2 * 1 * 32, dtype=np.uint8).reshape(2, 1, 32) + 1
    kc = np.zeros((1, 2, 1, 32), np.uint8) + 0xEE
    vc = kc.copy()
    kvgold.scatter_pa_kv_cache(
        key, kc, np.array([1, 0], np.int32), key, vc,
        dtypes={n: "fp4_e2m1" for n in ("key", "key_cache", "value",
                                        "value_cache")})
    assert np.array_equal(kc[0, 1, 0], key[0, 0])  # whole bytes: both nibbles
    assert np.array_equal(vc[0, 0, 0], key[1, 0])
    with pytest.raises(kvgold.Error) as e:  # fp4 key-only: not a scenario
        kvgold.scatter_pa_kv_cache(key, kc, np.array([1, 0], np.int32),
                                   dtypes={"key": "fp4_e2m1",
                                           "key_cache": "fp4_e2m1"})
    assert "fp4_e2m1 is copied only" in str(e.value)
    u16 = np.arange(16, dtype=np.uint16).reshape(1, 1, 16) + 300
    c16 = np.zeros((1, 1, 1, 16), np.uint16)
    kvgold.scatter_pa_kv_cache(u16, c16, np.array([0], np.int32),
                               dtypes={"key": "uint16",
                                       "key_cache": "uint16"})
    assert np.array_equal(c16[0, 0, 0], u16[0, 0])


def test_compressed_modes_by_hand():
    """Alibi keeps the last w tokens; Rope puts one binary32 mean between
    prefix and suffix (2048, 1, 1 -> 2050/3 -> fp16 683.5)."""
    key = _data((5, 1, 16), 7)
    kc = np.full((2, 4, 1, 16), 3, np.float16)
    idx = np.int64
    kvgold.scatter_pa_kv_cache(
        key, kc, np.array([3], idx), key, kc.copy(), scatter_mode="Alibi",
        compress_lens=np.array([2], idx), seq_lens=np.array([5], idx))
    flat = kc.reshape(8, 16)
    assert np.array_equal(flat[3], key[3, 0])
    assert np.array_equal(flat[4], key[4, 0])
    assert np.all(flat[[0, 1, 2, 5, 6, 7]] == 3)
    key = _data((4, 1, 16), 8)
    key[:3, 0, 0] = [2048, 1, 1]
    kc = np.full((2, 4, 1, 16), 3, np.float16)
    i32 = np.int32
    kvgold.scatter_pa_kv_cache(
        key, kc, np.array([5], i32), key, kc.copy(), scatter_mode="Rope",
        compress_lens=np.array([3], i32), seq_lens=np.array([4], i32),
        compress_seq_offset=np.array([0], i32))
    flat = kc.reshape(8, 16)
    acc = np.zeros(16, np.float32)
    for t in range(3):
        acc = acc + key[t, 0].astype(np.float32)
    assert flat[5].tobytes() == (acc / np.float32(3)).astype(
        np.float16).tobytes()
    assert flat[5, 0] == np.float16(683.5)
    assert np.array_equal(flat[6], key[3, 0])


def test_torch_npu_forms_as_op_plugin_tests_call_them():
    """As op-plugin's test_scatter_pa_kv_cache.py calls it through the
    stand-in: "NPU" copies made by .npu(), positional key, value, caches,
    slots; cache_mode=None reaches aclnn as a null string (op-plugin
    ScatterPaKvCacheNpuOpApi.cpp: has_value() ? ... : nullptr), i.e. the
    op's own default Norm; the default PA_NZ on caches cast to format 29."""
    torch = pytest.importorskip("torch")
    import kvgold.torch_npu as tn
    tn.install()
    try:
        import torch_npu
        key = torch.from_numpy(_data((3, 2, 16), 11))
        value = torch.from_numpy(_data((3, 2, 16), 12))
        kc = torch.full((2, 4, 2, 16), 7, dtype=torch.float16).npu()
        vc = torch.full((2, 4, 2, 16), 5, dtype=torch.float16).npu()
        slots = torch.tensor([5, 0, 2], dtype=torch.int32).npu()
        assert torch_npu.npu_scatter_pa_kv_cache(
            key.npu(), value.npu(), kc, vc, slots, cache_mode=None) is None
        got_k = kc.cpu().reshape(8, 2, 16)
        for t, s in enumerate([5, 0, 2]):
            assert torch.equal(got_k[s], key[t])
            assert torch.equal(vc.cpu().reshape(8, 2, 16)[s], value[t])
        assert bool((got_k[[1, 3, 4, 6, 7]] == 7).all())
        assert kc.dtype == torch.float16 and kc.shape == (2, 4, 2, 16)

        # PA_NZ (the default) on caches cast to FRACTAL_NZ, as _custom_test
        nz = torch.full((2, 2, 4, 16), 9, dtype=torch.float16)
        k_nz = torch_npu.npu_format_cast(nz.npu().contiguous(), 29)
        v_nz = torch_npu.npu_format_cast(nz.npu().contiguous(), 29)
        torch_npu.npu_scatter_pa_kv_cache(key.npu(), value.npu(), k_nz,
                                          v_nz, slots)
        flat = key.reshape(3, 32)
        for t, s in enumerate([5, 0, 2]):
            for g in range(2):
                assert torch.equal(k_nz.cpu()[s // 4, g, s % 4],
                                   flat[t, 16 * g:16 * g + 16])
        assert bool((k_nz.cpu()[0, :, 1] == 9).all())
        assert bool((nz == 9).all())            # .npu() made device copies
    finally:
        tn.uninstall()


def test_torch_npu_950_batched_key_picks_the_compressed_mode():
    """On the 950 torch_npu's call with a 4-D key [B, S, N, D] and
    compress_lens / seq_lens is the compressed write: Rope when
    compress_seq_offsets is given, else Alibi; the vectors' expected
    caches come from the NumPy generator."""
    from conftest import VECTORS
    for name in ("alibi_4d_key_fp16", "rope_4d_key_bf16_int64_index"):
        c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/" + name)
        i = c.inputs
        kc, vc = kvgold.npu_scatter_pa_kv_cache_functional(
            i["key"], i["value"], i["key_cache"], i["value_cache"],
            i["slot_mapping"], compress_lens=i["compress_lens"],
            compress_seq_offsets=i.get("compress_seq_offset"),
            seq_lens=i["seq_lens"], cache_mode="Norm")
        assert kc.tobytes() == c.expected["key_cache"].tobytes(), name
        assert vc.tobytes() == c.expected["value_cache"].tobytes(), name
    # a 3-D key keeps scatter_mode None: the compress tensors are refused
    key = _data((2, 1, 16), 8)
    kc = np.full((1, 4, 1, 16), 3, np.float16)
    with pytest.raises(kvgold.Error) as e:
        kvgold.npu_scatter_pa_kv_cache(
            key, key, kc, kc.copy(), np.array([0, 1], np.int32),
            compress_lens=np.array([1, 1], np.int32),
            seq_lens=np.array([2], np.int32), cache_mode="Norm")
    assert "compress_lens" in str(e.value)
    assert np.all(kc == 3)


def test_framework_values_come_from_the_call_forms():
    """torch_npu's values for what its call does not pass, asked of the C
    call forms that `kvgold scan` and `prepare` follow: cache_mode PA_NZ
    (torch_npu's default); scatter_mode None for a 3-D key, and on the 950
    for a 4-D key with compress_lens and seq_lens Rope (with
    compress_seq_offsets) or Alibi (without); an API or attribute the
    forms do not set is an error, never a guess."""
    from kvgold.ops._common import framework_value
    api = "torch_npu.npu_scatter_pa_kv_cache"
    key3, key4 = np.zeros((2, 1, 8)), np.zeros((1, 2, 1, 8))
    lens = np.zeros((1,), np.int32)
    assert framework_value(api, "cache_mode", {"key": key3}) == "PA_NZ"
    assert framework_value(api, "scatter_mode", {"key": key3}) == "None"
    assert framework_value(api, "scatter_mode", {
        "key": key4, "compress_lens": lens, "seq_lens": lens}) == "Alibi"
    assert framework_value(api, "scatter_mode", {
        "key": key4, "compress_lens": lens, "seq_lens": lens,
        "compress_seq_offset": lens}) == "Rope"
    assert framework_value(api, "scatter_mode", {
        "key": key4, "compress_lens": lens, "seq_lens": None}) == "None"
    for bad_api, attr in ((api, "strides"), ("torch_npu.no_such", "x")):
        with pytest.raises(kvgold.Error, match="sets no"):
            framework_value(bad_api, attr, {"key": key3})
