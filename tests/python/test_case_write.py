"""kvgold.save_case writes as `kvgold run --out` does: all or nothing,
never through a symlink or into a hard-linked file, and on any error the
directory's files keep every byte; the error names the file."""
import os
import subprocess
import sys

import numpy as np
import pytest

import kvgold
from conftest import VECTORS

BASE = os.path.join(VECTORS, "reshape_and_cache", "nd_fp16")


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
    """The case's inputs with different key / value data (never zeros), so
    a save writes different bytes than the case holds."""
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    inputs["key"] = (inputs["key"] * -1.5 + 0.25).astype(np.float16)
    inputs["value"] = (inputs["value"] + 3).astype(np.float16)
    return inputs


@pytest.fixture
def case(tmp_path):
    """A saved copy of the vector case in tmp_path/case, and the case."""
    c = kvgold.load_case(BASE)
    d = str(tmp_path / "case")
    kvgold.save_case(d, c.op, c.inputs, c.attrs, c.options, c.expected,
                     comment=c.comment)
    return d, c


@pytest.mark.parametrize("target", ["key.npy", "case.json"])
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
    assert np.asarray(back.inputs["key"]).tobytes() == \
        changed_inputs(c)["key"].tobytes()


@pytest.mark.parametrize("target", ["key.npy", "case.json"])
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
# limited to 20000 bytes (key_cache.npy has 20608): the write of that file
# fails with EFBIG (CPython ignores SIGXFSZ) after smaller files were
# written.
CHILD = r"""
import resource, sys
import numpy as np
import kvgold
src, dst = sys.argv[1], sys.argv[2]
c = kvgold.load_case(src)
inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
inputs["key"] = (inputs["key"] * -1.5 + 0.25).astype(np.float16)
inputs["value"] = (inputs["value"] + 3).astype(np.float16)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
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
    p = subprocess.run([sys.executable, "-c", CHILD, BASE, d],
                       capture_output=True, text=True, timeout=120,
                       env=os.environ)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("REFUSED"), p.stdout + p.stderr
    # the file that could not be written, and the OS's reason
    assert os.path.join(d, "key_cache.npy") in p.stdout, p.stdout
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
    os.unlink(os.path.join(d, "value.npy"))
    os.mkdir(os.path.join(d, "value.npy"))     # a directory in the way
    before = snapshot(d)
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(d, c.op, changed_inputs(c), c.attrs, c.options)
    assert os.path.join(d, "value.npy") in e.value.message, e.value
    assert e.value.tensor == "value.npy"
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
        inputs["key\0x"] = inputs.pop("key")
    with pytest.raises(kvgold.Error) as e:
        kvgold.save_case(d, c.op, inputs, c.attrs, c.options)
    assert "NUL" in e.value.message, e.value
    assert os.listdir(str(tmp_path)) == []
    if where == "directory":
        with pytest.raises(kvgold.Error):
            kvgold.load_case(BASE + "\0x")
