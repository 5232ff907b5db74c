"""Python says what the CLI says: kvgold.compare uses the CLI's verdict
words on the same data (INCOMPLETE where `kvgold compare` says
INCOMPLETE, never FAIL for it). A tensor of a type kvgold has not,
refused as such, is tested with an operator's call in its folder
(tests/ops/<op>/test_*_messages.py)."""
import json
import os
import subprocess

import numpy as np
import pytest

import kvgold
from conftest import cli_env, example

MLA = example("deepseek_mla_decode")


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
