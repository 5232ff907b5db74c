"""Python says what the CLI says: a tensor of a type kvgold has not is
refused as such (not with advice about fp8 tags), and kvgold.compare
uses the CLI's verdict words on the same data (INCOMPLETE where `kvgold
compare` says INCOMPLETE, never FAIL for it)."""
import json
import os
import subprocess

import numpy as np
import pytest
import torch

import kvgold
from conftest import VECTORS, cli_env, example

RAC = os.path.join(VECTORS, "reshape_and_cache", "nd_fp16")
MLA = example("deepseek_mla_decode")


def _refusal(fn):
    with pytest.raises(kvgold.Error) as e:
        fn()
    return e.value


@pytest.mark.parametrize("flavor", ["numpy", "torch"])
def test_float64_is_not_a_tensor_type_of_the_operator(flavor):
    c = kvgold.load_case(RAC)
    x = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    key = x["key"].astype(np.float64)
    if flavor == "torch":
        x = {n: torch.from_numpy(a) for n, a in x.items()}
        key = torch.from_numpy(key)
    described = "numpy float64" if flavor == "numpy" else "torch.float64"
    for err in (
            _refusal(lambda: kvgold.run(c.op, dict(x, key=key), c.attrs)),
            _refusal(lambda: kvgold.reshape_and_cache(
                key, x["value"], x["key_cache"], x["value_cache"],
                x["slot_mapping"], inplace=False))):
        assert err.tensor == "key" and err.status == 161002, err
        assert ("%s is not a tensor type of reshape_and_cache" % described
                in err.message), err
        # which types there are, and no advice about 8-bit tags
        for tag in ("fp16", "bf16", "fp32", "int8", "int32", "int64",
                    "hif8"):
            assert tag in err.message, (tag, err)
        assert "give a dtype tag" not in err.message, err
        assert "does not say which format" not in err.message, err


def test_uint8_still_asks_for_a_tag():
    c = kvgold.load_case(RAC)
    x = {n: np.asarray(t) for n, t in c.inputs.items()}
    err = _refusal(lambda: kvgold.run(c.op, dict(
        x, key=np.zeros(x["key"].shape, np.uint8) + 7), c.attrs))
    assert err.tensor == "key" and "give a dtype tag" in err.message, err


def _cli_compare(cli, case_dir, npu_dir, *args):
    p = subprocess.run([cli, "compare", case_dir, npu_dir, "--json"] +
                       list(args), capture_output=True, text=True,
                       env=cli_env())
    assert p.returncode in (0, 1), p.stdout + p.stderr
    doc = json.loads(p.stdout)
    return doc["verdict"], {r["name"]: r["verdict"] for r in doc["results"]}


def _npu_variant(golden, how):
    npu = {n: np.asarray(t).copy() for n, t in golden.items()}
    if how == "one_untouched_slot_changed":
        npu["ckv_cache"].reshape(-1)[0] ^= 1
    elif how == "k_cache_missing":
        del npu["k_cache"]
    return npu


@pytest.mark.parametrize("standard, how, want", [
    ("single", "same", "PASS"),
    ("commercial", "same", "INCOMPLETE"),        # no third party
    ("commercial", "k_cache_missing", "INCOMPLETE"),
    ("commercial", "one_untouched_slot_changed", "FAIL"),
    ("single", "k_cache_missing", "INCOMPLETE"),
])
def test_compare_verdict_is_the_clis(tmp_path, cli, standard, how, want):
    c = kvgold.load_case(MLA)
    golden = kvgold.run(c.op, c.inputs, c.attrs, c.options)
    npu = _npu_variant(golden, how)
    npu_dir = str(tmp_path / "npu")
    os.mkdir(npu_dir)
    for n, a in npu.items():
        np.save(os.path.join(npu_dir, n + ".npy"), a)
    cli_verdict, cli_tensors = _cli_compare(cli, MLA, npu_dir,
                                            "--standard", standard)
    r = kvgold.compare(golden, npu, standard=standard)
    assert (cli_verdict, r.verdict) == (want, want), r.report()
    assert r.passed == (want == "PASS")
    for n, v in cli_tensors.items():
        if n in r.tensors:
            assert r.tensors[n].verdict == v, (n, r.tensors[n].verdict, v)
        else:
            assert n in r.skipped and v == "NOT JUDGED", (n, v)
    if want == "INCOMPLETE":
        assert "INCOMPLETE" in r.report() and "FAIL" not in r.verdict
