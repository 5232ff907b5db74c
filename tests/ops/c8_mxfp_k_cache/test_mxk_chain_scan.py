"""The C8-MXFP K write judged as a whole from an msprobe dump of
vllm-ascend's C8-MXFP backend: the composite of
tools/lib/bindings/c8_mxfp_k_cache.c (docs/scan.md, "Composites"). The
chain as the backend makes it (the search index's
vllm_ascend/attention/attention_c8_mxfp.py, id 68369016099, `forward` and
the impl's cache write; mxfp_kv_cache.py @47ce2df1, id 68489782651):

0. the MX quant of query[:T] (no link: x [T, 2N, D], judged alone);
1. the MX quant of key[:T] (dmq's API, dst_type {}): x [T, N, D];
2. the PA_NZ scatter (spkc's in-place API, every tensor by keyword) of
   the int8 codes into int8 views of the K and V caches (two tensors:
   kv_cache[0] and kv_cache[1]), returning None;
3. Tensor.__setitem__(key_scale_cache uint8, (block_ids, :, seg_ids, :,
   frag_ids, :), key_scale uint8), returning None;
then the attention, reading K and V as float8_e4m3fn and the K scales as
float8_e8m0fnu: the caches' post-call state (read-back). Expected values:
the generator's vector one_pad_row_int32 (T 6, N 2, D 128, Bs 64, slots
88 93 -1 37 127 87: the pad row's scales in slot 0) and kvgen's own MX
quant of its key; the V cache's scatter from first principles (NumPy
index formulas, docs/c8_mxfp_k_cache.md §2)."""
import os
import sys

import numpy as np

import scan_dumps as sd

OP = "c8_mxfp_k_cache"
DMQ, SPKC = sd.op("dmq"), sd.op("spkc")
SCATTER = SPKC.E2E_API.split(".")[-1]
CASE = "one_pad_row_int32"
BS = 64


def _load(name):
    return np.load(os.path.join(sd.VECTORS, OP, CASE, name + ".npy"))


def _quant(key):
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..", "..", "tools", "gen")
    if gen not in sys.path:
        sys.path.insert(0, gen)
    from kvgen import c8_mxfp_k_cache as g
    return g.quantise(key, "bf16")


def _nz_scatter(cache, codes, slots):
    out = cache.copy()
    t, n, d = codes.shape
    for i, s in enumerate(int(x) for x in slots):
        if s >= 0:
            b, o = divmod(s, BS)
            out[b, :, :, o, :] = codes[i].reshape(n, d // 32, 32)
    return out


def _inputs():
    key, slots = _load("key"), _load("slot_mapping")
    y, sc = _quant(key)
    rng = np.random.default_rng(36)
    vcodes = rng.integers(1, 256, y.shape, dtype=np.uint8)
    vc = rng.integers(1, 256, _load("key_cache").shape, dtype=np.uint8)
    return key, slots, y, sc, vcodes, vc


def _dump(root, kc_post=None, ksc_post=None, links=("dmq", "spkc", "set"),
          reader=True, group=2):
    """The chain of one layer's step; the query's MX quant first, its x
    [T, group * N, D] (the key's heads, `group` times: GQA)."""
    key, slots, y, sc, vcodes, vc = _inputs()
    kc_post = _load("expected_key_cache") if kc_post is None else kc_post
    ksc_post = (_load("expected_key_scale_cache") if ksc_post is None
                else ksc_post)
    step = sd.MsprobeStep(str(root))
    query = np.concatenate([key] * group, axis=1)
    qy, qsc = _quant(query)
    k = step.call("NPU", DMQ.TORCH, [("bf16", query)], {},
                  [("fp8_e4m3fn", qy), ("uint8", qsc)])
    step.data[k]["input_kwargs"]["dst_type"] = {}
    if "dmq" in links:
        k = step.call("NPU", DMQ.TORCH, [("bf16", key)], {},
                      [("fp8_e4m3fn", y), ("uint8", sc)])
        step.data[k]["input_kwargs"]["dst_type"] = {}
    if "spkc" in links:
        step.call("NPU", SCATTER, [],
                  {"key": ("int8", y.view(np.int8)),
                   "value": ("int8", vcodes.view(np.int8)),
                   "key_cache": ("int8", _load("key_cache").view(np.int8)),
                   "value_cache": ("int8", vc.view(np.int8)),
                   "slot_mapping": ("int32", slots),
                   "cache_mode": "PA_NZ"}, [])
    if "set" in links:
        k = step.call("Tensor", "__setitem__",
                      [("uint8", _load("key_scale_cache")), None,
                       ("uint8", sc)], {}, [])
        safe = np.maximum(slots.astype(np.int64), 0)
        idx = [safe // BS, (safe % BS) // 16, safe % 16]
        entry = []
        for i, a in enumerate(idx):  # msprobe's record of the index tuple
            entry.append(step._tensor("%s.input.1.%d" % (k, i),
                                      ("int64", a)))
            entry.append({"type": "slice", "value": [None, None, None]})
        step.data[k]["input_args"][1] = entry
    if reader:
        step.call("NPU", "quant_flash_attn",
                  [("fp8_e4m3fn", kc_post),
                   ("fp8_e4m3fn", _nz_scatter(vc, vcodes, slots)),
                   ("e8m0", ksc_post)], {}, [])
    step.save()


def _chain(doc):
    calls = [c for c in doc["calls"] if c["op"] == OP]
    assert len(calls) == 1, doc["calls"]
    return calls[0]


def _bad_fields(call):
    out = {}
    for r in call["report"]["results"]:
        for f in (r.get("rows") or {}).get("fields", []):
            if f["verdict"] != "PASS":
                out[(r["name"], f["kind"])] = [p["slot"]
                                               for p in f["places"]]
    return out


def test_the_chain_passes_honest_and_reads_both_caches_back(cli, tmp_path):
    key, slots, y, sc, _, _ = _inputs()
    kc = _load("expected_key_cache")
    for t, s in enumerate(int(x) for x in slots):  # kvgen's quant is the
        if s >= 0:                                  # vector's payload
            b, o = divmod(s, BS)
            assert (kc[b, :, :, o, :].reshape(y.shape[1:]) == y[t]).all()
    _dump(tmp_path)
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc == 0 and doc["verdict"] == "PASS", (err, doc["calls"])
    got = [(c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [(DMQ.OP, "PASS"), (DMQ.OP, "PASS"), (SPKC.OP, "PASS"),
                   (OP, "PASS")], got
    chain = _chain(doc)
    assert "key_cache read back from" in chain["read_back"]
    assert "key_scale_cache read back from" in chain["read_back"]
    assert "its bytes as uint8" in chain["read_back"]  # e8m0 -> uint8


def _one_fault(cli, tmp, kc=None, ksc=None):
    _dump(tmp, kc, ksc)
    rc, doc, err = sd.scan(cli, str(tmp))
    assert rc == 1, err
    chain = _chain(doc)
    assert chain["verdict"] == "FAIL", chain
    return _bad_fields(chain)


def test_each_planted_fault_fails_its_field_at_its_slot(cli, tmp_path):
    kc0 = _load("expected_key_cache")
    ksc0 = _load("expected_key_scale_cache")
    kc = kc0.copy()
    kc[1, 1, 2, 87 - BS, 5] ^= 0x01  # token 5, slot 87: code 69, head 1
    assert _one_fault(cli, tmp_path / "code", kc=kc) == {
        ("key_cache", "payload"): [87]}
    ksc = ksc0.copy()
    ksc[0, 0, 37 // 16, 1, 37 % 16, 0] += 1  # token 3, slot 37
    assert _one_fault(cli, tmp_path / "scale", ksc=ksc) == {
        ("key_scale_cache", "scales"): [37]}
    ksc = ksc0.copy()
    ksc[0, 1, 0, 0, 0, 1] += 1  # slot 0: the pad row's scale (the sink)
    assert _one_fault(cli, tmp_path / "sink", ksc=ksc) == {
        ("key_scale_cache", "scales"): [0]}
    kc = kc0.copy()
    kc[0, 0, 0, 1, 3] ^= 0x01  # slot 1: no token writes it
    bad = _one_fault(cli, tmp_path / "untouched", kc=kc)
    assert list(bad) == [("key_cache", "untouched")], bad
    assert bad[("key_cache", "untouched")] == [1]


def test_a_missing_link_or_reader_is_not_judged(cli, tmp_path):
    _dump(tmp_path / "nolink", links=("dmq", "set"))
    rc, doc, err = sd.scan(cli, str(tmp_path / "nolink"))
    chain = _chain(doc)
    assert chain["verdict"] == "NOT_JUDGED", chain
    assert "the chain has no %s call" % SPKC.OP_TYPE in chain["reason"]
    assert "register_custom_api" in chain["reason"]
    _dump(tmp_path / "mha", group=1)  # query and key quants alike
    rc, doc, err = sd.scan(cli, str(tmp_path / "mha"))
    chain = _chain(doc)
    assert chain["verdict"] == "NOT_JUDGED", chain
    assert "ambiguous: 2 " in chain["reason"], chain["reason"]
    assert "(argument 0 [6, 2, ...])" in chain["reason"], chain["reason"]
    _dump(tmp_path / "noreader", reader=False)
    rc, doc, err = sd.scan(cli, str(tmp_path / "noreader"))
    chain = _chain(doc)
    assert chain["verdict"] == "NOT_JUDGED", chain
    assert "post-call key_cache" in chain["reason"], chain["reason"]
