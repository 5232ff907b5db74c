"""`kvgold prepare`: ops-test-kit replay directories (docs/ttk.md).

The directories are read back here by a reader of our own, written from
ops-test-kit's protocol (docs/Offline_Data_Prepare_and_Import.md section 4
and the reader ttk/core_modules/manual_data.py, cited in docs/ttk.md), not
from kvgold's code: file names by their grammar, sizes from dtype and
shape, and every byte against the case's own files. The goldens are
checked against the case's "expected" tensors, which the independent
NumPy generator (tools/gen/kvgen) wrote.
"""
import json
import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import kvgold.ops

from conftest import VECTORS, cli_env
from ttk_support import (SCHEMAS, TTK_DTYPES, call_form, prepare_cases,
                         prepare_only_cases, schema_case_name, schema_tensors, torch_npu_schemas,
                         ttk_goldens)


def parse_name(name):
    """ops-test-kit's file grammar, docs/Offline_Data_Prepare_and_Import.md
    section 4: <role>_<index>_<numpy dtype|none>[__shape_<AxB|scalar>]
    .<format>; (role, index, dtype, shape token or None, format) or None
    when the name is not of it."""
    stem, dot, fmt = name.rpartition(".")
    if not dot or fmt not in ("bin", "npy", "pt"):
        return None
    stem, mark, shape = stem.partition("__shape_")
    if mark and not re.fullmatch(r"scalar|\d+(x\d+)*", shape):
        return None
    parts = stem.split("_", 2)
    if len(parts) != 3 or parts[0] not in ("input", "scalar", "golden"):
        return None
    role, index, dtype = parts
    if not re.fullmatch(r"0|[1-9]\d*", index) or not re.fullmatch(
            r"[A-Za-z0-9][A-Za-z0-9_.-]*", dtype):
        return None
    return role, index, dtype, shape if mark else None, fmt

# Each operator's torch_npu call forms are stated once, in C
# (tools/lib/bindings/<op>.c), which both `kvgold prepare` and the Python
# package (kvgold.ops.TORCH_NPU_CALLS) read; what a replay directory must
# hold is taken from torch_npu's own signatures instead
# (tests/ops/<op>/torch_npu_api.py, cited there), so a wrong form fails
# here. The cases are each operator's tests/ops/<op>/prepare_cases.py.
PREPARE = prepare_cases()
CASES = [op + "/" + c for op, (names, _) in PREPARE.items() for c in names]
CASES += [op + "/" + c for op, names in prepare_only_cases().items()
          for c in names]
REFUSED = [(op + "/" + c, words) for op, (_, refused) in PREPARE.items()
           for c, words in refused]
# a good case for the generic checks below: the first one
GOOD = CASES[0]


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True,
                          env=cli_env())


def read_replay_dir(path):
    """{role: [(index, dtype, shape or None, bytes)]} as ops-test-kit's
    reader sees the directory; asserts its rules on the way."""
    slots = {"input": {}, "scalar": {}, "golden": {}}
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        assert os.path.isfile(full) and not os.path.islink(full), name
        parsed = parse_name(name)
        assert parsed, "ops-test-kit refuses %s" % name
        role, index, dtype, shape, fmt = parsed
        assert fmt == "bin"
        if role == "golden" and dtype != "none":
            assert shape is not None, "a bin golden needs its shape: " + name
        else:
            assert shape is None, name
        index = int(index)
        assert index not in slots[role], "duplicate slot " + name
        with open(full, "rb") as f:
            data = f.read()
        dims = None
        if shape is not None:
            dims = () if shape == "scalar" else tuple(
                int(d) for d in shape.split("x"))
        if dtype == "none":
            assert data == b"", "a None marker is empty: " + name
        else:
            assert dtype in TTK_DTYPES, name
            if dims is not None:
                assert len(data) == math.prod(dims) * TTK_DTYPES[dtype][1]
        slots[role][index] = (dtype, dims, data)
    out = {}
    for role, got in slots.items():
        assert sorted(got) == list(range(len(got))), (
            "%s indexes must run from 0 without a gap" % role)
        out[role] = [got[i] for i in range(len(got))]
    return out


def case_tensor(case_dir, entry):
    arr = np.load(os.path.join(case_dir, entry["file"]))
    return entry["dtype"], arr


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    cli = os.environ["KVGOLD_CLI"]
    out = tmp_path_factory.mktemp("ttk") / "manual_data"
    r = run(cli, "prepare", *[os.path.join(VECTORS, c) for c in CASES],
            "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("case", CASES)
def test_directory_matches_the_case(prepared, case):
    case_dir = os.path.join(VECTORS, case)
    with open(os.path.join(case_dir, "case.json")) as f:
        doc = json.load(f)
    got = read_replay_dir(os.path.join(prepared, os.path.basename(case)))
    form = call_form(doc["op"], doc["inputs"], doc.get("attrs"))
    inputs = [schema_case_name(form["api"], n)
              for n in schema_tensors(form["api"])]
    # what ops-test-kit compares: the API's return (None for None), then
    # the caches it writes in place
    goldens = ttk_goldens(form)
    assert got["scalar"] == []
    assert len(got["input"]) == len(inputs)
    for i, name in enumerate(inputs):
        dtype, dims, data = got["input"][i]
        if name not in doc["inputs"]:
            assert dtype == "none", "input %d (%s)" % (i, name)
            continue
        tag, arr = case_tensor(case_dir, doc["inputs"][name])
        assert TTK_DTYPES[dtype][0] == tag, name
        assert data == np.ascontiguousarray(arr).tobytes(), name
    assert len(got["golden"]) == len(goldens)
    expected = doc.get("expected", {})
    for i, name in enumerate(goldens):
        dtype, dims, data = got["golden"][i]
        # an output the generator wrote no expected of: the call does
        # not produce it (the NPU leaves it unwritten), no golden
        if name is None or name not in expected:
            assert dtype == "none", "golden %d (%s)" % (i, name)
            continue
        tag, arr = case_tensor(case_dir, expected[name])
        # packed fp4 pairs and E8M0 scales are golden uint8 files: what
        # torch_npu returns them as (tools/cli/prepare.c, golden_dtype_name)
        assert TTK_DTYPES[dtype][0] == tag or (
            dtype == "uint8" and tag in ("fp4_e2m1", "fp4_e1m2", "e8m0")), \
            name
        assert dims == arr.shape, name
        assert data == np.ascontiguousarray(arr).tobytes(), (
            "golden %d (%s) differs from the generator's" % (i, name))


def test_call_forms_are_torch_npus_signatures():
    """Every torch_npu call form of every operator (C's, as kvgold.ops
    reads them) is the API's own signature: its name, tensor arguments in
    order under torch_npu's names, its other arguments, what it returns
    and which arguments it updates in place (Tensor(a!)); each operator
    with forms has its table of signatures, and each API in a table is a
    form."""
    schemas = torch_npu_schemas()
    with_forms = {op for op, forms in kvgold.ops.TORCH_NPU_CALLS.items()
                  if forms}
    assert set(schemas) == with_forms
    for op, forms in kvgold.ops.TORCH_NPU_CALLS.items():
        assert {f["api"] for f in forms} == set(schemas.get(op, {})), op
        for form in forms:
            api, schema = form["api"], SCHEMAS[form["api"]]
            assert form["tensors"] == schema_tensors(api), api
            # attributes by case.json's name (an API's own spelling,
            # cr's `scale` for x_scale, is its schema's case_names)
            assert tuple(form["attrs"]) == tuple(
                schema_case_name(api, a) for a in schema["attrs"]), api
            inplace = tuple(t.rstrip("!") for t in schema["tensors"]
                            if t.endswith("!"))
            assert form["inplace"] == inplace, api
            returned = tuple(n for n in schema["returns"] if n is not None)
            assert tuple(form["outputs"]) == returned + tuple(
                schema_case_name(api, n) for n in inplace), api


def test_none_markers_and_goldens_seen(prepared):
    """The cases exercise both kinds of marker and every operator with a
    torch_npu call."""
    assert set(PREPARE) == {op for op, forms in
                            kvgold.ops.TORCH_NPU_CALLS.items() if forms}
    names = [n for c in CASES
             for n in os.listdir(os.path.join(prepared, os.path.basename(c)))]
    assert any(re.match(r"input_\d+_none\.bin$", n) for n in names)
    assert any(re.match(r"golden_\d+_none\.bin$", n) for n in names)
    assert any("hifloat8" in n for n in names)
    assert any("float8_e5m2" in n for n in names)


def tree(path):
    """{relative path: bytes} under path."""
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            full = os.path.join(root, f)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, path)] = fh.read()
    return out


def test_rewrite_replaces_poisoned_files(cli, tmp_path):
    case = os.path.join(VECTORS, GOOD)
    out = tmp_path / "m"
    assert run(cli, "prepare", case, "--out", str(out)).returncode == 0
    good = tree(out)
    for rel in good:
        (out / rel).write_bytes(b"\xa5" * 7)
    r = run(cli, "prepare", case, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert tree(out) == good


def test_refusals_leave_everything_untouched(cli, tmp_path):
    good = os.path.join(VECTORS, GOOD)
    name = os.path.basename(GOOD)
    out = tmp_path / "m"
    assert run(cli, "prepare", good, "--out", str(out)).returncode == 0
    golden = sorted(f for f in os.listdir(out / name)
                    if f.startswith("golden_") and not f.endswith("none.bin"))
    (out / name / golden[0]).write_bytes(b"\x5a" * 3)
    before = tree(tmp_path)

    def refused(args, words):
        r = run(cli, "prepare", *args)
        assert r.returncode == 2, r.stdout + r.stderr
        for w in words:
            assert w in r.stderr, (w, r.stderr)
        assert tree(tmp_path) == before

    # an operator ops-test-kit's e2e path cannot call: each operator
    # with no torch_npu call form
    for op, forms in sorted(kvgold.ops.TORCH_NPU_CALLS.items()):
        if forms or not os.path.isdir(os.path.join(VECTORS, op)):
            continue
        other = os.path.join(VECTORS, op, sorted(os.listdir(
            os.path.join(VECTORS, op)))[0])
        refused([good, other, "--out", str(out)], [op, "torch_npu"])
    # what each operator's torch_npu call cannot express, or refuses
    for case, words in REFUSED:
        refused([good, os.path.join(VECTORS, case), "--out", str(out)],
                words)
    # another file in the way of a case directory
    (out / name / "notes.txt").write_text("mine")
    before = tree(tmp_path)
    refused([good, "--out", str(out)], ["notes.txt", "nothing written"])
    (out / name / "notes.txt").unlink()
    before = tree(tmp_path)
    # --out a file; a missing --out; two cases of one name
    (tmp_path / "f").write_text("x")
    before = tree(tmp_path)
    refused([good, "--out", str(tmp_path / "f")], ["not a directory"])
    refused([good], ["--out"])
    refused([good, good, "--out", str(out)], ["both"])
    # a name ops-test-kit would hash
    bad = tmp_path / "src" / "_bad name"
    shutil.copytree(good, bad)
    before = tree(tmp_path)
    refused([str(bad), "--out", str(out)], ["testcase_name"])


def test_failed_run_creates_no_directory(cli, tmp_path):
    out = tmp_path / "a" / "b" / "c"
    r = run(cli, "prepare", os.path.join(VECTORS, GOOD),
            os.path.join(VECTORS, REFUSED[-1][0]), "--out", str(out))
    assert r.returncode == 2
    assert os.listdir(tmp_path) == []


def test_help(cli):
    r = run(cli, "help", "prepare")
    assert r.returncode == 0 and "--out DIR" in r.stdout
    assert "prepare CASE" in run(cli, "--help").stdout
