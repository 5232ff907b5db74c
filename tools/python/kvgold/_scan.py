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

The copy keeps the scan's rule for what it cannot read (docs/scan.md): an
entry that is a symbolic link is not followed, and a .pt torch cannot read
as a tensor is not guessed at. Each gets a stand-in in the copy that the
command cannot read either (the link itself; a file that is no .npy), so
whatever depended on it ends NOT JUDGED - a device output is never
replaced by ops-test-kit's golden because its file was left out - and the
reason is rewritten to name the dump's entry and what is wrong with it.
"""
import functools
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from typing import Any, Callable, Dict, Optional, Sequence, Union

from ._errors import Error, FILE_FORMAT as _FORMAT, IO as _IO

__all__ = ["scan"]


# the command's words for a link below PATH (read_common.c
# kvg_scan_odd_entry), so both sides say the same
_LINK = ("%s: is a symbolic link; kvgold does not follow links inside a "
         "dump (scan its target, or copy it in)")


def _cli(cli: Optional[str]) -> str:
    """cli=, else KVGOLD_CLI, else the command `pip install .` put beside
    the package, else `kvgold` on PATH."""
    from .__main__ import command
    path = cli or command() or shutil.which("kvgold")
    if not path:
        raise Error(_IO, "kvgold.scan needs the kvgold command: put it on "
                    "PATH, set KVGOLD_CLI or pass cli=")
    return path


def _torch_load(src: str) -> Any:
    """torch.load of a dump's .pt, or kvgold.Error naming the file and
    what it is instead: torch's own errors name no file, and advise
    weights_only=False, which would run code from the dump. Opened
    without following a link and without waiting on a FIFO."""
    import torch
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise Error(_FORMAT, _LINK % src if os.path.islink(src) else
                    "%s: %s" % (src, e.strerror)) from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Error(_FORMAT, "%s: is not a regular file" % src)
        head = f.read(8)
        f.seek(0)
        try:
            return torch.load(f, map_location="cpu", weights_only=True)
        except Exception as e:  # pylint: disable=broad-except
            # torch raises a dozen kinds (UnpicklingError, EOFError,
            # KeyError, RuntimeError...) for a file that is not its own
            raise Error(_FORMAT, "%s: %s" % (src, _not_pt(head, e))) \
                from None


def _not_pt(head: bytes, e: BaseException) -> str:
    """What a .pt torch.load refused is, from its first bytes."""
    why = (str(e).splitlines() or [""])[0].split(
        "WeightsUnpickler error: ")[-1]
    why = "%s: %s" % (type(e).__name__, why) if why else type(e).__name__
    if not head:
        return "an empty file (only a *_none marker is empty)"
    if head.startswith(b"\x93NUMPY"):
        return "an .npy file, not one torch.save writes"
    if head.startswith(b"PK\x03\x04"):  # torch.save's zip archive
        return "a torch.save file of something other than tensors, or " \
            "damaged (%s)" % why
    if head[:1] == b"\x80":  # a pickle: torch's legacy format or not
        return "a Python pickle, not a torch.save of tensors (%s)" % why
    return "not a file torch.save writes (it starts with %r)" % head


def _pt_to_npy(src: str, dst: str) -> None:
    import numpy as np
    import torch
    t = _torch_load(src)
    if not isinstance(t, torch.Tensor):
        raise Error(_FORMAT, "%s: holds a %s, not a tensor"
                    % (src, type(t).__name__))
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
                 "float8_e5m2": 1, "hifloat8": 1, "float8_e8m0": 1}


def _ttk_pt_case(names: Sequence[str]) -> bool:
    """1 if a case directory's inputs are .pt: ops-test-kit takes one
    whole format per case, bin before npy before pt."""
    exts = {m.group(5) for m in map(_TTK_NAME.match, names)
            if m and m.group(1) == "input"}
    return "pt" in exts and not exts & {"bin", "npy"}


def _ttk_pt_to_npy(src: str, dst: str, dtype: str) -> None:
    import numpy as np
    import torch
    t = _torch_load(src)
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


def _link(src: str, dst: str, notes: Dict[str, str]) -> None:
    """dst holds src's bytes: a hard link (no copy), or on another file
    system a copy. Never a symbolic link: `kvgold scan` follows no link
    inside a dump (docs/scan.md), this converted copy included."""
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        if stat.S_ISREG(os.lstat(src).st_mode):
            shutil.copyfile(src, dst)
        else:  # a FIFO or a device on another file system
            _stand_in(dst, notes, "%s: is not a regular file" % src)


def _mirror_link(src: str, dst: str, notes: Dict[str, str]) -> None:
    """The link src again at dst, leading where src leads: the command
    refuses it as it would the dump's, and notes[dst] says so in the
    dump's words. Its target is not looked at."""
    target = os.readlink(src)
    os.symlink(os.path.join(os.path.dirname(os.path.abspath(src)), target),
               dst)
    notes[dst] = _LINK % src


def _stand_in(dst: str, notes: Dict[str, str], why: str) -> None:
    """At dst a file the command cannot read as a tensor (it is no .npy
    and has no tensor's size), for an entry that could not be converted;
    notes[dst] says why."""
    with open(dst, "wb") as f:
        f.write(b"kvgold: not converted: " +
                why.encode("utf-8", "surrogateescape") + b"\n")
    notes[dst] = why


def _place(src: str, dst: str, notes: Dict[str, str],
           convert: Optional[Callable[[str, str], None]] = None) -> None:
    """Put at dst what stands for the dump's entry src: what
    convert(src, dst) writes (a .pt), else its bytes. What kvgold does not
    read - a symbolic link, a .pt that is not a tensor - gets a stand-in
    the command cannot read either, so the calls that need it end NOT
    JUDGED and are never judged on something else."""
    mode = os.lstat(src).st_mode
    if stat.S_ISLNK(mode):
        _mirror_link(src, dst, notes)
    elif stat.S_ISDIR(mode) and convert is None:
        os.mkdir(dst)  # never read as a tensor, whatever it holds
    elif convert is None:
        _link(src, dst, notes)
    elif not stat.S_ISREG(mode):
        _stand_in(dst, notes, "%s: is not a regular file" % src)
    else:
        try:
            convert(src, dst)
        except Error as e:
            _stand_in(dst, notes, e.message)


def _none_marker(src: str, dst: str) -> None:
    open(dst, "wb").close()  # a None marker's content says nothing


def _mirror_dir_links(path: str, out: str, dirpath: str,
                      entries: Sequence[str], notes: Dict[str, str]) -> None:
    """The links among `entries` of dirpath that lead to a directory or
    nowhere (each might be a call, which the command then lists NOT
    JUDGED), mirrored at their place in the copy."""
    for n in entries:
        s = os.path.join(dirpath, n)
        if os.path.islink(s) and (os.path.isdir(s) or
                                  not os.path.exists(s)):
            dst = os.path.join(out, os.path.relpath(dirpath, path))
            os.makedirs(dst, exist_ok=True)
            _mirror_link(s, os.path.join(dst, n), notes)


def _ttk_has_pt(path: str) -> bool:
    return any(_ttk_pt_case(names + dirs) for _, dirs, names in os.walk(path))


def _ttk_is_case(names: Sequence[str]) -> bool:
    """A directory the command takes as a case: it has an input_ entry."""
    return any(m and m.group(1) == "input" for m in map(_TTK_NAME.match,
                                                          names))


def _convert_ttk(path: str, out: str, notes: Dict[str, str]) -> None:
    """A copy of the ops-test-kit case directories under `path` at `out`,
    each .pt case's files converted to .npy, the other cases' files kept
    (linked). A case's entries are all it holds, as the command lists
    them: a directory or a link to one named as a tensor file is one."""
    for dirpath, dirnames, names in os.walk(path):
        entries = names + dirnames
        if not _ttk_is_case(entries):
            _mirror_dir_links(path, out, dirpath, entries, notes)
            continue
        dirnames[:] = []  # the command does not look inside a case
        dst = os.path.normpath(os.path.join(out, os.path.relpath(dirpath,
                                                                 path)))
        os.makedirs(dst, exist_ok=True)
        convert = _ttk_pt_case(entries)
        for n in sorted(entries):
            s = os.path.join(dirpath, n)
            m = _TTK_NAME.match(n)
            if convert and m and m.group(5) == "pt":
                _place(s, os.path.join(dst, n[:-3] + ".npy"), notes,
                       _none_marker if m.group(3) == "none" else
                       functools.partial(_ttk_pt_to_npy, dtype=m.group(3)))
            elif not (convert and m and m.group(5) == "npy"):
                _place(s, os.path.join(dst, n), notes)


def _has_pt(path: str) -> bool:
    for dirpath, _, names in os.walk(path):
        if "dump.json" in names:
            data = os.path.join(dirpath, "dump_tensor_data")
            # a linked data directory is not listed: the copy names it
            if os.path.islink(data) or os.path.isdir(data) and any(
                    n.endswith(".pt") for n in os.listdir(data)):
                return True
    return False


def _dump_json(src: str, dst: str, notes: Dict[str, str]) -> Optional[str]:
    """dump.json's text, or None (then dst stands for it) when it is a
    link or not a regular file: it is not read."""
    if not stat.S_ISREG(os.lstat(src).st_mode):
        _place(src, dst, notes)
        return None
    with open(src, encoding="utf-8") as f:
        return f.read()


def _convert(path: str, tmp: str, notes: Dict[str, str]) -> None:
    """A copy of the msprobe dump at `path` under `tmp` with .npy tensors:
    dump.json rewritten to name them, .npy files kept (linked), .pt
    converted."""
    for dirpath, dirnames, names in os.walk(path):
        if not os.path.lexists(os.path.join(dirpath, "dump.json")):
            _mirror_dir_links(path, tmp, dirpath, dirnames + names, notes)
            continue
        dirnames[:] = []  # a rank: the command does not look further down
        out = os.path.normpath(os.path.join(tmp, os.path.relpath(dirpath,
                                                                 path)))
        os.makedirs(out, exist_ok=True)
        text = _dump_json(os.path.join(dirpath, "dump.json"),
                          os.path.join(out, "dump.json"), notes)
        if text is None:
            continue
        src_data = os.path.join(dirpath, "dump_tensor_data")
        dst_data = os.path.join(out, "dump_tensor_data")
        if os.path.islink(src_data):
            _mirror_link(src_data, dst_data, notes)
        elif os.path.isdir(src_data):
            os.makedirs(dst_data)
            for n in sorted(os.listdir(src_data)):
                s = os.path.join(src_data, n)
                if n.endswith(".pt"):
                    _place(s, os.path.join(dst_data, n[:-3] + ".npy"),
                           notes, _pt_to_npy)
                    text = text.replace('"%s"' % n, '"%s.npy"' % n[:-3])
                else:
                    _place(s, os.path.join(dst_data, n), notes)
        elif os.path.lexists(src_data):  # a file: the command says so
            _place(src_data, dst_data, notes)
        with open(os.path.join(out, "dump.json"), "w",
                  encoding="utf-8") as f:
            f.write(text)


def _names(text: str, path: str) -> bool:
    """1 if `text` names `path` itself or something below it (not a
    longer name that starts the same)."""
    i = text.find(path)
    while i >= 0:
        end = i + len(path)
        if end == len(text) or text[end] in "/: ,;)'\"":
            return True
        i = text.find(path, end)
    return False


def _explain(doc: Dict[str, Any], notes: Dict[str, str]) -> None:
    """Each call the command could not read because of a stand-in: its
    reason is the entry's, in the dump's words. Few calls have one, so
    each call is checked against each note."""
    for c in doc.get("calls", []):
        reason = c.get("reason")
        if c.get("verdict") != "NOT_JUDGED" or not isinstance(reason, str):
            continue
        for dst, why in notes.items():
            if _names(reason, dst):
                c["reason"] = "unreadable: " + why
                break


def scan(path: Union[str, "os.PathLike[str]"], *args: str,
         cli: Optional[str] = None) -> Dict[str, Any]:
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
    notes: Dict[str, str] = {}  # a stand-in in the copy -> why its entry was not read
    try:
        if os.path.isdir(path) and _has_pt(path):
            tmp = tempfile.mkdtemp(prefix="kvgold-scan-")
            _convert(path, tmp, notes)
            where = tmp
        elif os.path.isdir(path) and _ttk_has_pt(path):
            tmp = tempfile.mkdtemp(prefix="kvgold-scan-")
            # the copy keeps PATH's own name: a case directory's name is
            # its testcase (and operator) when PATH is one case
            where = os.path.join(tmp, os.path.basename(
                os.path.normpath(os.path.abspath(path))))
            _convert_ttk(path, where, notes)
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
        _explain(doc, notes)
        # name the caller's dump, not the temporary copy
        doc["path"] = path
        for c in doc.get("calls", []):
            if c.get("where", "").startswith(where):
                c["where"] = path + c["where"][len(where):]
            if isinstance(c.get("reason"), str):
                c["reason"] = c["reason"].replace(where, path)
    return doc
