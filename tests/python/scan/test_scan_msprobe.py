"""kvgold scan over msprobe dumps written by our own writer
(scan_dumps.py): the .npy variant and the .pt variant (torch.save) read
by the C reader, the .pt one also through the Python kvgold.scan, which
converts it. Every operator's honest call passes (or, where msprobe dumps
no outputs of it, is NOT JUDGED saying so), a planted fault is found in
its call and named. Each operator's own msprobe scans are in
tests/ops/<op>/."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

# every operator whose writer has an msprobe form; the first whose calls
# msprobe dumps with their outputs gets the planted fault
OPS = sd.every("msprobe", "SAMPLE", "TORCH")
JUDGED = [w for w in OPS if getattr(w, "MSPROBE_OUTPUTS", True)]


def make_step(root, ext):
    """Every operator's honest SAMPLE call (another API's after the
    first), then the first judged operator's with a fault planted.
    Returns the dump and the tensor planted in."""
    step = sd.MsprobeStep(root, ext)
    for i, w in enumerate(OPS):
        w.msprobe(step, w.case(w.SAMPLE))
        if i == 0:
            step.call("Functional", "linear",
                      [("fp16", sd.np.ones((2, 2), sd.np.float16))], {},
                      [("fp16", sd.np.ones((2, 2), sd.np.float16))])
    bad = JUDGED[0].case(JUDGED[0].SAMPLE)
    planted = sd.plant_fault(bad)
    JUDGED[0].msprobe(step, bad)
    step.save()
    return str(root), planted


def want(planted):
    """(id, verdict, text its reason holds) of each call of make_step."""
    return [("NPU.%s.0.forward" % w.TORCH, "PASS", None)
            if w in JUDGED else
            ("NPU.%s.0.forward" % w.TORCH, "NOT_JUDGED",
             ": missing: the dump has no post-call ") for w in OPS] + [
        ("NPU.%s.1.forward" % JUDGED[0].TORCH, "FAIL", planted + ":")]


def check(doc, planted):
    got = [(c["id"].split(":")[-1], c["verdict"], c["reason"])
           for c in doc["calls"]]
    wanted = want(planted)
    assert [g[:2] for g in got] == [w[:2] for w in wanted]
    for g, w in zip(got, wanted):
        if w[2] is not None:
            assert w[2] in g[2], g
    assert got[-1][2].startswith(planted + ":"), got[-1]
    assert doc["other_calls"] == 1
    assert doc["calls"][0]["id"].startswith("step0/rank0:")
    sd.reconciles(doc, len(OPS) + 2, 1)


def test_msprobe_npy(cli, tmp_path):
    root, planted = make_step(tmp_path / "dump", "npy")
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "msprobe"
    check(doc, planted)


def test_msprobe_pt_in_c(cli, tmp_path):
    # the command reads torch.save's files itself (read_pt.c), no torch
    root, planted = make_step(tmp_path / "dump", "pt")
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "msprobe"
    check(doc, planted)


def test_msprobe_pt_through_python(cli, tmp_path):
    pytest.importorskip("torch")
    import kvgold
    root, planted = make_step(tmp_path / "dump", "pt")
    doc = kvgold.scan(root, "--standard", "single", cli=cli)
    assert doc["format"] == "msprobe"
    check(doc, planted)
    # the dump itself is left as it was
    names = os.listdir(os.path.join(root, "step0", "rank0",
                                    "dump_tensor_data"))
    assert all(n.endswith(".pt") for n in names)


def test_msprobe_malformed_names_field(cli, tmp_path):
    root, _ = make_step(tmp_path / "dump", "npy")
    key = "NPU.%s.0.forward" % OPS[0].TORCH

    def complex_arg(d):
        d["data"][key]["input_args"][0]["dtype"] = "torch.complex64"
    _rewrite(root, complex_arg)
    rc, doc, err = sd.scan(cli, root)
    c = doc["calls"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "dump.json: data.%s.input_args[0].dtype: not a dtype kvgold " \
        "reads" % key in c["reason"]


def _stats(node, stats):
    """Every tensor entry of dump.json gets msprobe's statistics."""
    if isinstance(node, dict):
        if node.get("type") == "torch.Tensor":
            node.update(stats)
        for v in node.values():
            _stats(v, stats)
    elif isinstance(node, list):
        for v in node:
            _stats(v, stats)


def _rewrite(root, change):
    p = os.path.join(root, "step0", "rank0", "dump.json")
    with open(p) as f:
        doc = json.load(f)
    change(doc)
    with open(p, "w") as f:
        json.dump(doc, f, indent=1)   # as msprobe: NaN, Infinity, -Infinity
    return open(p).read()


def test_msprobe_nonfinite_statistics(cli, tmp_path):
    # msprobe writes dump.json with json.dump: a cache holding NaN gets
    # "Max": NaN, a large fp16 cache "Norm": Infinity (torch.norm in fp16).
    # They are statistics, never data: the verdicts are the same.
    root, planted = make_step(tmp_path / "dump", "npy")
    text = _rewrite(root, lambda d: _stats(d, {
        "Max": float("nan"), "Min": float("-inf"), "Mean": float("nan"),
        "Norm": float("inf")}))
    assert "NaN" in text and "-Infinity" in text and "Infinity" in text
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    check(doc, planted)


def test_msprobe_nonfinite_argument_not_judged(cli, tmp_path):
    # a NaN where an argument's value belongs is data: that call is not
    # judged, naming the argument; the others are judged as before
    root, planted = make_step(tmp_path / "dump", "npy")
    hit = []

    def nan_scalar(d):
        """The first float keyword argument of the first honest call
        that has one."""
        for i, w in enumerate(OPS):
            call = d["data"]["NPU.%s.0.forward" % w.TORCH]
            for name, v in call["input_kwargs"].items():
                if isinstance(v, dict) and v.get("type") == "float":
                    v["value"] = float("nan")
                    hit.append((i, name))
                    return

    _rewrite(root, nan_scalar)
    assert hit, "no operator's call has a float argument"
    i, name = hit[0]
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    c = doc["calls"][i]
    assert c["verdict"] == "NOT_JUDGED"
    assert "a NaN or infinite argument" in c["reason"], c["reason"]
    assert name in c["reason"]
    assert [x["verdict"] for k, x in enumerate(doc["calls"]) if k != i] == \
        [w[1] for k, w in enumerate(want(planted)) if k != i]
