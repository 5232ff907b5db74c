"""kvgold scan over CANN operator dump files written by our own writer
(scan_dumps.py: a protobuf wire-format encoder from the public field
numbers, since python3-protobuf is not installed): honest launches pass,
each planted fault is found in its file and named, attributes come from
DumpData.attr, other kernels are passed over, a malformed header is named
by file and field."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

kv = sd.op("kv")
rac = sd.op("rac")
qkv = sd.op("qkv")


@pytest.fixture
def dump(tmp_path):
    root = str(tmp_path / "dump" / "20260101" / "0" / "model" / "1" / "0")
    kv.cann(kv.case("m_pa_bf16_kt_ct_sym_out"), root, "kvrope_0", 1)
    sd.write_cann(root, "MatMulV2", "matmul_1",
                  [("fp16", sd.np.ones((2, 2), sd.np.float16))],
                  [("fp16", sd.np.ones((2, 2), sd.np.float16))], task=2)
    rac.cann(rac.case("nz_fp16"), root, "rac_3", 3)
    ulp = kv.case("m_norm_fp16_kt_ct_sym_noout")
    sd.plant_ulps(ulp, "ckv_cache", 64)
    kv.cann(ulp, root, "kvrope_4", 4)
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.cann(off, root, "rac_5", 5)
    kv.cann(kv.case("m_norm_fp16_kt_chf8_sym_out"),
               root, "kvrope_6", 6, drop=3)
    qkv.cann(qkv.case("bf16_k_int8_sym_v_plain"), root, "qkv_7", 7)
    return str(tmp_path / "dump")


def test_cann_step(cli, dump):
    rc, doc, err = sd.scan(cli, dump, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "cann"
    got = [(c["api"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [
        ("KvRmsNormRopeCache", kv.OP, "PASS"),
        ("ReshapeAndCache", rac.OP, "PASS"),
        ("KvRmsNormRopeCache", kv.OP, "FAIL"),
        ("ReshapeAndCache", rac.OP, "FAIL"),
        ("KvRmsNormRopeCache", kv.OP, "NOT_JUDGED"),
        ("QkvRmsNormRopeCache", qkv.OP, "PASS")]
    assert doc["other_calls"] == 1
    c = doc["calls"]
    assert c[0]["id"].endswith("/KvRmsNormRopeCache.kvrope_0.1.2."
                               "1700000000001")
    # the attributes came from the header: is_output_kv gave k_rope, c_kv
    assert {r["name"] for r in c[0]["report"]["results"]} == {
        "k_cache", "ckv_cache", "k_rope", "c_kv"}
    assert c[1]["report"]["results"][0]["layout"]["kind"] == "nz"
    assert c[2]["reason"].startswith("ckv_cache:")
    assert c[3]["reason"].startswith("key_cache:")
    assert c[4]["reason"].startswith(
        "c_kv: missing: the dump has no post-call c_kv (output 3)")


def test_cann_single_file(cli, dump):
    f = [os.path.join(dp, n) for dp, _, ns in os.walk(dump) for n in ns
         if n.startswith("ReshapeAndCache.rac_3")][0]
    rc, doc, err = sd.scan(cli, f)
    assert rc == 0, err
    assert [c["verdict"] for c in doc["calls"]] == ["PASS"]


def test_cann_malformed_header(cli, dump):
    f = [os.path.join(dp, n) for dp, _, ns in os.walk(dump) for n in ns
         if n.startswith("ReshapeAndCache.rac_3")][0]
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
    f = sd.write_cann(str(tmp_path), "ReshapeAndCache", "x",
                      [("fp16", arr)], [])
    data = bytearray(open(f, "rb").read())
    # the input's size field (5) says 12 bytes: make it 10
    i = data.index(bytes([5 << 3, 12]))
    data[i + 1] = 10
    open(f, "wb").write(bytes(data))
    rc, doc, err = sd.scan(cli, f, "--format", "cann")
    assert rc == 2 and "DumpData.input.size: size 10" in err
