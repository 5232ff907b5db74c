"""Call plans: what kvgold.run works out for a call that does not depend on
the tensors' data, kept so that a repeated call only patches addresses.

A test loop calls one operator over and over with tensors of the same
types, dtypes, shapes and strides and the same attributes; only the data
pointers change. For such a call the full path (_run.prepare) builds a view
of every tensor, picks its dtype tag, packs the kvg_tensor table, converts
the attributes, asks the C library for the outputs' shapes and the
workspace size - some 30-80 us of Python - and every answer is a function
of the plan key below. A Plan keeps those answers; a call with the same key
reads each tensor's address, makes the copies the full path would make
(non-contiguous inputs, the caches unless inplace), allocates the outputs,
writes the addresses into its thread's prebuilt table and calls kvg_op_run.

The key: the operator; inplace; the names given (None ones included); per
tensor its Python type and what the full path's answers depend on apart
from the address (NumPy: dtype, shape, C-contiguous, writeable - the
strides matter only through contiguity, and an array whose memory is a
simple writable buffer is both; torch: dtype, shape, is_contiguous,
is_cpu, requires_grad; kvgold.Tensor: dtype, shape, byte count); the
attributes and options given (None ones are left out by the full path
too), each value with its type (and the type of every element of a list,
so [1] and [True] differ); the dtype tags. A call with a key not seen yet
takes the full path and, if it succeeds, leaves its plan behind. A call
with a tensor of any other kind (a buffer, an (array, tag) pair, a NumPy
or torch subclass such as numpy.memmap) or a value that cannot be part of
a key always takes the full path, and so does one the full path converts
(a big-endian array). An error is never planned: a call the full path
refuses is refused by it every time.

What a plan never skips: reading every address again, the C library's
whole validation (kvg_op_run repeats every check of kvg_op_workspace_size,
then checks that the written tensors and the workspace share no memory -
which depends on the addresses - then the tensors' contents, all before it
writes a byte), and any call with a NULL data pointer (the C checks read
the pointer itself): it takes the full path.

Threads: plans are shared and never written after they are built; each
thread patches its own copy of a plan's tables (a threading.local of the
plan), and the cache holds at most MAX_PLANS plans (the oldest leaves).
"""
import array
import ctypes
import struct
import sys
import threading
from typing import Any, Dict, List

from . import _dtypes
from . import _lib
from . import _tensor
from ._errors import Error

MAX_PLANS = 256

_TENSOR = struct.Struct(_lib.TENSOR_FORMAT)
_NAMED = struct.Struct(_lib.NAMED_FORMAT)
# The data pointer is a kvg_tensor's first member: in the table seen as
# pointer-sized words, tensor i's data is word i * _STRIDE. _WORD: the
# array typecode of a pointer-sized unsigned integer (None: no plans).
_P = struct.calcsize("P")
_WORD: Any = next((c for c in "QLI" if array.array(c).itemsize == _P), None) \
    if _TENSOR.size % _P == 0 else None
_STRIDE = _TENSOR.size // _P
_ZEROS = (0,) * _lib.MAX_RANK

NUMPY, TORCH, KVGOLD = 1, 2, 3
_KINDS = {_tensor.Tensor: KVGOLD}  # exact type -> kind; NumPy's and
                                   # torch's are added when first seen
_lock = threading.Lock()
_plans: Dict[Any, "Plan"] = {}
_SCRATCH = threading.local()
_run_c = _lib.lib.kvg_op_run
_char_at = ctypes.c_char.from_buffer  # a writable buffer's first byte
_addressof = ctypes.addressof


_CLONE = "clone"  # a step's copy: torch's clone() is enough


class NoPlan(Exception):
    """A call a plan cannot repeat exactly: it keeps taking the full path."""


def workspace(size):
    """The address of a workspace of at least `size` bytes, kept per
    thread and reused: allocating and zeroing one per call costs more than
    small calls do."""
    scratch = _SCRATCH
    ws = getattr(scratch, "ws", None)
    if ws is None or len(ws) < size:
        ws = scratch.ws = ctypes.create_string_buffer(max(size, 64))
        scratch.address = ctypes.addressof(ws)
    return scratch.address


def _kind(t):
    """NUMPY / TORCH for exactly numpy.ndarray / torch.Tensor (subclasses
    may change what the full path sees), else None."""
    np = sys.modules.get("numpy")
    if np is not None and t is np.ndarray:
        _KINDS[t] = NUMPY
        return NUMPY
    torch = sys.modules.get("torch")
    if torch is not None and t is torch.Tensor:
        _KINDS[t] = TORCH
        return TORCH
    return None


def _address(kind, obj):
    if kind == NUMPY:
        try:
            return _addressof(_char_at(obj))
        except (TypeError, ValueError, BufferError):
            return obj.__array_interface__["data"][0]
    if kind == TORCH:
        return obj.data_ptr()
    return _tensor._address(obj.data)


def _values_key(d):
    """The part of the key that says an attribute (or option) dict: name,
    type and value of each entry given (not None); lists as tuples of ints
    (any other element type: no plan, the full path says what it makes of
    it)."""
    if not d:
        return ()
    key = []
    for k, v in d.items():
        if v is None:
            continue  # left out by the full path too: the default applies
        t = type(v)
        if t is list or t is tuple:
            for x in v:
                if type(x) is not int:
                    raise TypeError("no plan")
            v = tuple(v)
        key.append((k, t, v))
    return tuple(key)


def probe(op, inputs, attrs, options, inplace, dtypes):
    """(key, objects, addresses, its plan or None) of a call, the tensors
    as given (None ones left out); None when a tensor is of a kind plans
    do not cover or a value cannot be part of a key (the full path handles
    the call)."""
    if type(inputs) is not dict or _WORD is None:
        return None
    kinds = _KINDS
    parts: List[Any] = []
    objs: List[Any] = []
    addrs: List[int] = []
    try:
        for obj in inputs.values():
            if obj is None:
                parts.append(None)
                continue
            t = type(obj)
            kind = kinds.get(t) or _kind(t)
            if kind == NUMPY:
                try:
                    # a simple writable buffer: the array is C-contiguous,
                    # writeable and not empty (a quarter of the cost of
                    # __array_interface__, and no flags to read)
                    addrs.append(_addressof(_char_at(obj)))
                    parts.append((t, obj.dtype, obj.shape))
                except (TypeError, ValueError, BufferError):
                    # read-only, non-contiguous or empty: ask NumPy
                    flags = obj.flags
                    parts.append((t, obj.dtype, obj.shape,
                                  flags.c_contiguous, flags.writeable))
                    addrs.append(obj.__array_interface__["data"][0])
            elif kind == TORCH:
                parts.append((t, obj.dtype, obj.shape, obj.is_contiguous(),
                              obj.is_cpu, obj.requires_grad))
                addrs.append(obj.data_ptr())
            elif kind == KVGOLD:
                parts.append((t, obj.dtype, obj.shape, len(obj.data)))
                addrs.append(_tensor._address(obj.data))
            else:
                return None
            objs.append(obj)
        key = (op, inplace, tuple(inputs), tuple(parts), _values_key(attrs),
               _values_key(options),
               tuple(dtypes.items()) if dtypes else None)
        plan = _plans.get(key)  # hashes the key once: TypeError if it can't
    except Exception:  # pylint: disable=broad-except
        # nothing has been done yet: the full path runs the call and
        # raises whatever it raises
        return None
    return key, objs, addrs, plan


def store(key, plan):
    with _lock:
        if key not in _plans:
            while len(_plans) >= MAX_PLANS:
                del _plans[next(iter(_plans))]
            _plans[key] = plan


def clear():
    """Forget every plan (tests use it to start from a known state)."""
    with _lock:
        _plans.clear()


def size():
    return len(_plans)


class _State:
    """One thread's copy of a plan's tables: the packed kvg_tensor and
    kvg_named_tensor table (data pointers patched per call), the
    kvg_op_call pointing at it, and a kvg_diag."""

    __slots__ = ("buf", "holder", "words", "call", "diag", "call_ref",
                 "diag_ref", "ws", "busy")
    # ws: the address the call's workspace pointer holds, compared with the
    # thread's current scratch before each call (no reference is kept, so
    # a replaced scratch is freed)

    def __init__(self, plan):
        n = plan.count
        tsize, nsize = _TENSOR.size, _NAMED.size
        self.buf = bytearray(plan.table)
        self.holder = (ctypes.c_char * len(self.buf)).from_buffer(self.buf)
        base = ctypes.addressof(self.holder)
        for i, name_address in enumerate(plan.name_addresses):
            _NAMED.pack_into(self.buf, n * tsize + i * nsize, name_address,
                             base + i * tsize)
        self.words = memoryview(self.buf).cast(_WORD)
        self.call = _lib.OpCall()
        self.call.op = plan.spec.handle
        self.call.tensors = base + n * tsize
        self.call.tensor_count = n
        self.call.attrs = plan.values
        self.call.attr_count = plan.attr_count
        self.diag = _lib.Diag()
        self.call_ref = ctypes.byref(self.call)
        self.diag_ref = ctypes.byref(self.diag)
        self.ws = None
        self.busy = False


class Plan:
    """What a successful full call (_run.prepare, then Call.run) worked
    out, minus the addresses: built from that call, never changed after."""

    def __init__(self, spec, call, written, objs, addrs, inplace):
        """Raises NoPlan when the full path did to a tensor something a
        plan does not repeat (a byte-order conversion...)."""
        views = call.views
        names = list(views)
        m = len(objs)
        given = names[:m]
        self.spec = spec
        self.count = len(names)
        # what the full path made of each given tensor: (position, kind,
        # contiguous copy, detach, copy of the cache, dtype tag), where it
        # made anything
        steps = []
        for i, (name, obj) in enumerate(zip(given, objs)):
            kind = _KINDS[type(obj)]
            if kind == NUMPY and obj.dtype.byteorder == ">":
                raise NoPlan(name)
            cache = spec.kind.get(name, _lib.INPUT) != _lib.INPUT
            writable = bool(inplace) and cache
            contig = detach = False
            if kind == NUMPY:
                contig = (obj.__array_interface__["strides"] is not None
                          and not obj.flags.c_contiguous)
            elif kind == TORCH:
                contig = not obj.is_contiguous()
                detach = writable and obj.requires_grad
            copy = cache and not writable
            if copy and kind == TORCH and not obj.requires_grad:
                copy = _CLONE
            if not (contig or copy) and views[name].address != addrs[i]:
                raise NoPlan(name)  # the full path viewed something else
            if contig or detach or copy:
                steps.append((i, kind, contig, detach, copy,
                              views[name].tag))
        self.steps = tuple(steps)
        # the outputs the full path allocated: (tag, shape)
        self.fresh = tuple((views[n].tag, views[n].shape) for n in names[m:])
        self.flavor = {_tensor.NUMPY: NUMPY, _tensor.TORCH: TORCH,
                       _tensor.KVGOLD: KVGOLD}[call.flavor]
        self.new_flavor = call.flavor
        table = bytearray(self.count * (_TENSOR.size + _NAMED.size))
        for i, name in enumerate(names):
            v = views[name]
            shape = tuple(v.shape)
            _TENSOR.pack_into(table, i * _TENSOR.size, 0, v.nbytes,
                              _dtypes.TAGS[v.tag][0], len(shape),
                              *(shape + _ZEROS[len(shape):]))
        self.table = bytes(table)
        self.name_addresses = tuple(spec.name_addresses[n] for n in names)
        self.values = call.values
        self.keep = call.keep  # what the attribute array points into
        self.attr_count = call.call.attr_count
        self.workspace_size = call.workspace_size
        position = {n: i for i, n in enumerate(names)}
        self.result = tuple((n, position[n]) for n in spec.order
                            if n in written)
        self.dtypes = {n: v.tag for n, v in views.items()}
        self.tls = threading.local()

    def _state(self):
        tls = self.tls
        try:
            st = tls.state
        except AttributeError:
            st = tls.state = _State(self)
        if st.busy:  # re-entered from this thread (a signal handler...)
            st = _State(self)
        return st

    def execute(self, objs, addrs):
        """Run the call on objs (the given tensors, in order; their
        addresses in addrs): the tensors by table position (given ones as
        the full path would have them, then fresh outputs), or None when
        the call must take the full path. Raises Error as the full path
        does; nothing the caller owns is written then."""
        for i, kind, contig, detach, copy, tag in self.steps:
            obj = objs[i]
            if contig:
                obj = (sys.modules["numpy"].ascontiguousarray(obj)
                       if kind == NUMPY else obj.contiguous())
            if detach:
                obj = obj.detach()
            if copy:
                if kind == NUMPY:
                    obj = obj.copy()
                elif kind == TORCH:
                    # as _tensor.copy_of; detach() changes nothing of a
                    # tensor that does not require grad (the key says)
                    obj = obj.clone() if copy is _CLONE else \
                        obj.detach().clone()
                else:  # as _tensor.copy_of: tagged as the call saw it
                    obj = _tensor.Tensor(bytearray(obj.data), tag, obj.shape)
            objs[i] = obj
            addrs[i] = _address(kind, obj)
        if self.fresh:
            flavor, new_flavor = self.flavor, self.new_flavor
            for tag, shape in self.fresh:
                obj = _tensor.new_like(new_flavor, tag, shape)
                objs.append(obj)
                addrs.append(_address(flavor, obj))
        if not all(addrs):
            return None  # the C checks refuse or take NULL by the pointer
        st = self._state()
        st.busy = True
        try:
            st.words[0:self.count * _STRIDE:_STRIDE] = array.array(
                _WORD, addrs)
            ws = workspace(self.workspace_size)
            if st.ws != ws:
                st.ws = ws
                st.call.workspace = ws
                st.call.workspace_size = self.workspace_size
            status = _run_c(st.call_ref, st.diag_ref)
            if status != _lib.OK:
                raise Error.from_diag(status, st.diag)
        finally:
            st.busy = False
        return objs
