"""kvgold.scan: `kvgold scan` from Python, with what only Python can read.

The engine is the kvgold command's (tools/lib/scan, C). msprobe's PyTorch
dumps hold their tensors as .pt files, which only torch reads: scan()
copies such a dump's dump.json files into a temporary tree, converts each
.pt tensor to .npy (bf16 and the 8-bit floats as their raw codes, which is
how kvgold's .npy reader takes them) and points the copied dump.json at
them; the original dump is never written. Every other dump is scanned
where it is.
"""
import json
import os
import shutil
import subprocess
import tempfile

from ._errors import Error

__all__ = ["scan"]

_IO, _FORMAT = 170002, 170003  # KVG_ERR_IO, KVG_ERR_FILE_FORMAT


def _cli(cli):
    path = cli or os.environ.get("KVGOLD_CLI") or shutil.which("kvgold")
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
    dump.json rewritten to name them, .npy files kept (hard-linked or
    copied), .pt converted."""
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
                    try:
                        os.link(s, os.path.join(dst_data, n))
                    except OSError:
                        shutil.copyfile(s, os.path.join(dst_data, n))
        with open(os.path.join(out, "dump.json"), "w",
                  encoding="utf-8") as f:
            f.write(text)


def scan(path, *args, cli=None):
    """Judge every call of a kvgold operator in the dump at `path`
    (msprobe, ATB, CANN or ops-test-kit; docs/scan.md) and return the
    `kvgold scan --json` document: "calls" (each with "verdict" PASS /
    FAIL / NOT_JUDGED, "reason" and compare's "report"), "summary" and
    "verdict". `args` are further command-line options ("--op", NAME,
    "--standard", "single", ...). An unreadable PATH raises kvgold.Error."""
    exe = _cli(cli)
    path = os.fspath(path)
    tmp = None
    where = path
    try:
        if os.path.isdir(path) and _has_pt(path):
            tmp = tempfile.mkdtemp(prefix="kvgold-scan-")
            _convert(path, tmp)
            where = tmp
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
            if c.get("where", "").startswith(tmp):
                c["where"] = path + c["where"][len(tmp):]
    return doc
