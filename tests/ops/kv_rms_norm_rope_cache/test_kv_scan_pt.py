"""kvgold scan over ops-test-kit manual cases of KvRmsNormRopeCache saved
as .pt (its writer, scan_writer.py beside this file), with an fp8 cache,
which Debian's torch 1.13 cannot hold (ops-test-kit's raw-byte payload):
torch 2's float8 form is read as the file name's fp8, and a one-byte type
is the declared one whatever unsigned tensor holds its codes, never an
int8 (the reader's other tests: tests/python/scan/test_scan_pt_c.py)."""
import json
import os

import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

torch = pytest.importorskip("torch")
np = sd.np
from pt_files import (pt_files, raw_payload, tensor_pickle,  # noqa: E402
                      torch2_archive, u8, verdicts)

kv = sd.op("kv")
FP8 = "m_norm_fp16_kt_ce4m3_sym_noout"
NAMED = kv.OP_TYPE + "_fp8"


def fp8_root(tmp_path):
    """A case directory named after the operator: its fp8-cache case."""
    root = str(tmp_path / "manual_data")
    kv.ttk(kv.case(FP8), root, NAMED, fmt="pt")
    return root


def scan_named(cli, root):
    """The verdict of the case (a manual case records no attributes: the
    case's own are given)."""
    args = ["--standard", "single"]
    for k, v in kv.case(FP8).attrs.items():
        args += ["--attr", "%s=%s" % (k, json.dumps(v))]
    rc, doc, err = sd.scan(cli, root, *args)
    assert doc is not None, err
    return verdicts(doc)[NAMED]


def test_pt_torch2_float8_form(cli, tmp_path):
    # torch 2 saves float8 as _rebuild_tensor_v3 of an UntypedStorage, a
    # byteorder entry beside: read as the file name's fp8
    root = fp8_root(tmp_path)
    fp8 = pt_files(os.path.join(root, NAMED), "float8_e4m3fn")
    assert fp8
    for p in fp8:
        raw, shape = raw_payload(p)  # this torch has no float8
        stride = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            stride[i] = stride[i + 1] * shape[i + 1]
        torch2_archive(p, tensor_pickle("torch\nUntypedStorage", len(raw) + 3,
                                        3, shape, stride, "float8_e4m3fn"),
                       b"\xff\xfe\xfd" + raw)
    assert scan_named(cli, root) == ("PASS", "")


def test_pt_fp8_as_uint8_tensor_and_int8_refused(cli, tmp_path):
    # a one-byte type is the declared one, whatever unsigned tensor holds
    # its codes; int8 is a number, never raw codes
    root = fp8_root(tmp_path)
    files = {p: raw_payload(p)
             for p in pt_files(os.path.join(root, NAMED), "float8_e4m3fn")}
    for p, (raw, shape) in files.items():
        torch.save(u8(raw, shape), p)
    assert scan_named(cli, root) == ("PASS", "")
    p = sorted(files)[0]
    torch.save(u8(files[p][0], files[p][1], np.int8), p)
    got = scan_named(cli, root)
    assert got == ("NOT_JUDGED", "unreadable: %s: holds a tensor of int8 "
                   "(CharStorage), where fp8_e4m3fn is declared" % p), got
