"""The case format's dtype tags and their storage (spec section 5).

bf16 is stored as its uint16 bits, fp8 / hif8 as uint8 codes: NumPy has no
such types, so a NumPy array of a case tensor is its storage, and a tag says
what the bits mean.
"""
from typing import Dict, Tuple

from . import _lib

# tag -> (NumPy typestr, memoryview format) of its storage: what Python
# alone knows. The kvg_dtype value and the bytes per element are the
# library's (kvg_dtype_from_name, kvg_dtype_size).
_STORAGE: Dict[str, Tuple[str, str]] = {
    "fp16": ("<f2", "e"),
    "bf16": ("<u2", "H"),
    "fp32": ("<f4", "f"),
    "int8": ("|i1", "b"),
    "int32": ("<i4", "i"),
    "int64": ("<i8", "q"),
    "fp8_e4m3fn": ("|u1", "B"),
    "fp8_e5m2": ("|u1", "B"),
    "hif8": ("|u1", "B"),
    # copy-only types (kvgold/dtype.h): moved bit for bit, never computed
    "uint8": ("|u1", "B"),
    "int16": ("<i2", "h"),
    "uint16": ("<u2", "H"),
    "uint32": ("<u4", "I"),
    # packed: one element is one byte holding two fp4 codes
    "fp4_e2m1": ("|u1", "B"),
    "fp4_e1m2": ("|u1", "B"),
    # the MX scale: one byte, 2^(code - 127)
    "e8m0": ("|u1", "B"),
}


def _code(tag: str) -> int:
    code = int(_lib.lib.kvg_dtype_from_name(tag.encode()))
    if code == 0:  # KVG_DTYPE_INVALID
        raise ImportError("kvgold: %s has no dtype %s" % (_lib.PATH, tag))
    return code


# tag -> (kvg_dtype value, bytes per element, NumPy typestr of the storage,
#         memoryview format of the storage)
TAGS: Dict[str, Tuple[int, int, str, str]] = {
    tag: (_code(tag), int(_lib.lib.kvg_dtype_size(_code(tag))), ts, fmt)
    for tag, (ts, fmt) in _STORAGE.items()}
BY_CODE = {v[0]: k for k, v in TAGS.items()}

# Storage that names its tag by itself; uint8 does not (three 8-bit float
# formats share it), so a uint8 tensor needs an explicit tag.
# uint16 shares bf16's storage and uint8 / fp4 the 8-bit one: a tag given
# with the same storage is taken (_tensor._pick_tag).
TAG_OF_TYPESTR = {"<f2": "fp16", "<u2": "bf16", "<f4": "fp32", "|i1": "int8",
                  "<i4": "int32", "<i8": "int64", "<i2": "int16",
                  "<u4": "uint32"}
TAG_OF_FORMAT = {"e": "fp16", "H": "bf16", "f": "fp32", "b": "int8",
                 "i": "int32", "q": "int64", "l": "int64", "h": "int16",
                 "I": "uint32"}
AMBIGUOUS_8BIT = ("fp8_e4m3fn", "fp8_e5m2", "hif8", "uint8", "fp4_e2m1",
                  "fp4_e1m2", "e8m0")

# torch dtype name (str(torch.bfloat16) without "torch.") <-> tag
TAG_OF_TORCH = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
                "int8": "int8", "int32": "int32", "int64": "int64",
                "float8_e4m3fn": "fp8_e4m3fn", "float8_e5m2": "fp8_e5m2",
                "int16": "int16", "uint16": "uint16", "uint32": "uint32",
                "float4_e2m1fn_x2": "fp4_e2m1", "float8_e8m0fnu": "e8m0"}
TORCH_OF_TAG = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
                "int8": "int8", "int32": "int32", "int64": "int64",
                "fp8_e4m3fn": "uint8", "fp8_e5m2": "uint8", "hif8": "uint8",
                "uint8": "uint8", "int16": "int16",
                # same-size storage: older torch has no uint16 / uint32
                "uint16": "int16", "uint32": "int32",
                "fp4_e2m1": "uint8", "fp4_e1m2": "uint8", "e8m0": "uint8"}


def size_of(tag: str) -> int:
    return TAGS[tag][1]


def code_of(tag: str) -> int:
    return TAGS[tag][0]
