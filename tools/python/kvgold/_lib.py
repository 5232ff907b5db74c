"""Loading libkvgold.so and declaring its C API for ctypes.

The library is found, in order: the file named by the environment variable
KVGOLD_LIBRARY; libkvgold.so next to this file (where `cmake --install`
puts it). libkvgold_case.so (the case files' loader, shared with the kvgold
command) is KVGOLD_CASE_LIBRARY or the file beside libkvgold.so.

Nothing of the C headers is copied here (docs/python.md, "How the package
reads the library"): the structs' layouts (member order, types, array
lengths) and the constants come from the library itself (kvgold/abi.h),
the status codes from kvg_status_count / kvg_status_at (kvgold/status.h).
Each ctypes class below only names, as annotations, the members Python
uses and how it types them; a library that lacks one, or whose layout
ctypes cannot reproduce, is an ImportError naming the struct and member.
kvg_compare_result is an opaque buffer of kvg_compare_result_size() bytes,
read back through the JSON report.
"""
import ctypes
import os
import struct
from typing import Any, Dict, List, Optional, Tuple, Type

_P = ctypes.POINTER


def library_path() -> str:
    """The libkvgold.so this package loads (KVGOLD_LIBRARY overrides)."""
    env = os.environ.get("KVGOLD_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "libkvgold.so")


def case_library_path() -> str:
    """libkvgold_case.so, the case files' loader and writer the package
    shares with the kvgold command (KVGOLD_CASE_LIBRARY overrides; else
    beside libkvgold.so). It links libkvgold.so, which is loaded first."""
    env = os.environ.get("KVGOLD_CASE_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(library_path())),
                        "libkvgold_case.so")


PATH = library_path()
CASE_PATH = case_library_path()


def _open(path: str, what: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            "kvgold: cannot load %s %s (%s); build and install kvgold "
            "(cmake --install BUILD --prefix P, or pip install .) or set "
            "KVGOLD_LIBRARY to a libkvgold.so with libkvgold_case.so beside "
            "it" % (what, path, e)) from None


_open(PATH, "the C library")  # first: the case library links it
# the case library's symbols and, through its dependency on the core
# already loaded, every C API function
lib = _open(CASE_PATH, "the case library")


def _declare(name: str, restype: Any, argtypes: List[Any]) -> None:
    try:
        fn = getattr(lib, name)
    except AttributeError:
        raise ImportError("kvgold: %s (with %s) lacks %s (an older or "
                          "partial build?)" % (PATH, CASE_PATH, name)
                          ) from None
    fn.restype = restype
    fn.argtypes = argtypes


# ---- the three structs that describe the others (kvgold/abi.h) ------------
# Declared by hand, as they must be to read anything; checked below against
# the library's descriptions of themselves.

class _AbiField(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_size_t),
                ("size", ctypes.c_size_t), ("type", ctypes.c_char),
                ("count", ctypes.c_size_t)]


class _AbiStruct(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("size", ctypes.c_size_t),
                ("field_count", ctypes.c_size_t),
                ("fields", _P(_AbiField))]


class _AbiConstant(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


_declare("kvg_abi_struct_find", _P(_AbiStruct), [ctypes.c_char_p])
_declare("kvg_abi_constant_count", ctypes.c_size_t, [])
_declare("kvg_abi_constant_at", _P(_AbiConstant), [ctypes.c_size_t])
_declare("kvg_status_count", ctypes.c_size_t, [])
_declare("kvg_status_at", ctypes.c_int, [ctypes.c_size_t])
_declare("kvg_status_name", ctypes.c_char_p, [ctypes.c_int])

# abi.h's type letters as ctypes types
_CTYPES: Dict[bytes, Any] = {
    b"P": ctypes.c_void_p, b"z": ctypes.c_char_p, b"i": ctypes.c_int,
    b"q": ctypes.c_int64, b"Q": ctypes.c_uint64, b"d": ctypes.c_double,
    b"N": ctypes.c_size_t, b"c": ctypes.c_char}


def _described(c_name: str) -> List[Tuple[str, bytes, int, int, int]]:
    """(name, type letter, count, offset, size) of each member of the C
    struct `c_name`, as the library describes it."""
    found = lib.kvg_abi_struct_find(c_name.encode())
    if not found:
        raise ImportError("kvgold: %s does not describe struct %s (an older "
                          "libkvgold?)" % (PATH, c_name))
    d = found.contents
    return [(f.name.decode(), f.type, f.count, f.offset, f.size)
            for f in d.fields[:d.field_count]]


def _struct_size(c_name: str) -> int:
    return int(lib.kvg_abi_struct_find(c_name.encode()).contents.size)


def _mismatch(c_name: str, member: str, why: str) -> ImportError:
    return ImportError("kvgold: struct %s, member %s: %s (the Python package "
                       "and %s do not match)" % (c_name, member, why, PATH))


def _check(cls: Type[ctypes.Structure], c_name: str) -> None:
    """cls's layout is the library's: every member at the library's offset
    with its size, and the same total size."""
    for name, _, _, offset, size in _described(c_name):
        got = getattr(cls, name)
        if (got.offset, got.size) != (offset, size):
            raise _mismatch(c_name, name, "the library has it at offset %d "
                            "with %d bytes, ctypes at %d with %d" % (
                                offset, size, got.offset, got.size))
    if ctypes.sizeof(cls) != _struct_size(c_name):
        raise _mismatch(c_name, "(whole struct)", "the library's is %d "
                        "bytes, ctypes' %d" % (_struct_size(c_name),
                                               ctypes.sizeof(cls)))


def _layout(cls: Type[ctypes.Structure], c_name: str,
            pointers: Optional[Dict[str, Any]] = None) -> None:
    """Give cls the members of C struct `c_name` as the library lays them
    out. `pointers`: a typed ctypes view of some pointer members (they are
    plain c_void_p otherwise). Every member cls annotates must exist."""
    pointers = pointers or {}
    fields = []
    for name, letter, count, _, _ in _described(c_name):
        if letter not in _CTYPES:
            raise _mismatch(c_name, name, "type letter %r is not one "
                            "kvgold knows" % letter)
        ctype = _CTYPES[letter]
        if name in pointers:
            if letter not in (b"P", b"z"):
                raise _mismatch(c_name, name, "not a pointer")
            ctype = pointers[name]
        fields.append((name, ctype * count if count != 1 else ctype))
    names = {f[0] for f in fields}
    for name in list(getattr(cls, "__annotations__", {})) + list(pointers):
        if name not in names:
            raise _mismatch(c_name, name, "the library has no such member")
    cls._fields_ = fields
    _check(cls, c_name)


_check(_AbiField, "kvg_abi_field")
_check(_AbiStruct, "kvg_abi_struct")
_check(_AbiConstant, "kvg_abi_constant")


def _constants() -> Dict[str, int]:
    out = {}
    for i in range(lib.kvg_abi_constant_count()):
        c = lib.kvg_abi_constant_at(i).contents
        out[c.name.decode()] = int(c.value)
    return out


CONSTANTS = _constants()
"""{C name: value} of the public headers' constants (kvgold/abi.h)."""


def constant(name: str) -> int:
    """A constant of the public headers by its C name (KVG_MAX_RANK...)."""
    try:
        return CONSTANTS[name]
    except KeyError:
        raise ImportError("kvgold: %s does not export the constant %s (an "
                          "older libkvgold?)" % (PATH, name)) from None


STATUS_NAMES: Dict[int, str] = {
    int(code): lib.kvg_status_name(code).decode()
    for code in (lib.kvg_status_at(i) for i in range(lib.kvg_status_count()))}
"""{kvg_status code: its enum name}, as the library enumerates them."""

_STATUS_CODES = {name: code for code, name in STATUS_NAMES.items()}


def status(name: str) -> int:
    """The code of a kvg_status by its enum name ("KVG_ERR_MISMATCH")."""
    try:
        return _STATUS_CODES[name]
    except KeyError:
        raise ImportError("kvgold: %s has no status %s" % (PATH, name)) \
            from None


OK = status("KVG_OK")
ERR_MISMATCH = status("KVG_ERR_MISMATCH")

MAX_RANK = constant("KVG_MAX_RANK")

# kvg_op_tensor_kind, kvg_op_presence, kvg_value_type
INPUT, CACHE, OUTPUT = (constant("KVG_OP_" + n)
                        for n in ("INPUT", "CACHE", "OUTPUT"))
REQUIRED, OPTIONAL, PRODUCED = (constant("KVG_OP_" + n)
                                for n in ("REQUIRED", "OPTIONAL", "PRODUCED"))
V_INT, V_FLOAT, V_BOOL, V_STRING, V_INTS = (
    constant("KVG_VALUE_" + n)
    for n in ("INT", "FLOAT", "BOOL", "STRING", "INTS"))


# ---- the public structs, laid out by the library --------------------------
# The annotations say how Python uses each member (what mypy checks).

class Tensor(ctypes.Structure):
    """kvg_tensor (kvgold/tensor.h)."""
    data: Optional[int]
    nbytes: int
    dtype: int
    rank: int
    shape: Any  # c_int64 * KVG_MAX_RANK


class Diag(ctypes.Structure):
    """kvg_diag (kvgold/status.h)."""
    status: int
    tensor: bytes
    dim: int
    position: int
    message: bytes


class Value(ctypes.Structure):
    """kvg_value (kvgold/op.h)."""
    name: Optional[bytes]
    type: int
    i: int
    f: float
    s: Optional[bytes]
    ints: Any  # POINTER(c_int64)
    count: int


class NamedTensor(ctypes.Structure):
    """kvg_named_tensor; tensor is an address (set from ctypes.addressof,
    faster than building a ctypes.pointer per tensor)."""
    name: Optional[bytes]
    tensor: Optional[int]


class OpCall(ctypes.Structure):
    """kvg_op_call; tensors is the address of a kvg_named_tensor table."""
    op: Optional[int]
    tensors: Optional[int]
    tensor_count: int
    attrs: Any  # POINTER(Value)
    attr_count: int
    workspace: Optional[int]
    workspace_size: int


class TensorInfo(ctypes.Structure):
    """kvg_op_tensor_info."""
    name: bytes
    kind: int
    presence: int


class AttrInfo(ctypes.Structure):
    """kvg_op_attr_info."""
    name: bytes
    type: int
    is_option: int
    required: int
    dflt: Optional[bytes]


class CacheLayout(ctypes.Structure):
    """kvg_cache_layout (kvgold/layout.h)."""
    kind: int


class CompareArgs(ctypes.Structure):
    """kvg_compare_args (kvgold/compare.h); `written` is an address."""
    name: Optional[bytes]
    golden: Any  # POINTER(Tensor), like actual, initial, third_party
    actual: Any
    initial: Any
    written: Any  # an address, or a c_void_p
    written_count: int
    layout: Any  # POINTER(CacheLayout)
    criterion: int
    role: int
    threshold: float
    standard: int
    level: int
    third_party: Any
    row_layout: Any  # an address: kvg_op_row_layout's buffer
    row_tensor: int  # which of row_layout's tensors this is


_layout(Tensor, "kvg_tensor")
_layout(Diag, "kvg_diag")
_layout(Value, "kvg_value", {"ints": _P(ctypes.c_int64)})
_layout(NamedTensor, "kvg_named_tensor")
_layout(OpCall, "kvg_op_call", {"attrs": _P(Value)})
_layout(TensorInfo, "kvg_op_tensor_info")
_layout(AttrInfo, "kvg_op_attr_info")
_layout(CacheLayout, "kvg_cache_layout")
_layout(CompareArgs, "kvg_compare_args", {
    "golden": _P(Tensor), "actual": _P(Tensor), "initial": _P(Tensor),
    "layout": _P(CacheLayout), "third_party": _P(Tensor)})


def _struct_format(c_name: str) -> str:
    """The struct module's native format of a C struct: a call's whole
    tensor table is packed with one struct.pack_into (ctypes structures
    cost about a microsecond each to build)."""
    parts = []
    for _, letter, count, _, _ in _described(c_name):
        code = "P" if letter == b"z" else letter.decode()
        parts.append(("%d" % count if count != 1 else "") +
                     ("s" if code == "c" and count != 1 else code))
    fmt = "".join(parts)
    if struct.calcsize(fmt) != _struct_size(c_name):
        raise _mismatch(c_name, "(whole struct)", "format %r is %d bytes, "
                        "the struct %d" % (fmt, struct.calcsize(fmt),
                                           _struct_size(c_name)))
    return fmt


# kvg_tensor and kvg_named_tensor as struct formats ("PNii8q", "PP")
TENSOR_FORMAT = _struct_format("kvg_tensor")
NAMED_FORMAT = _struct_format("kvg_named_tensor")

_SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "kvg_version_string": (ctypes.c_char_p, []),
    "kvg_dtype_from_name": (ctypes.c_int, [ctypes.c_char_p]),
    "kvg_dtype_size": (ctypes.c_size_t, [ctypes.c_int]),
    "kvg_op_find": (ctypes.c_void_p, [ctypes.c_char_p]),
    "kvg_op_count": (ctypes.c_size_t, []),
    "kvg_op_at": (ctypes.c_void_p, [ctypes.c_size_t]),
    "kvg_op_name": (ctypes.c_char_p, [ctypes.c_void_p]),
    "kvg_op_tensor_count": (ctypes.c_size_t, [ctypes.c_void_p]),
    "kvg_op_tensor_at": (_P(TensorInfo), [ctypes.c_void_p, ctypes.c_size_t]),
    "kvg_op_attr_count": (ctypes.c_size_t, [ctypes.c_void_p]),
    "kvg_op_attr_at": (_P(AttrInfo), [ctypes.c_void_p, ctypes.c_size_t]),
    "kvg_op_output_shape": (ctypes.c_int, [
        _P(OpCall), ctypes.c_char_p, _P(ctypes.c_int), _P(ctypes.c_int),
        _P(ctypes.c_int), ctypes.c_int64 * MAX_RANK, _P(Diag)]),
    "kvg_op_workspace_size": (ctypes.c_int, [
        _P(OpCall), _P(ctypes.c_size_t), _P(Diag)]),
    "kvg_op_run": (ctypes.c_int, [_P(OpCall), _P(Diag)]),
    "kvg_op_describe_output": (ctypes.c_int, [
        _P(OpCall), ctypes.c_char_p, _P(Tensor), _P(ctypes.c_int),
        _P(ctypes.c_int), _P(CacheLayout), _P(Diag)]),
    "kvg_op_row_layout": (ctypes.c_int, [
        _P(OpCall), ctypes.c_char_p, ctypes.c_void_p, _P(Diag)]),
    "kvg_op_row_layout_size": (ctypes.c_size_t, []),
    "kvg_row_layout_check": (ctypes.c_int, [
        ctypes.c_void_p, _P(ctypes.c_size_t), _P(Diag)]),
    "kvg_row_tensor_of": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
    "kvg_compare_result_size": (ctypes.c_size_t, []),
    "kvg_compare_standard_from_name": (ctypes.c_int, [ctypes.c_char_p,
                                                      _P(ctypes.c_int)]),
    "kvg_compare_level_from_name": (ctypes.c_int, [ctypes.c_char_p,
                                                   _P(ctypes.c_int)]),
    "kvg_compare_args_init": (None, [_P(CompareArgs)]),
    "kvg_compare_auto_criterion_for": (ctypes.c_int, [
        ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    "kvg_compare_criterion_name": (ctypes.c_char_p, [ctypes.c_int]),
    "kvg_compare_tensor": (ctypes.c_int, [
        _P(CompareArgs), ctypes.c_void_p, _P(Diag)]),
    "kvg_compare_written_mask": (ctypes.c_int, [
        _P(Tensor), _P(Tensor), _P(Tensor), _P(Tensor), ctypes.c_void_p,
        ctypes.c_size_t, _P(Diag)]),
    "kvg_compare_report_text": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
        _P(ctypes.c_size_t), _P(Diag)]),
    "kvg_compare_report_json": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
        _P(ctypes.c_size_t), _P(Diag)]),
    # case directories through the command's loader and writer
    # (tools/python/case_api.h)
    "kvg_py_case_load": (ctypes.c_int, [
        ctypes.c_char_p, _P(ctypes.c_void_p), _P(Diag)]),
    "kvg_py_case_doc": (ctypes.c_char_p, [ctypes.c_void_p]),
    "kvg_py_case_count": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
    "kvg_py_case_name": (ctypes.c_char_p, [
        ctypes.c_void_p, ctypes.c_int, ctypes.c_int]),
    "kvg_py_case_tensor": (_P(Tensor), [
        ctypes.c_void_p, ctypes.c_int, ctypes.c_int]),
    "kvg_py_case_free": (None, [ctypes.c_void_p]),
    # the operators' call forms (tools/python/binding_api.h)
    "kvg_py_framework_value": (ctypes.c_char_p, [
        ctypes.c_char_p, ctypes.c_char_p, _P(ctypes.c_char_p),
        _P(ctypes.c_int), ctypes.c_size_t]),
    "kvg_py_call_form_count": (ctypes.c_size_t, [ctypes.c_char_p]),
    "kvg_py_call_form_text": (ctypes.c_char_p, [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p]),
    "kvg_py_call_form_list": (_P(ctypes.c_char_p), [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p]),
    "kvg_py_case_save": (ctypes.c_int, [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
        _P(ctypes.c_char_p), _P(Tensor), ctypes.c_int, _P(Diag)]),
}

for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _declare(_name, _restype, _argtypes)
