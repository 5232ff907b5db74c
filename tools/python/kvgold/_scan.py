"""kvgold.scan: `kvgold scan` from Python, with what only Python can read.

The engine is the kvgold command's (tools/lib/scan, C). msprobe's PyTorch
dumps hold their tensors as .pt files, which only torch reads: scan()
copies such a dump's dump.json files into a temporary tree, converts each
.pt tensor to .npy (bf16 and the 8-bit floats as their raw codes, which is
how kvgold's .npy reader takes them) and points the copied dump.json at
them; the original dump is never written. ops-test-kit case directories
prepared with --dump-format pt (input_<i>_<dtype>.pt, golden_<i>_<dtype>.pt,
*_none.pt markers) are copied the same way, each .pt converted to the
.npy ops-test-kit's npy format would hold (its custom dtypes as a void of
their width; a .pt holding ops-test-kit's raw-byte payload for a dtype
torch lacks, {"ttk_raw_bytes", "ttk_shape"}, read as those bytes). Every
other dump is scanned where it is.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

from ._errors import Error

__all__ = ["scan"]

_IO, _FORMAT = 170002, 170003  # KVG_ERR_IO, KVG_ERR_FILE_FORMAT


def _cli(cli):
    """cli=, else KVGOLD_CLI, else the command `pip install .` put beside
    the package, else `kvgold` on PATH."""
    from .__main__ import command
    path = cli or command() or shutil.which("kvgold")
    if not path:
        raise Error(_IO, "kvgold.scan needs the kvgold command: put it on "
                    "PATH, set KVGOLD_CLI or pass cli=")
    return path


def _pt_to_npy(src, dst):
    import numpy as np
    import torch
    t = torch.load(src, map_location="cpu", weights_only=True)
    if not isinstance(t, torch.Tensor):
        raise Error(_FORMAT, "%s: not a tensor" % src)
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        arr = t.view(torch.int16).numpy().view(np.uint16)
    elif t.element_size() == 1 and t.dtype not in (torch.int8, torch.uint8):
        arr = t.view(torch.uint8).numpy()
    else:
        arr = t.numpy()
    np.save(dst, arr)


# ops-test-kit's manual-data file names (ttk/core_modules/manual_data.py
# _DATA_FILE_NAME), and output_ as kvgold's scan reads a device's outputs
_TTK_NAME = re.compile(
    r"^(input|scalar|golden|output)_(0|[1-9][0-9]*)_"
    r"([A-Za-z0-9][A-Za-z0-9_.-]*?)"
    r"(?:__shape_(scalar|[0-9]+(?:x[0-9]+)*))?\.(bin|pt|npy)$")
# bytes per element of the dtypes a case may name
_TTK_ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1,
                 "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
                 "uint32": 4, "int64": 8, "float8_e4m3fn": 1,
                 "float8_e5m2": 1, "hifloat8": 1}


def _ttk_pt_case(names):
    """1 if a case directory's inputs are .pt: ops-test-kit takes one
    whole format per case, bin before npy before pt."""
    exts = {m.group(5) for m in map(_TTK_NAME.match, names)
            if m and m.group(1) == "input"}
    return "pt" in exts and not exts & {"bin", "npy"}


def _ttk_pt_to_npy(src, dst, dtype):
    import numpy as np
    import torch
    t = torch.load(src, map_location="cpu", weights_only=True)
    if isinstance(t, dict) and set(t) == {"ttk_raw_bytes", "ttk_shape"}:
        # ops-test-kit's payload for a dtype torch lacks: raw bytes + shape
        size = _TTK_ITEMSIZE.get(dtype)
        raw = t["ttk_raw_bytes"]
        if size is None or not isinstance(raw, torch.Tensor):
            raise Error(_FORMAT, "%s: a raw-byte payload of dtype %s, which "
                        "kvgold does not read" % (src, dtype))
        data = raw.detach().contiguous().numpy().tobytes()
        shape = tuple(int(d) for d in t["ttk_shape"])
        count = 1
        for d in shape:
            count *= d
        if len(data) != count * size:
            raise Error(_FORMAT, "%s: ttk_raw_bytes holds %d bytes, "
                        "ttk_shape %s of %s needs %d" % (
                            src, len(data), shape, dtype, count * size))
        arr = np.frombuffer(data, dtype="V%d" % size).reshape(shape)
    elif isinstance(t, torch.Tensor):
        t = t.detach().contiguous()
        if t.dtype == torch.bfloat16:
            arr = t.view(torch.int16).numpy().view("V2")
        elif t.element_size() == 1 and t.dtype not in (torch.int8,
                                                        torch.uint8):
            arr = t.view(torch.uint8).numpy().view("V1")
        else:
            arr = t.numpy()
    else:
        raise Error(_FORMAT, "%s: neither a tensor nor ops-test-kit's "
                    "raw-byte payload" % src)
    np.save(dst, arr)


def _link(src, dst):
    """dst holds src's bytes: a hard link (no copy), or on another file
    system a copy. Never a symbolic link: `kvgold scan` follows no link
    inside a dump (docs/scan.md), this converted copy included."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _ttk_has_pt(path):
    return any(_ttk_pt_case(names) for _, _, names in os.walk(path))


def _convert_ttk(path, out):
    """A copy of the ops-test-kit directories under `path` at `out`, each
    .pt case's files converted to .npy, the other cases' files kept
    (linked)."""
    for dirpath, _, names in os.walk(path):
        if not any(_TTK_NAME.match(n) for n in names):
            continue
        dst = os.path.join(out, os.path.relpath(dirpath, path))
        os.makedirs(dst, exist_ok=True)
        convert = _ttk_pt_case(names)
        for n in sorted(names):
            s = os.path.join(dirpath, n)
            m = _TTK_NAME.match(n)
            if not os.path.isfile(s) or os.path.islink(s):
                continue
            if convert and m and m.group(5) == "pt":
                d = os.path.join(dst, n[:-3] + ".npy")
                if m.group(3) == "none":
                    open(d, "wb").close()  # the None marker, as npy
                else:
                    _ttk_pt_to_npy(s, d, m.group(3))
            elif not (convert and m and m.group(5) == "npy"):
                _link(s, os.path.join(dst, n))


def _has_pt(path):
    for dirpath, _, names in os.walk(path):
        if "dump.json" in names:
            data = os.path.join(dirpath, "dump_tensor_data")
            if os.path.isdir(data) and any(
                    n.endswith(".pt") for n in os.listdir(data)):
                return True
    return False


def _convert(path, tmp):
    """A copy of the msprobe dump at `path` under `tmp` with .npy tensors:
    dump.json rewritten to name them, .npy files kept (linked), .pt
    converted."""
    for dirpath, _, names in os.walk(path):
        if "dump.json" not in names:
            continue
        rel = os.path.relpath(dirpath, path)
        out = os.path.join(tmp, rel)
        src_data = os.path.join(dirpath, "dump_tensor_data")
        dst_data = os.path.join(out, "dump_tensor_data")
        os.makedirs(dst_data, exist_ok=True)
        text = open(os.path.join(dirpath, "dump.json"),
                    encoding="utf-8").read()
        if os.path.isdir(src_data):
            for n in sorted(os.listdir(src_data)):
                s = os.path.join(src_data, n)
                if n.endswith(".pt"):
                    _pt_to_npy(s, os.path.join(dst_data, n[:-3] + ".npy"))
                    text = text.replace('"%s"' % n, '"%s.npy"' % n[:-3])
                else:
                    _link(s, os.path.join(dst_data, n))
        with open(os.path.join(out, "dump.json"), "w",
                  encoding="utf-8") as f:
            f.write(text)


def scan(path, *args, cli=None):
    """Judge every call of a kvgold operator in the dump at `path`
    (msprobe, ATB, CANN or ops-test-kit; docs/scan.md) and return the
    `kvgold scan --json` document: "calls" (each with "verdict" PASS /
    FAIL / NOT_JUDGED, "reason" and compare's "report"), "summary" and
    "verdict". `args` are further command-line options ("--op", NAME,
    "--standard", "single", "--csv", FILE, ...). A dump holding .pt files
    (msprobe's PyTorch dumps, ops-test-kit's pt cases) is read through a
    converted copy. An unreadable PATH raises kvgold.Error."""
    exe = _cli(cli)
    path = os.fspath(path)
    tmp = None
    where = path
    try:
        if os.path.isdir(path) and _has_pt(path):
            tmp = tempfile.mkdtemp(prefix="kvgold-scan-")
            _convert(path, tmp)
            where = tmp
        elif os.path.isdir(path) and _ttk_has_pt(path):
            tmp = tempfile.mkdtemp(prefix="kvgold-scan-")
            # the copy keeps PATH's own name: a case directory's name is
            # its testcase (and operator) when PATH is one case
            where = os.path.join(tmp, os.path.basename(
                os.path.normpath(os.path.abspath(path))))
            _convert_ttk(path, where)
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        p = subprocess.run([exe, "scan", where, "--json"] + list(args),
                           capture_output=True, text=True, env=env)
        if p.returncode == 2 or not p.stdout.strip():
            raise Error(_IO, p.stderr.strip() or
                        "kvgold scan failed (exit %d)" % p.returncode)
        doc = json.loads(p.stdout)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    if tmp is not None:
        # name the caller's dump, not the temporary copy
        doc["path"] = path
        for c in doc.get("calls", []):
            if c.get("where", "").startswith(where):
                c["where"] = path + c["where"][len(where):]
            if isinstance(c.get("reason"), str):
                c["reason"] = c["reason"].replace(where, path)
    return doc
