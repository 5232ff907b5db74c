"""Writing a case directory in the spec section 5 format.

A case is `case.json` plus one .npy per tensor: inputs as `<name>.npy`,
expected outputs as `expected_<name>.npy`. Key order in case.json is fixed
(op, comment, flags, attrs, options, inputs, expected) so regeneration is
byte-identical.
"""
import json
import os

import numpy as np

from . import npyio

# storage dtype per case dtype tag (spec section 5)
STORAGE = {
    "fp16": np.dtype("<f2"), "bf16": np.dtype("<u2"), "fp32": np.dtype("<f4"),
    "int8": np.dtype("|i1"), "int32": np.dtype("<i4"),
    "int64": np.dtype("<i8"), "fp8_e4m3fn": np.dtype("|u1"),
    "fp8_e5m2": np.dtype("|u1"), "hif8": np.dtype("|u1"),
    # copy-only types; fp4 is packed, two codes per byte-sized element
    "uint8": np.dtype("|u1"), "int16": np.dtype("<i2"),
    "uint16": np.dtype("<u2"), "uint32": np.dtype("<u4"),
    "fp4_e2m1": np.dtype("|u1"), "fp4_e1m2": np.dtype("|u1"),
    "e8m0": np.dtype("|u1"),  # the MX scale, 2^(code - 127)
}


class T:
    """A tensor for a case: its storage array and its dtype tag."""

    def __init__(self, array, dtype):
        if dtype not in STORAGE:
            raise ValueError("unknown dtype tag %r" % dtype)
        array = np.asarray(array, order="C")  # not ascontiguousarray: 0-d stays 0-d
        if array.dtype != STORAGE[dtype]:
            if dtype == "fp16" and array.dtype == np.float16:
                pass
            else:
                raise TypeError("%s tensor stored as %s, want %s"
                                % (dtype, array.dtype, STORAGE[dtype]))
        self.array = array
        self.dtype = dtype


def write_case(root, case_id, op, attrs, inputs, expected, options=None,
               comment=None, flags=None, expect_error=None):
    """Write case `case_id` under `root`; returns the case directory.

    expect_error ({"status": 161002, "tensor": "index"}) marks a case the
    operator must refuse: it then has no "expected" (pass {}), and
    "expect_error" is the document's last key."""
    if expect_error is not None and expected:
        raise ValueError("a refused case has no expected outputs")
    d = os.path.join(root, case_id)
    os.makedirs(d, exist_ok=True)
    doc = {"op": op}
    if comment:
        doc["comment"] = comment
    if flags:
        doc["flags"] = list(flags)
    doc["attrs"] = attrs
    if options:
        doc["options"] = options
    doc["inputs"] = {}
    if expect_error is None:
        doc["expected"] = {}
    for name, t in inputs.items():
        fname = name + ".npy"
        npyio.save(os.path.join(d, fname), t.array)
        doc["inputs"][name] = {"file": fname, "dtype": t.dtype}
    for name, t in expected.items():
        fname = "expected_" + name + ".npy"
        npyio.save(os.path.join(d, fname), t.array)
        doc["expected"][name] = {"file": fname, "dtype": t.dtype}
    if expect_error is not None:
        doc["expect_error"] = dict(expect_error)
    with open(os.path.join(d, "case.json"), "w") as f:
        f.write(json.dumps(doc, indent=2) + "\n")
    return d
