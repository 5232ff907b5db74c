"""kvgold.save_case writes as `kvgold run --out` does: all or nothing,
never through a symlink or into a hard-linked file, and on any error the
directory's files keep every byte; the error names the file."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kvgold
from samples import sample_case


def _fits(doc):
    """an honest case (no expect_error) with two fp16 inputs in .npy files
    and expected tensors"""
    return ("expect_error" not in doc and "expected" in doc and
            sum(e["dtype"] == "fp16" and e["file"].endswith(".npy")
                for e in doc["inputs"].values()) >= 2)


# Some operator's case (conftest.sample_case), and the two fp16 inputs the
# saves below change
BASE = sample_case(_fits)
with open(os.path.join(BASE, "case.json")) as _f:
    _DOC = json.load(_f)
IN1, IN2 = [n for n, e in _DOC["inputs"].items()
            if e["dtype"] == "fp16" and e["file"].endswith(".npy")][:2]
FILE1, FILE2 = (_DOC["inputs"][n]["file"] for n in (IN1, IN2))


def snapshot(d):
    """Every entry of directory d: name -> bytes (files) or link target."""
    out = {}
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if os.path.islink(p):
            out[n] = ("link", os.readlink(p))
        elif os.path.isdir(p):
            out[n] = ("dir", sorted(os.listdir(p)))
        else:
            with open(p, "rb") as f:
                out[n] = ("file", f.read())
    return out


def changed_inputs(c):
    """The case's inputs with different data in its two fp16 inputs (never
    zeros), so a save writes different bytes than the case holds."""
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    inputs[IN1] = (inputs[IN1] * -1.5 + 0.25).astype(np.float16)
    inputs[IN2] = (inputs[IN2] + 3).astype(np.float16)
    return inputs


@pytest.fixture
def case(tmp_path):
    """A saved copy of the vector case in tmp_path/case, and the case."""
    c = kvgold.load_case(BASE)
    d = str(tmp_path / "case")
    kvgold.save_case(d, c.op, c.inputs, c.attrs, c.options, c.expected,
                     comment=c.comment)
    return d, c


@pytest.mark.parametrize("target", [FILE1, "case.json"])
def test_symlinked_target_is_replaced_not_written_through(tmp_path, case,
                                                          target):
    d, c = case
    victim = tmp_path / "victim"
    victim.write_bytes(b"the user's own file\n" * 7)
    os.unlink(os.path.join(d, target))
    os.symlink(str(victim), os.path.join(d, target))
    kvgold.save_case(d, c.op, changed_inputs(c), c.attrs, c.options)
    assert victim.read_bytes() == b"the user's own file\n" * 7
    assert not os.path.islink(os.path.join(d, target))
    back = kvgold.load_case(d)
    assert np.asarray(back.inputs[IN1]).tobytes() == \
        changed_inputs(c)[IN1].tobytes()


@pytest.mark.parametrize("target", [FILE1, "case.json"])
def test_hard_linked_target_is_replaced_not_written_into(tmp_path, case,
                                                         target):
    d, c = case
    other = str(tmp_path / "other")
    os.link(os.path.join(d, target), other)
    with open(other, "rb") as f:
        before = f.read()
    kvgold.save_case(d, c.op, changed_inputs(c), c.attrs, c.options,
                     comment="second save")
    with open(other, "rb") as f:
        assert f.read() == before
    assert os.stat(other).st_nlink == 1      # the case's name is new
    assert not os.path.samefile(other, os.path.join(d, target))
    assert kvgold.load_case(d).comment == "second save"


# A child that saves the changed case over the existing one with files
# limited to one byte less than the case's largest tensor file: the write of that
# file fails with EFBIG (CPython ignores SIGXFSZ) after smaller files were
# written.
CHILD = r"""
import resource, sys
import numpy as np
import kvgold
src, dst, in1, in2 = sys.argv[1:5]
limit = int(sys.argv[5])
c = kvgold.load_case(src)
inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
inputs[in1] = (inputs[in1] * -1.5 + 0.25).astype(np.float16)
inputs[in2] = (inputs[in2] + 3).astype(np.float16)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    kvgold.save_case(dst, c.op, inputs, c.attrs, c.options, c.expected,
                     comment="must not land")
except kvgold.Error as e:
    print("REFUSED", e.message)
else:
    print("SAVED")
"""


def test_failed_write_leaves_the_existing_case_byte_identical(case):
    d, c = case
    before = snapshot(d)
    # the tensor files (case.json changes length with the comment)
    sizes = {n: len(v[1]) for n, v in before.items()
             if v[0] == "file" and n.endswith(".npy")}
    big = max(sizes.values())
    assert min(sizes.values()) < big
    p = subprocess.run([sys.executable, "-c", CHILD, BASE, d, IN1, IN2,
                        str(big - 1)], capture_output=True, text=True,
                       timeout=120, env=os.environ)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("REFUSED"), p.stdout + p.stderr
    # the file that could not be written (one of the largest), and the
    # OS's reason
    assert any(os.path.join(d, n) in p.stdout
               for n, size in sizes.items() if size == big), p.stdout
    assert os.strerror(27) in p.stdout, p.stdout          # EFBIG
    # every file as it was, no temporary file left
    assert snapshot(d) == before
    assert kvgold.load_case(d).comment == c.comment


def test_case_json_the_loader_refuses_is_not_written(tmp_path):
    """A comment with a lone surrogate becomes "\\ud800" in JSON, which
    the strict reader refuses: nothing is written, not even the folder."""
    c = kvgold.load_case(BASE)
    d = tmp_path / "new"
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(str(d), c.op, c.inputs, c.attrs, c.options,
                         comment="bad \ud800 text")
    assert "surrogate" in e.value.message, e.value
    assert not d.exists()


def test_error_names_the_file_not_the_directory(tmp_path, case):
    d, c = case
    os.unlink(os.path.join(d, FILE2))
    os.mkdir(os.path.join(d, FILE2))     # a directory in the way
    before = snapshot(d)
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(d, c.op, changed_inputs(c), c.attrs, c.options)
    assert os.path.join(d, FILE2) in e.value.message, e.value
    assert e.value.tensor == FILE2
    assert snapshot(d) == before


@pytest.mark.parametrize("where", ["directory", "tensor"])
def test_nul_in_a_name_is_refused_not_cut(tmp_path, where):
    """C would see only what comes before the NUL: another file."""
    c = kvgold.load_case(BASE)
    inputs = {n: np.asarray(t) for n, t in c.inputs.items()}
    d = str(tmp_path / "c")
    if where == "directory":
        d += "\0x"
    else:
        inputs[IN1 + "\0x"] = inputs.pop(IN1)
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(d, c.op, inputs, c.attrs, c.options)
    assert "NUL" in e.value.message, e.value
    assert os.listdir(str(tmp_path)) == []
    if where == "directory":
        with pytest.raises(kvgold.Error):
            kvgold.load_case(BASE + "\0x")
