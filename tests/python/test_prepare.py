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

from conftest import VECTORS, cli_env


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

# NumPy dtype name ops-test-kit writes -> (case tag, bytes per element)
TTK_DTYPES = {"float16": ("fp16", 2), "bfloat16": ("bf16", 2),
              "float32": ("fp32", 4), "int8": ("int8", 1),
              "int32": ("int32", 4), "int64": ("int64", 8),
              "float8_e4m3fn": ("fp8_e4m3fn", 1),
              "float8_e5m2": ("fp8_e5m2", 1), "hifloat8": ("hif8", 1),
              "uint8": ("uint8", 1), "int16": ("int16", 2),
              "uint16": ("uint16", 2), "uint32": ("uint32", 4)}

# The torch_npu signatures' tensor arguments in order (torch_npu's API
# documentation), and what each call returns followed by the caches it
# writes in place.
APIS = {
    "kv_rms_norm_rope_cache": (
        ["kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
         "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset"],
        ["k_cache", "ckv_cache", "k_rope", "c_kv"]),
    "qkv_rms_norm_rope_cache": (
        ["qkv", "q_gamma", "k_gamma", "cos", "sin", "index", "q_out",
         "k_cache", "v_cache", "k_scale", "v_scale", "k_offset",
         "v_offset"],
        ["q_out_before_quant", "k_out_before_quant", "v_out_before_quant",
         "q_out", "k_cache", "v_cache"]),
    "reshape_and_cache": (
        ["key", "value", "key_cache", "value_cache", "slot_mapping"],
        ["key_cache", "value_cache"]),
    # npu_kv_rmsnorm_rope_cache_v2: a case with v
    "kv_rms_norm_rope_cache_v2": (
        ["kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
         "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset", "v"],
        ["k_rope", "c_kv", "k_cache", "ckv_cache"]),
    "scatter_pa_kv_cache": (
        ["key", "value", "key_cache", "value_cache", "slot_mapping",
         "compress_lens", "compress_seq_offset", "seq_lens"],
        ["key_cache", "value_cache"]),
}

CASES = [
    "kv_rms_norm_rope_cache/bcast_pa_blk_bnsd_bf16",
    "kv_rms_norm_rope_cache/ds_950_pa_fp16_both_hif8_asym",
    "kv_rms_norm_rope_cache/ds_950_norm_bf16_ckv_e5m2_out",
    "qkv_rms_norm_rope_cache/bf16_k_asym_v_sym",
    "qkv_rms_norm_rope_cache/bf16_k_int8_sym_v_plain",
    "reshape_and_cache/nd_fp16",
    "reshape_and_cache/nd_int8",
    "kv_rms_norm_rope_cache/v2_a2a3_norm_bcast_noout",
    "kv_rms_norm_rope_cache/v2_a2a3_pa_nz_bf16_int8_asym_n2",
    "scatter_pa_kv_cache/norm_bf16",
    "scatter_pa_kv_cache/norm_uint32",
    "scatter_pa_kv_cache/norm_int16",
    "scatter_pa_kv_cache/nz_hif8_key_e4m3_value",
]


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
    op = doc["op"]
    if op == "kv_rms_norm_rope_cache" and "v" in doc["inputs"]:
        op += "_v2"
    inputs, goldens = APIS[op]
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
    attrs = doc.get("attrs", {})
    for i, name in enumerate(goldens):
        dtype, dims, data = got["golden"][i]
        optional = name in ("k_rope", "c_kv") and not attrs.get(
            "is_output_kv") or name.endswith("_before_quant") and not \
            attrs.get("is_output_qkv")
        if optional:
            assert dtype == "none", "golden %d (%s)" % (i, name)
            continue
        tag, arr = case_tensor(case_dir, expected[name])
        assert TTK_DTYPES[dtype][0] == tag, name
        assert dims == arr.shape, name
        assert data == np.ascontiguousarray(arr).tobytes(), (
            "golden %d (%s) differs from the generator's" % (i, name))


def test_none_markers_and_goldens_seen(prepared):
    """The cases above exercise both kinds of marker and every op."""
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
    case = os.path.join(VECTORS, "reshape_and_cache/nd_fp16")
    out = tmp_path / "m"
    assert run(cli, "prepare", case, "--out", str(out)).returncode == 0
    good = tree(out)
    for rel in good:
        (out / rel).write_bytes(b"\xa5" * 7)
    r = run(cli, "prepare", case, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert tree(out) == good


def test_refusals_leave_everything_untouched(cli, tmp_path):
    good = os.path.join(VECTORS, "reshape_and_cache/nd_fp16")
    out = tmp_path / "m"
    assert run(cli, "prepare", good, "--out", str(out)).returncode == 0
    (out / "nd_fp16" / "golden_0_float16__shape_5x8x4x64.bin").write_bytes(
        b"\x5a" * 3)
    before = tree(tmp_path)

    def refused(args, words):
        r = run(cli, "prepare", *args)
        assert r.returncode == 2, r.stdout + r.stderr
        for w in words:
            assert w in r.stderr, (w, r.stderr)
        assert tree(tmp_path) == before

    # an operator ops-test-kit's e2e path cannot call
    omni = os.path.join(VECTORS, "reshape_and_cache_omni",
                        sorted(os.listdir(os.path.join(
                            VECTORS, "reshape_and_cache_omni")))[0])
    refused([good, omni, "--out", str(out)],
            ["reshape_and_cache_omni", "torch_npu"])
    # a parameter torch_npu._npu_reshape_and_cache does not have
    refused([good, os.path.join(VECTORS, "reshape_and_cache/nz_fp16"),
             "--out", str(out)], ["cache_layout", "NZ"])
    # what torch_npu.npu_scatter_pa_kv_cache cannot express: another
    # scatter_mode, a key-only call; and fp4, not mapped
    for c, w in (("nct_fp16", "scatter_mode"), ("key_only_fp16", "key-only"),
                 ("norm_fp4_e2m1", "fp4_e2m1")):
        refused([good, os.path.join(VECTORS, "scatter_pa_kv_cache", c),
                 "--out", str(out)], [w])
    # a v torch_npu would ignore (it runs V1 unless v's dim 3 is 128)
    refused([good, os.path.join(VECTORS, "kv_rms_norm_rope_cache",
                                "v2_m_pa_bf16_kint8_cint8_asym_out"),
             "--out", str(out)], ["V1"])
    # a case the operator refuses
    refused([good, os.path.join(VECTORS,
                                "reshape_and_cache/error_duplicate_slots"),
             "--out", str(out)], ["slot"])
    # another file in the way of a case directory
    (out / "nd_fp16" / "notes.txt").write_text("mine")
    before = tree(tmp_path)
    refused([good, "--out", str(out)], ["notes.txt", "nothing written"])
    (out / "nd_fp16" / "notes.txt").unlink()
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
    r = run(cli, "prepare", os.path.join(VECTORS, "reshape_and_cache/nd_fp16"),
            os.path.join(VECTORS, "reshape_and_cache/error_duplicate_slots"),
            "--out", str(out))
    assert r.returncode == 2
    assert os.listdir(tmp_path) == []


def test_help(cli):
    r = run(cli, "help", "prepare")
    assert r.returncode == 0 and "--out DIR" in r.stdout
    assert "prepare CASE" in run(cli, "--help").stdout
