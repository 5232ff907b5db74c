"""load_case / save_case: the CLI's cases load in Python, and a case saved
from Python passes `kvgold check`."""
import os
import subprocess

import numpy as np
import pytest
import torch

import kvgold
from conftest import cli_env, example

QWEN = example("qwen3_qkv_decode")


def test_loaded_case_has_everything():
    c = kvgold.load_case(QWEN)
    assert c.op == "qkv_rms_norm_rope_cache"
    assert set(c.dtypes) == set(c.inputs) | set(c.expected)
    for n, t in c.inputs.items():
        assert isinstance(t, kvgold.Tensor) and t.dtype == c.dtypes[n]
        raw = np.load(os.path.join(QWEN, n + ".npy"))
        assert np.asarray(t).dtype == raw.dtype and np.array_equal(
            np.asarray(t), raw, equal_nan=False) or \
            np.asarray(t).tobytes() == raw.tobytes()


def test_saved_vector_case_is_byte_identical(tmp_path):
    c = kvgold.load_case(QWEN)
    kvgold.save_case(str(tmp_path), c.op, c.inputs, c.attrs, c.options,
                     c.expected)
    for n in c.inputs:
        assert (tmp_path / (n + ".npy")).read_bytes() == \
            open(os.path.join(QWEN, n + ".npy"), "rb").read(), n
    back = kvgold.load_case(str(tmp_path))
    assert back.inputs == c.inputs and back.expected == c.expected
    assert back.attrs == c.attrs and back.options == c.options


def test_torch_case_saved_from_python_passes_kvgold_check(tmp_path, cli):
    c = kvgold.load_case(example("deepseek_mla_decode"))
    inputs = {n: kvgold.to_torch(t) for n, t in c.inputs.items()}
    golden = kvgold.run(c.op, inputs, c.attrs, c.options)
    path = kvgold.save_case(str(tmp_path / "mla"), c.op, inputs, c.attrs,
                            c.options, golden, comment="from pytest")
    assert path.endswith("case.json")
    p = subprocess.run([cli, "check", str(tmp_path / "mla")],
                       capture_output=True, text=True, env=cli_env())
    assert p.returncode == 0, p.stdout + p.stderr
    # and a wrong expected tensor makes the same check fail
    bad = dict(golden)
    bad["ckv_cache"] = golden["ckv_cache"].clone()
    bad["ckv_cache"].view(-1)[0] += 1
    kvgold.save_case(str(tmp_path / "bad"), c.op, inputs, c.attrs,
                     c.options, bad)
    p = subprocess.run([cli, "check", str(tmp_path / "bad")],
                       capture_output=True, text=True, env=cli_env())
    assert p.returncode == 1, p.stdout + p.stderr


def test_fp8_storage_needs_a_tag_to_save(tmp_path):
    codes = np.arange(8, dtype=np.uint8)
    target = tmp_path / "c"
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(str(target), "reshape_and_cache",
                         {"key_cache": codes})
    assert e.value.tensor == "key_cache"
    assert not target.exists()     # nothing written before the check
    kvgold.save_case(str(target), "reshape_and_cache",
                     {"key_cache": codes}, dtypes={"key_cache": "hif8"})
    back = kvgold.load_case(str(target))
    assert back.dtypes["key_cache"] == "hif8"
    assert np.asarray(back.inputs["key_cache"]).tobytes() == codes.tobytes()
    assert torch.equal(kvgold.to_torch(back.inputs["key_cache"]),
                       torch.arange(8, dtype=torch.uint8))
