"""Every golden vector case through kvgold.run, bit for bit against the
NumPy generator's expected tensors; refused cases raise kvgold.Error with
the case's status and tensor; inputs are never modified."""
import hashlib

import numpy as np
import pytest

import kvgold
from conftest import case_dirs, case_id

CASES = case_dirs()


def test_there_are_cases():
    assert len(CASES) > 200  # a wrong KVG_VECTORS_DIR must not pass


def digest(tensors):
    return {n: hashlib.sha256(t.tobytes()).hexdigest()
            for n, t in tensors.items()}


@pytest.mark.parametrize("path", CASES, ids=case_id)
def test_case(path):
    c = kvgold.load_case(path)
    before = digest(c.inputs)
    if c.expect_error:
        with pytest.raises(kvgold.Error) as e:
            kvgold.run(c.op, c.inputs, c.attrs, c.options)
        assert e.value.status == c.expect_error["status"], e.value
        if "tensor" in c.expect_error:
            assert e.value.tensor == c.expect_error["tensor"], e.value
        assert e.value.message
    else:
        out = kvgold.run(c.op, c.inputs, c.attrs, c.options)
        assert c.expected, "a case without expected tensors judges nothing"
        for name, want in c.expected.items():
            got = out[name]
            assert isinstance(got, kvgold.Tensor)
            assert got.dtype == want.dtype, name
            assert got.shape == want.shape, name
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), \
                "%s: %s differs from the generator" % (case_id(path), name)
    assert digest(c.inputs) == before, "an input was modified"
