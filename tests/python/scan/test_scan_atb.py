"""kvgold scan over an ATB dump of a model step written by our own
writer (scan_dumps.py): honest calls pass, each planted fault is found in
its call and named, other operators are passed over, --jobs and --shard
give the same verdicts."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

rac = sd.op("rac")
omni = sd.op("omni")


@pytest.fixture
def step(tmp_path):
    root = str(tmp_path / "atb_dump" / "1234" / "0")
    rac.atb(rac.case("nd_fp16"), root,
               "0_ReshapeAndCacheOperation")
    sd.write_atb_op(root, "1_LinearOperation",
                    [("fp16", sd.np.ones((2, 2), sd.np.float16))],
                    [("fp16", sd.np.ones((2, 2), sd.np.float16))])
    rac.atb(rac.case("nz_fp16"), root,
               "2_ReshapeAndCacheOperation")
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.atb(off, root, "3_ReshapeAndCacheOperation")
    rac.atb(omni.case("random_n3_d96_bf16"), root,
               "4_ReshapeAndCacheOmniOperation")
    ulp = rac.case("nd_bf16_dk_ne_dv")
    sd.plant_ulps(ulp, "value_cache", 3)
    rac.atb(ulp, root, "5_ReshapeAndCacheOperation")
    rac.atb(rac.case("kvhead_fp16"), root,
               "6_ReshapeAndCacheOperation", drop_out=1)
    rac.atb(rac.case("kvhead_rope_random_fp16"), root,
               "10_ReshapeAndCacheOperation")
    return str(tmp_path / "atb_dump")


WANT = [("1234/0/0_ReshapeAndCacheOperation", "PASS", None),
        ("1234/0/2_ReshapeAndCacheOperation", "PASS", None),
        ("1234/0/3_ReshapeAndCacheOperation", "FAIL", "key_cache"),
        ("1234/0/4_ReshapeAndCacheOmniOperation", "PASS", None),
        ("1234/0/5_ReshapeAndCacheOperation", "FAIL", "value_cache"),
        ("1234/0/6_ReshapeAndCacheOperation", "NOT_JUDGED",
         "value_cache: missing: the dump has no post-call value_cache "
         "(after/outtensor1.bin)"),
        ("1234/0/10_ReshapeAndCacheOperation", "PASS", None)]


def check(doc):
    got = [(c["id"], c["verdict"], c["reason"]) for c in doc["calls"]]
    assert [g[:2] for g in got] == [w[:2] for w in WANT]
    for g, w in zip(got, WANT):
        if w[2] is not None:
            assert g[2].startswith(w[2]), g
    ops = [c["op"] for c in doc["calls"]]
    assert ops[3] == omni.OP
    assert doc["other_calls"] == 1


def test_atb_step(cli, step):
    rc, doc, err = sd.scan(cli, step, "--jobs", "1")
    assert rc == 1, err
    assert doc["format"] == "atb"
    check(doc)
    # eight operation directories: seven calls and one of another operation
    assert doc["summary"] == {"calls": 7, "passed": 4, "failed": 2,
                              "not_judged": 1, "entries": 8,
                              "other_calls": 1, "other_shards": 0}
    # the KVHEAD_ROPE call was mapped as such (its mean token judged)
    rope = doc["calls"][6]["report"]["results"]
    assert {t["name"]: t["role"] for t in rope} == {
        "key_cache": "compute", "value_cache": "compute"}
    nz = doc["calls"][1]["report"]["results"][0]["layout"]
    assert nz["kind"] == "nz"
    off = doc["calls"][2]["report"]["results"][0]
    assert off["verdict"] == "FAIL" and off["name"] == "key_cache"
    # the token's own slot kept its old row, the next slot got the token
    assert off["bits_differ"] > 0 and off["untouched_changed"] > 0


def test_atb_jobs_give_the_same(cli, step):
    rc1, one, _ = sd.scan(cli, step, "--jobs", "1")
    rc3, three, _ = sd.scan(cli, step, "--jobs", "3")
    assert rc1 == rc3 == 1
    assert one["calls"] == three["calls"]


def test_atb_shards_split_the_calls(cli, step):
    seen = []
    for i in (1, 2, 3):
        rc, doc, _ = sd.scan(cli, step, "--shard", "%d/3" % i)
        seen += [(c["index"], c["id"], c["verdict"]) for c in doc["calls"]]
    rc, whole, _ = sd.scan(cli, step)
    assert sorted(seen) == sorted((c["index"], c["id"], c["verdict"])
                                  for c in whole["calls"])
    assert len(seen) == 7


def test_atb_op_filter_and_honest_only(cli, step):
    rc, doc, _ = sd.scan(cli, step, "--op", omni.OP)
    assert rc == 0
    assert [c["verdict"] for c in doc["calls"]] == ["PASS"]


def test_atb_malformed_header_names_file_and_field(cli, step):
    f = os.path.join(step, "1234", "0", "0_ReshapeAndCacheOperation",
                     "before", "intensor4.bin")
    data = open(f, "rb").read().replace(b"dims=", b"dims=x")
    open(f, "wb").write(data)
    rc, doc, _ = sd.scan(cli, step)
    assert rc == 1
    c = doc["calls"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "intensor4.bin: dims:" in c["reason"]


def test_atb_reports(cli, step, tmp_path):
    junit = str(tmp_path / "scan.xml")
    html = str(tmp_path / "scan.html")
    rc, doc, err = sd.scan(cli, step, "--junit", junit, "--html", html)
    assert rc == 1, err
    x = open(junit).read()
    import xml.etree.ElementTree as ET
    cases = ET.parse(junit).getroot().iter("testcase")
    assert [c.get("name") for c in cases] == [w[0] for w in WANT]
    assert x.count("<testcase ") == 7
    assert x.count("<failure ") == 2 and x.count("<error ") == 1
    h = open(html).read()
    assert h.count('href="scan_calls/call_') == 7
    page = os.path.join(str(tmp_path), "scan_calls", "call_000003.html")
    assert "key_cache" in open(page).read()


def test_unreadable_path_is_2(cli, tmp_path):
    rc, doc, err = sd.scan(cli, str(tmp_path / "nothing"))
    assert rc == 2 and "nothing" in err


def test_no_kvgold_call_is_not_a_pass(cli, tmp_path):
    root = str(tmp_path / "other")
    sd.write_atb_op(root, "0_LinearOperation",
                    [("fp16", sd.np.ones((2, 2), sd.np.float16))],
                    [("fp16", sd.np.ones((2, 2), sd.np.float16))])
    rc, doc, err = sd.scan(cli, root, "--format", "atb")
    assert rc == 1 and doc["calls"] == [] and doc["other_calls"] == 1
    assert "no call of a kvgold operator" in err


def test_an_empty_shard_is_fine(cli, step):
    rc, doc, err = sd.scan(cli, step, "--op", omni.OP,
                           "--shard", "2/2")
    assert rc == 0 and doc["calls"] == [], err


@pytest.mark.parametrize("args, says", [
    (["--shard", "0/2"], "--shard needs I/N with 1 <= I <= N"),
    (["--shard", "3/2"], "--shard needs I/N with 1 <= I <= N"),
    (["--jobs", "0"], "--jobs needs 1..1024"),
    (["--format", "xyz"], "--format needs auto, msprobe, atb, cann or ttk"),
    (["--op", "nope"], "--op nope is no kvgold operator"),
    (["--attr", "epsilon"], "--attr needs NAME=VALUE"),
])
def test_usage_errors(cli, step, args, says):
    rc, doc, err = sd.scan(cli, step, *args)
    assert rc == 2 and doc is None and says in err


def test_help(cli):
    p = sd.subprocess.run([cli, "help", "scan"], capture_output=True,
                          text=True, env=sd.cli_env())
    assert p.returncode == 0 and "usage: kvgold scan PATH" in p.stdout
    p = sd.subprocess.run([cli, "--help"], capture_output=True, text=True,
                          env=sd.cli_env())
    assert "scan PATH" in p.stdout


def test_python_scan_raises_on_unreadable(cli, tmp_path):
    import kvgold
    with pytest.raises(kvgold.Error, match="nothing"):
        kvgold.scan(str(tmp_path / "nothing"), cli=cli)


def test_python_scan_atb(cli, step):
    import kvgold
    doc = kvgold.scan(step, "--op", omni.OP, cli=cli)
    assert doc["verdict"] == "PASS" and len(doc["calls"]) == 1
