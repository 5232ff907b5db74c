"""The package reads the C structs' layouts, the constants and the status
codes from the library it loads (kvgold/abi.h, kvgold/status.h), and says
which struct and member when Python and the library disagree."""
import ctypes
import struct

import pytest

import kvgold
from kvgold import _dtypes, _errors, _lib


def test_status_codes_are_the_contract():
    # kvgold/status.h's stable values (aclnn's two parameter codes)
    assert _lib.STATUS_NAMES[161001] == "KVG_ERR_PARAM_NULLPTR"
    assert _lib.STATUS_NAMES[161002] == "KVG_ERR_PARAM_INVALID"
    assert _lib.STATUS_NAMES[170005] == "KVG_ERR_MISMATCH"
    assert _lib.OK == 0 and _lib.ERR_MISMATCH == 170005
    assert _errors.PARAM_INVALID == 161002 and _errors.IO == 170002
    assert kvgold.Error(170003, "x").status_name == "KVG_ERR_FILE_FORMAT"
    assert kvgold.Error(170099, "x").status_name == "status 170099"


def test_structs_are_laid_out_as_c_lays_them_out():
    # first principles on an LP64 machine: kvg_tensor is a pointer, a
    # size_t, two ints and 8 int64
    p = ctypes.sizeof(ctypes.c_void_p)
    assert ctypes.sizeof(_lib.Tensor) == p + p + 4 + 4 + 8 * 8
    assert _lib.Tensor.shape.offset == 2 * p + 8
    assert _lib.TENSOR_FORMAT == "PNii8q" and _lib.NAMED_FORMAT == "PP"
    assert struct.calcsize(_lib.TENSOR_FORMAT) == ctypes.sizeof(_lib.Tensor)
    assert _lib.MAX_RANK == 8
    assert ctypes.sizeof(_lib.Diag) == 4 + 48 + 4 + 8 + 512
    assert _lib.Diag.position.offset == 56
    # a typed view of a pointer member keeps its place
    assert _lib.CompareArgs.golden.offset == p
    # row_tensor (an int) follows the row_layout pointer, and init sets it
    # to 0: the first of the layout's tensors
    assert _lib.CompareArgs.row_tensor.offset == \
        _lib.CompareArgs.row_layout.offset + p
    args = _lib.CompareArgs()
    args.row_tensor = 7
    _lib.lib.kvg_compare_args_init(ctypes.byref(args))
    assert args.row_tensor == 0


def test_constants_and_dtypes_come_from_the_library():
    assert (_lib.INPUT, _lib.CACHE, _lib.OUTPUT) == (0, 1, 2)
    assert _lib.constant("KVG_CRIT_FLOAT_RE") == 3
    # spec section 5's tags, with the library's codes and sizes
    assert _dtypes.TAGS["bf16"][:2] == (2, 2)
    assert _dtypes.TAGS["hif8"][:2] == (9, 1)
    assert _dtypes.TAGS["int64"][:2] == (6, 8)


def test_a_member_the_library_lacks_is_named():
    class Wrong(ctypes.Structure):
        data: int
        strides: int   # kvg_tensor has no strides

    with pytest.raises(ImportError) as e:
        _lib._layout(Wrong, "kvg_tensor")
    assert "kvg_tensor" in str(e.value) and "strides" in str(e.value)


def test_a_layout_that_differs_is_named():
    class Short(ctypes.Structure):
        # rank as a byte: everything after it moves
        _fields_ = [("data", ctypes.c_void_p), ("nbytes", ctypes.c_size_t),
                    ("dtype", ctypes.c_int), ("rank", ctypes.c_int8),
                    ("shape", ctypes.c_int64 * 8)]

    with pytest.raises(ImportError) as e:
        _lib._check(Short, "kvg_tensor")
    assert "kvg_tensor, member rank" in str(e.value)
    assert "offset 20 with 4 bytes" in str(e.value)


def test_a_struct_the_library_does_not_describe_is_named():
    class Result(ctypes.Structure):
        pass

    with pytest.raises(ImportError) as e:
        _lib._layout(Result, "kvg_compare_result")
    assert "does not describe struct kvg_compare_result" in str(e.value)
    with pytest.raises(ImportError) as e:
        _lib.constant("KVG_NO_SUCH_CONSTANT")
    assert "KVG_NO_SUCH_CONSTANT" in str(e.value)
