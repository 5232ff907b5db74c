"""kvgold scan over msprobe dumps written by our own writer
(scan_dumps.py): the .npy variant and the .pt variant (torch.save) read
by the C reader, the .pt one also through the Python kvgold.scan, which
converts it. Honest calls pass, each planted fault is found in its call
and named."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

kv = sd.op("kv")
rac = sd.op("rac")
qkv = sd.op("qkv")


def make_step(root, ext):
    step = sd.MsprobeStep(root, ext)
    kv.msprobe(step, kv.case("m_pa_bf16_kt_ct_sym_out"))
    step.call("Functional", "linear",
              [("fp16", sd.np.ones((2, 2), sd.np.float16))], {},
              [("fp16", sd.np.ones((2, 2), sd.np.float16))])
    rac.msprobe(step, rac.case("nd_fp16"))
    ulp = kv.case("m_norm_fp16_kt_ct_sym_noout")
    sd.plant_ulps(ulp, "k_cache", 64)
    kv.msprobe(step, ulp)
    off = kv.case("m_pa_bf16_kt_ct_sym_out")
    sd.plant_slot_off(off, cache="ckv_cache", slots="index")
    kv.msprobe(step, off)
    kv.msprobe(step, kv.case("m_pa_bf16_kt_ct_sym_out"), drop=3)
    qkv.msprobe(step, qkv.case("bf16_k_int8_sym_v_plain"))
    bad = qkv.case("fp16_kv_int8_asym")
    sd.plant_ulps(bad, "q_out", 64)
    qkv.msprobe(step, bad)
    step.save()
    return str(root)


WANT = [("NPU.npu_kv_rmsnorm_rope_cache.0.forward", "PASS", None),
        ("NPU.%s.0.forward" % rac.TORCH, "NOT_JUDGED",
         "key_cache: missing: the dump has no post-call key_cache "
         "(output[0])"),
        ("NPU.npu_kv_rmsnorm_rope_cache.1.forward", "FAIL", "k_cache:"),
        ("NPU.npu_kv_rmsnorm_rope_cache.2.forward", "FAIL", "ckv_cache:"),
        ("NPU.npu_kv_rmsnorm_rope_cache.3.forward", "NOT_JUDGED",
         "c_kv: missing: the dump has no post-call c_kv (output[3])"),
        ("NPU.%s.0.forward" % qkv.TORCH, "PASS", None),
        ("NPU.%s.1.forward" % qkv.TORCH, "FAIL", "q_out:")]


def check(doc):
    got = [(c["id"].split(":")[-1], c["verdict"], c["reason"])
           for c in doc["calls"]]
    assert [g[:2] for g in got] == [w[:2] for w in WANT]
    for g, w in zip(got, WANT):
        if w[2] is not None:
            assert g[2].startswith(w[2]), g
    assert doc["other_calls"] == 1
    assert doc["calls"][0]["id"].startswith("step0/rank0:")


def test_msprobe_npy(cli, tmp_path):
    root = make_step(tmp_path / "dump", "npy")
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "msprobe"
    check(doc)


def test_msprobe_pt_in_c(cli, tmp_path):
    # the command reads torch.save's files itself (read_pt.c), no torch
    root = make_step(tmp_path / "dump", "pt")
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "msprobe"
    check(doc)


def test_msprobe_pt_through_python(cli, tmp_path):
    pytest.importorskip("torch")
    import kvgold
    root = make_step(tmp_path / "dump", "pt")
    doc = kvgold.scan(root, "--standard", "single", cli=cli)
    assert doc["format"] == "msprobe"
    check(doc)
    # the dump itself is left as it was
    names = os.listdir(os.path.join(root, "step0", "rank0",
                                    "dump_tensor_data"))
    assert all(n.endswith(".pt") for n in names)


def test_msprobe_malformed_names_field(cli, tmp_path):
    root = make_step(tmp_path / "dump", "npy")
    p = os.path.join(root, "step0", "rank0", "dump.json")
    text = open(p).read().replace('"torch.bfloat16"', '"torch.complex64"', 1)
    open(p, "w").write(text)
    rc, doc, err = sd.scan(cli, root)
    c = doc["calls"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "dump.json: data.NPU.npu_kv_rmsnorm_rope_cache.0.forward." \
        "input_args[0].dtype: not a dtype kvgold reads" in c["reason"]


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
    root = make_step(tmp_path / "dump", "npy")
    text = _rewrite(root, lambda d: _stats(d, {
        "Max": float("nan"), "Min": float("-inf"), "Mean": float("nan"),
        "Norm": float("inf")}))
    assert "NaN" in text and "-Infinity" in text and "Infinity" in text
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    assert rc == 1, err
    check(doc)


def test_msprobe_nonfinite_argument_not_judged(cli, tmp_path):
    # a NaN where an argument's value belongs is data: that call is not
    # judged, naming the argument; the others are judged as before
    root = make_step(tmp_path / "dump", "npy")
    hit = []

    def nan_scalar(d):
        call = d["data"]["NPU.npu_kv_rmsnorm_rope_cache.0.forward"]
        for name, v in call["input_kwargs"].items():
            if isinstance(v, dict) and v.get("type") == "float":
                v["value"] = float("nan")
                hit.append(name)
                return

    _rewrite(root, nan_scalar)
    assert hit, "the kv call has a float argument"
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    c = doc["calls"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "a NaN or infinite argument" in c["reason"], c["reason"]
    assert hit[0] in c["reason"]
    assert [x["verdict"] for x in doc["calls"][1:]] == \
        [w[1] for w in WANT[1:]]
