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

import scan_dumps as sd

W = sd.op("c8")
ROW, LAST = 656, 11
SAMPLE = "vllm_rows_skip_negative"


def _scan(cli, tmp_path, calls, fmt="bin"):
    root = str(tmp_path)
    rows = [W.e2e(c, root, "c%d" % i, fmt) for i, c in enumerate(calls)]
    csv = W.write_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert doc is not None, err
    return rc, doc


def _fields(call):
    rows = call["report"]["results"][0]["rows"]
    return {f["kind"]: f for f in rows["fields"]}


def _vllm_cases():
    d = os.path.join(sd.VECTORS, W.OP)
    return sorted(n for n in os.listdir(d) if n.startswith("vllm_"))


def test_every_vllm_case_passes_in_every_file_format(cli, tmp_path):
    """Every vllm-fp8_ds_mla vector case (its e4m3 cache too, and one
    whose scale tensor is NaN: never read) as .bin, .npy and .pt."""
    names = _vllm_cases()
    assert len(names) == 3
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


def test_msprobe_records_are_not_judged(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path))
    W.msprobe_call(step, W.case(SAMPLE))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path))
    assert rc != 0 and doc["verdict"] != "PASS", err
    assert doc["summary"]["other_calls"] == 0
    assert [c["verdict"] for c in doc["calls"]] == ["NOT_JUDGED"]
    assert W.OP in doc["calls"][0]["reason"]


def test_the_ascend_composites_block_quant_call(cli, tmp_path):
    """The Ascend preset has no call of its own: a dump holds its four
    torch_npu calls one by one. Its block quant step is the block quant
    operator's own torch form (writer alias "dbq", its vector case of
    this very call: bf16 [6, 1, 512], 1 x 128, int8, a2a3). Recorded with
    dst_type as torch_npu's number it is judged; recorded as vllm-ascend
    passes it, a torch.dtype (sfa_v1.py custom_kv_rmsnorm_rope:
    dst_type=torch.int8; msprobe writes {"type": "torch.dtype", "value":
    "torch.int8"}), it is NOT JUDGED, the spelling named: that binding
    reads numbers and kvgold tags only (docs/concat_and_cache_ds_mla.md,
    "Call forms")."""
    dbq = sd.op("dbq")
    c = sd.Call(dbq.OP, "a2a3_bf16_3d_vllm_c8")
    assert c.inputs["x"][1].shape == (6, 1, 512)
    got = []
    for spelling in ("number", "torch.dtype"):
        step = sd.MsprobeStep(str(tmp_path / spelling))
        key = step.call("NPU", dbq.TORCH, [c.inputs["x"]],
                        dbq.torch_attrs(c), [c.post[n] for n in dbq.OUT])
        if spelling == "torch.dtype":
            step.data[key]["input_kwargs"]["dst_type"] = {
                "type": "torch.dtype", "value": "torch.int8"}
        step.save()
        rc, doc, err = sd.scan(cli, str(tmp_path / spelling), "--attr",
                               'profile="a2a3"')
        assert doc is not None, err
        got.append([(x["verdict"], x["reason"]) for x in doc["calls"]])
    assert got[0] == [("PASS", "")], got[0]
    assert len(got[1]) == 1 and got[1][0][0] == "NOT_JUDGED"
    assert '"torch.int8" is not a dtype tag' in got[1][0][1]
