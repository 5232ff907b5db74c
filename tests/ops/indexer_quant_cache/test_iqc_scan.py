"""IndexerQuantCache in `kvgold scan`: a call as an ops-test-kit e2e case
of its torch API (both caches kept as goldens) passes when honest, and a
planted fault fails in its own field of its own tensor: a scale of a
written slot (cache_scale's scales), a code (cache's payload), a byte of
a slot no token writes (cache_scale's untouched bytes: a scale region
another layer shares). Expected caches: the vectors' (the NumPy
generator's); the offsets: m0_e4m3_bf16_blocks' case comment, cache
[3, 4, 1, 128] e4m3 and cache_scale [3, 4, 1, 4] e8m0, slots 2, 3, 11,
1, 5 written (0 is not)."""
import os
import sys

import numpy as np

import scan_dumps as sd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import indexer_quant_cache as kiq  # noqa: E402

W = sd.op("iqc")
HONEST = ["m0_e4m3_bf16_blocks", "m1_e4m3_bf16_round",
          "m1_e5m2_fp16_trunc_int64", "m2_hif8_bf16_xscale"]


def _scan(cli, tmp_path, calls, fmt="bin"):
    root = str(tmp_path)
    rows = [W.e2e(c, root, "c%d" % i, fmt) for i, c in enumerate(calls)]
    csv = W.write_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert doc is not None, err
    return rc, doc


def _fields(call, tensor):
    for r in call["report"]["results"]:
        if r["name"] == tensor:
            return {f["kind"]: f for f in r["rows"]["fields"]}
    raise AssertionError("no result for %s" % tensor)


def test_honest_calls_pass(cli, tmp_path):
    calls = [W.case(n) for n in HONEST]
    rc, doc = _scan(cli, tmp_path, calls)
    assert rc == 0 and doc["verdict"] == "PASS", [
        (c["id"], c["reason"]) for c in doc["calls"]]
    assert all(c["op"] == W.OP for c in doc["calls"])
    assert doc["summary"]["passed"] == len(HONEST)


def _planted(cli, tmp_path, tensor, flat, xor):
    call = W.case(W.SAMPLE)
    tag, arr = call.post[tensor]
    bad = np.array(arr, copy=True)
    bad.reshape(-1)[flat] ^= xor
    call.post[tensor] = (tag, bad)
    rc, doc = _scan(cli, tmp_path, [call])
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
    return doc["calls"][0]


def test_a_scale_fails_as_a_scale(cli, tmp_path):
    """slot 11's scale of group 0: cache_scale byte 11 * 4."""
    c = _planted(cli, tmp_path, "cache_scale", 44, 1)
    f = _fields(c, "cache_scale")
    assert f["scales"]["verdict"] == "FAIL"
    assert f["untouched"]["verdict"] == "PASS"
    assert _fields(c, "cache")["payload"]["verdict"] == "PASS"


def test_a_code_fails_as_payload(cli, tmp_path):
    """slot 11's code 0: cache byte 11 * 128."""
    c = _planted(cli, tmp_path, "cache", 1408, 4)
    assert _fields(c, "cache")["payload"]["verdict"] == "FAIL"
    assert _fields(c, "cache_scale")["scales"]["verdict"] == "PASS"


def test_an_unwritten_slots_scale_byte_fails_as_untouched(cli, tmp_path):
    """slot 0 is not written: its scale bytes keep their contents."""
    c = _planted(cli, tmp_path, "cache_scale", 0, 1)
    f = _fields(c, "cache_scale")
    assert f["untouched"]["verdict"] == "FAIL"
    assert f["scales"]["verdict"] == "PASS"


def _cann_scan(cli, root, calls):
    for task, call in enumerate(calls, 1):
        W.cann_call(call, str(root), "iqc%d" % task, task)
    rc, doc, err = sd.scan(cli, str(root))
    assert doc is not None, err
    return rc, doc


def test_a_cann_dump_of_the_kernel_is_judged(cli, tmp_path):
    """aclnnIndexerQuantCache's launches (op type IndexerQuantCache, the
    kernel's attributes: quant_mode 0/1/2 as numbers, x_scale 0.37):
    honest ones have both caches' written slots judged and passed, and are
    NOT JUDGED for the caches' untouched bytes (CANN records the inputs
    after the kernel ran: sd.cann_honest); one planted fault per call - a scale
    byte of slot 11 (cache_scale byte 11 * 4), a code of slot 11 (cache
    byte 11 * 128), a scale byte of unwritten slot 0 - FAILs in its own
    field of its own tensor."""
    rc, doc = _cann_scan(cli, tmp_path / "ok", [W.case(n) for n in HONEST])
    assert rc == 1 and doc["verdict"] == "INCOMPLETE", [
        (c["id"], c["reason"]) for c in doc["calls"]]
    assert [c["op"] for c in doc["calls"]] == [W.OP] * len(HONEST)
    for c, n in zip(doc["calls"], HONEST):
        sd.cann_honest(c, W.case(n), W.IN)
    assert all({r["name"] for r in c["report"]["results"]} ==
               {"cache", "cache_scale", "untouched bytes of cache",
                "untouched bytes of cache_scale"} for c in doc["calls"])
    faults = (("cache_scale", 44, 1, "scales"), ("cache", 1408, 4, "payload"),
              ("cache_scale", 0, 1, "untouched"))
    calls = []
    for tensor, flat, xor, _ in faults:
        c = W.case(W.SAMPLE)
        tag, arr = c.post[tensor]
        bad = np.array(arr, copy=True)
        bad.reshape(-1)[flat] ^= xor
        c.post[tensor] = (tag, bad)
        calls.append(c)
    rc, doc = _cann_scan(cli, tmp_path / "bad", calls)
    assert rc == 1 and [c["verdict"] for c in doc["calls"]] == \
        ["FAIL"] * len(faults)
    for c, (tensor, _, _, kind) in zip(doc["calls"], faults):
        fields = _fields(c, tensor)
        assert [k for k, f in fields.items() if f["verdict"] != "PASS"] \
            == [kind], (tensor, kind, fields)


# cache [3, 4, 1, 64] bytes (d 128), cache_scale [3, 4, 1, 4]; tokens to
# slots 6, -1, 2, 11, 7, 3 (its slot_mapping.npy): 4 is not written
M3 = "m3_e2m1_bf16_edges"


def _m3_fields(doc):
    """{(tensor, field): first failing slot} of the one call."""
    call = doc["calls"][0]
    bad = {}
    for tensor in ("cache", "cache_scale"):
        for k, f in _fields(call, tensor).items():
            if f["verdict"] != "PASS":
                bad[(tensor, k)] = f["places"][0]["slot"]
    return bad


def test_mxfp4_from_an_ops_test_kit_bin_case(cli, tmp_path):
    """quant_mode 3 as ops-test-kit saves it: the cache a float4_e2m1
    array (one code an element), its .bin the pack_4bits bytes, code 2k
    in the low nibble (hicann/ops-test-kit@23e69087 ttk/utilities/
    dtypes.py pack_4bits; scan_dumps.ttk_pack_4bits), its shapes - the
    CSV's and the golden's name - in codes ([3, 4, 1, 128]). Honest:
    PASS, both tensors judged. One nibble (the high one of slot 11's last
    byte), one scale (slot 7's last E8M0), one byte of unwritten slot 4,
    each planted alone in the post-call caches: exactly that field FAILs,
    naming its slot."""
    c = W.case(M3)
    assert c.inputs["cache"][0] == "fp4_e2m1"
    rc, doc = _scan(cli, tmp_path / "ok", [c])
    assert rc == 0 and doc["verdict"] == "PASS", doc["calls"][0]["reason"]
    assert {r["name"] for r in doc["calls"][0]["report"]["results"]} == \
        {"cache", "cache_scale"}
    assert np.any(c.post["cache"][1] != c.inputs["cache"][1])
    for tensor, slot, flat, xor, kind in (
            ("cache", 11, 11 * 64 + 63, 0x10, "payload"),
            ("cache_scale", 7, 7 * 4 + 3, 0x01, "scales"),
            ("cache", 4, 4 * 64, 0x01, "untouched")):
        bad = W.case(M3)
        tag, arr = bad.post[tensor]
        arr = np.array(arr, copy=True)
        arr.reshape(-1)[flat] ^= xor
        bad.post[tensor] = (tag, arr)
        rc, doc = _scan(cli, tmp_path / kind, [bad])
        assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
        assert _m3_fields(doc) == {(tensor, kind): slot}, kind


def test_mxfp4_nibble_order_is_ops_test_kits(cli, tmp_path):
    """The same honest call with its post-call cache's nibbles swapped -
    what a writer putting code 2k in the high nibble would save - FAILs
    on the payload: kvgold reads ops-test-kit's .bin as pack_4bits lays
    it out, not either way."""
    c = W.case(M3)
    tag, arr = c.post["cache"]
    init = c.inputs["cache"][1]
    swapped = ((arr << 4) | (arr >> 4)).astype(np.uint8)
    # only the written rows differ; the swap must change one of them
    assert np.any(swapped != arr)
    c.post["cache"] = (tag, np.where(arr != init, swapped, arr))
    rc, doc = _scan(cli, tmp_path, [c])
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
    assert set(_m3_fields(doc)) == {("cache", "payload")}


def test_mxfp4_from_a_cann_dump(cli, tmp_path):
    """quant_mode 3 as an aclnn operator dump records it: data_type 39,
    the cache's shape in codes ([3, 4, 1, 128]), its size and data the
    device's packed bytes (hicann/opbase@aa3cd74b op_dfx.cpp:721-738;
    scan_dumps.pb_tensor). Honest: written slots pass, untouched bytes NOT
    JUDGED (sd.cann_honest); one nibble, one scale, one unwritten byte,
    each planted alone, FAIL exactly their field."""
    rc, doc = _cann_scan(cli, tmp_path / "ok", [W.case(M3)])
    assert rc == 1 and doc["verdict"] == "INCOMPLETE", doc["calls"][0]
    sd.cann_honest(doc["calls"][0], W.case(M3), W.IN)
    for tensor, slot, flat, xor, kind in (
            ("cache", 11, 11 * 64 + 63, 0x10, "payload"),
            ("cache_scale", 7, 7 * 4 + 3, 0x01, "scales"),
            ("cache", 4, 4 * 64, 0x01, "untouched")):
        bad = W.case(M3)
        tag, arr = bad.post[tensor]
        arr = np.array(arr, copy=True)
        arr.reshape(-1)[flat] ^= xor
        bad.post[tensor] = (tag, arr)
        rc, doc = _cann_scan(cli, tmp_path / kind, [bad])
        assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
        assert _m3_fields(doc) == {(tensor, kind): slot}, kind


def test_mxfp4_cann_dump_another_packing_is_not_judged(cli, tmp_path,
                                                      monkeypatch):
    """An fp4 tensor whose size is not its code shape's packed bytes - here
    the caches dumped one code a byte, data_type 39 and shape [3, 4, 1,
    128] as the writer gives them but 1536 bytes of data - is refused
    naming the size, never judged on a guess."""
    c = W.case(M3)
    for t in (c.inputs, c.post):
        t["cache"] = ("fp4_e2m1", sd.ttk_codes(t["cache"][1]))
    # the codes' own shape: what one code a byte looks like
    monkeypatch.setattr(sd, "code_shape", lambda tag, arr: arr.shape)
    rc, doc = _cann_scan(cli, tmp_path, [c])
    assert rc == 1 and [x["verdict"] for x in doc["calls"]] == \
        ["NOT_JUDGED"]
    assert "input.size: size 1536, its data_type and shape say 768" in \
        doc["calls"][0]["reason"], doc["calls"][0]["reason"]


def test_mxfp4_odd_code_counts_are_not_judged(cli, tmp_path, monkeypatch):
    """fp4 codes whose last dim is odd would pair codes of two rows in a
    byte: NOT JUDGED, naming it, in a ttk CSV's shape, a ttk golden's
    name (no CSV) and a CANN dump's shape."""
    monkeypatch.setattr(sd, "code_shape", lambda tag, arr: tuple(
        arr.shape[:-1]) + ((2 * arr.shape[-1] - 1,) if tag in sd.TTK_FP4
                            else (arr.shape[-1],)))
    rc, doc = _scan(cli, tmp_path / "csv", [W.case(M3)])
    assert [x["verdict"] for x in doc["calls"]] == ["NOT_JUDGED"]
    assert "(3, 4, 1, 127) codes of float4_e2m1" in \
        doc["calls"][0]["reason"], doc["calls"][0]["reason"]
    rc, doc = _cann_scan(cli, tmp_path / "cann", [W.case(M3)])
    assert [x["verdict"] for x in doc["calls"]] == ["NOT_JUDGED"]
    assert "fp4 codes whose last dim is odd" in doc["calls"][0]["reason"]
    root = tmp_path / "nocsv"
    W.e2e(W.case(M3), str(root), "indexer_quant_cache_m3", "bin")
    d = root / "indexer_quant_cache_m3"
    for f in os.listdir(str(d)):
        if f.startswith("golden_1_float4_e2m1__shape_"):
            os.rename(str(d / f), str(d / f.replace("x128.", "x127.")))
    rc, doc, err = sd.scan(cli, str(root), "--attr", "quant_mode=3")
    assert [x["verdict"] for x in doc["calls"]] == ["NOT_JUDGED"], err
    assert "codes whose last dim is odd or absent" in \
        doc["calls"][0]["reason"], doc["calls"][0]["reason"]


def _golden_codes(d, patch):
    """Golden 1 (the cache; 0 is the API's None) of case directory d as ops-test-kit saved it
    in .npy / .pt - one code a byte - rewritten with patch(codes) applied
    to its flat codes, in the same form."""
    import torch
    for f in os.listdir(str(d)):
        if not f.startswith("golden_1_float4_e2m1."):
            continue
        path = os.path.join(str(d), f)
        if f.endswith(".npy"):
            codes = np.load(path).view(np.uint8)
            patch(codes.reshape(-1))
            np.save(path, codes.view(np.dtype("V1")))
        else:
            payload = torch.load(path)
            patch(payload["ttk_raw_bytes"].numpy())
            torch.save(payload, path)
        return
    raise AssertionError("no float4_e2m1 golden in %s" % d)


def test_mxfp4_from_ops_test_kit_npy_and_pt(cli, tmp_path):
    """quant_mode 3 as ops-test-kit saves a float4_e2m1 array in .npy (a
    void of width 1, one code a byte, the array's shape in codes) and .pt
    (this torch has no 4-bit dtype: the raw-byte payload of the codes,
    flattened, ttk_shape the array's) - core_modules/manual_data.py
    _write_array (hicann/ops-test-kit@055fae80), ttk/utilities/
    file_utils.py (@202675b6) and scan_dumps.write_ttk_fp4. The codes are
    packed in a copy (code 2k in the low nibble) and judged: honest PASS,
    both caches judged; the high nibble of slot 11's last byte (code
    11 * 128 + 127) planted alone FAILs exactly the cache's payload at
    slot 11; a code byte above 0x0F is refused naming file and index, the
    call NOT JUDGED, the files never written."""
    for fmt in ("npy", "pt"):
        rc, doc = _scan(cli, tmp_path / fmt / "ok", [W.case(M3)], fmt)
        assert rc == 0 and doc["verdict"] == "PASS", \
            doc["calls"][0]["reason"]
        assert {r["name"] for r in doc["calls"][0]["report"]["results"]} \
            == {"cache", "cache_scale"}
        bad = W.case(M3)
        tag, arr = bad.post["cache"]
        arr = np.array(arr, copy=True)
        arr.reshape(-1)[11 * 64 + 63] ^= 0x10
        bad.post["cache"] = (tag, arr)
        rc, doc = _scan(cli, tmp_path / fmt / "nibble", [bad], fmt)
        assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
        assert _m3_fields(doc) == {("cache", "payload"): 11}, fmt
        root = tmp_path / fmt / "high"
        _scan(cli, root, [W.case(M3)], fmt)
        flat = 11 * 128 + 126  # the low nibble of the byte above, as a code

        def high(codes):
            assert codes[flat] <= 0x0F
            codes[flat] |= 0x30
        _golden_codes(root / "c0", high)
        before = {f: (root / "c0" / f).read_bytes()
                  for f in os.listdir(str(root / "c0"))}
        rc, doc, err = sd.scan(cli, str(root), "--csv",
                               str(root / "cases.csv"))
        assert rc == 1 and [x["verdict"] for x in doc["calls"]] == \
            ["NOT_JUDGED"], (fmt, err)
        reason = doc["calls"][0]["reason"]
        assert "golden_1_float4_e2m1.%s" % fmt in reason, reason
        assert "code %d is 0x3" % flat in reason, reason
        assert before == {f: (root / "c0" / f).read_bytes()
                          for f in os.listdir(str(root / "c0"))}


def test_msprobe_records_are_not_judged(cli, tmp_path):
    """The torch extension returns None and msprobe dumps its inputs
    before the call: with no record reading the caches after it, no
    post-call cache, NOT JUDGED naming the missing cache and what to
    dump, for every quant_mode (each call's walk stops at the next)."""
    step = sd.MsprobeStep(str(tmp_path))
    names = HONEST + ["m3_e2m1_bf16_edges"]
    for n in names:
        W.msprobe_call(step, W.case(n))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc == 1 and doc["verdict"] != "PASS", err
    assert doc["summary"]["other_calls"] == 0
    assert [c["verdict"] for c in doc["calls"]] == \
        ["NOT_JUDGED"] * len(names)
    assert all(c["op"] == W.OP for c in doc["calls"])
    assert all("cache" in c["reason"] for c in doc["calls"])
    assert all("add the call that reads it" in c["reason"]
               for c in doc["calls"])


# one vector case per quant_mode a dump can hold (0 MX-FP8, 1 FP8 per
# token, 2 HiF8; 3's fp4 cache: test_mxfp4_from_an_ops_test_kit_bin_case)
MODES = {0: "m0_e4m3_bf16_blocks", 1: "m1_e4m3_bf16_round",
         2: "m2_hif8_bf16_xscale"}


def _plant_fields(call):
    """A scale, a payload code and an unwritten slot's byte changed, at
    three different slots, by the generator's layout
    (tools/gen/kvgen/indexer_quant_cache.py golden: slot s's code bytes are
    cache row s [0, cache_cols), its scales cache_scale row s [0,
    scale_cols) elements); {(tensor, field): slot}."""
    d = call.inputs["x"][1].shape[-1]
    mode = call.attrs["quant_mode"]
    slots = [int(s) for s in call.inputs["slot_mapping"][1].reshape(-1)
             if s != -1]
    c_tag, cache = call.post["cache"]
    s_tag, scale = call.post["cache_scale"]
    cache, scale = np.array(cache, copy=True), np.array(scale, copy=True)
    crow = cache.reshape(-1, cache.shape[-1]).view(np.uint8)
    srow = scale.reshape(-1, scale.shape[-1]).view(np.uint8)
    sbytes = scale.dtype.itemsize
    a, b = slots[-1], slots[-2]
    # the last byte of slot a's last scale element (an fp32 scale's sign /
    # exponent byte, an E8M0 code)
    srow[a, kiq.scale_cols(mode, d) * sbytes - 1] ^= 0x10
    crow[b, kiq.cache_cols(mode, d) - 1] ^= 0x10
    u = next(s for s in range(crow.shape[0]) if s not in slots)
    crow[u, 0] ^= 0x10
    call.post["cache"] = (c_tag, cache)
    call.post["cache_scale"] = (s_tag, scale)
    want = {("cache", "payload"): b, ("cache", "untouched"): u}
    if mode != 2:
        # mode 2 computes no scale: its float is undefined
        # (docs/indexer_quant_cache.md, the layout table), so a change
        # there must not fail
        want[("cache_scale", "scales")] = a
    return want


def test_every_mode_fails_field_by_field(cli, tmp_path):
    """For each quant_mode: a scale, a code and an unwritten slot's byte
    planted at three slots FAIL exactly those fields of their tensors (mode
    2's scale is undefined: its change passes),
    each naming its slot, as an ops-test-kit e2e case and as a CANN dump
    of the kernel."""
    calls, want = [], []
    for mode, name in MODES.items():
        c = W.case(name)
        want.append(_plant_fields(c))
        calls.append(c)
    rc, doc = _scan(cli, tmp_path / "ttk", calls)
    assert rc == 1
    judged = list(doc["calls"])
    rc, cdoc = _cann_scan(cli, tmp_path / "cann", calls)
    assert rc == 1
    judged += cdoc["calls"]
    for call, w in zip(judged, want + want):
        assert call["verdict"] == "FAIL", call["reason"]
        bad = {}
        for tensor in ("cache", "cache_scale"):
            for k, f in _fields(call, tensor).items():
                if f["verdict"] != "PASS":
                    bad[(tensor, k)] = f["places"][0]["slot"]
        assert bad == w, (call["id"], w, bad)


# ---- read-back (docs/scan.md, "Read-back"): each write's caches from the
# next record that takes them. The reader here stands for the indexer's
# attention (any API that takes the caches does): a query, cache as its
# key, cache_scale by keyword; its copies are the generator's expected
# caches, the faults planted in them as above.

READER = "npu_lightning_indexer"


def _reader(step, call):
    q = ("fp16", np.linspace(-1, 1, 128, dtype=np.float16).reshape(1, 128))
    return step.call("NPU", READER, [q, call.post["cache"]],
                     {"key_dequant_scale": call.post["cache_scale"]}, [q])


def _read_back_scan(cli, tmp_path, calls):
    """Layer by layer: each write, then the record that reads its
    caches."""
    step = sd.MsprobeStep(str(tmp_path))
    for c in calls:
        W.msprobe_call(step, c)
        _reader(step, c)
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert doc is not None, err
    return rc, doc


def test_msprobe_read_back_passes_every_mode(cli, tmp_path):
    calls = [W.case(n) for n in MODES.values()]
    rc, doc = _read_back_scan(cli, tmp_path, calls)
    assert rc == 0 and doc["verdict"] == "PASS", [
        (c["id"], c["reason"]) for c in doc["calls"]]
    for i, c in enumerate(doc["calls"]):
        reader = "step0/rank0:NPU.%s.%d.forward" % (READER, i)
        assert c["read_back"] == (
            "cache read back from %s input_args[1]; cache_scale read back "
            "from %s input_kwargs.key_dequant_scale" % (reader, reader)), c
        for tensor in ("cache", "cache_scale"):
            assert all(f["verdict"] == "PASS"
                       for f in _fields(c, tensor).values())


def test_msprobe_read_back_fails_field_by_field(cli, tmp_path):
    """The planted scale, code and unwritten slot's byte, in the reader's
    copies: exactly those fields FAIL, each naming its slot, as from an
    ops-test-kit case (mode 2's scale is undefined: its change passes)."""
    calls, want = [], []
    for name in MODES.values():
        c = W.case(name)
        want.append(_plant_fields(c))
        calls.append(c)
    rc, doc = _read_back_scan(cli, tmp_path, calls)
    assert rc == 1
    for call, w in zip(doc["calls"], want):
        assert call["verdict"] == "FAIL", call["reason"]
        assert READER in call["read_back"]
        bad = {}
        for tensor in ("cache", "cache_scale"):
            for k, f in _fields(call, tensor).items():
                if f["verdict"] != "PASS":
                    bad[(tensor, k)] = f["places"][0]["slot"]
        assert bad == w, (call["id"], w, bad)


def test_msprobe_read_back_needs_every_cache(cli, tmp_path):
    """A reader of cache only: cache_scale has no input of its dtype and
    shape after the write, so it is NOT JUDGED with the hint, while cache
    is read back and judged."""
    call = W.case(MODES[0])
    step = sd.MsprobeStep(str(tmp_path))
    W.msprobe_call(step, call)
    q = ("fp16", np.ones((1, 128), dtype=np.float16))
    step.call("NPU", READER, [q, call.post["cache"]], {}, [q])
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path))
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", err
    assert c["read_back"].startswith("cache read back from "), c
    assert "cache_scale" not in c["read_back"]
    assert c["reason"].startswith(
        "cache_scale: missing: the dump has no post-call cache_scale"), c
    assert "add the call that reads it" in c["reason"]
    assert all(f["verdict"] == "PASS" for f in _fields(c, "cache").values())


def test_msprobe_read_back_of_another_layers_cache_is_not_judged(cli,
                                                                 tmp_path):
    """A reader whose cache differs from the pre-call one in every byte
    the call does not write (another layer's): NOT JUDGED by the guard,
    counted in bytes of the packed row, never FAIL. m0_e4m3_bf16_blocks:
    cache [3, 4, 1, 128], 5 of its 12 slots written (case comment)."""
    call = W.case(MODES[0])
    tag, cache = call.post["cache"]
    call.post["cache"] = (tag, cache ^ np.uint8(0x10))
    rc, doc = _read_back_scan(cli, tmp_path, [call])
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    assert doc["summary"]["failed"] == 0
    assert ("NPU.%s.0.forward input_args[1] differs from the pre-call "
            "cache in %d bytes the call does not write (it writes %d): "
            "not this call's cache" % (READER, 7 * 128, 5 * 128)
            ) in c["reason"], c["reason"]
