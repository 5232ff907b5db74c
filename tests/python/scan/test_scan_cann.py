"""kvgold scan over CANN operator dump files written by our own writer
(scan_dumps.py: a protobuf wire-format encoder from the public field
numbers, since python3-protobuf is not installed): one launch of every
operator whose writer has a CANN form (its SAMPLE call) passes, a planted
fault is found in its file and named, attributes come from DumpData.attr,
other kernels are passed over, a malformed header is named by file and
field. An operator with in-place caches is NOT JUDGED, not PASS, on an
honest launch: CANN records a kernel's inputs after it ran, so the
caches' untouched bytes cannot be judged (sd.cann_honest). Each
operator's own CANN tests are tests/ops/<op>/."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

OPS = sd.every("cann", "SAMPLE", "OP_TYPE")
# each names its kernel's inputs, which tell its in-place caches
assert all(hasattr(w, "IN") for w in OPS), [w.ALIAS for w in OPS]
TS = 1700000000000  # write_cann's dump time, in the file name


def first_file(dump, w):
    """The dump file of writer w's first launch."""
    return [os.path.join(dp, n) for dp, _, ns in os.walk(dump) for n in ns
            if n.startswith("%s.%s_0." % (w.OP_TYPE, w.ALIAS))][0]


@pytest.fixture
def dump(tmp_path):
    """Every operator's honest launch, another kernel's, and the first
    operator's launch with a fault planted; returns the dump and the
    name of the tensor planted in."""
    root = str(tmp_path / "dump" / "20260101" / "0" / "model" / "1" / "0")
    task = 1
    for w in OPS:
        w.cann(w.case(w.SAMPLE), root, "%s_0" % w.ALIAS, task)
        task += 1
    sd.write_cann(root, "MatMulV2", "matmul_1",
                  [("fp16", sd.np.ones((2, 2), sd.np.float16))],
                  [("fp16", sd.np.ones((2, 2), sd.np.float16))], task=task)
    bad = OPS[0].case(OPS[0].SAMPLE)
    planted = sd.plant_fault(bad)
    OPS[0].cann(bad, root, "%s_1" % OPS[0].ALIAS, task + 1)
    return str(tmp_path / "dump"), planted


def test_cann_step(cli, dump):
    dump, planted = dump
    rc, doc, err = sd.scan(cli, dump, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "cann"
    got = [(c["api"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [(w.OP_TYPE, w.OP, sd.cann_verdict(w.case(w.SAMPLE),
                                                   w.IN)) for w in OPS] + [(OPS[0].OP_TYPE, OPS[0].OP, "FAIL")]
    for c, w in zip(doc["calls"], OPS):
        sd.cann_honest(c, w.case(w.SAMPLE), w.IN)
    # both kinds are here: an operator whose calls can PASS in CANN, and
    # one with in-place caches
    assert {c["verdict"] for c in doc["calls"][:-1]} == {"PASS",
                                                         "NOT_JUDGED"}
    assert doc["other_calls"] == 1
    sd.reconciles(doc, len(OPS) + 2, 1)
    c = doc["calls"]
    assert c[0]["id"].endswith("/%s.%s_0.1.2.%d" % (
        OPS[0].OP_TYPE, OPS[0].ALIAS, TS + 1))
    assert c[-1]["reason"].startswith(planted + ":")


def test_cann_single_file(cli, dump):
    dump, _ = dump
    for w in OPS:
        f = first_file(dump, w)
        rc, doc, err = sd.scan(cli, f)
        call = w.case(w.SAMPLE)
        assert rc == (0 if sd.cann_verdict(call, w.IN) == "PASS" else 1), err
        assert len(doc["calls"]) == 1
        sd.cann_honest(doc["calls"][0], call, w.IN)


def test_cann_malformed_header(cli, dump):
    dump, _ = dump
    f = first_file(dump, OPS[-1])
    data = bytearray(open(f, "rb").read())
    data[8] = 0xFF  # a field key with wire type 7
    open(f, "wb").write(bytes(data))
    rc, doc, err = sd.scan(cli, dump)
    bad = [c for c in doc["calls"] if c["id"].endswith(os.path.basename(f))]
    assert bad[0]["verdict"] == "NOT_JUDGED"
    assert "DumpData.header: not a protobuf message" in bad[0]["reason"]
    rc, doc, err = sd.scan(cli, f, "--format", "cann")
    assert rc == 2 and os.path.basename(f) in err and "DumpData" in err


def test_cann_size_mismatch_names_the_field(cli, tmp_path):
    arr = sd.np.ones((2, 3), sd.np.float16)
    f = sd.write_cann(str(tmp_path), OPS[0].OP_TYPE, "x",
                      [("fp16", arr)], [])
    data = bytearray(open(f, "rb").read())
    # the input's size field (5) says 12 bytes: make it 10
    i = data.index(bytes([5 << 3, 12]))
    data[i + 1] = 10
    open(f, "wb").write(bytes(data))
    rc, doc, err = sd.scan(cli, f, "--format", "cann")
    assert rc == 2 and "DumpData.input.size: size 10" in err

