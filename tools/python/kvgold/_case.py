"""Case directories (spec section 5) in Python: load_case / save_case.

A failing pytest can save its case for `kvgold check` / `kvgold compare`,
and every case of the CLI loads here. Both go through the command's own
code in the C library (tools/python/case_api.h): the strict JSON reader,
header-first reading of regular files only, and the all-or-nothing writer
of `kvgold run --out`, so that Python and the CLI cannot disagree on a
case file. Tensors load as kvgold.Tensor: numpy.asarray() of one is the
case format's storage, .dtype its tag.
"""
import ctypes
import json
import os
from typing import Any, Dict, Mapping, Optional, Union

from . import _dtypes
from . import _lib
from . import _tensor
from ._errors import Error, PARAM_INVALID
from ._types import DTypes, TensorLike, Values

PathLike = Union[str, "os.PathLike[str]"]
"""A directory path (bytes paths work too, unannotated)."""

_L = _lib.lib


class Case:
    """A loaded case: .op, .attrs, .options, .inputs, .expected (dicts by
    tensor name), .dtypes (name -> tag, inputs and expected), .comment,
    .expect_error ({"status": ..., "tensor": ...} or None), .dir.

    kvgold.run(c.op, c.inputs, c.attrs, c.options) reproduces it."""

    dir: str
    op: str
    attrs: Dict[str, Any]
    options: Dict[str, Any]
    comment: str
    flags: Any
    expect_error: Optional[Dict[str, Any]]
    inputs: Dict[str, _tensor.Tensor]
    expected: Dict[str, _tensor.Tensor]
    dtypes: Dict[str, str]

    def __init__(self, path: str, doc: Mapping[str, Any],
                 inputs: Dict[str, _tensor.Tensor],
                 expected: Dict[str, _tensor.Tensor]) -> None:
        self.dir = path
        self.op = doc["op"]
        self.attrs = dict(doc.get("attrs") or {})
        self.options = dict(doc.get("options") or {})
        self.comment = doc.get("comment", "")
        self.flags = doc.get("flags")
        self.expect_error = doc.get("expect_error")
        self.inputs = inputs
        self.expected = expected
        self.dtypes = {n: t.dtype for n, t in inputs.items()}
        self.dtypes.update({n: t.dtype for n, t in expected.items()})

    def __repr__(self) -> str:
        return "kvgold.Case(%r, op=%r)" % (self.dir, self.op)


def _c_path(directory: PathLike) -> bytes:
    """A directory path as the C library takes it: bytes, NUL-free (C would
    see only what is before a NUL, which is another directory)."""
    raw = os.fsencode(os.fspath(directory))
    if b"\0" in raw:
        raise Error(PARAM_INVALID, "%r: a path with a NUL character"
                    % (directory,), "case")
    return raw


def _tensors(handle: ctypes.c_void_p, expected: int
             ) -> Dict[str, _tensor.Tensor]:
    """The loaded tensors of "inputs" (expected 0) or "expected" (1), each
    copied once out of the C buffers into a kvgold.Tensor."""
    out = {}
    for i in range(_L.kvg_py_case_count(handle, expected)):
        name = _L.kvg_py_case_name(handle, expected, i).decode()
        t = _L.kvg_py_case_tensor(handle, expected, i).contents
        data = bytearray(t.nbytes)
        if t.nbytes:
            ctypes.memmove((ctypes.c_char * t.nbytes).from_buffer(data),
                           t.data, t.nbytes)
        out[name] = _tensor.Tensor(data, _dtypes.BY_CODE[t.dtype],
                                   tuple(t.shape[:t.rank]))
    return out


def load_case(directory: PathLike) -> Case:
    """Load directory/case.json and every tensor it names, exactly as
    `kvgold check` reads them (the same C code): what the command refuses
    as an invalid case raises kvgold.Error here, with its message."""
    path = os.fspath(directory)
    handle, diag = ctypes.c_void_p(), _lib.Diag()
    st = _L.kvg_py_case_load(_c_path(path), ctypes.byref(handle),
                             ctypes.byref(diag))
    if st != _lib.OK:
        raise Error.from_diag(st, diag)
    try:
        doc = json.loads(_L.kvg_py_case_doc(handle).decode("utf-8"))
        return Case(path, doc, _tensors(handle, 0), _tensors(handle, 1))
    finally:
        _L.kvg_py_case_free(handle)


def write_files(directory: PathLike, views: Mapping[str, _tensor.View],
                text: Optional[str] = None) -> None:
    """Write views (file name -> View) and, unless text is None, case.json
    holding `text`, all or nothing through the command's writer: every
    target checked first, temporary files synced and renamed into place,
    never through a symlink or into a hard-linked file, nothing changed
    on an error (whose message names the file)."""
    names = list(views)
    for n in names:
        if "\0" in n:
            raise Error(PARAM_INVALID, "%r: a file name with a NUL "
                        "character" % n, n)
    c_names = (ctypes.c_char_p * max(len(names), 1))(
        *[n.encode("utf-8", "surrogateescape") for n in names])
    c_tensors = (_lib.Tensor * max(len(names), 1))(
        *[views[n].c for n in names])
    raw = None if text is None else text.encode("utf-8", "surrogatepass")
    diag = _lib.Diag()
    st = _L.kvg_py_case_save(_c_path(directory), raw,
                             len(raw or b""), c_names, c_tensors, len(names),
                             ctypes.byref(diag))
    if st != _lib.OK:
        raise Error.from_diag(st, diag)


def _tags_of(expected: Any, dtypes: Mapping[str, str],
             input_views: Mapping[str, _tensor.View]) -> Dict[str, str]:
    tags = dict(getattr(expected, "dtypes", None) or {})
    for n, v in input_views.items():
        tags.setdefault(n, v.tag)
    tags.update(dtypes)
    return tags


def save_case(directory: PathLike, op: str,
              inputs: Mapping[str, Optional[TensorLike]],
              attrs: Values = None, options: Values = None,
              expected: Optional[Mapping[str, Optional[TensorLike]]] = None,
              *, dtypes: DTypes = None, comment: Optional[str] = None) -> str:
    """Write a case directory the CLI reads: case.json, <name>.npy per
    input, expected_<name>.npy per expected output (e.g. kvgold.run's
    result, or the NPU's outputs for `kvgold compare`). Every tensor and
    value is checked before the first byte is written, and the files are
    written as `kvgold run --out` writes: all or nothing, never through a
    symlink or into a hard-linked file; on an error the directory's files
    are as they were. Returns the path of case.json."""
    dtypes = dict(dtypes or {})
    views = {n: _tensor.view(n, t, dtypes.get(n))
             for n, t in inputs.items() if t is not None}
    tags = _tags_of(expected, dtypes, views)
    exp_views = {n: _tensor.view(n, t, tags.get(n))
                 for n, t in (expected or {}).items() if t is not None}
    doc: Dict[str, Any] = {"op": op}
    if comment:
        doc["comment"] = comment
    for key, d in (("attrs", attrs), ("options", options)):
        d = {k: v for k, v in (d or {}).items() if v is not None}
        if d:
            doc[key] = d
    doc["inputs"] = {n: {"file": n + ".npy", "dtype": v.tag}
                     for n, v in views.items()}
    if exp_views:
        doc["expected"] = {n: {"file": "expected_%s.npy" % n,
                               "dtype": v.tag} for n, v in exp_views.items()}
    try:
        text = json.dumps(doc, indent=2, allow_nan=False) + "\n"
    except (TypeError, ValueError) as e:
        raise Error(PARAM_INVALID, "attrs / options must be JSON values: %s"
                    % e, "attrs") from None
    files = {n + ".npy": v for n, v in views.items()}
    for n, v in exp_views.items():
        if "expected_%s.npy" % n in files:   # an input named expected_<n>
            raise Error(PARAM_INVALID, "input %s and expected %s would both "
                        "be saved as expected_%s.npy" % ("expected_" + n, n,
                                                         n), n)
        files["expected_%s.npy" % n] = v
    write_files(directory, files, text)
    path = os.path.join(os.fspath(directory), "case.json")
    return path
