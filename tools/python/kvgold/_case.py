"""Case directories (spec section 5) in Python: load_case / save_case.

A failing pytest can save its case for `kvgold check` / `kvgold compare`,
and every case of the CLI loads here. Tensors load as kvgold.Tensor:
numpy.asarray() of one is the case format's storage, .dtype its tag.
"""
import ctypes
import json
import os

from . import _dtypes
from . import _npy
from . import _tensor
from ._errors import Error, FILE_FORMAT, IO, PARAM_INVALID

_TOP_KEYS = ("op", "attrs", "options", "inputs", "expected", "comment",
             "flags", "expect_error")


class Case:
    """A loaded case: .op, .attrs, .options, .inputs, .expected (dicts by
    tensor name), .dtypes (name -> tag, inputs and expected), .comment,
    .expect_error ({"status": ..., "tensor": ...} or None), .dir.

    kvgold.run(c.op, c.inputs, c.attrs, c.options) reproduces it."""

    def __init__(self, path, doc, inputs, expected):
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

    def __repr__(self):
        return "kvgold.Case(%r, op=%r)" % (self.dir, self.op)


def _bad(path, field, what):
    return Error(FILE_FORMAT, "%s: %s" % (path, what), field)


def _io_error(path, e):
    return Error(IO, "%s: %s" % (path, os.strerror(e.errno) if e.errno
                                 else str(e)), os.path.basename(path))


def _load_tensors(directory, doc, key, cj):
    entries = doc.get(key) or {}
    if not isinstance(entries, dict):
        raise _bad(cj, key, "\"%s\" must be an object" % key)
    out = {}
    for name, entry in entries.items():
        where = "%s.%s" % (key, name)
        if (not isinstance(entry, dict) or set(entry) != {"file", "dtype"} or
                not isinstance(entry["file"], str)):
            raise _bad(cj, name, "%s must be {\"file\": ..., \"dtype\": ...} "
                       "and nothing else" % where)
        tag = entry["dtype"]
        if tag not in _dtypes.TAGS:
            raise _bad(cj, name, "%s.dtype %r is not one of %s"
                       % (where, tag, ", ".join(_dtypes.TAGS)))
        path = os.path.join(directory, entry["file"])
        try:
            descr, shape, data = _npy.read(path)
        except OSError as e:
            raise _io_error(path, e) from None
        except ValueError as e:
            raise _bad(path, name, str(e).split(": ", 1)[-1]) from None
        storage = _dtypes.TAGS[tag][2]
        if descr.replace("=", "<") != storage and descr != storage:
            raise _bad(path, name, "%s is %s, stored as %s, but the file "
                       "holds %s" % (name, tag, storage, descr))
        try:
            out[name] = _tensor.Tensor(bytearray(data), tag, shape)
        except Error as e:
            raise _bad(path, name, e.message) from None
    return out


def load_case(directory):
    """Load directory/case.json and every tensor it names."""
    cj = os.path.join(directory, "case.json")
    try:
        with open(cj, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except OSError as e:
        raise _io_error(cj, e) from None
    except ValueError as e:
        raise _bad(cj, "case.json", "not JSON (%s)" % e) from None
    if not isinstance(doc, dict):
        raise _bad(cj, "case.json", "the document must be an object")
    for k in doc:
        if k not in _TOP_KEYS:
            raise _bad(cj, k, "unknown key \"%s\" (allowed: %s)"
                       % (k, ", ".join(_TOP_KEYS)))
    if not isinstance(doc.get("op"), str):
        raise _bad(cj, "op", "\"op\" (a string) is required")
    if "inputs" not in doc:
        raise _bad(cj, "inputs", "\"inputs\" is required")
    for k in ("attrs", "options"):
        if not isinstance(doc.get(k) or {}, dict):
            raise _bad(cj, k, "\"%s\" must be an object" % k)
    return Case(directory, doc, _load_tensors(directory, doc, "inputs", cj),
                _load_tensors(directory, doc, "expected", cj))


def _tags_of(expected, dtypes, input_views):
    tags = dict(getattr(expected, "dtypes", None) or {})
    for n, v in input_views.items():
        tags.setdefault(n, v.tag)
    tags.update(dtypes)
    return tags


def save_case(directory, op, inputs, attrs=None, options=None,
              expected=None, *, dtypes=None, comment=None):
    """Write a case directory the CLI reads: case.json, <name>.npy per
    input, expected_<name>.npy per expected output (e.g. kvgold.run's
    result, or the NPU's outputs for `kvgold compare`). Every tensor and
    value is checked before the first byte is written. Returns the path of
    case.json."""
    dtypes = dict(dtypes or {})
    views = {n: _tensor.view(n, t, dtypes.get(n))
             for n, t in inputs.items() if t is not None}
    tags = _tags_of(expected, dtypes, views)
    exp_views = {n: _tensor.view(n, t, tags.get(n))
                 for n, t in (expected or {}).items() if t is not None}
    doc = {"op": op}
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
    try:
        os.makedirs(directory, exist_ok=True)
        for prefix, vs in (("", views), ("expected_", exp_views)):
            for n, v in vs.items():
                _npy.write(os.path.join(directory, prefix + n + ".npy"),
                           _dtypes.TAGS[v.tag][2], v.shape,
                           ctypes.string_at(v.c.data, v.c.nbytes)
                           if v.c.nbytes else b"")
        path = os.path.join(directory, "case.json")
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise _io_error(e.filename or directory, e) from None
    return path
