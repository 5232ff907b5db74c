"""kvgold scan over an ATB dump of a model step written by our own
writer (scan_dumps.py): every operator's honest call passes, a planted
fault is found in its call and named, a missing output is NOT JUDGED,
other operations are passed over, --jobs and --shard give the same
verdicts. Each operator's own ATB tests are in tests/ops/<op>/."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

# every operator whose writer has an ATB form; OTHER, the last, has one
# call in the step (the --op and --shard tests)
OPS = sd.every("atb", "SAMPLE", "ATB_OP")
OTHER = OPS[-1]
LINEAR = ("fp16", sd.np.ones((2, 2), sd.np.float16))


def _layout():
    """The step's operation directories: (name, writer, how), in the
    order scan lists them (10 after 6: numerically)."""
    first = OPS[0]
    out = [("0_" + first.ATB_OP, first, "honest")]
    n = 2
    for w in OPS[1:]:
        out.append(("%d_%s" % (n, w.ATB_OP), w, "honest"))
        n += 1
    out.append(("%d_%s" % (n, first.ATB_OP), first, "fault"))
    out.append(("%d_%s" % (n + 1, first.ATB_OP), first, "drop"))
    assert n + 1 < 10
    out.append(("10_" + first.ATB_OP, first, "honest"))
    return out


LAYOUT = _layout()


@pytest.fixture
def step(tmp_path):
    """Every operator's honest SAMPLE call, another operation, the first
    operator's call with a planted fault and one whose second output was
    not dumped; returns the dump (PLANTED[0]: the tensor planted in)."""
    root = str(tmp_path / "atb_dump" / "1234" / "0")
    sd.write_atb_op(root, "1_LinearOperation", [LINEAR], [LINEAR])
    for name, w, how in LAYOUT:
        call = w.case(w.SAMPLE)
        if how == "fault":
            PLANTED[:] = [sd.plant_fault(call)]
        w.atb(call, root, name, drop_out=1 if how == "drop" else None)
    return str(tmp_path / "atb_dump")


PLANTED = []
WANT = [("1234/0/" + name, {"honest": "PASS", "fault": "FAIL",
                            "drop": "NOT_JUDGED"}[how])
        for name, w, how in LAYOUT]


def check(doc):
    got = [(c["id"], c["verdict"], c["reason"]) for c in doc["calls"]]
    assert [g[:2] for g in got] == WANT
    assert [c["op"] for c in doc["calls"]] == [w.OP for _, w, _ in LAYOUT]
    for g, (_, _, how) in zip(got, LAYOUT):
        if how == "fault":
            assert g[2].startswith(PLANTED[0] + ":"), g
        elif how == "drop":
            assert ": missing: the dump has no post-call " in g[2], g
            assert "(after/outtensor1.bin)" in g[2], g
    assert doc["other_calls"] == 1


def test_atb_step(cli, step):
    rc, doc, err = sd.scan(cli, step, "--jobs", "1")
    assert rc == 1, err
    assert doc["format"] == "atb"
    check(doc)
    # the operation directories: the calls and one of another operation
    n = len(LAYOUT)
    assert doc["summary"] == {"calls": n, "passed": n - 2, "failed": 1,
                              "not_judged": 1, "entries": n + 1,
                              "other_calls": 1, "other_shards": 0}


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
    assert len(seen) == len(LAYOUT)


def test_atb_op_filter_and_honest_only(cli, step):
    rc, doc, _ = sd.scan(cli, step, "--op", OTHER.OP)
    assert rc == 0
    assert [c["verdict"] for c in doc["calls"]] == ["PASS"]


def test_atb_malformed_header_names_file_and_field(cli, step):
    f = os.path.join(step, "1234", "0", LAYOUT[0][0], "before",
                     "intensor0.bin")
    data = open(f, "rb").read().replace(b"dims=", b"dims=x")
    open(f, "wb").write(data)
    rc, doc, _ = sd.scan(cli, step)
    assert rc == 1
    c = doc["calls"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "intensor0.bin: dims:" in c["reason"]


def test_atb_reports(cli, step, tmp_path):
    junit = str(tmp_path / "scan.xml")
    html = str(tmp_path / "scan.html")
    rc, doc, err = sd.scan(cli, step, "--junit", junit, "--html", html)
    assert rc == 1, err
    x = open(junit).read()
    import xml.etree.ElementTree as ET
    cases = ET.parse(junit).getroot().iter("testcase")
    assert [c.get("name") for c in cases] == [w[0] for w in WANT]
    assert x.count("<testcase ") == len(LAYOUT)
    assert x.count("<failure ") == 1 and x.count("<error ") == 1
    h = open(html).read()
    assert h.count('href="scan_calls/call_') == len(LAYOUT)
    fail = [w[1] for w in WANT].index("FAIL")
    page = os.path.join(str(tmp_path), "scan_calls",
                        "call_%06d.html" % (fail + 1))
    assert PLANTED[0] in open(page).read()


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
    assert [w for _, w, _ in LAYOUT].count(OTHER) == 1
    rc, doc, err = sd.scan(cli, step, "--op", OTHER.OP,
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
    doc = kvgold.scan(step, "--op", OTHER.OP, cli=cli)
    assert doc["verdict"] == "PASS" and len(doc["calls"]) == 1
