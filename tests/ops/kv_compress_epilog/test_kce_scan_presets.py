"""Every KvCompressEpilog preset in `kvgold scan`, field by field: for one
vector case of each implementation, mode and layout, one call as an
ops-test-kit e2e case of its own torch API with a fault planted in each
field its row has - a scale, a payload code, a pass-through (rope) byte, a
pad byte - each at a different written slot where the call writes enough
of them, and one byte of a slot no token writes. The report must fail
exactly those fields, each naming the slot it was planted in; sgk / va
layout 2's scale pad, which the kernel leaves as its buffer held
(docs/kv_compress_epilog.md, open point 2), is changed too and must not
fail. The byte
offsets come from the independent NumPy generator's own layout
(tools/gen/kvgen/kv_compress_epilog.py: row_map, geometry, golden's
addressing; docs/kv_compress_epilog.md's tables), not from kvgold; the
generator's field names map onto compare's: PAYLOAD payload, SCALE
scales, COPY pass-through, PAD pad. The msprobe record of every preset
(the APIs return None: no post-call cache) is judged via read-back, its
form picked by its namespace or --attr impl."""
import os
import sys

import numpy as np

import scan_dumps as sd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import kv_compress_epilog as kg  # noqa: E402

W = sd.op("kce")
# one vector case per implementation / mode / layout
PRESETS = {
    "ot mode 0": "ot_m0_scale16_d576",
    "ot mode 1": "ot_m1_e8m0_d576_int32",
    "ot mode 2": "ot_m2_hif8_fp4",
    "sgk mode 1": "sgk_m1_fp8_e4m3_d576",
    "sgk mode 2 layout 1": "sgk_m2_mxfp8_g64_l1",
    "sgk mode 2 layout 2": "sgk_m2_l2_g128_scale_pad",
    "va mode 1": "va_m1_fp8_e4m3_d576",
    "va mode 2 layout 1": "va_m2_mxfp8_g64_l1",
    "va mode 2 layout 2": "va_m2_l2_g128_scale_pad",
    "cr mode 1": "cr_m1_fp8_d576",
    "cr mode 2": "cr_m2_mxfp8_d576",
    "cr mode 3": "cr_m3_hif8_row",
    "cr_v2 mode 2 layout 1": "crv2_m2_mxfp8_l1",
    "cr_v2 mode 2 layout 2": "crv2_m2_trunc_l2_wide",
    "cr_v2 mode 4 layout 1": "crv2_m4_mxfp4_g16_l1",
    "cr_v2 mode 4 layout 2": "crv2_m4_mxfp4_g32_l2",
}
KIND = {"PAYLOAD": "payload", "SCALE": "scales", "COPY": "pass-through",
        "PAD": "pad"}


class Layout:
    """Where the generator's golden puts each segment of a slot's row."""

    def __init__(self, call):
        cache_tag, cache = call.inputs["cache"]
        x = call.inputs["x"][1]
        self.d = x.shape[-1]
        self.p = kg.preset(call.attrs, cache_tag)
        self.segs = kg.row_map(self.p, self.d)
        self.rows, self.bsz, self.width, self.bstride = kg.geometry(
            self.p, cache.shape, self.d)
        self.l2 = self.p["impl"] in ("sgk", "va") and \
            self.p["mode"] == 2 and self.p["layout"] == 2
        self.vpt = kg.region_bytes(self.segs, 0)
        self.spt = kg.region_bytes(self.segs, 1)
        if self.p["impl"] == "cr_v2" and self.p["layout"] == 2:
            self.width = self.vpt
        sl = np.asarray(call.inputs["slot_mapping"][1]).reshape(-1)
        keep = (sl >= 0) & (sl < self.rows) if self.p["impl"] == "cr_v2" \
            else sl != -1
        self.written = sorted(set(int(s) for s in sl[keep]))

    def at(self, slot, s):
        """The flat cache byte of segment s of `slot`'s row."""
        blk, pos = slot // self.bsz, slot % self.bsz
        if self.l2:
            base = blk * self.bstride + (
                pos * self.vpt if s["region"] == 0
                else self.bsz * self.vpt + pos * self.spt)
        else:
            base = blk * self.bstride + pos * self.width
        return base + s["offset"]

    def row_bytes(self, slot):
        """Every byte the generator writes for `slot`."""
        return {self.at(slot, s) + i for s in self.segs
                for i in range(s["bytes"])}


def _plant(call, lay):
    """One fault per field kind the row has, each at its own written slot
    when there are enough, and one in an unwritten slot's bytes: {kind:
    slot}."""
    flat = call.post["cache"][1].reshape(-1)
    planted = {}
    kinds = []
    for s in lay.segs:
        if KIND[s["field"]] not in [k for k, _ in kinds]:
            kinds.append((KIND[s["field"]], s))
    for i, (kind, s) in enumerate(kinds):
        slot = lay.written[-1 - i % len(lay.written)]
        byte = lay.at(slot, s) + s["bytes"] - 1  # the segment's last byte
        if kind == "pad":
            assert flat[byte] == 0, (kind, slot)  # the pad is written zero
            flat[byte] = 0x5A
        else:
            flat[byte] ^= 0x10
        if kind == "pad" and lay.l2:
            # sgk / va layout 2's scale pad is whatever the kernel's buffer
            # held (docs/kv_compress_epilog.md, open point 2): don't-care,
            # so a change there must not fail
            continue
        planted[kind] = slot
    written = set()
    for slot in lay.written:
        written |= lay.row_bytes(slot)
    for slot in range(lay.rows):
        if slot in lay.written:
            continue
        # an unwritten slot's first byte, which no written row covers
        # (layout 2 puts a block's scales after all its values)
        byte = next((b for b in sorted(lay.row_bytes(slot))
                     if b not in written and b < flat.size), None)
        if byte is not None:
            flat[byte] ^= 0x10
            planted["untouched"] = slot
            break
    return planted


def _scan(cli, root, calls):
    rows = [W.e2e(c, str(root), "c%d" % i) for i, c in enumerate(calls)]
    csv = W.write_csv(str(root / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, str(root), "--csv", csv)
    assert doc is not None, err
    return rc, doc


def test_every_preset_passes_honest(cli, tmp_path):
    calls = [W.case(n) for n in PRESETS.values()]
    rc, doc = _scan(cli, tmp_path, calls)
    assert rc == 0 and doc["verdict"] == "PASS", [
        (c["id"], c["reason"]) for c in doc["calls"]
        if c["verdict"] != "PASS"]


def test_every_preset_fails_field_by_field(cli, tmp_path):
    calls, planted = [], []
    for preset, name in PRESETS.items():
        c = W.case(name)
        lay = Layout(c)
        assert len(lay.written) >= 1, preset
        planted.append(_plant(c, lay))
        calls.append(c)
    rc, doc = _scan(cli, tmp_path, calls)
    assert rc == 1
    seen = {}
    for (preset, name), want, call in zip(PRESETS.items(), planted,
                                          doc["calls"]):
        assert call["verdict"] == "FAIL", (preset, call["reason"])
        rows = call["report"]["results"][0]["rows"]
        fields = {f["kind"]: f for f in rows["fields"]}
        bad = {k: f["places"][0]["slot"] for k, f in fields.items()
               if f["verdict"] != "PASS"}
        assert bad == want, (preset, name, want, bad)
        seen[preset] = sorted(want)
    # every field a row of the operator has was planted somewhere
    kinds = set(k for v in seen.values() for k in v)
    assert kinds == {"payload", "scales", "pass-through", "pad",
                     "untouched"}, seen


# ---- msprobe, via read-back (docs/scan.md, "Read-back"): each API
# returns None, so a write's post-call cache is the next record's input
# that takes it. The reader here stands for the attention that reads the
# compressed cache (any API that takes it does): a query, then the cache
# as the generator's expected one, with the faults planted above.

READER = "npu_sparse_attn_sharedkv"


def _msprobe_scan(cli, root, calls, prefix=None, *args):
    """Layer by layer: each write (its form's namespace as msprobe's
    prefix, or `prefix`), then the record that reads its cache."""
    step = sd.MsprobeStep(str(root))
    for c in calls:
        W.msprobe_call(step, c, prefix)
        q = ("fp16", np.linspace(-1, 1, 64, dtype=np.float16).reshape(1, 64))
        step.call("NPU", READER, [q, c.post["cache"]], {}, [q])
    step.save()
    rc, doc, err = sd.scan(cli, str(root), *args)
    assert doc is not None, err
    return rc, doc


def test_every_presets_msprobe_record_passes_via_read_back(cli, tmp_path):
    """Each form recorded under its namespace (register_custom_api's
    default prefix, the module's __name__) is that form's call: judged
    from the reader's copy of the cache, every preset PASS."""
    calls = [W.case(n) for n in PRESETS.values()]
    rc, doc = _msprobe_scan(cli, tmp_path, calls)
    assert rc == 0 and doc["verdict"] == "PASS", [
        (c["id"], c["reason"]) for c in doc["calls"]
        if c["verdict"] != "PASS"]
    assert doc["summary"]["other_calls"] == len(PRESETS)
    for i, (c, call) in enumerate(zip(doc["calls"], calls)):
        ns, api = W.MSPROBE[call.attrs.get("impl", "ot")]
        assert c["api"] == W.FORMS[call.attrs.get("impl", "ot")].E2E_API \
            or c["api"] == "%s.%s" % (ns, api), c["api"]
        assert c["read_back"] == (
            "cache read back from step0/rank0:NPU.%s.%d.forward "
            "input_args[1]" % (READER, i)), c


def test_every_presets_msprobe_record_fails_field_by_field(cli, tmp_path):
    """The faults planted in the reader's copy of each preset's cache FAIL
    exactly those fields, each naming its slot, as in ops-test-kit."""
    calls, planted = [], []
    for name in PRESETS.values():
        c = W.case(name)
        planted.append(_plant(c, Layout(c)))
        calls.append(c)
    rc, doc = _msprobe_scan(cli, tmp_path, calls)
    assert rc == 1
    for preset, want, call in zip(PRESETS, planted, doc["calls"]):
        assert call["verdict"] == "FAIL", (preset, call["reason"])
        assert READER in call["read_back"], preset
        rows = call["report"]["results"][0]["rows"]
        bad = {f["kind"]: f["places"][0]["slot"] for f in rows["fields"]
               if f["verdict"] != "PASS"}
        assert bad == want, (preset, want, bad)


# msprobe's prefix when the module has no __name__ (precision_debugger.py
# :107-108), or one a user gives: it says nothing of whose op it is
ANONYMOUS = "Custom"


def test_a_prefix_that_says_nothing_needs_attr_impl(cli, tmp_path):
    """Under a prefix that is no form's namespace, kv_compress_epilog is
    any of four implementations: NOT JUDGED naming --attr impl and every
    choice; with --attr impl the form is that implementation's and the
    call PASSes via read-back; a wrong --attr impl never PASSes."""
    calls = [W.case(PRESETS["cr mode 2"]), W.case(PRESETS["sgk mode 1"])]
    rc, doc = _msprobe_scan(cli, tmp_path / "none", calls, ANONYMOUS)
    assert rc == 1 and doc["summary"]["not_judged"] == 2, doc["summary"]
    assert doc["summary"]["other_calls"] == 2
    for c in doc["calls"]:
        assert c["verdict"] == "NOT_JUDGED"
        assert "Custom.kv_compress_epilog is operator kv_compress_epilog" \
            in c["reason"], c["reason"]
        for choice in ('impl="sgk" (torch.ops.npu)',
                       'impl="va" (torch.ops._C_ascend)',
                       'impl="cr" (torch.ops.custom)',
                       'impl="ot" (cann_ops_transformer)'):
            assert choice in c["reason"], c["reason"]
    cr = [calls[0]]
    rc, doc = _msprobe_scan(cli, tmp_path / "cr", cr, ANONYMOUS,
                            "--attr", 'impl="cr"')
    assert rc == 0 and doc["verdict"] == "PASS", doc["calls"][0]["reason"]
    assert doc["calls"][0]["api"] == "torch.ops.custom.kv_compress_epilog"
    assert doc["calls"][0]["read_back"].startswith("cache read back from")
    rc, doc = _msprobe_scan(cli, tmp_path / "wrong", cr, ANONYMOUS,
                            "--attr", 'impl="sgk"')
    assert rc == 1 and doc["calls"][0]["verdict"] != "PASS"
    assert doc["calls"][0]["api"] == "torch.ops.npu.kv_compress_epilog"
    rc, doc = _msprobe_scan(cli, tmp_path / "none_such", cr, ANONYMOUS,
                            "--attr", 'impl="cr_v2"')
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    assert 'impl="cr_v2" picks none of its forms of that name' in \
        c["reason"], c["reason"]


def test_attr_impl_against_the_namespace_is_not_judged(cli, tmp_path):
    """A record whose namespace is cr's and an --attr impl that says sgk:
    NOT JUDGED naming both, never run as either."""
    rc, doc = _msprobe_scan(cli, tmp_path, [W.case(PRESETS["cr mode 1"])],
                            None, "--attr", 'impl="sgk"')
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    assert ("torch.ops.custom.kv_compress_epilog is "
            "torch.ops.custom.kv_compress_epilog by its namespace "
            '(impl="cr"), but --attr impl="sgk" says '
            "torch.ops.npu.kv_compress_epilog") in c["reason"], c["reason"]


# the presets a CANN dump names: ot's kernel (KvCompressEpilog with ot's
# attributes, x_scale among them) and cr_v2's (KvCompressEpilogV2)
CANN = {"ot mode 0": "KvCompressEpilog", "ot mode 1": "KvCompressEpilog",
        "ot mode 2": "KvCompressEpilog",
        "cr_v2 mode 2 layout 1": "KvCompressEpilogV2",
        "cr_v2 mode 4 layout 1": "KvCompressEpilogV2"}


def test_cann_dumps_of_ot_and_cr_v2_fail_field_by_field(cli, tmp_path):
    """The same planted faults in CANN dumps of ot's and cr_v2's kernels
    (their attributes as the kernel's numbers, kv_compress_epilog_def.cpp
    :45-48): each preset FAILs in exactly the planted fields and slots."""
    want = {}
    for task, (preset, op_type) in enumerate(CANN.items(), 1):
        c = W.case(PRESETS[preset])
        want[op_type + str(task)] = (preset, _plant(c, Layout(c)))
        a = c.attrs
        attrs = [("quant_group_size", str(kg.preset(
                     a, c.inputs["cache"][0])["g"])),
                 ("quant_mode", str(a.get("quant_mode",
                                          kg.DEFAULT_MODE[a.get("impl",
                                                                "ot")]))),
                 ("round_scale", "true" if a.get("round_scale", True)
                  else "false"),
                 ("x_scale", repr(float(a.get("x_scale", 1.0))))]
        sd.write_cann(str(tmp_path), op_type, "kce%d" % task,
                      [c.inputs[n] for n in ("cache", "x", "slot_mapping")],
                      [c.post["cache"]], attrs, task)
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc == 1 and doc["summary"]["failed"] == len(CANN), (err, [
        (c["id"], c["verdict"], c["reason"][:200]) for c in doc["calls"]])
    for call in doc["calls"]:
        preset, planted = want[call["id"].split(".")[0] +
                               call["id"].split(".")[2]]
        fields = call["report"]["results"][0]["rows"]["fields"]
        bad = {f["kind"]: f["places"][0]["slot"] for f in fields
               if f["verdict"] != "PASS"}
        assert bad == planted, (preset, planted, bad)


def test_cann_dumps_of_sgk_va_cr_fail_field_by_field_given_impl(cli,
                                                                tmp_path):
    """sgk's, va's and cr's kernels share the op type KvCompressEpilog
    with ot's, and a dump's attributes do not say whose it is: with
    --attr impl naming it (docs/kv_compress_epilog.md), each of their
    presets' planted faults FAIL in exactly the planted fields and
    slots."""
    for impl in ("sgk", "va", "cr"):
        want = {}
        root = tmp_path / impl
        for task, (preset, name) in enumerate(PRESETS.items(), 1):
            if not preset.startswith(impl + " "):
                continue
            c = W.case(name)
            want["kce%d" % task] = (preset, _plant(c, Layout(c)))
            attrs = [(k, sd.attr_text(v)) for k, v in c.attrs.items()
                     if k != "impl"]
            sd.write_cann(str(root), "KvCompressEpilog", "kce%d" % task,
                          [c.inputs[n] for n in ("cache", "x",
                                                 "slot_mapping")],
                          [c.post["cache"]], attrs, task)
        rc, doc, err = sd.scan(cli, str(root), "--attr", 'impl="%s"' % impl)
        assert rc == 1 and doc["summary"]["failed"] == len(want), (err, [
            (c["id"], c["verdict"], c["reason"][:200])
            for c in doc["calls"]])
        for call in doc["calls"]:
            preset, planted = want[call["id"].split(".")[1]]
            fields = call["report"]["results"][0]["rows"]["fields"]
            bad = {f["kind"]: f["places"][0]["slot"] for f in fields
                   if f["verdict"] != "PASS"}
            assert bad == planted, (preset, planted, bad)
