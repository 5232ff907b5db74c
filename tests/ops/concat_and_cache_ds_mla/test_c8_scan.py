"""The packed C8 MLA row in `kvgold scan`: vLLM's concat_and_cache_mla as
an ops-test-kit e2e case (the cache kept as a golden) passes when honest,
in every file format; a planted fault in a scale, a payload code or a
rope byte fails in its own field of the row, the slot and group or
element named; an msprobe record (no post-call cache) is listed NOT
JUDGED naming the operator. Expected caches: the vectors' (the NumPy
generator's); the fault offsets: the vllm-fp8_ds_mla row of
docs/concat_and_cache_ds_mla.md, [nope e4m3 0..512 | scale fp32 x4
512..528 | rope bf16 528..656], the last slot (11) written."""
import os

import numpy as np
import pytest

import scan_dumps as sd

W = sd.op("c8")
ROW, LAST = 656, 11
SAMPLE = "vllm_rows_skip_negative"


def _scan(cli, tmp_path, calls, fmt="bin", args=()):
    root = str(tmp_path)
    rows = [W.e2e(c, root, "c%d" % i, fmt) for i, c in enumerate(calls)]
    csv = W.write_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, *args)
    assert doc is not None, err
    return rc, doc


def _fields(call):
    rows = call["report"]["results"][0]["rows"]
    return {f["kind"]: f for f in rows["fields"]}


def _vllm_cases(ue8m0=False):
    """The valid vllm-fp8_ds_mla vector cases whose use_ue8m0 is `ue8m0`:
    vLLM's op has no such argument, so a dump never says it (scan takes
    it from --attr)."""
    d = os.path.join(sd.VECTORS, W.OP)
    return sorted(n for n in os.listdir(d) if n.startswith("vllm_") and
                  bool(W.case(n).attrs.get("use_ue8m0", False)) == ue8m0)


def test_every_vllm_case_passes_in_every_file_format(cli, tmp_path):
    """Every vllm-fp8_ds_mla vector case (its e4m3 cache too, and one
    whose scale tensor is NaN: never read) as .bin, .npy and .pt."""
    names = _vllm_cases()
    assert len(names) >= 3
    for fmt in ("bin", "npy", "pt"):
        rc, doc = _scan(cli, tmp_path / fmt, [W.case(n) for n in names],
                        fmt)
        assert rc == 0, [(c["id"], c["reason"]) for c in doc["calls"]
                         if c["verdict"] != "PASS"]
        assert doc["summary"]["passed"] == len(names)
        assert all(c["op"] == W.OP for c in doc["calls"])


def test_each_planted_fault_fails_its_own_field(cli, tmp_path):
    base = LAST * ROW
    for i, (byte, kind, words) in enumerate((
            (base + 516, "scales", "slot 11: scale of group 1 of nope"),
            (base + 5, "payload", "slot 11: nope code 5 of group 0"),
            (base + 531, "pass-through", "slot 11: rope element 1"))):
        c = W.case(SAMPLE)
        post = c.post["kv_cache"][1].reshape(-1)
        assert post[byte] != c.inputs["kv_cache"][1].reshape(-1)[byte]
        post[byte] ^= 0x01
        rc, doc = _scan(cli, tmp_path / str(i), [c])
        assert rc != 0 and doc["calls"][0]["verdict"] == "FAIL", kind
        fields = _fields(doc["calls"][0])
        assert [k for k, f in fields.items() if f["verdict"] != "PASS"] \
            == [kind]
        assert fields[kind]["places"][0]["slot"] == LAST
        assert words in doc["calls"][0]["report"]["results"][0]["reason"]


def test_an_unwritten_row_changed_fails(cli, tmp_path):
    """A byte of a slot no token writes (slot 1: -1 and -7 are skipped)
    moved: the untouched bytes fail, slot 1 named, no field of a written
    row."""
    c = W.case(SAMPLE)
    slots = set(int(s) for s in c.inputs["slot_mapping"][1].reshape(-1))
    assert 1 not in slots
    c.post["kv_cache"][1].reshape(-1)[ROW + 7] ^= 0x10
    rc, doc = _scan(cli, tmp_path, [c])
    assert rc != 0 and doc["calls"][0]["verdict"] == "FAIL"
    bad = [k for k, f in _fields(doc["calls"][0]).items()
           if f["verdict"] != "PASS"]
    assert not set(bad) & {"scales", "payload", "pass-through"}, bad
    assert "slot 1 (not written): nope byte 7" in \
        doc["calls"][0]["report"]["results"][0]["reason"]


def _ue8m0_call():
    """SAMPLE with every written token's kv_c all 1.0 (the skipped ones
    keep their NaN / Inf): amax 1, v = 1/448 in (2^-9, 2^-8]. Under
    use_ue8m0 (vLLM PR #49435) each written row is [0x78 x 512 (1 / 2^-8
    = 256) | 2^-8 (0x3B800000) x 4 | k_pe's row]: the post-call cache
    stated here, not computed by kvgold. Without use_ue8m0 the kernel
    stores fl(1/448) (0x3B124925) and codes 448 (0x7E)."""
    c = W.case(SAMPLE)
    kv_c, k_pe = c.inputs["kv_c"][1], c.inputs["k_pe"][1]
    slots = c.inputs["slot_mapping"][1].reshape(-1)
    kv_c = kv_c.reshape(len(slots), 512)
    post = c.inputs["kv_cache"][1].copy().reshape(-1, ROW)
    pe = k_pe.reshape(len(slots), 64)
    for t, s in enumerate(int(x) for x in slots):
        if s < 0:
            continue
        kv_c[t] = 0x3F80
        post[s, :512] = 0x78
        post[s, 512:528] = np.frombuffer(
            np.array([0x3B800000] * 4, "<u4").tobytes(), np.uint8)
        post[s, 528:] = np.frombuffer(pe[t].astype("<u2").tobytes(),
                                      np.uint8)
    c.post["kv_cache"] = (c.post["kv_cache"][0],
                          post.reshape(c.post["kv_cache"][1].shape))
    return c


def test_use_ue8m0_comes_from_attr(cli, tmp_path):
    """vLLM's concat_and_cache_mla has no use_ue8m0 argument (vLLM reads
    ds_mla_use_ue8m0_scale()), so a dump of a ue8m0 vLLM is judged with
    --attr use_ue8m0=true: PASS; without it, kvgold's row is the kernel
    before PR #49435 and the call FAILs on its scales (and codes), a
    written slot named - loudly, never a silent PASS."""
    c = _ue8m0_call()
    rc, doc = _scan(cli, tmp_path / "attr", [c],
                    args=("--attr", "use_ue8m0=true"))
    assert rc == 0, [(x["id"], x["reason"]) for x in doc["calls"]]
    assert [x["verdict"] for x in doc["calls"]] == ["PASS"]
    rc, doc = _scan(cli, tmp_path / "none", [_ue8m0_call()])
    assert rc != 0 and doc["calls"][0]["verdict"] == "FAIL"
    fields = _fields(doc["calls"][0])
    assert fields["scales"]["verdict"] != "PASS"
    assert fields["payload"]["verdict"] != "PASS"
    assert fields["pass-through"]["verdict"] == "PASS"
    written = set(int(x) for x in c.inputs["slot_mapping"][1].reshape(-1)
                  if x >= 0)
    assert LAST in written
    assert fields["scales"]["places"][0]["slot"] in written


def test_every_vllm_ue8m0_case_passes_with_the_attr(cli, tmp_path):
    """The generator's vllm_ue8m0_* cases (its use_ue8m0 branch), as one
    ops-test-kit dump judged with --attr use_ue8m0=true."""
    names = _vllm_cases(ue8m0=True)
    # the generator writes two (rows, e4m3 boundaries): none found is a
    # broken tree, never a reason to skip
    assert len(names) >= 2, names
    rc, doc = _scan(cli, tmp_path, [W.case(n) for n in names],
                    args=("--attr", "use_ue8m0=true"))
    assert rc == 0, [(c["id"], c["reason"]) for c in doc["calls"]
                     if c["verdict"] != "PASS"]
    assert doc["summary"]["passed"] == len(names)


def test_msprobe_records_are_judged_via_read_back(cli, tmp_path):
    """vLLM's API is the one form of its name (its namespace
    torch.ops._C_cache_ops, docs/scan.md "Whose op a record of a shared
    name is"); it returns None, so its cache is read back from the next
    record that takes it: none, NOT JUDGED saying what to dump; a reader
    with the generator's cache, PASS; a payload code changed in the
    reader's copy, FAIL naming the field and slot."""
    step = sd.MsprobeStep(str(tmp_path / "alone"))
    W.msprobe_call(step, W.case(SAMPLE))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "alone"))
    assert rc != 0 and doc["verdict"] != "PASS", err
    assert doc["summary"]["other_calls"] == 0
    assert [c["verdict"] for c in doc["calls"]] == ["NOT_JUDGED"]
    assert doc["calls"][0]["op"] == W.OP
    assert "add the call that reads it" in doc["calls"][0]["reason"]
    for name, flip in (("ok", None), ("bad", LAST * ROW)):
        call = W.case(SAMPLE)
        tag, cache = call.post["kv_cache"]
        cache = np.array(cache, copy=True)
        if flip is not None:
            cache.reshape(-1).view(np.uint8)[flip] ^= 0x10
        step = sd.MsprobeStep(str(tmp_path / name))
        W.msprobe_call(step, call)
        q = ("fp16", np.ones((1, 64), dtype=np.float16))
        step.call("NPU", "npu_sparse_flash_attention", [q, (tag, cache)],
                  {}, [q])
        step.save()
        rc, doc, err = sd.scan(cli, str(tmp_path / name))
        c = doc["calls"][0]
        assert c["read_back"].startswith("kv_cache read back from"), c
        if flip is None:
            assert rc == 0 and c["verdict"] == "PASS", c["reason"]
            continue
        assert rc == 1 and c["verdict"] == "FAIL", c["reason"]
        bad = {f["kind"]: f["places"][0]["slot"]
               for f in c["report"]["results"][0]["rows"]["fields"]
               if f["verdict"] != "PASS"}
        assert bad == {"payload": LAST}, bad


def _dbq_step(root, call, dst_type, y=None, scale=None):
    """The composite's block quant call as msprobe records it, dst_type as
    the JSON msprobe writes for it (None: the keyword left out)."""
    dbq = sd.op("dbq")
    step = sd.MsprobeStep(str(root))
    attrs = dbq.torch_attrs(call)
    del attrs["dst_type"]
    y = call.post["y"] if y is None else y
    scale = call.post["scale"] if scale is None else scale
    key = step.call("NPU", dbq.TORCH, [call.inputs["x"]], attrs, [y, scale])
    if dst_type is not None:
        step.data[key]["input_kwargs"]["dst_type"] = dst_type
    step.save()


def test_the_ascend_composites_block_quant_call(cli, tmp_path):
    """The Ascend preset has no call of its own: a dump holds its four
    torch_npu calls one by one. Its block quant step is the block quant
    operator's own torch form (writer alias "dbq", its vector case of
    this very call: bf16 [6, 1, 512], 1 x 128, int8, a2a3). vllm-ascend
    passes dst_type=torch.int8 (vllm-ascend@182b75ea
    vllm_ascend/attention/sfa_v1.py:1725-1729); msprobe records that
    torch.dtype as {} (it encodes one only under the keyword `dtype`:
    Ascend-mstt@99c2e0f9 debug/accuracy_tools/msprobe/core/data_dump/
    data_processor/pytorch_processor.py:181-184, 390-409), a tool writing
    str(dtype) as {"type": "torch.dtype", "value": "torch.int8"}. Every
    spelling - torch_npu's number, str(dtype), msprobe's {}, the keyword
    left out (torch_npu's default, int8) - is judged: PASS honest, and
    one scale of the last token's second block doubled FAILs on scale."""
    dbq = sd.op("dbq")
    c = sd.Call(dbq.OP, "a2a3_bf16_3d_vllm_c8")
    assert c.inputs["x"][1].shape == (6, 1, 512)
    assert c.post["y"][0] == "int8"
    tag, scale = c.post["scale"]
    bad = np.array(scale, copy=True)
    flat = bad.reshape(-1)
    assert flat.size == 6 * 4 and flat[4 * 5 + 1] != 0
    flat[4 * 5 + 1] *= 2  # token 5, block 1: a faulty kernel's scale
    spellings = {"number": {"type": "int", "value": 1},
                 "str": {"type": "torch.dtype", "value": "torch.int8"},
                 "msprobe": {}, "left_out": None}
    for name, spelling in spellings.items():
        for fault in (False, True):
            root = tmp_path / ("%s_%d" % (name, fault))
            _dbq_step(root, c, spelling, scale=(tag, bad) if fault else None)
            rc, doc, err = sd.scan(cli, str(root), "--attr",
                                   'profile="a2a3"')
            assert doc is not None, err
            got = [(x["verdict"], x["reason"]) for x in doc["calls"]]
            if not fault:
                assert rc == 0 and got == [("PASS", "")], (name, got)
                continue
            assert rc == 1 and got[0][0] == "FAIL", (name, got)
            res = {r["name"]: r["verdict"]
                   for r in doc["calls"][0]["report"]["results"]}
            assert res == {"y": "PASS", "scale": "FAIL"}, (name, res)


def test_a_dtype_msprobe_does_not_spell_takes_ys(cli, tmp_path):
    """dst_type recorded as {} is y's dumped dtype: an fp8_e4m3fn call
    (torch.float8_e4m3fn, vllm-ascend's A5 path) passes as e4m3; a y
    dumped as torch.uint8 says no torch.dtype, so the call is NOT
    JUDGED naming dst_type and --attr, never judged as a guess."""
    dbq = sd.op("dbq")
    c = sd.Call(dbq.OP, "e4m3_bf16_2d_128x256_partial_both")
    _dbq_step(tmp_path / "e4m3", c, {})
    rc, doc, err = sd.scan(cli, str(tmp_path / "e4m3"))
    assert rc == 0 and doc["calls"][0]["verdict"] == "PASS", (err, doc)
    h = sd.Call(dbq.OP, "hif8_fp16_3d_1x64")
    _dbq_step(tmp_path / "u8", h, {}, y=("uint8", h.post["y"][1]))
    rc, doc, err = sd.scan(cli, str(tmp_path / "u8"))
    assert rc == 1 and doc["calls"][0]["verdict"] == "NOT_JUDGED", err
    reason = doc["calls"][0]["reason"]
    assert "dst_type" in reason and "--attr dst_type" in reason, reason
    rc, doc, err = sd.scan(cli, str(tmp_path / "u8"), "--attr",
                           'dst_type="hif8"')
    assert rc == 0 and doc["calls"][0]["verdict"] == "PASS", (err, doc)


# ---- the Ascend composite from its chain of calls --------------------------

ASCEND = "ascend_a2_int8_rows"  # int8 [8, 656], slots [4, 5, 7, 0, 1]
CHAIN = "ascend-sfa-c8 chain RmsNorm+InterleaveRope+ScatterNdUpdate"
A2A3 = ("--attr", 'profile="a2a3"')  # the block quant call's chip


def _chain_scan(cli, root, ext="npy", **kw):
    c = W.case(ASCEND)
    step = sd.MsprobeStep(str(root), ext)
    W.ascend_chain(step, c, **kw)
    step.save()
    rc, doc, err = sd.scan(cli, str(root), *A2A3)
    assert doc is not None, err
    return rc, doc


def _chain(doc):
    got = [c for c in doc["calls"] if c["api"] == CHAIN]
    assert len(got) == 1, [(c["api"], c["verdict"]) for c in doc["calls"]]
    return got[0]


def test_the_ascend_chain_passes_as_the_operator(cli, tmp_path):
    """vllm-ascend's npu_rms_norm, npu_interleave_rope, block quant and
    npu_scatter_nd_update_ records (msprobe's pre-call inputs and
    post-call output of the scatter, which returns its self) are judged
    as ConcatAndCacheDsMla ascend-sfa-c8 run on the chain's first inputs:
    x [5, 1, 1, 512], k_pe / cos / sin [5, 1, 1, 64], slot_mapping [5, 1]
    viewed as [5, 1, 1], epsilon 1e-6 from npu_rms_norm's keyword. The
    norm of a 1536-wide query before it and the query's rope ([5, 2, 1,
    64], as 64 wide as k_pe's, but two rows a token) before the scatter
    are no links: counted, like the chain's first two calls, among other
    operators' calls."""
    for ext in ("npy", "pt"):
        rc, doc = _chain_scan(cli, tmp_path / ext, ext)
        assert rc == 0, [(c["api"], c["reason"]) for c in doc["calls"]]
        chain = _chain(doc)
        assert chain["op"] == W.OP and chain["verdict"] == "PASS"
        assert "npu_scatter_nd_update_" in chain["id"]
        assert doc["summary"]["calls"] == 2  # the chain, the block quant
        sd.reconciles(doc, 6, others=4)


def test_a_fault_in_each_field_fails_at_its_slot(cli, tmp_path):
    """One fault each in the scatter's post-call cache, at the offsets of
    the generator's row map (kvgen row_map: nope 0, rope 512, scale 640):
    token 1's (slot 5) scale of tile 1, token 2's (slot 7) code 5 of tile
    0, token 3's (slot 0) rope byte of element 1, and a byte of row 3,
    which no token writes. Exactly those four fields FAIL, each at its
    slot."""
    g = W._kvgen()
    off = {s["name"]: s["offset"] for s in g.row_map("ascend-sfa-c8", "int8")}
    c = W.case(ASCEND)
    assert list(c.inputs["slot_mapping"][1]) == [4, 5, 7, 0, 1]
    post = c.post["kv_cache"][1].copy().view(np.uint8)
    post[5, off["scale"] + 4] ^= 0x01
    post[7, off["nope"] + 5] ^= 0x40
    post[0, off["rope"] + 2] ^= 0x01
    post[3, 7] ^= 0x10
    rc, doc = _chain_scan(cli, tmp_path, post=post.view(np.int8))
    chain = _chain(doc)
    assert rc == 1 and chain["verdict"] == "FAIL"
    fields = {f["kind"]: f for f in
              chain["report"]["results"][0]["rows"]["fields"]}
    bad = {k: [p["slot"] for p in f["places"]] for k, f in fields.items()
           if f["verdict"] != "PASS"}
    assert bad == {"scales": [5], "payload": [7], "pass-through": [0],
                   "untouched": [3]}, bad
    assert fields["scales"]["places"][0]["group"] == 1
    assert fields["payload"]["places"][0]["element"] == 5
    assert fields["pass-through"]["places"][0]["element"] == 1
    # the block quant's own call is judged apart and passes
    assert [x["verdict"] for x in doc["calls"] if x["api"] != CHAIN] == \
        ["PASS"]


def test_a_broken_chain_is_not_judged_naming_the_link(cli, tmp_path):
    """No npu_interleave_rope record (msprobe wraps none by default): NOT
    JUDGED naming the link and register_custom_api; two 512-wide norms in
    the window: ambiguous, not guessed; the block quant is still judged.
    A scatter of another width is another operator's call."""
    rc, doc = _chain_scan(cli, tmp_path / "norope", drop=("npu_interleave_rope",))
    chain = _chain(doc)
    assert rc == 1 and chain["verdict"] == "NOT_JUDGED"
    assert "no InterleaveRope call" in chain["reason"], chain["reason"]
    assert "register_custom_api" in chain["reason"]
    assert [x["verdict"] for x in doc["calls"] if x["api"] != CHAIN] == \
        ["PASS"]
    c = W.case(ASCEND)
    x = ("bf16", c.inputs["kv_c"][1].reshape(5, 1, 1, 512))
    rc, doc = _chain_scan(cli, tmp_path / "twice", extra=[(
        "npu_rms_norm", [x, c.inputs["gamma"]], {"epsilon": 1e-6})])
    chain = _chain(doc)
    assert chain["verdict"] == "NOT_JUDGED"
    assert "ambiguous: 2 RmsNorm calls" in chain["reason"], chain["reason"]
    step = sd.MsprobeStep(str(tmp_path / "other"))
    cache = np.arange(4 * 128, dtype=np.int8).reshape(4, 128)
    step.call("NPU", "npu_scatter_nd_update_",
              [("int8", cache), ("int32", np.array([[1]], np.int32)),
               ("int8", cache[:1])], {}, [("int8", cache)])
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "other"))
    assert doc["calls"] == [] and doc["summary"]["other_calls"] == 1, err
