"""kvgold.run: one operator call through the generic entry point
(include/kvgold/op.h) of the C library."""
import ctypes
import numbers
import struct
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _dtypes
from . import _lib
from . import _plan
from . import _tensor
from ._errors import Error, PARAM_INVALID
from ._types import DTypes, TensorLike, Values

AttrInfo = Tuple[int, bool, bool, Optional[str]]
"""(kvg_value_type, is an option, required, default as case.json writes
it) of an attribute."""

_lib_ = _lib.lib


class OpSpec:
    """An operator's tensor and attribute tables, read once from C."""

    def __init__(self, name: str, handle: int) -> None:
        self.name = name
        self.handle = handle
        self.kind: Dict[str, int] = {}
        self.presence: Dict[str, int] = {}
        self.order: List[str] = []
        for i in range(_lib_.kvg_op_tensor_count(handle)):
            info = _lib_.kvg_op_tensor_at(handle, i).contents
            n = info.name.decode()
            self.kind[n] = info.kind
            self.presence[n] = info.presence
            self.order.append(n)
        self.attrs: Dict[str, AttrInfo] = {}
        for i in range(_lib_.kvg_op_attr_count(handle)):
            info = _lib_.kvg_op_attr_at(handle, i).contents
            self.attrs[info.name.decode()] = (
                info.type, bool(info.is_option), bool(info.required),
                info.dflt.decode() if info.dflt is not None else None)
        self.outputs = [n for n in self.order if self.kind[n] != _lib.INPUT]
        # NUL-terminated names at fixed addresses, for the packed table
        self._name_buffers = [ctypes.create_string_buffer(n.encode())
                              for n in self.order]
        self.name_addresses = {n: ctypes.addressof(b) for n, b in
                               zip(self.order, self._name_buffers)}


_SPECS: Dict[str, OpSpec] = {}
_TENSOR = struct.Struct(_lib.TENSOR_FORMAT)
_NAMED = struct.Struct(_lib.NAMED_FORMAT)
_ZEROS = (0,) * _lib.MAX_RANK
_CODES = {tag: v[0] for tag, v in _dtypes.TAGS.items()}


def op_spec(op: str) -> OpSpec:
    spec = _SPECS.get(op)
    if spec is None:
        handle = _lib_.kvg_op_find(op.encode()) if isinstance(op, str) \
            else None
        if not handle:
            known = [_lib_.kvg_op_name(_lib_.kvg_op_at(i)).decode()
                     for i in range(_lib_.kvg_op_count())]
            raise Error(PARAM_INVALID, "op %r is not a kvgold operator (%s)"
                        % (op, ", ".join(known)), "op")
        spec = _SPECS[op] = OpSpec(op, handle)
    return spec


def operators() -> List[str]:
    """The case.json names of every operator the library has."""
    return [_lib_.kvg_op_name(_lib_.kvg_op_at(i)).decode()
            for i in range(_lib_.kvg_op_count())]


def _value(spec: OpSpec, name: str, v: Any, keep: List[Any]) -> _lib.Value:
    """A kvg_value of Python value v, typed as the operator declares the
    name (an undeclared name keeps v's own type: the C library refuses it
    with its message)."""
    declared = spec.attrs.get(name, (None,))[0]
    c = _lib.Value()
    c.name = name.encode()
    keep.append(c.name)
    if isinstance(v, str):
        c.type, c.s = _lib.V_STRING, v.encode()
        keep.append(c.s)
    elif isinstance(v, bool) or (declared == _lib.V_BOOL and
                                 isinstance(v, numbers.Integral)):
        c.type, c.i = _lib.V_BOOL, int(bool(v))
    elif isinstance(v, numbers.Integral):
        if declared == _lib.V_FLOAT:
            c.type, c.f = _lib.V_FLOAT, float(v)
        else:
            c.type, c.i = _lib.V_INT, int(v)
    elif isinstance(v, numbers.Real):
        c.type, c.f = _lib.V_FLOAT, float(v)
    elif isinstance(v, (list, tuple)) and all(
            isinstance(x, numbers.Integral) and not isinstance(x, bool)
            for x in v):
        arr = (ctypes.c_int64 * max(len(v), 1))(*[int(x) for x in v])
        keep.append(arr)
        c.type, c.ints, c.count = _lib.V_INTS, arr, len(v)
    else:
        raise Error(PARAM_INVALID, "%s: %r is not a number, boolean, string "
                    "or list of integers" % (name, v), name)
    return c


_VALUES: Dict[Any, Tuple[Any, List[Any]]] = {}


def _values(spec: OpSpec, values: Sequence[Tuple[str, Any]]
            ) -> Tuple[Any, List[Any]]:
    """The kvg_value array of (name, value) pairs and what keeps it alive.
    The C library only reads it, so arrays are cached by content: a test
    loop calls with the same attributes over and over."""
    try:
        # a list's element types too: [True] and [2.0] equal [1] and [2]
        # but are refused where those are taken
        key = (spec.name, tuple((k, type(v), (tuple(v), tuple(map(
            type, v))) if isinstance(v, (list, tuple)) else v)
            for k, v in values))
        hit = _VALUES.get(key)
    except TypeError:  # an unhashable value: the C library will refuse it
        key, hit = None, None
    if hit is not None:
        return hit
    keep: List[Any] = []
    arr = (_lib.Value * max(len(values), 1))()
    for i, (name, v) in enumerate(values):
        arr[i] = _value(spec, name, v, keep)
    if key is not None:
        if len(_VALUES) >= 256:
            _VALUES.clear()
        _VALUES[key] = (arr, keep)
    return arr, keep


class Call:
    """A kvg_op_call being assembled; keeps every buffer alive."""

    def __init__(self, spec: OpSpec, views: Dict[str, _tensor.View],
                 values: Sequence[Tuple[str, Any]]) -> None:
        self.spec = spec
        self.views = views            # name -> View
        self.keep: List[Any] = []
        self.flavor = _tensor.KVGOLD
        self.workspace_size = 0
        self.call = _lib.OpCall()
        self.call.op = spec.handle
        self.diag = _lib.Diag()
        self.set_values(values)
        self.set_tensors()

    def set_values(self, values: Sequence[Tuple[str, Any]]) -> None:
        arr, keep = _values(self.spec, values)
        self.keep.append(keep)
        self.values = arr
        self.call.attrs = arr
        self.call.attr_count = len(values)

    def set_tensors(self) -> None:
        """The kvg_tensor views and the kvg_named_tensor table, packed in
        one buffer: n tensors, then n (name, tensor) pairs."""
        n = len(self.views)
        tsize = _TENSOR.size
        buf = ctypes.create_string_buffer(max(n * (tsize + _NAMED.size), 1))
        base = ctypes.addressof(buf)
        names = self.spec.name_addresses
        for i, (name, v) in enumerate(self.views.items()):
            shape = v.shape
            _TENSOR.pack_into(buf, i * tsize, v.address, v.nbytes,
                              _CODES[v.tag], len(shape),
                              *(tuple(shape) + _ZEROS[len(shape):]))
            address = names.get(name)
            if address is None:  # not the operator's: C names it in the error
                keep = ctypes.create_string_buffer(name.encode())
                self.keep.append(keep)
                address = ctypes.addressof(keep)
            _NAMED.pack_into(buf, n * tsize + i * _NAMED.size, address,
                             base + i * tsize)
        self.tensors = buf
        self.call.tensors = base + n * tsize
        self.call.tensor_count = n

    def check(self, status: int) -> None:
        if status != _lib.OK:
            raise Error.from_diag(status, self.diag)

    def output_shape(self, name: str) -> Optional[Tuple[str, Tuple[int, ...]]]:
        """(dtype tag, shape) of output `name`, None when the attributes
        switch it off, or the C library's refusal."""
        produced, dtype, rank = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        shape = (ctypes.c_int64 * _lib.MAX_RANK)()
        self.check(_lib_.kvg_op_output_shape(
            ctypes.byref(self.call), name.encode(), ctypes.byref(produced),
            ctypes.byref(dtype), ctypes.byref(rank), shape,
            ctypes.byref(self.diag)))
        if not produced.value:
            return None
        from ._dtypes import BY_CODE
        return BY_CODE[dtype.value], tuple(shape[:rank.value])

    def run(self) -> None:
        size = ctypes.c_size_t()
        self.check(_lib_.kvg_op_workspace_size(
            ctypes.byref(self.call), ctypes.byref(size),
            ctypes.byref(self.diag)))
        self.workspace_size = size.value
        self.call.workspace = _plan.workspace(size.value)
        self.call.workspace_size = size.value
        try:
            self.check(_lib_.kvg_op_run(ctypes.byref(self.call),
                                        ctypes.byref(self.diag)))
        finally:
            self.call.workspace = None
            self.call.workspace_size = 0


class Outputs(dict):  # name -> tensor
    """kvgold.run's result: output name -> tensor (in-place caches
    included), with the call that made it (.op, .inputs, .attrs, .options,
    .dtypes) so kvgold.compare can judge NPU outputs against it."""

    op: Optional[str] = None
    inputs: Optional[Mapping[str, Any]] = None
    attrs: Optional[Dict[str, Any]] = None
    options: Optional[Dict[str, Any]] = None
    dtypes: Optional[Dict[str, str]] = None
    inplace = False  # then .inputs' caches hold the results, not the
                     # initial contents


def _flavor(views: Mapping[str, _tensor.View]) -> str:
    flavors = {v.flavor for v in views.values()}
    for f in (_tensor.TORCH, _tensor.NUMPY):
        if f in flavors:
            return f
    return _tensor.KVGOLD


def prepare(op: str, inputs: Mapping[str, Optional[TensorLike]],
            attrs: Values = None, options: Values = None,
            inplace: bool = False, dtypes: DTypes = None
            ) -> Tuple[Call, Dict[str, Any]]:
    """Views of the inputs, copies of the caches (unless inplace), fresh
    outputs: a Call ready to run, and the objects it will write."""
    spec = op_spec(op)
    dtypes = dtypes or {}
    if not isinstance(inputs, dict):
        raise Error(PARAM_INVALID, "inputs must be a dict of tensor name -> "
                    "tensor, got %s" % type(inputs).__name__, "inputs")
    views, written = {}, {}
    for name, obj in inputs.items():
        if obj is None:
            continue  # an absent optional tensor
        kind = spec.kind.get(name, _lib.INPUT)
        in_place = inplace and kind != _lib.INPUT
        try:
            v = _tensor.view(name, obj, dtypes.get(name), writable=in_place)
        except _tensor.NotATensorType as e:
            raise _tensor.NotATensorType(name, e.described, op) from None
        if kind != _lib.INPUT and not in_place:
            v = _tensor.view(name, _tensor.copy_of(v), v.tag)
        views[name] = v
        if kind != _lib.INPUT:
            written[name] = v.obj
    values = [(k, v) for k, v in (attrs or {}).items() if v is not None]
    values += [(k, v) for k, v in (options or {}).items() if v is not None]
    call = Call(spec, views, values)
    flavor = call.flavor = _flavor(views)
    fresh = False
    for name in spec.outputs:
        if name in views or spec.kind[name] != _lib.OUTPUT:
            continue
        try:
            shaped = call.output_shape(name)
        except Error:
            continue  # the operator's own checks will say what is wrong
        if shaped is not None:
            obj = _tensor.new_like(flavor, *shaped)
            views[name] = _tensor.view(name, obj, shaped[0])
            written[name] = obj
            fresh = True
    if fresh:
        call.set_tensors()
    return call, written


def run(op: str, inputs: Mapping[str, Optional[TensorLike]],
        attrs: Values = None, options: Values = None, *,
        inplace: bool = False, dtypes: DTypes = None) -> Outputs:
    """Run operator `op` (its case.json name) on `inputs` (tensor name ->
    tensor, names as in case.json) and return its outputs by name.

    attrs / options: case.json's "attrs" / "options" (None values are
    left out, so the operator's default applies). In-place caches are
    copied and the copies returned, unless inplace=True (then the caller's
    caches - and outputs it passes, such as q_out - are written and
    returned). dtypes: name -> case-format tag for
    tensors whose storage does not say (uint8 fp8 / hif8 codes).
    Raises kvgold.Error when the operator refuses the call; nothing the
    caller owns has been written then.
    """
    probed = _plan.probe(op, inputs, attrs, options, inplace, dtypes)
    if probed is not None:
        key, objs, addrs, plan = probed
        if plan is not None:
            tensors = plan.execute(objs, addrs)
            if tensors is not None:
                out = Outputs()
                for name, i in plan.result:
                    out[name] = tensors[i]
                return _described(out, op, inplace, inputs, attrs, options,
                                  dict(plan.dtypes))
        else:
            # the tensors and values the key says, whatever another thread
            # does to the caller's dicts meanwhile
            given = dict(zip(key[2], _given(key[3], objs)))
            call, written = prepare(op, given, dict(attrs or {}),
                                    dict(options or {}), inplace, dtypes)
            call.run()
            out = _outputs(call, written, op, inplace, inputs, attrs,
                           options)
            again = _plan.probe(op, given, attrs, options, inplace, dtypes)
            if again is not None and again[0] == key:
                try:
                    _plan.store(key, _plan.Plan(call.spec, call, written,
                                                objs, addrs, inplace))
                except _plan.NoPlan:
                    pass
            return out
    call, written = prepare(op, inputs, attrs, options, inplace, dtypes)
    call.run()
    return _outputs(call, written, op, inplace, inputs, attrs, options)


def _given(parts: Sequence[Any], objs: Sequence[Any]) -> List[Any]:
    """The probed tensors in the order of the key's names, None where the
    key says None."""
    it = iter(objs)
    return [None if p is None else next(it) for p in parts]


def _outputs(call: Call, written: Mapping[str, Any], op: str, inplace: bool,
             inputs: Mapping[str, Any], attrs: Values,
             options: Values) -> Outputs:
    out = Outputs()
    for name in call.spec.order:
        if name in written:
            out[name] = written[name]
    return _described(out, op, inplace, inputs, attrs, options,
                      {n: v.tag for n, v in call.views.items()})


def _described(out: Outputs, op: str, inplace: bool,
               inputs: Mapping[str, Any], attrs: Values, options: Values,
               dtypes: Dict[str, str]) -> Outputs:
    out.op = op
    out.inplace = inplace
    out.inputs = inputs
    out.attrs = dict(attrs or {})
    out.options = dict(options or {})
    out.dtypes = dtypes
    return out
