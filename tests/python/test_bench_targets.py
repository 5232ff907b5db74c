"""tools/bench/targets.py, the judge of docs/performance.md's targets, on
hand-made benchmark results whose ratios are worked out here: what meets a
target, what does not, and that anything not measured is "not judged" and
makes the run fail (a verdict is never optimistic). The benchmark itself
is never run by the suite (benchmarks are not tests)."""
import json
import os
import subprocess
import sys

import pytest

TARGETS = os.path.join(os.path.dirname(__file__), "..", "..", "tools",
                       "bench", "targets.py")


def shape(label, op_ns, **kw):
    r = {"group": "main", "op": "some_op", "label": label, "op_ns": op_ns,
         "op_min_ns": op_ns * 0.9, "verified": True}
    r.update(kw)
    return r


def judge(tmp_path, results, extra=()):
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps({"machine": {}, "results": results}))
    p = subprocess.run([sys.executable, TARGETS, "--ops", str(ops)] +
                       list(extra), capture_output=True, text=True)
    assert p.stderr == ""
    return p.returncode, p.stdout


def row(out, label):
    lines = [ln for ln in out.splitlines() if "| %s |" % label in ln]
    assert len(lines) == 1, out
    return [c.strip() for c in lines[0].strip("|").split("|")]


def test_operator_verdicts(tmp_path):
    results = [
        # torch 25 us against C 1 us: 25x >= 20x
        shape("fast", 1000.0, torch_s=25e-6),
        # 19x: not met
        shape("slow", 1000.0, torch_s=19e-6),
        # no torch golden measured
        shape("untimed", 1000.0),
        # the output differed from the golden
        shape("wrong", 1000.0, torch_s=99e-6, verified=False),
        # copy: 1200 ns over a 1000 ns memcpy = 1.2x <= 1.5x
        shape("copy ok", 1200.0, copy_only=True, memcpy_ns=1000.0,
              memcpy_places_ns=800.0, memcpy_order_ns=1500.0,
              memcpy_dst_order_ns=600.0),
        # copy: 2x, and no floors beside it
        shape("copy slow", 2000.0, copy_only=True, memcpy_ns=1000.0),
        # copy whose memcpy floor is missing
        shape("copy unmeasured", 2000.0, copy_only=True),
        # paired samples judge, whatever the medians say: 1.6 / 1.4
        shape("copy paired slow", 1200.0, copy_only=True, memcpy_ns=1000.0,
              memcpy_paired_ratio=1.6),
        shape("copy paired ok", 2000.0, copy_only=True, memcpy_ns=1000.0,
              memcpy_paired_ratio=1.4),
        # not a main shape: not a target
        dict(shape("scaling", 1.0), group="scaling"),
    ]
    rc, out = judge(tmp_path, results)
    assert rc == 1
    assert row(out, "fast")[2:] == ["25.0x", "-", "-", "-", "met"]
    assert row(out, "slow")[-1] == "**not met**"
    assert row(out, "untimed")[2] == "-"
    assert row(out, "untimed")[-1] == "not judged"
    assert row(out, "wrong")[2] == "MISMATCH"
    assert row(out, "wrong")[-1] == "not judged"
    ok = row(out, "copy ok")
    assert ok[3] == "1.20x (best 1.08x)"
    assert ok[4] == "1.50x (best 1.35x)"            # 1200 / 800
    assert ok[5] == "2.00x (best 1.80x, destination order)"  # / 600
    assert ok[6] == "met (copy)"
    slow = row(out, "copy slow")
    assert slow[3:] == ["2.00x (best 1.80x)", "-", "-", "**not met** (copy)"]
    assert row(out, "copy unmeasured")[-1] == "not judged (copy)"
    assert row(out, "copy paired slow")[3:5] == [
        "1.60x paired (medians 1.20x, best 1.08x)", "-"]
    assert row(out, "copy paired slow")[-1] == "**not met** (copy)"
    assert row(out, "copy paired ok")[3] == (
        "1.40x paired (medians 2.00x, best 1.80x)")
    assert row(out, "copy paired ok")[-1] == "met (copy)"
    assert "scaling" not in out
    # and nothing else was measured: Python and compare are not judged
    assert "3 targets met, 3 not met, 5 not judged." in out


@pytest.mark.parametrize("torch_s, code", [(20e-6, 0), (19.99e-6, 1)])
def test_all_met_is_the_only_success(tmp_path, torch_s, code):
    py = tmp_path / "py.json"
    py.write_text(json.dumps({"case": "c", "rows": [
        {"row": "C call", "us": 3.0},
        {"row": "run inplace", "over_c_us": 15.0}]}))
    tsv = tmp_path / "results.tsv"
    tsv.write_text("size\tcommand\tread_s\twall_s\trss_kb\tstatus\n"
                   "1G\tcompare good\t1.0\t1.5\t40000\tok\n")
    rc, out = judge(tmp_path, [shape("edge", 1000.0, torch_s=torch_s)],
                    ["--python", str(py), "--bigdump", "warm=%s" % tsv])
    assert rc == code, out
    assert "| c | 3.0 | 15.0 | - | met |" in out         # 15 <= 15
    assert "| 1.50x | 39 MiB | met |" in out               # 1.5 <= 1.5


def test_a_failed_compare_run_is_not_judged(tmp_path):
    tsv = tmp_path / "results.tsv"
    tsv.write_text("size\tcommand\tread_s\twall_s\trss_kb\tstatus\n"
                   "1G\tcompare good\t1.0\t\t\tfailed\n")
    rc, out = judge(tmp_path, [shape("fast", 1000.0, torch_s=1e-3)],
                    ["--bigdump", "cold=%s" % tsv])
    assert rc == 1
    assert "not judged (failed)" in out


@pytest.mark.parametrize("paired, verdict", [("1.40", "met"),
                                             ("1.60", "**not met**")])
def test_compare_is_judged_on_the_paired_ratio(tmp_path, paired, verdict):
    # medians 1.0 s read, 2.0 s compare (2.0x), but the pairs' own ratios
    # have the median `paired`: that is the judged figure (bigdump.sh)
    tsv = tmp_path / "results.tsv"
    tsv.write_text("size\tcommand\tread_s\twall_s\trss_kb\tstatus\tpairs"
                   "\tratio\n1G\tcompare good\t1.0\t2.0\t40000\tok\t3\t%s\n"
                   % paired)
    rc, out = judge(tmp_path, [shape("fast", 1000.0, torch_s=1e-3)],
                    ["--bigdump", "cold=%s" % tsv])
    assert "| %sx | 39 MiB | %s |" % (paired, verdict) in out, out
