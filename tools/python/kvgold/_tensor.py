"""Tensors in and out: NumPy arrays, torch CPU tensors, kvgold.Tensor, or any
buffer with a dtype tag, as the C library's kvg_tensor views.

Inputs are viewed without a copy (they are never written). In-place caches
are copied unless the caller asks for inplace=True. Outputs are created as
the caller's type: NumPy in, NumPy out; torch in, torch out; otherwise
kvgold.Tensor.
"""
import ctypes
import sys
from typing import Any, Dict, Optional, Tuple, Union

from . import _dtypes
from . import _lib
from ._errors import Error, PARAM_INVALID
from ._types import TensorLike

NUMPY, TORCH, KVGOLD = "numpy", "torch", "kvgold"


class Tensor:
    """A case tensor: storage bytes, a dtype tag and a shape.

    numpy.asarray(t) is its storage without a copy (bf16 as uint16 bits,
    fp8 / hif8 as uint8 codes); t.dtype is the case-format tag.
    """

    __slots__ = ("data", "dtype", "shape")

    data: bytearray
    dtype: str
    shape: Tuple[int, ...]

    def __init__(self, data: Union[bytes, bytearray, memoryview], dtype: str,
                 shape: Tuple[int, ...]) -> None:
        if dtype not in _dtypes.TAGS:
            raise Error(PARAM_INVALID, "dtype %r is not a case-format tag "
                        "(%s)" % (dtype, ", ".join(_dtypes.TAGS)))
        self.data = data if isinstance(data, bytearray) else bytearray(data)
        self.dtype = dtype
        self.shape = tuple(int(d) for d in shape)
        need = _dtypes.size_of(dtype)
        for d in self.shape:
            need *= d
        if need != len(self.data):
            raise Error(PARAM_INVALID, "%s %s needs %d bytes, got %d"
                        % (dtype, list(self.shape), need, len(self.data)))

    @property
    def nbytes(self) -> int:
        return len(self.data)

    @property
    def __array_interface__(self) -> Dict[str, Any]:
        # an empty tensor has no address (NumPy takes 0 as "no data given"
        # and then fails on the object itself): hand it the empty buffer
        data = (_address(self.data), False) if self.data else self.data
        return {"shape": self.shape, "typestr": _dtypes.TAGS[self.dtype][2],
                "data": data, "version": 3}

    def tobytes(self) -> bytes:
        return bytes(self.data)

    def copy(self) -> "Tensor":
        return Tensor(bytearray(self.data), self.dtype, self.shape)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Tensor) and self.dtype == other.dtype and
                self.shape == other.shape and self.data == other.data)

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def __repr__(self) -> str:
        return "kvgold.Tensor(%s, shape=%s)" % (self.dtype, list(self.shape))


def tensor(obj: TensorLike, dtype: Optional[str]) -> Tensor:
    """A kvgold.Tensor holding a copy of obj's storage, tagged `dtype`."""
    v = view("tensor", obj, dtype)
    return Tensor(ctypes.string_at(v.address, v.nbytes) if v.nbytes
                  else b"", v.tag, v.shape)


def _address(buf: bytearray) -> int:
    if len(buf) == 0:
        return 0
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


class View:
    """A caller's tensor as kvgold sees it - address, byte count, tag and
    shape - and the object that keeps the memory alive. .c is the
    kvg_tensor, built on first use (kvgold.run packs its tensors in one
    buffer instead, see _run.Call.set_tensors)."""

    __slots__ = ("obj", "flavor", "tag", "shape", "address", "nbytes",
                 "_c")

    obj: Any
    flavor: str
    tag: str
    shape: Tuple[int, ...]
    address: int
    nbytes: int
    _c: Optional[_lib.Tensor]

    def __init__(self, obj: Any, flavor: str, tag: str,
                 shape: Tuple[int, ...], address: Optional[int],
                 nbytes: int) -> None:
        if len(shape) > _lib.MAX_RANK:
            raise Error(PARAM_INVALID, "rank %d is above kvgold's %d"
                        % (len(shape), _lib.MAX_RANK))
        self.obj, self.flavor, self.tag, self.shape = obj, flavor, tag, shape
        self.address, self.nbytes = address or 0, nbytes
        self._c = None

    @property
    def c(self) -> _lib.Tensor:
        if self._c is None:
            self._c = _lib.Tensor(self.address or None, self.nbytes,
                                  _dtypes.TAGS[self.tag][0], len(self.shape),
                                  tuple(self.shape))
        return self._c


# What a tensor's storage may be, for the message refusing any other.
_TYPES = ("fp16 (float16), bf16 (uint16 bits or torch.bfloat16), fp32 "
          "(float32), int8, int32, int64, and fp8_e4m3fn / fp8_e5m2 / hif8 "
          "(uint8 codes with a dtype tag)")


class NotATensorType(Error):
    """Storage that is none of kvgold's tensor types (float64, bool...);
    kvgold.run says so naming the operator."""

    def __init__(self, name: str, described: str,
                 op: Optional[str] = None) -> None:
        self.described = described
        super().__init__(
            PARAM_INVALID, "%s: %s is not a tensor type of %s; %s tensor "
            "types are %s%s" % (
                name, described, op or "kvgold",
                "its" if op else "kvgold's", _TYPES,
                "; docs/%s.md says which one each tensor takes" % op
                if op else ""), name)


def _pick_tag(name: str, natural: Optional[str], given: Optional[str],
              described: str, ambiguous: bool = False) -> str:
    """The tag of a tensor: the caller's, else the storage's own.
    `ambiguous`: 8-bit unsigned storage, which one of the 8-bit float
    formats may be stored in, and which then needs a tag."""
    if given is None:
        if natural is None and ambiguous:
            raise Error(PARAM_INVALID, "%s: %s storage does not say which "
                        "format it holds; give a dtype tag (%s), e.g. "
                        "dtypes={'%s': 'hif8'} or (array, 'hif8')"
                        % (name, described, ", ".join(_dtypes.AMBIGUOUS_8BIT),
                           name), name)
        if natural is None:
            raise NotATensorType(name, described)
        return natural
    if given not in _dtypes.TAGS:
        raise Error(PARAM_INVALID, "%s: dtype %r is not a case-format tag "
                    "(%s)" % (name, given, ", ".join(_dtypes.TAGS)), name)
    if (natural is not None and natural != given and
            _dtypes.TAGS[natural][2] != _dtypes.TAGS[given][2]):
        raise Error(PARAM_INVALID, "%s: tagged %s but its storage is %s (%s)"
                    % (name, given, described, natural), name)
    return given


def _check_size(name: str, tag: str, itemsize: int, described: str) -> None:
    if itemsize != _dtypes.size_of(tag):
        raise Error(PARAM_INVALID, "%s: %s needs %d-byte storage, got %s"
                    % (name, tag, _dtypes.size_of(tag), described), name)


def _torch_view(name: str, t: Any, tag: Optional[str],
                writable: bool) -> View:
    if t.layout != sys.modules["torch"].strided:
        # a sparse (or mkldnn) tensor has no dense storage to view: torch
        # itself would only say it has no data pointer
        layout = str(t.layout).replace("torch.", "")
        raise Error(PARAM_INVALID, "%s: a %s tensor; kvgold does not support "
                    "%s tensors (convert with .to_dense())" % (
                        name, layout, "sparse" if layout.startswith(
                            "sparse") else layout), name)
    if t.device.type != "cpu":
        raise Error(PARAM_INVALID, "%s: a %s tensor; kvgold runs on CPU "
                    "tensors (.cpu() it)" % (name, t.device.type), name)
    described = str(t.dtype)
    natural = _dtypes.TAG_OF_TORCH.get(described.replace("torch.", ""))
    tag = _pick_tag(name, natural, tag, described,
                    described == "torch.uint8")
    _check_size(name, tag, t.element_size(), described)
    if not t.is_contiguous():
        if writable:
            raise Error(PARAM_INVALID, "%s: not contiguous; an in-place "
                        "cache must be" % name, name)
        t = t.contiguous()
    if writable and t.requires_grad:
        t = t.detach()
    shape = tuple(t.shape)
    return View(t, TORCH, tag, shape, t.data_ptr(),
                t.numel() * t.element_size())


def _numpy_view(name: str, a: Any, tag: Optional[str],
                writable: bool) -> View:
    # one __array_interface__ says it all: strides None is C-contiguous,
    # data[1] is read-only (a.flags is several times slower)
    ai = a.__array_interface__
    typestr = ai["typestr"]
    natural = _dtypes.TAG_OF_TYPESTR.get(typestr)
    if tag is None and natural is not None:
        tag = natural
    else:
        if typestr[0] == ">":
            if writable:
                raise Error(PARAM_INVALID, "%s: big-endian; an in-place "
                            "cache must be little-endian" % name, name)
            return _numpy_view(name, a.astype(a.dtype.newbyteorder("<")),
                               tag, writable)
        described = "numpy %s" % a.dtype
        tag = _pick_tag(name, natural, tag, described, typestr == "|u1")
        _check_size(name, tag, a.dtype.itemsize, described)
    if ai["strides"] is not None and not a.flags.c_contiguous:
        if writable:
            raise Error(PARAM_INVALID, "%s: not C-contiguous; an in-place "
                        "cache must be" % name, name)
        return _numpy_view(name, sys.modules["numpy"].ascontiguousarray(a),
                           tag, writable)
    if writable and ai["data"][1]:
        raise Error(PARAM_INVALID, "%s: read-only; an in-place cache must "
                    "be writable" % name, name)
    return View(a, NUMPY, tag, ai["shape"], ai["data"][0], a.nbytes)


def _buffer_view(name: str, obj: Any, tag: Optional[str],
                 writable: bool) -> View:
    try:
        mv = memoryview(obj)
    except TypeError:
        raise Error(PARAM_INVALID, "%s: a %s is not a tensor (NumPy array, "
                    "torch tensor, kvgold.Tensor or a buffer with a dtype "
                    "tag)" % (name, type(obj).__name__), name) from None
    fmt = mv.format.lstrip("@=<")
    described = "buffer format %r" % mv.format
    tag = _pick_tag(name, _dtypes.TAG_OF_FORMAT.get(fmt), tag, described,
                    fmt == "B")
    _check_size(name, tag, mv.itemsize, described)
    if not mv.c_contiguous:
        raise Error(PARAM_INVALID, "%s: not C-contiguous" % name, name)
    shape = tuple(mv.shape or ()) if mv.ndim else ()
    if mv.readonly:
        if writable:
            raise Error(PARAM_INVALID, "%s: read-only; an in-place cache "
                        "must be writable" % name, name)
        buf = bytearray(mv.cast("B"))
        return View(Tensor(buf, tag, shape), KVGOLD, tag, shape,
                    _address(buf), len(buf))
    raw = mv.cast("B")
    address = (ctypes.addressof((ctypes.c_char * len(raw)).from_buffer(raw))
               if len(raw) else 0)
    return View(obj, KVGOLD, tag, shape, address, len(raw))


def view(name: str, obj: TensorLike, tag: Optional[str] = None,
         writable: bool = False) -> View:
    """A View of a caller's tensor. (obj, "tag") pairs carry a tag."""
    np = sys.modules.get("numpy")
    if np is not None and type(obj) is np.ndarray:  # the common case first
        return _numpy_view(name, obj, tag, writable)
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], str):
        obj, pair_tag = obj
        if tag is not None and tag != pair_tag:
            raise Error(PARAM_INVALID, "%s: tagged %s and %s"
                        % (name, pair_tag, tag), name)
        tag = pair_tag
    if isinstance(obj, Tensor):
        tag = _pick_tag(name, obj.dtype, tag, obj.dtype)
        return View(obj, KVGOLD, tag, obj.shape, _address(obj.data),
                    len(obj.data))
    module = type(obj).__module__
    if module.startswith("torch") and hasattr(obj, "data_ptr"):
        return _torch_view(name, obj, tag, writable)
    if module.startswith("numpy") and hasattr(obj, "__array_interface__"):
        if type(obj).__name__ != "ndarray":  # a NumPy scalar
            obj = sys.modules["numpy"].asarray(obj)
        return _numpy_view(name, obj, tag, writable)
    return _buffer_view(name, obj, tag, writable)


def new_like(flavor: str, tag: str, shape: Tuple[int, ...]) -> Any:
    """A fresh tensor of the caller's type, filled with 0xFF bytes (NaN in
    the float formats) so an element the library does not write shows."""
    if flavor == NUMPY:
        np = sys.modules["numpy"]
        a = np.empty(shape, dtype=_dtypes.TAGS[tag][2])
        a.view(np.uint8).fill(0xFF)
        return a
    if flavor == TORCH:
        torch = sys.modules["torch"]
        t = torch.empty(shape, dtype=getattr(torch, _dtypes.TORCH_OF_TAG[tag]))
        if t.is_floating_point():
            t.fill_(float("nan"))
        return t
    n = _dtypes.size_of(tag)
    for d in shape:
        n *= d
    return Tensor(bytearray(b"\xff") * n, tag, shape)


def copy_of(v: View) -> Any:
    """A contiguous copy of a View's object, of the same type."""
    if v.flavor == NUMPY:
        return v.obj.copy()
    if v.flavor == TORCH:
        return v.obj.detach().clone()
    return Tensor(bytearray(ctypes.string_at(v.address, v.nbytes))
                  if v.c.nbytes else bytearray(), v.tag, v.shape)


def to_torch(obj: TensorLike, dtype: Optional[str] = None) -> Any:
    """A torch CPU tensor holding a copy of a case tensor or output: bf16
    as torch.bfloat16, fp16 / fp32 / int8 / int32 / int64 as themselves,
    fp8 / hif8 codes as torch.uint8 (torch's float8 types where the tag is
    fp8 and this torch has them)."""
    import torch
    v = view("tensor", obj, dtype)
    target = getattr(torch, _dtypes.TORCH_OF_TAG[v.tag])
    if v.tag in ("fp8_e4m3fn", "fp8_e5m2") and hasattr(torch, v.tag.replace(
            "fp8_", "float8_")):
        target = getattr(torch, v.tag.replace("fp8_", "float8_"))
    if v.c.nbytes == 0:
        return torch.empty(v.shape, dtype=target)
    # torch.frombuffer has no uint16: read bf16 bits as int16, then view
    carrier = torch.int16 if v.tag == "bf16" else (
        torch.uint8 if _dtypes.size_of(v.tag) == 1 and target not in (
            torch.int8,) else target)
    raw = bytearray(ctypes.string_at(v.address, v.nbytes))
    t = torch.frombuffer(raw, dtype=carrier)
    if carrier != target:
        t = t.view(target)
    return t.reshape(v.shape)
