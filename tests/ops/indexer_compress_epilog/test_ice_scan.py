"""The indexer compress epilogs in `kvgold scan`: calls as ops-test-kit
e2e cases of their torch APIs (the caches kept as goldens) pass when
honest, and a planted fault fails in its own field of its own tensor: a
scale of a written slot, a code, a byte of a slot no token writes, and
(va_v2) a byte of a block's tail that no slot owns. Expected caches: the
vectors' (the NumPy generator's); the offsets from the cases' comments:
cr_m1_e4m3_bf16 cache [12, 512] e4m3, cache_scale [12, 4] fp32, slots 7,
1, 3, 11, 0, 4, 5 written (2 is not); va_v2_wide_fp16 cache uint8 [4, 2,
1, 280], a block 560 bytes (2 x 256 codes, then 2 x 8 scale bytes at 512,
bytes 528..559 never written), slots 5, 1, 7, 0, 2 written. The same
kinds of fault in CANN dumps of both kernels (aclnnIndexerCompressEpilog,
aclnnIndexerCompressEpilogV2), offsets from the generator's addressing
(class Where)."""
import os
import sys

import numpy as np

import scan_dumps as sd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import indexer_compress_epilog as kg  # noqa: E402

W = sd.op("ice")
HONEST = ["cr_m0_ebump_e4m3", "cr_m0_trunc", "cr_m1_e4m3_bf16",
          "cr_m1_e5m2_fp16", "cr_m2_hif8", "va_v2_bf16", "va_v2_wide_fp16"]


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


def _planted(cli, tmp_path, case, tensor, flat, xor):
    call = W.case(case)
    tag, arr = call.post[tensor]
    bad = np.array(arr, copy=True)
    bad.reshape(-1).view(np.uint8)[flat] ^= xor
    call.post[tensor] = (tag, bad)
    rc, doc = _scan(cli, tmp_path, [call])
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL"
    return doc["calls"][0]


def test_cr_scale_fails_as_a_scale(cli, tmp_path):
    """slot 11's fp32 scale of group 0: cache_scale byte 11 * 16."""
    c = _planted(cli, tmp_path, W.SAMPLE, "cache_scale", 176, 1)
    f = _fields(c, "cache_scale")
    assert f["scales"]["verdict"] == "FAIL"
    assert f["untouched"]["verdict"] == "PASS"
    assert _fields(c, "cache")["payload"]["verdict"] == "PASS"


def test_cr_code_fails_as_payload(cli, tmp_path):
    """slot 11's code 0: cache byte 11 * 512."""
    c = _planted(cli, tmp_path, W.SAMPLE, "cache", 5632, 4)
    assert _fields(c, "cache")["payload"]["verdict"] == "FAIL"
    assert _fields(c, "cache_scale")["scales"]["verdict"] == "PASS"


def test_cr_unwritten_slot_fails_as_untouched(cli, tmp_path):
    """slot 2 is not written: its scale bytes keep their contents."""
    c = _planted(cli, tmp_path, W.SAMPLE, "cache_scale", 32, 1)
    f = _fields(c, "cache_scale")
    assert f["untouched"]["verdict"] == "FAIL"
    assert f["scales"]["verdict"] == "PASS"


def test_va_v2_fields(cli, tmp_path):
    """slot 7 = block 3, position 1: scale of group 1 at 3 * 560 + 512 + 8
    + 4, code 3 at 3 * 560 + 256 + 3; block 3's tail byte 3 * 560 + 528."""
    for flat, kind in ((2204, "scales"), (1939, "payload"),
                       (2208, "untouched")):
        c = _planted(cli, tmp_path / str(flat), "va_v2_wide_fp16", "cache",
                     flat, 1)
        f = _fields(c, "cache")
        assert f[kind]["verdict"] == "FAIL", (kind, f)
        assert all(v["verdict"] == "PASS" for k, v in f.items()
                   if k != kind and "verdict" in v), (kind, f)


# ---- CANN / aclnn kernel dumps -------------------------------------------
# One vector case per preset and mode a kernel dump can hold; cr_m0_trunc
# (round_scale false) and cr_m2_hif8 (scale 0.5) pass only if the dump's
# attributes are read, the others' values being the op's defaults.
CANN_HONEST = ["cr_m0_ebump_e4m3", "cr_m0_trunc", "cr_m1_e4m3_bf16",
               "cr_m2_hif8", "va_v2_bf16", "va_v2_wide_fp16"]


class Where:
    """Flat byte offsets of a slot's fields, from the NumPy generator's
    addressing (kvgen/indexer_compress_epilog.py: cr rows at slot * d and
    slot * scaleCol; va_v2 value at blk * stride + pos * d, scale at
    blk * stride + bs * d + pos * 4 scaleCol), not from kvgold."""

    def __init__(self, call):
        self.impl = call.attrs.get("impl", "cr")
        self.d = call.inputs["x"][1].shape[-1]
        self.ng = kg.scale_cols(self.d)
        cache = call.inputs["cache"][1]
        sl = np.asarray(call.inputs["slot_mapping"][1]).reshape(-1)
        self.written = sorted(set(int(v) for v in sl if v != -1))
        if self.impl == "va_v2":
            self.bs, self.stride = kg.va_v2_geometry(
                cache.shape, call.attrs.get("block_stride", 0))
            slots = cache.shape[0] * self.bs
        else:
            slots = cache.shape[0]
            scale = call.inputs["cache_scale"][1]
            self.esize = scale.dtype.itemsize
        self.unwritten = [v for v in range(slots) if v not in self.written]

    def code(self, slot, j):
        """(tensor, flat byte) of code j of `slot`'s row."""
        if self.impl == "va_v2":
            blk, pos = divmod(slot, self.bs)
            return "cache", blk * self.stride + pos * self.d + j
        return "cache", slot * self.d + j

    def scale(self, slot, g):
        """(tensor, flat byte) of the last byte of group g's scale: an
        fp32's sign and high exponent bits, or the E8M0 byte."""
        if self.impl == "va_v2":
            blk, pos = divmod(slot, self.bs)
            return "cache", (blk * self.stride + self.bs * self.d +
                             (pos * self.ng + g) * 4 + 3)
        return "cache_scale", (slot * self.ng + g + 1) * self.esize - 1


def _cann_faults(call):
    """A scale, a code and an unwritten slot's byte, each at its own slot
    (for va_v2 all three in its one cache): [(tensor, flat byte, field
    kind or None, slot)]. cr mode 2 computes no scale, and the bytes its
    kernel copies into the slot's scale row are undefined (undefined in
    kvgold's layout): a change there must not fail (kind None)."""
    w = Where(call)
    hi, mid, lo = w.written[-1], w.written[-2], w.unwritten[0]
    mode = call.attrs.get("quant_mode", 1)
    faults = [w.scale(hi, w.ng - 1) + ("scales", hi),
              w.code(mid, w.d - 1) + ("payload", mid)]
    if w.impl == "cr" and mode == 2:
        faults[0] = faults[0][:2] + (None, hi)
    if w.impl == "cr" and mode == 0:
        # the unwritten slot's byte in the scale tensor this time
        faults.append(w.scale(lo, 0) + ("untouched", lo))
    else:
        faults.append(w.code(lo, 0) + ("untouched", lo))
    return faults


def _failing(call):
    """{tensor: {field kind: first failing slot}} of a call's report."""
    out = {}
    for r in call["report"]["results"]:
        if r["verdict"] == "NOT JUDGED":  # no fields: nothing failed
            continue
        bad = {f["kind"]: f["places"][0]["slot"]
               for f in r["rows"]["fields"] if f["verdict"] != "PASS"}
        if bad:
            out[r["name"]] = bad
    return out


def test_cann_dumps_of_both_kernels_are_judged_field_by_field(cli,
                                                               tmp_path):
    """aclnnIndexerCompressEpilog (op type IndexerCompressEpilog) and
    aclnnIndexerCompressEpilogV2 (IndexerCompressEpilogV2) launches, one
    dump file each: honest ones have every cache's written slots judged
    and passed, and are NOT JUDGED for the caches' untouched bytes (CANN
    records the inputs after the kernel ran: sd.cann_honest); with a
    scale, a code and an unwritten slot's byte changed at different slots,
    each FAILs in exactly those fields of those tensors, naming the
    slots."""
    calls = [W.case(n) for n in CANN_HONEST]
    for task, c in enumerate(calls, 1):
        W.cann_call(c, str(tmp_path / "ok"), "ice%d" % task, task)
    rc, doc, err = sd.scan(cli, str(tmp_path / "ok"))
    assert rc == 1 and doc["verdict"] == "INCOMPLETE", (err, [
        (c["id"], c["reason"][:200]) for c in doc["calls"]])
    assert [c["op"] for c in doc["calls"]] == [W.OP] * len(calls)
    for d, c in zip(doc["calls"], calls):
        sd.cann_honest(d, c, W.CANN_FORMS[c.attrs.get("impl", "cr")][1])
    assert [{r["name"] for r in c["report"]["results"]
             if not r["name"].startswith("untouched bytes of ")}
            for c in doc["calls"]] == [
        {"cache", "cache_scale"} if c.attrs["impl"] == "cr" else {"cache"}
        for c in calls]
    want = {}
    for task, name in enumerate(["cr_m0_ebump_e4m3", "cr_m1_e4m3_bf16",
                                 "cr_m2_hif8", "va_v2_wide_fp16"], 1):
        c = W.case(name)
        faults = _cann_faults(c)
        want["ice%d" % task] = {}
        for tensor, flat, kind, slot in faults:
            tag, arr = c.post[tensor]
            bad = np.array(arr, copy=True)
            bad.reshape(-1).view(np.uint8)[flat] ^= 0x10
            c.post[tensor] = (tag, bad)
            if kind is not None:
                want["ice%d" % task].setdefault(tensor, {})[kind] = slot
        assert len({f[3] for f in faults}) == 3, (name, faults)
        W.cann_call(c, str(tmp_path / "bad"), "ice%d" % task, task)
    rc, doc, err = sd.scan(cli, str(tmp_path / "bad"))
    assert rc == 1 and [c["verdict"] for c in doc["calls"]] == \
        ["FAIL"] * len(want), err
    for call in doc["calls"]:
        name = call["id"].split(".")[1]
        assert _failing(call) == want[name], (name, want[name])



# ---- msprobe, via read-back (docs/scan.md, "Read-back"): each write's
# caches from the next record that takes them. The reader stands for the
# indexer's attention: a query, cache as its key, cache_scale (cr) by
# keyword; its copies are the generator's expected caches.

READER = "npu_lightning_indexer"


def _msprobe_scan(cli, root, calls, prefix=None, *args):
    step = sd.MsprobeStep(str(root))
    for c in calls:
        W.msprobe_call(step, c, prefix)
        q = ("fp16", np.linspace(-1, 1, 64, dtype=np.float16).reshape(1, 64))
        kw = {"key_dequant_scale": c.post["cache_scale"]} \
            if "cache_scale" in c.post else {}
        step.call("NPU", READER, [q, c.post["cache"]], kw, [q])
    step.save()
    rc, doc, err = sd.scan(cli, str(root), *args)
    assert doc is not None, err
    return rc, doc


def test_msprobe_records_of_both_forms_are_judged_via_read_back(cli,
                                                                tmp_path):
    """Each form under its namespace (msprobe's default prefix) is that
    form's call: honest ones PASS from the reader's copies; a scale, a
    code and an unwritten slot's byte planted in them FAIL exactly those
    fields, naming the slots."""
    calls = [W.case(n) for n in HONEST]
    rc, doc = _msprobe_scan(cli, tmp_path / "ok", calls)
    assert rc == 0 and doc["verdict"] == "PASS", [
        (c["id"], c["reason"]) for c in doc["calls"]]
    assert [c["api"] for c in doc["calls"]] == [
        W.FORMS[c.attrs["impl"]].E2E_API for c in calls]
    for i, (d, c) in enumerate(zip(doc["calls"], calls)):
        reader = "step0/rank0:NPU.%s.%d.forward" % (READER, i)
        want = "cache read back from %s input_args[1]" % reader
        if c.attrs["impl"] == "cr":
            want += ("; cache_scale read back from %s "
                     "input_kwargs.key_dequant_scale" % reader)
        assert d["read_back"] == want, d
    calls, want = [], []
    for name in ["cr_m0_ebump_e4m3", "cr_m1_e4m3_bf16", "cr_m2_hif8",
                 "va_v2_wide_fp16"]:
        c = W.case(name)
        want.append({})
        for tensor, flat, kind, slot in _cann_faults(c):
            tag, arr = c.post[tensor]
            bad = np.array(arr, copy=True)
            bad.reshape(-1).view(np.uint8)[flat] ^= 0x10
            c.post[tensor] = (tag, bad)
            if kind is not None:
                want[-1].setdefault(tensor, {})[kind] = slot
        calls.append(c)
    rc, doc = _msprobe_scan(cli, tmp_path / "bad", calls)
    assert rc == 1
    for call, w in zip(doc["calls"], want):
        assert call["verdict"] == "FAIL", call["reason"]
        assert _failing(call) == w, (call["id"], w)


def test_msprobe_names_and_attr_impl(cli, tmp_path):
    """Each form's name is its own, so a prefix that says nothing
    ("Custom") still picks it; an --attr impl naming the other form is
    NOT JUDGED (never run as the other); the name of one form under the
    other's namespace (an op kvgold does not know there) is NOT JUDGED
    with the hint."""
    cr = W.case(W.SAMPLE)
    rc, doc = _msprobe_scan(cli, tmp_path / "anon", [cr], "Custom")
    assert rc == 0 and doc["verdict"] == "PASS", doc["calls"][0]["reason"]
    assert doc["calls"][0]["api"] == W.FormCr.E2E_API
    rc, doc = _msprobe_scan(cli, tmp_path / "wrong", [cr], "Custom",
                            "--attr", 'impl="va_v2"')
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    assert ('--attr impl="va_v2" picks none of its forms of that name: '
            'impl="cr" (torch.ops.custom)') in c["reason"], c["reason"]
    rc, doc = _msprobe_scan(cli, tmp_path / "other", [cr],
                            "torch.ops._C_ascend")
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    assert ("torch.ops._C_ascend.indexer_compress_epilog is operator "
            "indexer_compress_epilog, but no call form of it is picked: "
            "its namespace _C_ascend is none of its forms'") in \
        c["reason"], c["reason"]
    assert 'give --attr impl="cr" (torch.ops.custom)' in c["reason"]
    rc, doc = _msprobe_scan(cli, tmp_path / "told", [cr],
                            "torch.ops._C_ascend", "--attr", 'impl="cr"')
    assert rc == 0 and doc["verdict"] == "PASS", doc["calls"][0]["reason"]
