"""kvgold.compare: judge NPU outputs against the golden with the CANN
criteria of the C library (kvgold/compare.h, docs/compare.md).

Per output tensor: the role and cache layout the operator gives it
(kvg_op_describe_output) pick the criterion and the coordinates of the
report; for an in-place cache, the elements the golden writes are found by
running it a second time from bit-inverted caches
(kvg_compare_written_mask), and every other element must be bit-identical
to the initial cache. The C results are opaque buffers; the structured
result is read from the library's own JSON report.
"""
import ctypes
import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, \
    Tuple

from . import _lib
from . import _run
from . import _tensor
from ._dtypes import size_of
from ._errors import Error, PARAM_INVALID
from ._types import DTypes, TensorLike, Values

_L = _lib.lib
# the criteria's names (as compare's report writes them) -> the library's
# kvg_compare_criterion values
_CRITERIA = {n: _lib.constant("KVG_CRIT_" + n.upper()) for n in (
    "auto", "bitwise", "int_abs1", "float_re", "code_dist")}
_INVERT = bytes(255 - i for i in range(256))


class TensorResult:
    """One output's verdict: .name, .verdict ("PASS", "FAIL" or "NOT
    JUDGED", as the CLI's report says), .passed,
    .reason, .dtype, .role, .criterion, .standard, .layout, .metrics (every
    count and metric, by the JSON report's names), .worst and
    .untouched_changed_first (elements with "index", "coord" - a dict
    block / slot / head / channel when there is a cache layout -
    "expected", "actual", their bits, "abs_err", "rel_err"), and .rows:
    None, or for a packed cache judged field by field (docs/compare.md,
    "Packed rows") its "layout", "slots", "slots_written" and "fields", one
    per kind (payload, scales, pass-through, pad, untouched) with its
    "verdict", counts and "places" ("slot", "group", "text", ...)."""

    _HEAD = ("name", "dtype", "role", "criterion", "standard", "verdict",
             "reason", "layout", "worst", "untouched_changed_first", "rows")

    name: str
    dtype: str
    role: str
    criterion: str
    standard: str
    verdict: str
    reason: str
    layout: Optional[Dict[str, Any]]
    rows: Optional[Dict[str, Any]]
    worst: List[Dict[str, Any]]
    untouched_changed_first: List[Dict[str, Any]]

    def __init__(self, doc: Dict[str, Any]) -> None:
        self.json = doc
        for k in self._HEAD:
            setattr(self, k, doc.get(k))
        self.passed = self.verdict == "PASS"
        self.metrics = {k: v for k, v in doc.items() if k not in self._HEAD}

    def __repr__(self) -> str:
        return "<TensorResult %s %s %s>" % (self.name, self.verdict,
                                            self.criterion)


class CompareResult:
    """The outcome for a whole call, in the CLI's words. .passed is True
    only when every golden output was judged and passed: an output with no
    NPU tensor (listed in .skipped) or one the library could not judge
    (.not_judged, e.g. the commercial standard without a third party)
    makes the verdict INCOMPLETE, never PASS - nor FAIL, unless another
    output failed.
    .tensors: name -> TensorResult; .report(): the CLI's text;
    .to_json(): the CLI's JSON plus "op", "skipped", "notes"."""

    def __init__(self, op: Optional[str], doc: Dict[str, Any], text: str,
                 skipped: List[str], notes: List[str]) -> None:
        self.op = op
        self.doc = doc
        self.text = text
        self.skipped = skipped
        self.notes = notes
        self.tensors = {r["name"]: TensorResult(r) for r in doc["results"]}
        # The CLI's vocabulary (kvg_compare_summary_verdict): FAIL when a
        # tensor failed; else INCOMPLETE when one was not judged - NOT
        # JUDGED by the library (the commercial standard without a third
        # party...) or given no NPU tensor - or none was; else PASS.
        self.not_judged = [n for n, r in self.tensors.items()
                           if r.verdict == "NOT JUDGED"]
        failed = any(r.verdict not in ("PASS", "NOT JUDGED")
                     for r in self.tensors.values())
        self.verdict = ("FAIL" if failed else
                        "INCOMPLETE" if skipped or self.not_judged or
                        not self.tensors else "PASS")
        self.passed = self.verdict == "PASS"

    def __bool__(self) -> bool:
        return self.passed

    def report(self) -> str:
        lines = ["kvgold compare: %s" % (self.op or "(no operator given)")]
        lines += ["note: %s" % n for n in self.notes]
        text = self.text if self.text.endswith("\n") or not self.text \
            else self.text + "\n"
        out = "\n".join(lines) + "\n" + text
        for n in self.skipped:
            out += "skipped: %s (no NPU tensor given)\n" % n
        if self.verdict == "INCOMPLETE":
            out += "verdict: INCOMPLETE - %s not judged, so not a pass\n" % (
                ", ".join(self.not_judged + self.skipped) or "nothing")
        return out

    def to_json(self) -> str:
        doc = dict(self.doc)
        doc.update(op=self.op, verdict=self.verdict, skipped=self.skipped,
                   notes=self.notes)
        return json.dumps(doc, indent=1)

    def __repr__(self) -> str:
        return "<CompareResult %s %s>" % (self.op, self.verdict)


def _render(fn: Callable[..., int], buf: int, count: int) -> str:
    n, diag = ctypes.c_size_t(), _lib.Diag()
    st = fn(buf, count, None, 0, ctypes.byref(n), ctypes.byref(diag))
    if st == _lib.OK:
        out = ctypes.create_string_buffer(n.value + 1)
        st = fn(buf, count, out, n.value + 1, ctypes.byref(n),
                ctypes.byref(diag))
    if st != _lib.OK:
        raise Error.from_diag(st, diag)
    return out.value.decode("utf-8", "replace")


def _inverted(v: _tensor.View) -> _tensor.Tensor:
    raw = ctypes.string_at(v.address, v.nbytes) if v.nbytes else b""
    return _tensor.Tensor(bytearray(raw.translate(_INVERT)), v.tag, v.shape)


class _Context:
    """What the golden call was: its operator, input views and values."""

    def __init__(self, golden: Mapping[str, Any], op: Optional[str],
                 inputs: Optional[Mapping[str, Any]], attrs: Values,
                 options: Values, dtypes: DTypes) -> None:
        self.golden = golden
        self.op: Optional[str] = op or getattr(golden, "op", None)
        self.inputs: Optional[Mapping[str, Any]] = \
            inputs if inputs is not None else \
            getattr(golden, "inputs", None)
        self.attrs = attrs if attrs is not None else \
            getattr(golden, "attrs", None)
        self.options = options if options is not None else \
            getattr(golden, "options", None)
        self.dtypes = dict(getattr(golden, "dtypes", None) or {})
        self.dtypes.update(dtypes or {})
        self.call: Optional[_run.Call] = None
        self.spec: Optional[_run.OpSpec] = None
        if self.op is not None and self.inputs is not None:
            self.spec = _run.op_spec(self.op)
            views = {n: _tensor.view(n, t, self.dtypes.get(n))
                     for n, t in self.inputs.items() if t is not None}
            values = [(k, v) for d in (self.attrs, self.options)
                      for k, v in (d or {}).items() if v is not None]
            self.call = _run.Call(self.spec, views, values)

    def describe(self, name: str, view: _tensor.View
                 ) -> Tuple[int, Optional[_lib.CacheLayout]]:
        role, has = ctypes.c_int(0), ctypes.c_int(0)
        layout = _lib.CacheLayout()
        if self.call is not None:
            self.call.check(_L.kvg_op_describe_output(
                ctypes.byref(self.call.call), name.encode(),
                ctypes.byref(view.c), ctypes.byref(role), ctypes.byref(has),
                ctypes.byref(layout), ctypes.byref(self.call.diag)))
        return role.value, (layout if has.value else None)

    def row_layout(self, name: str) -> Optional[Any]:
        """The operator's packed-row layout of `name` in this call (an
        opaque kvg_row_layout buffer for kvg_compare_args.row_layout), or
        None when it has none. A refusal raises: a packed cache is never
        judged as plain bytes."""
        if self.call is None:
            return None
        buf = ctypes.create_string_buffer(_L.kvg_op_row_layout_size())
        self.call.check(_L.kvg_op_row_layout(
            ctypes.byref(self.call.call), name.encode(), buf,
            ctypes.byref(self.call.diag)))
        # "none" is the all-zero layout, which the one check refuses
        if _L.kvg_row_layout_check(buf, None, None) != _lib.OK:
            return None
        return buf

    def masks(self, golden_views: Mapping[str, _tensor.View],
              notes: List[str]) -> Dict[str, Tuple[Any, int, _tensor.View]]:
        """name -> (written mask, initial view) for every in-place cache."""
        spec, op, inputs = self.spec, self.op, self.inputs
        if self.call is None or spec is None or op is None or inputs is None:
            return {}  # (a call is made only with all three)
        if getattr(self.golden, "inplace", False) and self.inputs is \
                getattr(self.golden, "inputs", None):
            notes.append("the golden ran in place, so its inputs hold the "
                         "updated caches, not the initial ones: no "
                         "written-slot mask; every element was judged "
                         "against the golden")
            return {}
        caches = [n for n in golden_views
                  if spec.kind.get(n) == _lib.CACHE
                  and n in self.call.views]
        if not caches:
            return {}
        alt = dict(inputs)
        for n in caches:
            alt[n] = _inverted(self.call.views[n])
        try:
            other = _run.run(op, alt, self.attrs, self.options,
                             dtypes=self.dtypes)
        except Error as e:
            notes.append("the written-slot mask could not be derived (%s); "
                         "untouched slots were checked against the golden"
                         % e.message)
            return {}
        out, diag = {}, _lib.Diag()
        for n in caches:
            init_a, init_b = self.call.views[n], _tensor.view(n, alt[n])
            out_b = _tensor.view(n, other[n])
            count = init_a.c.nbytes // size_of(init_a.tag)
            mask = ctypes.create_string_buffer(max(count, 1))
            st = _L.kvg_compare_written_mask(
                ctypes.byref(golden_views[n].c), ctypes.byref(init_a.c),
                ctypes.byref(out_b.c), ctypes.byref(init_b.c), mask, count,
                ctypes.byref(diag))
            if st != _lib.OK:
                notes.append("%s: no written-slot mask (%s); untouched slots "
                             "were checked against the golden"
                             % (n, diag.message.decode()))
                continue
            out[n] = (mask, count, init_a)
        return out


def _named_enum(parse: Callable[..., int], kind: str, name: str) -> int:
    """The library's value of a standard / level name, or kvgold.Error."""
    value = ctypes.c_int(0)
    if not parse(name.encode(), ctypes.byref(value)):
        raise Error(PARAM_INVALID, "%s: %r is not a kvgold %s" % (kind, name,
                                                                  kind), kind)
    return value.value


def auto_criteria(golden: "_run.Outputs", names: Sequence[str],
                  standard: Optional[str] = None) -> Dict[str, str]:
    """name -> the criterion compare() picks by itself for each of `names`
    that `golden` (kvgold.run's result) has: from the role the operator
    gives that tensor in this call and its dtype, under `standard` (by
    default compare's own). "bitwise" means every element bit-identical."""
    ctx = _Context(golden, None, None, None, None, None)
    args = _lib.CompareArgs()
    _L.kvg_compare_args_init(ctypes.byref(args))
    std = args.standard if standard is None else _named_enum(
        _L.kvg_compare_standard_from_name, "standard", standard)
    found = {}
    for n in names:
        if n not in golden:
            continue
        view = _tensor.view(n, golden[n], ctx.dtypes.get(n))
        role, _ = ctx.describe(n, view)
        crit = _L.kvg_compare_auto_criterion_for(view.c.dtype, role, std)
        found[n] = _L.kvg_compare_criterion_name(crit).decode()
    return found


def compare(golden: Mapping[str, TensorLike],
            npu: Mapping[str, Optional[TensorLike]], *,
            op: Optional[str] = None,
            inputs: Optional[Mapping[str, Optional[TensorLike]]] = None,
            attrs: Values = None, options: Values = None,
            dtypes: DTypes = None,
            criteria: Optional[Mapping[str, str]] = None,
            thresholds: Optional[Mapping[str, float]] = None,
            standard: Optional[str] = None, level: Optional[str] = None,
            third_party: Optional[Mapping[str, Optional[TensorLike]]] = None
            ) -> CompareResult:
    """Judge `npu` (output name -> the NPU's tensor) against `golden`
    (kvgold.run's result, or a dict of golden tensors; then pass op,
    inputs, attrs so that roles, cache coordinates and written slots are
    known). criteria / thresholds: name -> criterion ("bitwise",
    "int_abs1", "float_re", "code_dist") / float_re threshold, to override
    the automatic choice. standard: "mixed_ttk" (the default, as in
    `kvgold compare`: ops-test-kit's mixed tolerance, "mixed_ttk@3675093"),
    "mixed", "single" or "commercial", by name or versioned name; level:
    "L0".."L2" (commercial);
    third_party: name -> another implementation's tensor (the commercial
    standard's dual benchmark). Returns a CompareResult; raises kvgold.Error for
    tensors that cannot be compared (unknown name, dtype, shape)."""
    ctx = _Context(golden, op, inputs, attrs, options, dtypes)
    criteria, thresholds = criteria or {}, thresholds or {}
    for n in npu:
        if n not in golden:
            raise Error(PARAM_INVALID, "%s: not an output of the golden "
                        "(%s)" % (n, ", ".join(golden)), n)
    gviews = {n: _tensor.view(n, t, ctx.dtypes.get(n))
              for n, t in golden.items()}
    judged = [n for n in golden if npu.get(n) is not None]
    skipped = [n for n in golden if npu.get(n) is None]
    notes: List[str] = []
    masks = ctx.masks({n: gviews[n] for n in judged}, notes)
    size = _L.kvg_compare_result_size()
    results = ctypes.create_string_buffer(size * max(len(judged), 1))
    base = ctypes.addressof(results)
    keep, diag = [], _lib.Diag()
    std = None if standard is None else _named_enum(
        _L.kvg_compare_standard_from_name, "standard", standard)
    lvl = None if level is None else _named_enum(
        _L.kvg_compare_level_from_name, "level", level)
    third_party = third_party or {}
    for i, n in enumerate(judged):
        g = gviews[n]
        a = _tensor.view(n, npu[n], g.tag)
        role, layout = ctx.describe(n, g)
        rows = ctx.row_layout(n)
        args = _lib.CompareArgs()
        _L.kvg_compare_args_init(ctypes.byref(args))
        if rows is not None:
            args.row_layout = ctypes.cast(rows, ctypes.c_void_p)
            # a layout over two tensors: which one `n` is (the library
            # checked that the operator's layout names it)
            args.row_tensor = _L.kvg_row_tensor_of(rows, n.encode())
        args.name = n.encode()
        args.golden = ctypes.pointer(g.c)
        args.actual = ctypes.pointer(a.c)
        args.role = role
        if layout is not None:
            args.layout = ctypes.pointer(layout)
        if n in masks:
            mask, count, init = masks[n]
            args.initial = ctypes.pointer(init.c)
            args.written = ctypes.cast(mask, ctypes.c_void_p)
            args.written_count = count
        if n in criteria:
            if criteria[n] not in _CRITERIA:
                raise Error(PARAM_INVALID, "%s: criterion %r is not one of "
                            "%s" % (n, criteria[n], ", ".join(_CRITERIA)), n)
            args.criterion = _CRITERIA[criteria[n]]
        if n in thresholds:
            args.threshold = float(thresholds[n])
        if std is not None:
            args.standard = std
        if lvl is not None:
            args.level = lvl
        tp = None
        if third_party.get(n) is not None:
            tp = _tensor.view(n, third_party[n], g.tag)
            args.third_party = ctypes.pointer(tp.c)
        keep.append((a, layout, args, tp, rows))
        st = _L.kvg_compare_tensor(ctypes.byref(args), base + i * size,
                                   ctypes.byref(diag))
        if st not in (_lib.OK, _lib.ERR_MISMATCH):
            raise Error.from_diag(st, diag)
    count = len(judged)
    doc = json.loads(_render(_L.kvg_compare_report_json, base, count))
    text = _render(_L.kvg_compare_report_text, base, count)
    return CompareResult(ctx.op, doc, text, skipped, notes)
