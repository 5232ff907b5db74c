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



# ---- aclnn operator dumps: a launch's inputs and outputs in two files ----
# (docs/scan.md, "CANN operator dumps"; sd.write_aclnn writes them as
# hicann/opbase@aa3cd74b and hicann/runtime@681ef761 name and fill them)

def by_id(doc):
    return {c["id"].split("/")[-1].split(" + ")[0]: c for c in doc["calls"]}


def judged_whole(c, call, ins):
    """Call c is `call` judged from a pre-launch input file: PASS, and
    each in-place cache's untouched bytes judged, none NOT JUDGED."""
    assert c["verdict"] == "PASS", c
    res = {r["name"]: r for r in c["report"]["results"]}
    assert all(r["verdict"] == "PASS" for r in res.values()), res
    assert not [n for n in res if n.startswith("untouched bytes of")], res


def test_aclnn_pairs_are_judged(cli, tmp_path):
    # every operator twice: an individual op's two files (sequence
    # numbers interleaved with the other operators': each op type is a
    # group of its own) and a composite API's kernel; another kernel's
    # launch is two files of another operator
    root = str(tmp_path / "dump" / "0")
    ts = 1700000000000
    for k, w in enumerate(OPS):
        sd.write_aclnn(w, w.case(w.SAMPLE), root, 10 + 2 * k, ts + 10 * k)
        sd.write_aclnn(w, w.case(w.SAMPLE), root, 500 + k,
                       ts + 10 * k + 5, api="aclnn" + w.OP_TYPE)
    mm = sd.write_cann(root, "MatMulV2", "mm", [("fp16", sd.np.ones(
        (2, 2), sd.np.float16))], [("fp16", sd.np.ones((2, 2),
                                                       sd.np.float16))])
    sd.split_aclnn(mm, sd.aclnn_name("MatMulV2", 3, 1, ts - 9),
                   sd.aclnn_name("MatMulV2", 4, 2, ts - 8))
    # operators with in-place caches are among them: their untouched
    # bytes judged now (a stray write there fails: test_rac_scan_cann.py)
    assert any(sd.inplace(w.case(w.SAMPLE), w.IN) for w in OPS)
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    assert rc == 0, err
    assert doc["format"] == "cann"
    assert [(c["api"], c["op"]) for c in doc["calls"]] == [
        (w.OP_TYPE, w.OP) for w in OPS for _ in range(2)]
    for c, w in zip(doc["calls"], [w for w in OPS for _ in range(2)]):
        judged_whole(c, w.case(w.SAMPLE), w.IN)
    assert doc["calls"][0]["id"] == "0/%s + %s" % (
        sd.aclnn_name(OPS[0].OP_TYPE, 10, 6, ts),
        sd.aclnn_name(OPS[0].OP_TYPE, 11, 7, ts + 1))
    sd.reconciles(doc, 2 * len(OPS) + 2, 2)


def test_aclnn_odd_files_are_not_judged(cli, tmp_path):
    # an input file alone, an output file alone (other op types), a group
    # that does not alternate (two launches' inputs, then their outputs:
    # two threads on one stream), and an aclnn-like name that parses as
    # neither form: each NOT JUDGED naming its file, none counted as
    # another operator's, none judged on a guess
    root = str(tmp_path / "dump" / "0")
    ts = 1700000000000
    a, b = OPS[0], OPS[1]
    lone_in = sd.write_aclnn(a, a.case(a.SAMPLE), root, 10, ts,
                             files=("in",))[0]
    lone_out = sd.write_aclnn(b, b.case(b.SAMPLE), root, 20, ts + 10,
                              files=("out",))[0]
    api = "aclnn" + a.OP_TYPE
    in1, out1 = sd.write_aclnn(a, a.case(a.SAMPLE), root, 7, ts + 20,
                               api=api)
    in2, out2 = sd.write_aclnn(a, a.case(a.SAMPLE), root, 7, ts + 30,
                               api=api)
    # in1 (ts + 20), in2 (ts + 21), out1 (ts + 30), out2 (ts + 31)
    os.rename(in2, in2[:-len(str(ts + 30))] + str(ts + 21))
    os.rename(out1, out1[:-len(str(ts + 21))] + str(ts + 30))
    bad = os.path.join(root, "L2DfxAbscent_x9._L0%s.1.2.%d" % (a.OP_TYPE,
                                                               ts + 40))
    os.rename(sd.write_aclnn(a, a.case(a.SAMPLE), root, 90, ts + 40,
                             files=("in",))[0], bad)
    # a composite's op type without its number; a composite's kernel
    # without an L0 name (op_dfx.cpp:1139): neither says whose launch
    odd = {"aclnn%s_L0.%s.1.2.%d" % (a.OP_TYPE, a.OP_TYPE, ts + 50):
           "op type ..._L0 is <aclnn API>_<n>_L0",
           "aclnn%s_3_L0.L0DfxAbscent.1.2.%d" % (a.OP_TYPE, ts + 60):
           "op name L0DfxAbscent names no kernel"}
    for name in odd:
        os.rename(sd.write_aclnn(a, a.case(a.SAMPLE), root, 90, ts + 70,
                                 files=("in",))[0],
                  os.path.join(root, name))
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    assert rc == 1, err
    got = by_id(doc)
    assert len(doc["calls"]) == 9 and doc["other_calls"] == 0, got.keys()
    for name, why in odd.items():
        assert got[name]["reason"].startswith(
            "unreadable: %s looks like an aclnn operator dump file's name, "
            "but %s" % (name, why)), got[name]
    assert all(c["verdict"] == "NOT_JUDGED" for c in doc["calls"])
    r = {k: c["reason"] for k, c in got.items()}
    n = os.path.basename
    assert r[n(lone_in)] == "unpaired: %s is an aclnn operator dump input " \
        "file with no output file of its launch here (docs/scan.md, " \
        "\"CANN operator dumps\")" % n(lone_in)
    assert r[n(lone_out)].startswith("unpaired: %s is an aclnn operator "
                                     "dump output file with no input" %
                                     n(lone_out))
    group = [k for k in r if k.startswith(api + "_7")]
    assert len(group) == 4, r
    for k in group:
        assert r[k].startswith("unpaired: %s: of 4 aclnn operator dump "
                               "files of %s_7_L0.%s on stream 2, by "
                               "timestamp, they do not alternate input "
                               "file, output file" % (k, api, a.OP_TYPE)), r[k]
    assert r[n(bad)].startswith("unreadable: %s looks like an aclnn "
                                "operator dump file's name, but it is "
                                "neither" % n(bad)), r[n(bad)]
