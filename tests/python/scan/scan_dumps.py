"""Independent writers of the dump formats `kvgold scan` reads, for its
tests: each written from the format's public description (NumPy for the
raw .bin files), never through kvgold's readers. The honest calls are the
committed vectors (inputs, and the expected post-call tensors from the
independent NumPy generator); the planted faults are made here."""
import glob
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np

VECTORS = os.environ.get(
    "KVG_VECTORS_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "vectors"))

# aclDataType codes (the dtype= of an ATB tensor file)
ACL = {"fp32": 0, "fp16": 1, "int8": 2, "int32": 3, "int64": 9, "bf16": 27,
       "hif8": 34, "fp8_e5m2": 35, "fp8_e4m3fn": 36}
ND, NZ = 2, 29  # aclFormat


class Call:
    """A vector case as a call: tensors by name (raw dtype tag, array),
    its attrs, and the post-call tensors (expected)."""

    def __init__(self, op, case):
        self.dir = os.path.join(VECTORS, op, case)
        with open(os.path.join(self.dir, "case.json")) as f:
            self.doc = json.load(f)
        self.op = op
        self.attrs = self.doc.get("attrs", {})
        self.inputs = {n: (e["dtype"], np.load(os.path.join(self.dir,
                                                            e["file"])))
                       for n, e in self.doc["inputs"].items()}
        self.post = {n: (e["dtype"], np.load(os.path.join(self.dir,
                                                          e["file"])).copy())
                     for n, e in self.doc.get("expected", {}).items()}


def plant_slot_off(call, cache="key_cache", slots="slot_mapping"):
    """The first token with a slot written one slot later (or earlier)
    than its slot, where no other token writes (caches [blocks,
    block_size, ...]); its own slot keeps the initial row. Returns
    (token, slot, wrong slot)."""
    dt, post = call.post[cache]
    init = call.inputs[cache][1]
    mapping = [int(x) for x in call.inputs[slots][1].reshape(-1)]
    used = set(mapping)
    rows = post.reshape(post.shape[0] * post.shape[1], -1)
    irows = init.reshape(rows.shape)
    for t, s in enumerate(mapping):
        for s2 in (s + 1, s - 1):
            if s >= 0 and 0 <= s2 < rows.shape[0] and s2 not in used:
                rows[s2] = rows[s]
                rows[s] = irows[s]
                return t, s, s2
    raise AssertionError("no token can be moved one slot")


def plant_ulps(call, name, ulps, where=None):
    """`ulps` units in the last place added to one written element of
    post-call tensor `name` (16-bit floats: the bit pattern moves)."""
    dt, post = call.post[name]
    flat = post.reshape(-1).view(np.uint16)
    if where is None:
        init = call.inputs.get(name)
        diff = (np.nonzero(flat != init[1].reshape(-1).view(np.uint16))[0]
                if init is not None else np.arange(flat.size))
        finite = [i for i in diff if (int(flat[i]) & 0x7C00) != 0x7C00
                  and int(flat[i]) & 0x7FFF > 0x0400]
        where = int(finite[0])
    flat[where] = np.uint16(int(flat[where]) + ulps)
    return where


def plant_fault(call):
    """One element of the first post-call tensor the call writes (one that
    differs from its pre-call tensor; any, for a returned one) with the
    second-highest bit of its code flipped: a change no standard lets
    pass, planted in any operator's call. Returns the tensor's name."""
    for name, (dt, post) in call.post.items():
        flat = post.reshape(-1).view(np.dtype("u%d" % post.dtype.itemsize))
        init = call.inputs.get(name)
        where = (np.nonzero(flat != init[1].reshape(-1).view(flat.dtype))[0]
                 if init is not None else np.arange(flat.size))
        if where.size:
            bit = 8 * post.dtype.itemsize - 2
            flat[int(where[0])] ^= flat.dtype.type(1 << bit)
            return name
    raise AssertionError("the call writes nothing a fault can be planted in")


def atb_bin(path, tag, arr, fmt=ND):
    """An ATB tensor file: key=value header lines up to $End=1, then the
    raw elements."""
    data = np.ascontiguousarray(arr).tobytes()
    head = ("$Version=1.0\n$Object.Count=1\n$Object.Length=%d\n"
            "format=%d\ndtype=%d\ndims=%s\n$End=1\n" % (
                len(data), fmt, ACL[tag],
                ",".join(str(int(d)) for d in arr.shape)))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head.encode() + data)


def write_atb_op(root, name, ins, outs, nz=()):
    """One ATB operation directory: ins / outs are lists of (tag, array)
    (None: left out); tensors named in nz by index are FRACTAL_NZ."""
    d = os.path.join(root, name)
    for i, t in enumerate(ins):
        if t is not None:
            atb_bin(os.path.join(d, "before", "intensor%d.bin" % i), t[0],
                    t[1], NZ if ("in", i) in nz else ND)
    os.makedirs(os.path.join(d, "after"), exist_ok=True)
    for i, t in enumerate(outs):
        if t is not None:
            atb_bin(os.path.join(d, "after", "outtensor%d.bin" % i), t[0],
                    t[1], NZ if ("out", i) in nz else ND)
    return d


def attr_args(call):
    """--attr NAME=JSON for each of the call's attributes: for dumps that
    record none (ops-test-kit's manual cases)."""
    out = []
    for k, v in call.attrs.items():
        out += ["--attr", "%s=%s" % (k, json.dumps(v))]
    return out


def cli_env():
    """The environment for the kvgold command: without the sanitizer
    runtime preloaded for Python (an ASan build links its own, and two
    runtimes refuse to start)."""
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def scan(cli, path, *args):
    """Run kvgold scan --json; (exit status, document, stderr)."""
    p = subprocess.run([cli, "scan", path, "--json"] + list(args),
                       capture_output=True, text=True, env=cli_env())
    doc = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, doc, p.stderr


def reconciles(doc, entries, others=0):
    """Every entry seen is a call listed here or another operator's."""
    s = doc["summary"]
    assert s["entries"] == entries, s
    assert s["other_calls"] == others, s
    assert s["calls"] + s["other_shards"] + s["other_calls"] == entries, s
    assert s["passed"] + s["failed"] + s["not_judged"] == s["calls"], s


# A CANN dump file holds a kernel's inputs as read after it ran
# (docs/scan.md, "When each format records a call's inputs"): an in-place
# cache's "pre-call" input already holds the kernel's writes, so scan
# judges its written elements but leaves its untouched bytes NOT JUDGED.
CANN_AFTER = "CANN writes a kernel's inputs to its dump file after the " \
    "kernel ran"


def inplace(call, ins):
    """The call's in-place caches: the outputs of vector case `call`
    (case.json's expected, the NumPy generator's) that the kernel also
    takes as inputs (`ins`, its input names, e.g. a writer's IN)."""
    return [n for n in ins if n in call.post and n in call.inputs]


def cann_verdict(call, ins):
    """An honest call's verdict in a CANN dump: PASS without in-place
    caches, else NOT_JUDGED (their untouched bytes), never PASS."""
    return "NOT_JUDGED" if inplace(call, ins) else "PASS"


def cann_honest(c, call, ins):
    """Call c of a scan document is `call` dumped honestly by CANN: no
    tensor failed, each in-place cache's written elements passed, and its
    untouched bytes are NOT JUDGED saying why."""
    assert c["verdict"] == cann_verdict(call, ins), c
    res = {r["name"]: r for r in c["report"]["results"]}
    assert all(r["verdict"] != "FAIL" for r in res.values()), c
    for n in inplace(call, ins):
        assert res[n]["verdict"] == "PASS", res[n]
        u = res["untouched bytes of " + n]
        assert u["verdict"] == "NOT JUDGED" and CANN_AFTER in u["reason"], u
    if inplace(call, ins):
        assert c["reason"].startswith("untouched bytes of "), c
        assert CANN_AFTER in c["reason"], c


def one_not_judged(doc, needle, *words):
    """Exactly one call NOT JUDGED, its id containing `needle`, its reason
    holding each of `words`; the others PASS; overall not PASS."""
    assert doc["verdict"] != "PASS"
    bad = [c for c in doc["calls"] if c["verdict"] != "PASS"]
    assert len(bad) == 1, [(c["id"], c["verdict"], c["reason"])
                           for c in doc["calls"]]
    assert bad[0]["verdict"] == "NOT_JUDGED"
    assert needle in bad[0]["id"], bad[0]["id"]
    for w in words:
        assert w in bad[0]["reason"], bad[0]["reason"]
    return bad[0]


# ---- ops-test-kit ---------------------------------------------------------

TTK_DTYPE = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
             "int8": "int8", "int32": "int32", "int64": "int64",
             "fp8_e4m3fn": "float8_e4m3fn", "fp8_e5m2": "float8_e5m2",
             "hif8": "hifloat8", "uint8": "uint8", "int16": "int16",
             "uint16": "uint16", "uint32": "uint32",
             "e8m0": "float8_e8m0"}
CUSTOM = {"bf16", "fp8_e4m3fn", "fp8_e5m2", "hif8"}  # no NumPy dtype
# ops-test-kit's 4-bit floats: an en_dtypes array, one code an element, so
# its shapes count codes (hicann/ops-test-kit@23e69087 ttk/utilities/
# dtypes.py, _NUMPY_TO_TORCH_4BIT_DTYPE's comment); kvgold's fp4 element is
# a byte of two codes, element 2j in the low nibble
TTK_FP4 = {"fp4_e2m1": "float4_e2m1", "fp4_e1m2": "float4_e1m2"}
TTK_DTYPE.update(TTK_FP4)


def ttk_codes(arr):
    """kvgold's fp4 pairs [..., n] as ops-test-kit's codes [..., 2n]."""
    arr = np.asarray(arr, dtype=np.uint8)
    codes = np.empty(arr.shape[:-1] + (2 * arr.shape[-1],), np.uint8)
    codes[..., 0::2] = arr & 0x0F
    codes[..., 1::2] = arr >> 4
    return codes


def ttk_pack_4bits(codes):
    """What ops-test-kit's .bin holds for a 4-bit array (file_utils.py
    _dump_bin @202675b6 -> dtypes.py pack_4bits @23e69087, restated):
    the array flattened, a zero code appended to an odd count, and each
    pair k of codes one byte, code 2k in its low nibble, 2k + 1 in its
    high one."""
    flat = np.asarray(codes, dtype=np.uint8).reshape(-1) & 0x0F
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)


def code_shape(tag, arr):
    """A tensor's shape in elements as ops-test-kit (its files and CSV)
    and a CANN aclnn dump (the aclTensor's storage shape) give it: an fp4
    tensor's counts codes, two a kvgold element."""
    shape = tuple(int(x) for x in np.shape(arr))
    if tag in TTK_FP4:
        shape = shape[:-1] + (2 * shape[-1],)
    return shape


def ttk_npy(path, tag, arr):
    """An .npy as ops-test-kit writes it: custom dtypes as a void of the
    same width. (ascontiguousarray makes a 0-d array 1-d: its shape is
    put back.)"""
    arr = np.ascontiguousarray(arr).reshape(np.shape(arr))
    if tag in CUSTOM:
        arr = arr.view(np.dtype("V%d" % arr.dtype.itemsize))
    np.save(path, arr)


def ttk_pt(path, tag, arr):
    """A .pt as ops-test-kit writes it (torch.save of the CPU tensor; for
    a dtype this torch lacks, its payload {"ttk_raw_bytes": uint8 tensor,
    "ttk_shape": shape})."""
    import torch
    arr = np.ascontiguousarray(arr).reshape(np.shape(arr))  # 0-d stays
    kind = TORCH_DT[tag][6:]
    if tag == "hif8" or (tag in CUSTOM and not hasattr(torch, kind)):
        raw = arr.view(np.uint8).reshape(-1).copy()
        torch.save({"ttk_raw_bytes": torch.from_numpy(raw),
                    "ttk_shape": tuple(int(d) for d in arr.shape)}, path)
        return
    if arr.dtype == np.uint16:
        arr = arr.view(np.int16)
    t = torch.from_numpy(arr.copy())
    if tag == "bf16":
        t = t.view(torch.bfloat16)
    elif tag in CUSTOM:
        t = t.view(getattr(torch, kind))
    torch.save(t, path)


def write_ttk_fp4(d, base, kind, arr, fmt):
    """kvgold's fp4 pairs `arr` as ops-test-kit saves a 4-bit array
    (manual_data.py _write_array / _write_single @055fae80): .bin its
    pack_4bits bytes, a golden's name giving its shape in codes; .npy the
    codes unpacked, a void of width 1; .pt (this torch has no float4
    dtype) its raw-byte payload of the codes."""
    codes = ttk_codes(arr)
    if fmt == "bin":
        if kind != "input":
            base += "__shape_" + "x".join(str(x) for x in codes.shape)
        with open(os.path.join(d, base + ".bin"), "wb") as f:
            f.write(ttk_pack_4bits(codes).tobytes())
    elif fmt == "npy":
        np.save(os.path.join(d, base + ".npy"), codes.view(np.dtype("V1")))
    else:
        import torch
        torch.save({"ttk_raw_bytes": torch.from_numpy(codes.reshape(-1)),
                    "ttk_shape": tuple(int(x) for x in codes.shape)},
                   os.path.join(d, base + ".pt"))


def write_ttk_case(root, name, ins, outs, fmt="npy", role="golden"):
    """One case directory: ins / outs lists of (tag, array) or None (a
    *_none marker). .bin goldens carry their shape in the name."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for kind, items in (("input", ins), (role, outs)):
        for i, t in enumerate(items):
            if t is None:
                open(os.path.join(d, "%s_%d_none.%s" % (kind, i, fmt)),
                     "wb").close()
                continue
            tag, arr = t
            base = "%s_%d_%s" % (kind, i, TTK_DTYPE[tag])
            if tag in TTK_FP4:
                write_ttk_fp4(d, base, kind, arr, fmt)
                continue
            if fmt == "npy":
                ttk_npy(os.path.join(d, base + ".npy"), tag, arr)
            elif fmt == "pt":
                ttk_pt(os.path.join(d, base + ".pt"), tag, arr)
            else:
                if kind != "input":
                    base += "__shape_" + ("x".join(str(int(x))
                                                   for x in arr.shape)
                                          or "scalar")
                with open(os.path.join(d, base + ".bin"), "wb") as f:
                    f.write(np.ascontiguousarray(arr).tobytes())
    return d


def write_ttk_e2e(mod, call, root, name, fmt="bin", drop=None):
    """An e2e case of operator module `mod` (its E2E_* signature): the
    directory, and its testcase row for ttk_csv as ops-test-kit's CSV
    declares it (Python literals: the shapes and dtypes of the flat
    tensor slots, None for one left out, the keyword arguments)."""
    ins = [call.inputs.get(n) for n in mod.E2E_IN]
    while ins and ins[-1] is None:
        ins.pop()
    outs = [call.post.get(n) for n in mod.E2E_OUT]
    if drop is not None:
        outs = outs[:drop]
    write_ttk_case(root, name, ins, outs, fmt)
    shapes = tuple(None if t is None else code_shape(t[0], t[1])
                   for t in ins)
    dtypes = tuple(None if t is None else TTK_DTYPE[t[0]] for t in ins)
    # as the framework spells them (E2E_VALUES: {attr: {case value: its}})
    values = getattr(mod, "E2E_VALUES", {})
    attrs = {k: values[k].get(v, v) if k in values else v
             for k, v in call.attrs.items() if k in mod.E2E_ATTRS}
    return {"testcase_name": name, "api_name": mod.E2E_API,
            "tensor_view_shapes": repr(shapes),
            "tensor_dtypes": repr(dtypes), "tensor_formats": "",
            "attributes": repr(attrs), "output_tensor_indexes": "",
            "golden_api": ""}


def write_ttk_csv(path, rows):
    """ops-test-kit's testcase CSV (the columns of its examples/case_store/
    e2e/*.csv), written by Python's csv module as ops-test-kit reads it."""
    import csv
    cols = ["testcase_name", "api_name", "tensor_view_shapes",
            "tensor_dtypes", "tensor_formats", "attributes",
            "output_tensor_indexes", "golden_api"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "") for c in cols])
    return path


# ops-test-kit's kernel-mode CSV (its examples/case_store/kernel/*.csv): a
# row names the kernel by op_name, each operator's KERNEL in its writer (as
# its docs/Operator_Test_Guides/Kernel_Case_Writing.md spells it: the op
# info library's opInterface, else the snake_case op type)
KERNEL_COLS = ["testcase_name", "network_name", "op_name", "input_shapes",
               "input_dtypes", "input_formats", "output_shapes",
               "output_dtypes", "output_formats", "attributes",
               "output_inplace_indexes"]


def write_kernel(mod, call, root, name, dtypes=None):
    """A kernel-mode case directory of operator module `mod` as
    ops-test-kit's manual data writes it (every kernel input in the
    kernel's order, a *_none marker for an optional one left out; a golden
    per kernel output) and its row."""
    ins = [call.inputs.get(n) for n in mod.IN]
    # the kernel's outputs (OUT, when they are not the e2e call's)
    outs = [call.post.get(n) for n in getattr(mod, "OUT", mod.E2E_OUT)]
    write_ttk_case(root, name, ins, outs, "bin")

    def shapes(ts):
        return repr(tuple(None if t is None else
                          tuple(int(x) for x in t[1].shape) for t in ts))

    def types(ts):
        return repr(tuple(None if t is None else TTK_DTYPE[t[0]]
                          for t in ts))
    return {"testcase_name": name, "network_name": "UNKNOWN",
            "op_name": mod.KERNEL, "input_shapes": shapes(ins),
            "input_dtypes": types(ins) if dtypes is None else dtypes,
            "input_formats": "('ND',)", "output_shapes": shapes(outs),
            "output_dtypes": types(outs), "output_formats": "('ND',)",
            "attributes": repr(call.attrs), "output_inplace_indexes": "()"}


def write_kernel_csv(path, rows):
    import csv
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(KERNEL_COLS)
        for r in rows:
            w.writerow([r.get(c, "") for c in KERNEL_COLS])
    return path


def positional(call, names, source):
    """The call's tensors in a positional order, None where absent
    (trailing Nones dropped)."""
    out = [source.get(n) for n in names]
    while out and out[-1] is None:
        out.pop()
    return out




# ---- CANN operator dump files ---------------------------------------------
# python3-protobuf is not installed here, so the DumpData header is encoded
# by this small wire-format writer from the field numbers of the public
# schema (hicann/ge graph_metadef/proto/dump_task.proto).

CANN_DT = {"fp32": 1, "fp16": 2, "int8": 3, "uint8": 4, "int32": 7, "int64": 8,
           "bf16": 27, "hif8": 33, "fp8_e5m2": 34, "fp8_e4m3fn": 35,
           "e8m0": 36, "fp4_e2m1": 39, "fp4_e1m2": 40}


def pb_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_int(num, v):
    return pb_varint(num << 3) + pb_varint(v)


def pb_bytes(num, data):
    return pb_varint((num << 3) | 2) + pb_varint(len(data)) + data


def pb_tensor(is_input, tag, arr, fmt=ND, packed=True):
    """OpInput (is_input) or OpOutput: data_type 1, format 2, shape 3
    (Shape.dim 1), size 5 (input) / 6 (output). An fp4 tensor as an aclnn
    dump records it: its shape in codes, its size and data the packed
    bytes (hicann/opbase@aa3cd74b src/nnopbase/composite_op/aclnn_engine/
    op_dfx.cpp:721-738, FillDumpTensorInfo)."""
    if arr is None:  # an optional input left out
        return pb_int(5 if is_input else 6, 0)
    dims = list(code_shape(tag, arr))
    if packed:
        shape = pb_bytes(1, b"".join(pb_varint(d) for d in dims))
    else:
        shape = b"".join(pb_int(1, d) for d in dims)
    return (pb_int(1, CANN_DT[tag]) + pb_int(2, fmt) + pb_bytes(3, shape) +
            pb_int(5 if is_input else 6, arr.nbytes))


def write_cann(root, op_type, op_name, ins, outs, attrs=(), task=1,
               nz=(), workspace=0, arg_index=False):
    """One dump file: 8-byte length, DumpData (1 version, 2 dump_time,
    3 output, 4 input, 6 op_name, 7 attr, 8 space), then the payloads of
    the inputs, the outputs and the workspace. With arg_index, as current
    CANN writes it: an absent optional input is left out (no placeholder)
    and each input records its position in OpInput.arg_index (field 10;
    proto3 writes no field for 0)."""
    msg = pb_bytes(1, b"2.0") + pb_int(2, 1700000000 + task)
    for i, t in enumerate(outs):
        msg += pb_bytes(3, pb_tensor(False, t[0], t[1],
                                     NZ if ("out", i) in nz else ND))
    for i, t in enumerate(ins):
        if arg_index and t is None:
            continue
        body = pb_tensor(True, t[0] if t else None, t[1] if t else None,
                         NZ if ("in", i) in nz else ND, packed=i % 2 == 0)
        if arg_index and i:
            body += pb_int(10, i)
        msg += pb_bytes(4, body)
    msg += pb_bytes(6, op_name.encode())
    for k, v in attrs:
        msg += pb_bytes(7, pb_bytes(1, k.encode()) + pb_bytes(2, v.encode()))
    if workspace:
        msg += pb_bytes(8, pb_int(1, 0) + pb_int(3, workspace))
    body = b"".join(np.ascontiguousarray(t[1]).tobytes()
                    for t in list(ins) + list(outs) if t is not None)
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, "%s.%s.%d.2.%d" % (op_type, op_name, task,
                                                  1700000000000 + task))
    with open(path, "wb") as f:
        f.write(len(msg).to_bytes(8, "little") + msg + body +
                b"\0" * workspace)
    return path


# ---- aclnn operator dump: a launch as two files ---------------------------
# The aclnn operator dump writes a launch's inputs, dumped before the
# kernel, and its outputs, after it, as two files (hicann/opbase@aa3cd74b
# src/nnopbase/individual_op/executor/indv_executor.cpp:1408-1425,
# src/nnopbase/common/inc/kernel_launcher.h:168-180), each holding only
# its kind (hicann/runtime@681ef761 src/dfx/adump/adump/manage/
# dump_manager/dump_manager.cpp:519-551), named by dump_task.cpp:1333-1365
# after the op type and name aclnn gives: "L2DfxAbscent_<n>" and
# "_L0<OpType>" for an individual op, n a new sequence number for each
# file (indv_dump.cpp:147-149), "<aclnn API>_<n>_L0" and the L0 name for
# a composite API's kernel, n the API call's, one for both files
# (op_dfx.cpp:1132-1143).

def pb_read_varint(msg, i):
    """The varint at msg[i]: (its value, the index after it)."""
    v, shift = 0, 0
    while True:
        b = msg[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def pb_fields(msg):
    """The top-level fields of a protobuf message: (number, raw bytes of
    the whole field, the length-delimited body or None)."""
    out, i = [], 0
    while i < len(msg):
        start = i
        key, i = pb_read_varint(msg, i)
        num, wt = key >> 3, key & 7
        n, i = pb_read_varint(msg, i)
        body = None
        if wt == 2:
            body, i = msg[i:i + n], i + n
        else:
            assert wt == 0, wt
        out.append((num, msg[start:i], body))
    return out


def tensor_size(body, is_input):
    """OpInput.size (5) / OpOutput.size (6) of a tensor's body."""
    want = 5 if is_input else 6
    for num, raw, sub in pb_fields(body):
        if num == want and sub is None:
            return pb_read_varint(raw, 1)[0]  # after its one-byte key
    raise AssertionError("no size")


def aclnn_name(op_type, seq, task, ts, stream=2, api=None):
    """A dump file's name as aclnn and the runtime give it: an individual
    op's (api None) or a composite API `api`'s kernel."""
    if api is None:
        return "L2DfxAbscent_%d._L0%s.%d.%d.%d" % (seq, op_type, task,
                                                    stream, ts)
    return "%s_%d_L0.%s.%d.%d.%d" % (api, seq, op_type, task, stream, ts)


def split_aclnn(path, in_name, out_name):
    """The launch of one-file dump `path` as the aclnn operator dump
    writes it: its inputs in file in_name (DumpData without outputs or
    workspace), its outputs in out_name (without inputs); `path` is
    removed. Either name None: that file is not written. Returns the
    paths written."""
    data = open(path, "rb").read()
    hlen = int.from_bytes(data[:8], "little")
    fields = pb_fields(data[8:8 + hlen])
    at = 8 + hlen
    pay = {3: [], 4: []}
    # payloads: the inputs (4), then the outputs (3), in field order
    for kind in (4, 3):
        for num, raw, body in fields:
            if num == kind:
                n = tensor_size(body, kind == 4)
                pay[kind].append(data[at:at + n])
                at += n
    os.remove(path)
    root, written = os.path.dirname(path), []
    for name, keep, drop in ((in_name, 4, 3), (out_name, 3, 4)):
        if name is None:
            continue
        msg = b"".join(raw for num, raw, _ in fields
                       if num not in (drop, 8))
        p = os.path.join(root, name)
        with open(p, "wb") as f:
            f.write(len(msg).to_bytes(8, "little") + msg +
                    b"".join(pay[keep]))
        written.append(p)
    return written


def write_aclnn(w, call, root, seq, ts, task=7, stream=2, api=None,
                files=("in", "out")):
    """Writer w's launch of vector case `call` as an aclnn operator dump:
    the input file (the pre-call inputs, call.inputs) and the output file
    (call.post); an individual op's numbers seq and seq + 1 (api None) or
    a composite API's seq for both, timestamps ts and ts + 1. `files`
    says which of the two are kept."""
    tmp = w.cann(call, root, "aclnn_split", 999)
    ins = aclnn_name(w.OP_TYPE, seq, task - 1, ts, stream, api)
    outs = aclnn_name(w.OP_TYPE, seq + (api is None), task, ts + 1,
                      stream, api)
    return split_aclnn(tmp, ins if "in" in files else None,
                       outs if "out" in files else None)


def attr_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(str(x) for x in v) + "]"
    return str(v)




# ---- msprobe --------------------------------------------------------------

TORCH_DT = {"fp16": "torch.float16", "bf16": "torch.bfloat16",
            "fp32": "torch.float32", "int8": "torch.int8",
            "int32": "torch.int32", "int64": "torch.int64",
            "fp8_e4m3fn": "torch.float8_e4m3fn",
            "fp8_e5m2": "torch.float8_e5m2", "hif8": "torch.hifloat8",
            # what torch_npu hands back for a dtype torch lacks (hifloat8,
            # fp4 pairs, E8M0 scales): their bytes as a torch.uint8
            # tensor, as msprobe's own writer dumped a hif8 output
            # (2026-12-06)
            "uint8": "torch.uint8",
            # torch 2.8's MX dtypes (an E8M0 scale; fp4 two codes a byte)
            "e8m0": "torch.float8_e8m0fnu",
            "fp4_e2m1": "torch.float4_e2m1fn_x2"}


class MsprobeStep:
    """step0/rank0/dump.json and dump_tensor_data/, one call at a time;
    tensors as .npy (MindSpore's variant) or .pt (torch.save)."""

    def __init__(self, root, ext="npy"):
        self.dir = os.path.join(root, "step0", "rank0")
        self.data_dir = os.path.join(self.dir, "dump_tensor_data")
        os.makedirs(self.data_dir, exist_ok=True)
        self.ext = ext
        self.data = {}
        self.counts = {}

    def _tensor(self, name, t):
        if t is None:
            return None
        tag, arr = t
        arr = np.ascontiguousarray(arr).reshape(np.shape(arr))  # 0-d stays
        fname = "%s.%s" % (name, self.ext)
        path = os.path.join(self.data_dir, fname)
        if self.ext == "npy":
            np.save(path, arr)
        else:
            import torch
            if arr.dtype == np.uint16:
                arr = arr.view(np.int16)
            tt = torch.from_numpy(arr.copy())
            if tag == "bf16":
                tt = tt.view(torch.bfloat16)
            elif tag in ("fp8_e4m3fn", "fp8_e5m2"):
                tt = tt.view(getattr(torch, TORCH_DT[tag][6:]))
            torch.save(tt, path)
        return {"type": "torch.Tensor", "dtype": TORCH_DT[tag],
                "shape": [int(d) for d in arr.shape],
                "Max": None, "Min": None, "requires_grad": False,
                "data_name": fname}

    def call(self, api_type, api, args, kwargs, outs):
        n = self.counts.get(api, 0)
        self.counts[api] = n + 1
        key = "%s.%s.%d.forward" % (api_type, api, n)

        def conv(prefix, i, v):
            if isinstance(v, tuple):
                return self._tensor("%s.%s.%s" % (key, prefix, i), v)
            if v is None:
                return None
            if isinstance(v, list):
                return [{"type": "int", "value": x} for x in v]
            return {"type": type(v).__name__, "value": v}
        self.data[key] = {
            "input_args": [conv("input", i, v) for i, v in enumerate(args)],
            "input_kwargs": {k: conv("input", k, v)
                             for k, v in kwargs.items()},
            "output": [conv("output", i, v) for i, v in enumerate(outs)]}
        return key

    def save(self):
        with open(os.path.join(self.dir, "dump.json"), "w") as f:
            json.dump({"task": "tensor", "level": "L1",
                       "framework": "pytorch",
                       "dump_data_dir": self.data_dir, "data": self.data},
                      f, indent=1)


_OPS = {}
# tests/ops/<op>/scan_writer.py: each operator's writer in its own folder
_WRITERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "ops", "*", "scan_writer.py")


def _load_writer(path):
    """The writer at `path` as module scan_writer_<op>: every one is named
    scan_writer.py, so none can be imported by its file name."""
    name = "scan_writer_" + os.path.basename(os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _writers():
    """The per-operator writers, tests/ops/<op>/scan_writer.py, found (not
    listed), loaded once, in folder order and keyed by their ALIAS."""
    if not _OPS:
        for path in sorted(glob.glob(_WRITERS)):
            mod = _load_writer(path)
            _OPS[mod.ALIAS] = mod
    return _OPS


def op(alias):
    """The writer of the operator the tests call `alias`."""
    return _writers()[alias]


def first(*names):
    """The first operator's writer (by folder, as found) that has each of
    `names` (a format's function such as "cann", or an attribute such as
    "E2E_API"): the operator of a format test that needs some call,
    without naming one. Its call is case(SAMPLE)."""
    for mod in _writers().values():
        if all(hasattr(mod, n) for n in names):
            return mod
    raise AssertionError("no operator's scan_writer.py has %s" %
                         ", ".join(names))


def every(*names):
    """Every operator's writer (by folder, as found) that has each of
    `names`: the operators of a format test that mixes all of them in one
    dump, without naming one."""
    mods = [m for m in _writers().values()
            if all(hasattr(m, n) for n in names)]
    assert mods, "no operator's scan_writer.py has %s" % ", ".join(names)
    return mods
