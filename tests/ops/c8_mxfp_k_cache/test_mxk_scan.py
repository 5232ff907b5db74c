"""The C8-MXFP K write in `kvgold scan`: it has no call of its own, so an
msprobe dump of vllm-ascend's C8-MXFP backend holds its three calls
(docs/c8_mxfp_k_cache.md, "Dumps of the backend"), as the backend makes
them (the search index's vllm_ascend/attention/attention_c8_mxfp.py,
`forward` and the backend's cache write, and mxfp_kv_cache.py @47ce2df1,
index id 68489782651). The other operators are named here by their scan
writers' aliases (dmq, spkc), as an operator's own folder names no other:

1. the MX quant (dmq's torch_npu API) of key[:T] with
   dst_type=torch.float8_e4m3fn: msprobe writes that torch.dtype as {}
   (it encodes one only under the keyword `dtype`), y comes back as
   torch.float8_e4m3fn and the E8M0 scales as torch.uint8. Judged as
   the MX quant operator (dst_type from y's dtype): PASS honest, FAIL
   with one scale code off.
2. the in-place PA scatter (spkc's e2e API) with key=, value=,
   key_cache=, value_cache=, slot_mapping=, cache_mode="PA_NZ" on int8
   views of the 5-D PA_NZ caches: it returns None and msprobe keeps no
   post-call cache, so the call is NOT JUDGED naming the missing cache.
3. key_scale_cache[block_ids, :, seg_ids, :, frag_ids, :] = key_scale:
   Tensor.__setitem__, the anchor of the K write's chain (the composite
   c8_mxfp_k_cache): NOT JUDGED here, no record reads the caches after
   it (test_mxk_chain_scan.py judges the chain whole, with a reader).
So the dump's verdict is never PASS. The quant's outputs are read off the
vector case's expected caches (the NumPy generator's,
tools/gen/kvgen/c8_mxfp_k_cache.py): y[t, n, e] = key_cache[b, n, e / 32,
o, e % 32] and the scale pair j of (t, n) = key_scale_cache[b, n, o / 16,
j, o % 16, :] for slot s = b * Bs + o (docs/c8_mxfp_k_cache.md §2)."""
import os

import numpy as np

import scan_dumps as sd

OP = "c8_mxfp_k_cache"
DMQ, SPKC = sd.op("dmq"), sd.op("spkc")
SCATTER = SPKC.E2E_API.split(".")[-1]  # the in-place API, returns None
CASE = "no_pad_row_slot0_int64"  # T 4, N 2, D 64, Bs 128, no pad row


def _load(name):
    d = os.path.join(sd.VECTORS, OP, CASE)
    return np.load(os.path.join(d, name + ".npy"))


def _dmq_outputs():
    """(y codes [T, N, D], E8M0 scales [T, N, D / 64, 2]) of the MX quant
    as the K write stored them."""
    slots = _load("slot_mapping")
    kc, sc = _load("expected_key_cache"), _load("expected_key_scale_cache")
    bs = kc.shape[3]
    t, n, d = _load("key").shape
    y = np.zeros((t, n, d), np.uint8)
    scale = np.zeros((t, n, d // 64, 2), np.uint8)
    for i, s in enumerate(slots):
        b, o = divmod(int(s), bs)
        assert s >= 0  # no pad row: every token's codes are in the cache
        y[i] = kc[b, :, :, o, :].reshape(n, d)
        scale[i] = sc[b, :, o // 16, :, o % 16, :]
    return y, scale


def _dump(root, scale):
    """The backend's three calls of one step, as msprobe records them."""
    key = ("bf16", _load("key"))
    y, _ = _dmq_outputs()
    step = sd.MsprobeStep(str(root))
    dmq = step.call("NPU", DMQ.TORCH, [key], {},
                    [("fp8_e4m3fn", y), ("uint8", scale)])
    step.data[dmq]["input_kwargs"]["dst_type"] = {}  # torch.float8_e4m3fn
    codes = ("int8", y.view(np.int8))
    kc = ("int8", _load("key_cache").view(np.int8))
    step.call("NPU", SCATTER, [],
              {"key": codes, "value": codes, "key_cache": kc,
               "value_cache": kc, "slot_mapping": ("int64",
                                                   _load("slot_mapping")),
               "cache_mode": "PA_NZ"}, [])
    step.call("Tensor", "__setitem__",
              [("uint8", _load("key_scale_cache")),
               ("int64", _load("slot_mapping") // 128), ("uint8", scale)],
              {}, [])
    step.save()


def test_a_dump_of_the_backend_judges_the_quant_call_only(cli, tmp_path):
    _, scale = _dmq_outputs()
    assert np.any(scale != 0) and np.any(_dmq_outputs()[0] != 0)
    bad = scale.copy()
    bad[3, 1, 0, 1] += 1  # token 3, head 1, block 1: one E8M0 code off
    for name, sc, want in (("honest", scale, "PASS"), ("faulty", bad,
                                                       "FAIL")):
        _dump(tmp_path / name, sc)
        rc, doc, err = sd.scan(cli, str(tmp_path / name))
        assert rc == 1 and doc["verdict"] != "PASS", err
        got = [(c["op"], c["verdict"]) for c in doc["calls"]]
        # the __setitem__ is the K write's chain's anchor, NOT JUDGED
        # here: no record reads the caches after it
        # (test_mxk_chain_scan.py judges the chain whole)
        assert got == [(DMQ.OP, want), (SPKC.OP, "NOT_JUDGED"),
                       (OP, "NOT_JUDGED")], (name, got)
        assert "post-call key_cache" in doc["calls"][2]["reason"]
        assert doc["summary"]["other_calls"] == 0  # __setitem__: the chain
        assert "key_cache" in doc["calls"][1]["reason"]
        assert "post-call" in doc["calls"][1]["reason"]
        res = {r["name"]: (r["dtype"], r["verdict"])
               for r in doc["calls"][0]["report"]["results"]}
        assert res == {"y": ("fp8_e4m3fn", "PASS"),
                       "mxscale": ("e8m0", want)}, (name, res)
