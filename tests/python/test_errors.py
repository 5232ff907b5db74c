"""kvgold.Error carries the status, the tensor, the dimension and the
message; a refused call writes nothing the caller owns."""
import os
import subprocess
import sys

import numpy as np
import pytest

import kvgold
from conftest import example

MLA = example("deepseek_mla_decode")


def test_error_is_a_value_error_with_the_diagnostics():
    c = kvgold.load_case(MLA)
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    inputs["index"] = inputs["index"].copy()
    inputs["index"][3] = 10 ** 6   # far past the cache's slots
    with pytest.raises(ValueError) as e:
        kvgold.run(c.op, inputs, c.attrs, c.options)
    err = e.value
    assert isinstance(err, kvgold.Error)
    assert err.status == 161002 and err.status_name == "KVG_ERR_PARAM_INVALID"
    assert err.tensor == "index"
    assert "index" in err.message and str(err).endswith(err.message)
    assert err.position == 3


def test_dimension_is_reported():
    c = kvgold.load_case(MLA)
    inputs = {n: np.asarray(t) for n, t in c.inputs.items()}
    inputs["gamma"] = np.asarray(c.inputs["gamma"])[:100]
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, inputs, c.attrs, c.options)
    # gamma defines Dv, so it is kv's last dimension that disagrees
    assert e.value.tensor == "kv" and e.value.dim == 3, e.value
    assert "100" in e.value.message and "576" in e.value.message


def test_refused_call_leaves_inplace_caches_untouched():
    c = kvgold.load_case(MLA)
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    inputs["index"][0] = -5  # valid
    inputs["index"][7] = 10 ** 6
    before = {n: inputs[n].tobytes() for n in ("k_cache", "ckv_cache")}
    with pytest.raises(kvgold.Error):
        kvgold.run(c.op, inputs, c.attrs, c.options, inplace=True)
    for n, b in before.items():
        assert inputs[n].tobytes() == b, n


@pytest.mark.parametrize("change, tensor, words", [
    (lambda i, a: ("no_such_op", i, a), "op", "not a kvgold operator"),
    (lambda i, a: (None, dict(i, bogus=i["kv"]), a), "bogus", "bogus"),
    (lambda i, a: (None, i, dict(a, epsilon="small")), "epsilon", "must be a number"),
    (lambda i, a: (None, i, dict(a, cache_mode="PA_XX")), "cache_mode",
     "PA_XX"),
    (lambda i, a: (None, i, dict(a, colour=1)), "colour", "colour"),
])
def test_refusals_name_what_is_wrong(change, tensor, words):
    c = kvgold.load_case(MLA)
    inputs = {n: np.asarray(t) for n, t in c.inputs.items()}
    op, inputs, attrs = change(inputs, dict(c.attrs))
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(op or c.op, inputs, attrs, c.options)
    assert e.value.tensor == tensor, e.value
    assert words in e.value.message, e.value


def test_missing_required_tensor_is_161001():
    c = kvgold.load_case(MLA)
    inputs = {n: np.asarray(t) for n, t in c.inputs.items() if n != "sin"}
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, inputs, c.attrs, c.options)
    assert e.value.status == 161001 and e.value.tensor == "sin", e.value


def test_load_case_errors_name_the_file():
    with pytest.raises(kvgold.Error) as e:
        kvgold.load_case("/nonexistent/kvgold/case")
    assert e.value.status == 170002
    assert "No such file or directory" in e.value.message
    assert "/nonexistent/kvgold/case/case.json" in e.value.message


def test_works_without_numpy(tmp_path):
    """The package itself needs the standard library only."""
    code = """
import sys
sys.modules['numpy'] = None      # make `import numpy` fail
sys.modules['torch'] = None
import kvgold
c = kvgold.load_case(%r)
out = kvgold.run(c.op, c.inputs, c.attrs, c.options)
assert all(out[n] == c.expected[n] for n in c.expected)
r = kvgold.compare(out, dict(out))
assert r.passed, r.report()
print("ok")
""" % MLA
    p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, env=os.environ)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
