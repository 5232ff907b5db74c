"""kvgold.compare on KvCompressEpilog's packed cache: judged field by
field from the operator's row layout (TensorResult.rows), each planted
fault - a scale, a payload code, a rope byte - failing its own field with
the slot and group named. Offsets from the ot mode 1 row of
docs/kv_compress_epilog.md: [rope bf16 0..128 | nope e4m3 128..640 |
8 e8m0 640..648], 648-byte rows; every vector writes its last slot."""
import os

import numpy as np

import kvgold
from conftest import VECTORS

CASE = os.path.join(VECTORS, "kv_compress_epilog", "ot_m1_e8m0_d576_int32")
ROW, LAST = 648, 7


def _golden():
    c = kvgold.load_case(CASE)
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    golden = kvgold.run(c.op, inputs, c.attrs, c.options, dtypes=c.dtypes)
    return c, inputs, golden


def _judge(c, inputs, golden, byte, xor):
    npu = {n: v.copy() for n, v in golden.items()}
    flat = npu["cache"].reshape(-1)
    flat[byte] ^= xor
    return kvgold.compare(golden, npu, op=c.op, inputs=inputs,
                          attrs=c.attrs, dtypes=c.dtypes)


def _field(rows, kind):
    return next(f for f in rows["fields"] if f["kind"] == kind)


def test_a_clean_cache_passes_field_by_field():
    c, inputs, golden = _golden()
    r = _judge(c, inputs, golden, 0, 0)
    rows = r.tensors["cache"].rows
    assert r.passed and rows is not None
    assert rows["layout"] == "ot mode 1" and rows["slots"] == 8
    assert {f["kind"]: f["verdict"] for f in rows["fields"]} == {
        "payload": "PASS", "scales": "PASS", "pass-through": "PASS",
        "pad": "PASS", "untouched": "PASS", "undefined": "PASS"}


def test_each_planted_fault_fails_its_own_field():
    c, inputs, golden = _golden()
    base = LAST * ROW
    for byte, kind, words in (
            (base + 640, "scales", "slot 7: scale of group 0 of nope"),
            (base + 133, "payload", "slot 7: nope code 5 of group 0"),
            (base + 3, "pass-through", "slot 7: rope element 1")):
        r = _judge(c, inputs, golden, byte, 0x01)
        rows = r.tensors["cache"].rows
        assert not r.passed, kind
        failed = [f["kind"] for f in rows["fields"]
                  if f["verdict"] != "PASS"]
        assert failed == [kind]
        assert words in _field(rows, kind)["places"][0]["text"]
