"""Loading libkvgold.so and declaring the C API for ctypes.

The library is found, in order: the file named by the environment variable
KVGOLD_LIBRARY; libkvgold.so next to this file (where `cmake --install`
puts it). Only the structs whose layout is a stable contract are mirrored
(kvg_tensor, kvg_diag, kvg_value, kvg_op_call, kvg_compare_args,
kvg_cache_layout); kvg_compare_result is an opaque buffer of
kvg_compare_result_size() bytes, read back through the JSON report.
"""
import ctypes
import os

MAX_RANK = 8
DIAG_NAME_MAX = 48
DIAG_MESSAGE_MAX = 512

_c_int64_p = ctypes.POINTER(ctypes.c_int64)


Shape = ctypes.c_int64 * MAX_RANK


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("nbytes", ctypes.c_size_t),
                ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("shape", Shape)]


class Diag(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int),
                ("tensor", ctypes.c_char * DIAG_NAME_MAX),
                ("dim", ctypes.c_int), ("position", ctypes.c_int64),
                ("message", ctypes.c_char * DIAG_MESSAGE_MAX)]


class Value(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                ("i", ctypes.c_int64), ("f", ctypes.c_double),
                ("s", ctypes.c_char_p), ("ints", _c_int64_p),
                ("count", ctypes.c_size_t)]


class NamedTensor(ctypes.Structure):
    # tensor is a `const kvg_tensor *`, set from ctypes.addressof (faster
    # than building a ctypes.pointer per tensor)
    _fields_ = [("name", ctypes.c_char_p), ("tensor", ctypes.c_void_p)]


# kvg_tensor and kvg_named_tensor as struct formats, so that a call's whole
# tensor table is packed in one struct.pack_into (ctypes structures cost
# about a microsecond each to build); checked against ctypes below.
TENSOR_FORMAT = "PNii%dq" % MAX_RANK
NAMED_FORMAT = "PP"


class OpCall(ctypes.Structure):
    _fields_ = [("op", ctypes.c_void_p),
                ("tensors", ctypes.c_void_p),   # const kvg_named_tensor *
                ("tensor_count", ctypes.c_size_t),
                ("attrs", ctypes.POINTER(Value)),
                ("attr_count", ctypes.c_size_t),
                ("workspace", ctypes.c_void_p),
                ("workspace_size", ctypes.c_size_t)]


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("presence", ctypes.c_int)]


class AttrInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                ("is_option", ctypes.c_int), ("required", ctypes.c_int),
                ("dflt", ctypes.c_char_p)]


class CacheLayout(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("blocks", ctypes.c_int64),
                ("slots", ctypes.c_int64), ("heads", ctypes.c_int64),
                ("dim", ctypes.c_int64), ("c0", ctypes.c_int64)]


class CompareArgs(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("golden", ctypes.POINTER(Tensor)),
                ("actual", ctypes.POINTER(Tensor)),
                ("initial", ctypes.POINTER(Tensor)),
                ("written", ctypes.c_void_p),
                ("written_count", ctypes.c_size_t),
                ("layout", ctypes.POINTER(CacheLayout)),
                ("criterion", ctypes.c_int), ("role", ctypes.c_int),
                ("threshold", ctypes.c_double),
                ("mismatch_ratio", ctypes.c_double),
                ("standard", ctypes.c_int), ("level", ctypes.c_int),
                ("third_party", ctypes.POINTER(Tensor)),
                # the written set as runs (kvg_elem_run*)
                ("written_runs", ctypes.c_void_p),
                ("written_run_count", ctypes.c_size_t),
                ("left_behind", ctypes.c_void_p),
                ("left_behind_user", ctypes.c_void_p)]


# kvg_op_tensor_kind, kvg_op_presence, kvg_value_type
INPUT, CACHE, OUTPUT = 0, 1, 2
REQUIRED, OPTIONAL, PRODUCED = 0, 1, 2
V_INT, V_FLOAT, V_BOOL, V_STRING, V_INTS = 0, 1, 2, 3, 4

OK = 0
ERR_MISMATCH = 170005

_P = ctypes.POINTER
_SIGNATURES = {
    "kvg_version_string": (ctypes.c_char_p, []),
    "kvg_status_name": (ctypes.c_char_p, [ctypes.c_int]),
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
    "kvg_compare_result_size": (ctypes.c_size_t, []),
    "kvg_compare_standard_from_name": (ctypes.c_int, [ctypes.c_char_p,
                                                      _P(ctypes.c_int)]),
    "kvg_compare_level_from_name": (ctypes.c_int, [ctypes.c_char_p,
                                                   _P(ctypes.c_int)]),
    "kvg_compare_args_init": (None, [_P(CompareArgs)]),
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
    "kvg_py_case_save": (ctypes.c_int, [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
        _P(ctypes.c_char_p), _P(Tensor), ctypes.c_int, _P(Diag)]),
}


def library_path():
    """The libkvgold.so this package loads (KVGOLD_LIBRARY overrides)."""
    env = os.environ.get("KVGOLD_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "libkvgold.so")


def case_library_path():
    """libkvgold_case.so, the case files' loader and writer the package
    shares with the kvgold command (KVGOLD_CASE_LIBRARY overrides; else
    beside libkvgold.so). It links libkvgold.so, which is loaded first."""
    env = os.environ.get("KVGOLD_CASE_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(library_path())),
                        "libkvgold_case.so")


def _open(path, what):
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            "kvgold: cannot load %s %s (%s); build and install kvgold "
            "(cmake --install BUILD --prefix P, or pip install .) or set "
            "KVGOLD_LIBRARY to a libkvgold.so with libkvgold_case.so beside "
            "it" % (what, path, e)) from None


def _load():
    path, case_path = library_path(), case_library_path()
    _open(path, "the C library")  # first: the case library links it
    # the case library's symbols and, through its dependency on the core
    # already loaded, every C API function
    lib = _open(case_path, "the case library")
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("kvgold: %s (with %s) lacks %s (an older or "
                              "partial build?)" % (path, case_path, name)
                              ) from None
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


import struct as _struct  # noqa: E402
assert _struct.calcsize(TENSOR_FORMAT) == ctypes.sizeof(Tensor)
assert _struct.calcsize(NAMED_FORMAT) == ctypes.sizeof(NamedTensor)

lib = _load()
PATH = library_path()
