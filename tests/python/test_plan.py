"""kvgold.run's call plans (kvgold/_plan.py): a repeated call reuses what
an earlier one worked out and only patches data addresses.

- a planned call gives the bytes of the first (full) call and of the NumPy
  generator's expected tensors, for every vector case, with NumPy arrays
  (in place and copying), torch tensors and kvgold.Tensors;
- a call that differs in any part of the key - shape, dtype, dtype tag,
  attribute value or type, contiguity, read-only, inplace - never reuses a
  stale plan: it gives the expected tensors, or raises exactly the error
  the full path raises (status, tensor, dimension, position, message)
  having written nothing;
- what depends on the data pointers (written tensors sharing memory) and on
  the data (index ranges) is still refused through a plan;
- plans are safe from several threads, and the cache is bounded.

"The full path" is kvgold.run with plans switched off (_plan.probe
answering None), which is what it was before plans existed.
"""
import concurrent.futures
import hashlib

import numpy as np
import pytest
import torch

import kvgold
from kvgold import _dtypes, _plan
from conftest import case_dirs, case_id, example

CASES = [kvgold.load_case(p) for p in case_dirs()]
GOOD = [c for c in CASES if not c.expect_error]


def full_path(monkeypatch, fn):
    """fn() with plans switched off."""
    with monkeypatch.context() as m:
        m.setattr(_plan, "probe", lambda *a: None)
        return fn()


def bits(out):
    """{name: (tag, shape, bytes)} of a run's outputs, whatever their type."""
    return {n: (out.dtypes[n], tuple(kvgold.tensor(t, out.dtypes[n]).shape),
                kvgold.tensor(t, out.dtypes[n]).tobytes())
            for n, t in out.items()}


def outcome(fn):
    """What a call gives: ("ok", bits) or the error's every field."""
    try:
        out = fn()
    except kvgold.Error as e:
        return ("error", e.status, e.tensor, e.dim, e.position, e.message)
    return ("ok", bits(out))


def expected_bits(c):
    return {n: (t.dtype, tuple(t.shape), t.tobytes())
            for n, t in c.expected.items()}


def digest(tensors):
    return {n: hashlib.sha256(kvgold.tensor(t, tag).tobytes()).hexdigest()
            for n, (t, tag) in tensors.items()}


# Each flavor: fresh tensors of a case's inputs (the caller's own copies),
# and the dtype tags to give with them.
def as_numpy(c):
    # through the bytes: numpy.asarray refuses an empty kvgold.Tensor's
    # NULL address
    return {n: np.frombuffer(bytearray(t.data), _dtypes.TAGS[t.dtype][2])
            .reshape(t.shape) for n, t in c.inputs.items()}


def as_torch(c):
    return {n: kvgold.to_torch(t) for n, t in c.inputs.items()}


def as_tensor(c):
    return {n: t.copy() for n, t in c.inputs.items()}


FLAVORS = {"numpy": (as_numpy, False), "numpy-inplace": (as_numpy, True),
           "torch": (as_torch, False), "torch-inplace": (as_torch, True),
           "tensor": (as_tensor, False)}


def fits(flavor, c):
    """Whether a case's tensors can be given as this flavor: torch has no
    uint16 / uint32 (kvgold.to_torch carries them as int16 / int32, which
    a uint tag refuses)."""
    return not flavor.startswith("torch") or not {
        "uint16", "uint32"} & set(c.dtypes.values())


def test_there_are_cases():
    assert len(GOOD) > 200  # a wrong KVG_VECTORS_DIR must not pass


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
def test_planned_calls_give_the_first_call_and_the_expected(hits, flavor):
    make, inplace = FLAVORS[flavor]
    planned = 0
    cases = [c for c in GOOD if fits(flavor, c)]
    assert len(cases) > 200
    for c in cases:
        first = None
        # two cases may share a plan's key (same shapes, dtypes and
        # attributes, other values): each case's first call is a full one
        _plan.clear()
        for rep in range(3):
            inputs = make(c)
            before = len(hits)
            out = kvgold.run(c.op, inputs, c.attrs, c.options,
                             inplace=inplace, dtypes=c.dtypes)
            got = bits(out)
            planned += len(hits) - before
            if rep == 0:
                assert len(hits) == before, "%s: a plan before the first " \
                    "call" % case_id(c.dir)
                first = got
            assert got == first, "%s, call %d: differs from the first" % (
                case_id(c.dir), rep + 1)
            for name, want in expected_bits(c).items():
                assert got[name] == want, "%s, call %d: %s differs from the " \
                    "generator" % (case_id(c.dir), rep + 1, name)
                if inplace and c.inputs.get(name) is not None:
                    assert out[name] is inputs[name]  # written in place
    # every case's second and third calls ran through its plan
    assert planned == 2 * len(cases)


def test_every_operator_interleaved_equals_the_full_path(hits, monkeypatch):
    """All cases of an operator (shapes, dtypes, attributes, refusals) in
    turn, three rounds, in place and not: each gives what the full path
    gives, the expected tensors or the case's error, and a refused call
    leaves every tensor as it was."""
    monkeypatch.setattr(_plan, "MAX_PLANS", 100000)  # every key kept
    by_op = {}
    for c in CASES:
        by_op.setdefault(c.op, []).append(c)
    planned = 0
    for op, cases in sorted(by_op.items()):
        for rnd in range(3):
            inplace = rnd == 1
            for c in cases:
                inputs = as_numpy(c)
                before = digest({n: (t, c.dtypes[n])
                                 for n, t in inputs.items()})
                want = full_path(monkeypatch, lambda: outcome(
                    lambda: kvgold.run(op, as_numpy(c), c.attrs, c.options,
                                       inplace=inplace, dtypes=c.dtypes)))
                n = len(hits)
                got = outcome(lambda: kvgold.run(
                    op, inputs, c.attrs, c.options, inplace=inplace,
                    dtypes=c.dtypes))
                planned += len(hits) - n
                assert got == want, "%s, round %d" % (case_id(c.dir), rnd)
                if c.expect_error:
                    assert got[1] == c.expect_error["status"]
                    assert digest({n: (t, c.dtypes[n]) for n, t in
                                   inputs.items()}) == before, \
                        "%s: a refused call wrote" % case_id(c.dir)
                else:
                    for name, bits_ in expected_bits(c).items():
                        assert got[1][name] == bits_, case_id(c.dir)
    # the third round ran every valid case through its plan
    assert planned >= len(GOOD)


# ---- one case, each part of the key changed -------------------------------

DS = kvgold.load_case(example("deepseek_mla_decode"))
QWEN = kvgold.load_case(example("qwen3_qkv_decode"))


def test_the_examples_change_their_caches():
    # so a refused call that wrote would show in the caches' bytes
    for c in (DS, QWEN):
        for n in c.expected:
            assert c.expected[n].tobytes() != c.inputs[n].tobytes(), n


def same_as_full_path(monkeypatch, hits, c, change, inplace=True,
                      attrs=None, dtypes=None):
    """Plan the case as it is, then call twice with `change` applied to
    fresh inputs (change(inputs) returns the inputs to give) and other
    attributes / dtype tags: each outcome must be the full path's, and a
    refused call must leave every given tensor's bytes as they were.
    Returns the outcome and whether a plan ran the changed call."""
    attrs = dict(c.attrs, **(attrs or {}))
    tags = dict(c.dtypes, **(dtypes or {}))
    kvgold.run(c.op, as_numpy(c), c.attrs, c.options, inplace=inplace,
               dtypes=c.dtypes)  # the plan of the unchanged call
    want = full_path(monkeypatch, lambda: outcome(lambda: kvgold.run(
        c.op, change(as_numpy(c)), attrs, c.options, inplace=inplace,
        dtypes=tags)))
    n = len(hits)
    for _ in range(2):  # the second may run the changed call's own plan
        inputs = change(as_numpy(c))
        before = {k: np.asarray(t).tobytes() for k, t in inputs.items()}
        got = outcome(lambda: kvgold.run(c.op, inputs, attrs, c.options,
                                         inplace=inplace, dtypes=tags))
        assert got == want
        if want[0] == "error":
            assert {k: np.asarray(t).tobytes()
                    for k, t in inputs.items()} == before, "a refusal wrote"
    return got, len(hits) > n


def test_a_shape_change_is_refused_as_by_the_full_path(monkeypatch, hits):
    def fewer_tokens(inputs):
        inputs["index"] = inputs["index"][:-1].copy()
        return inputs
    got, _ = same_as_full_path(monkeypatch, hits, DS, fewer_tokens)
    assert got[0] == "error" and got[2] == "index"


def test_a_valid_shape_change_gets_its_own_plan(monkeypatch, hits):
    # every decode case of the operator: other token counts and caches
    kv = [c for c in GOOD if c.op == DS.op][:12]
    assert len({tuple(c.inputs["kv"].shape) for c in kv}) > 1
    for _ in range(2):
        for c in kv:
            out = kvgold.run(c.op, as_numpy(c), c.attrs, c.options,
                             dtypes=c.dtypes)
            for name, want in expected_bits(c).items():
                assert bits(out)[name] == want, case_id(c.dir)
    assert len(hits) >= len(kv)


def test_a_dtype_change_is_refused_as_by_the_full_path(monkeypatch, hits):
    def fp32_kv(inputs):
        inputs["kv"] = inputs["kv"].astype(np.float32)
        return inputs
    got, _ = same_as_full_path(monkeypatch, hits, DS, fp32_kv,
                               dtypes={"kv": None})
    assert got[0] == "error" and got[2] == "kv"


def test_a_dtype_tag_change_is_refused_as_by_the_full_path(monkeypatch,
                                                           hits):
    got, _ = same_as_full_path(monkeypatch, hits, DS, lambda i: i,
                               dtypes={"k_cache": "fp16"})
    assert got[0] == "error" and got[2] == "k_cache"


def test_an_attribute_value_change_is_not_stale(monkeypatch, hits):
    # a valid epsilon: the result is the full path's, not the plan's of 1e-6
    got, _ = same_as_full_path(monkeypatch, hits, DS, lambda i: i,
                               attrs={"epsilon": 0.25})
    assert got[0] == "ok"
    assert got[1]["ckv_cache"] != expected_bits(DS)["ckv_cache"]
    # an invalid one is refused
    got, _ = same_as_full_path(monkeypatch, hits, DS, lambda i: i,
                               attrs={"cache_mode": "PA_BOGUS"})
    assert got[0] == "error" and got[2] == "cache_mode"
    # is_output_kv 1 (an int for a bool) is the full path's, with outputs
    got, _ = same_as_full_path(monkeypatch, hits, DS, lambda i: i,
                               attrs={"is_output_kv": 1})
    assert got[0] == "ok" and "k_rope" in got[1]


def test_a_list_element_type_change_is_refused(monkeypatch, hits):
    qkv_size = list(QWEN.attrs["qkv_size"])
    got, _ = same_as_full_path(
        monkeypatch, hits, QWEN, lambda i: i,
        attrs={"qkv_size": [True] + qkv_size[1:]})
    assert got[0] == "error" and got[2] == "qkv_size"
    got, _ = same_as_full_path(
        monkeypatch, hits, QWEN, lambda i: i,
        attrs={"qkv_size": [float(qkv_size[0])] + qkv_size[1:]})
    assert got[0] == "error" and got[2] == "qkv_size"


def test_an_attribute_type_change_is_not_stale(monkeypatch, hits):
    # epsilon True equals 1.0 but is a boolean, which epsilon refuses
    got, _ = same_as_full_path(monkeypatch, hits, DS, lambda i: i,
                               attrs={"epsilon": 1.0})
    assert got[0] == "ok"
    got, _ = same_as_full_path(monkeypatch, hits, DS, lambda i: i,
                               attrs={"epsilon": True})
    assert got[0] == "error" and got[2] == "epsilon"


def test_list_values_keep_their_element_types(hits):
    """[True, ...] and [1.0, ...] equal [1, ...]; after a call with
    [1, ...] they are still refused (the attribute tables are cached by
    content, plans or not)."""
    size = list(QWEN.attrs["qkv_size"])
    for first, then in (([1] + size[1:], [True] + size[1:]),
                        ([1] + size[1:], [1.0] + size[1:]),
                        (size, [float(size[0])] + size[1:])):
        for attrs in (dict(QWEN.attrs, qkv_size=first),
                      dict(QWEN.attrs, qkv_size=then)):
            try:
                kvgold.run(QWEN.op, as_numpy(QWEN), attrs, QWEN.options)
            except kvgold.Error as e:
                last = e
            else:
                last = None
        assert last is not None and last.tensor == "qkv_size" and \
            "is not a number, boolean, string or list of integers" in \
            last.message, (first, then, last)


def strided(a):
    """a's values in a non-contiguous array (every other row of a wider
    one)."""
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    wide[..., ::2] = a
    s = wide[..., ::2]
    assert not s.flags.c_contiguous
    return s


def test_a_non_contiguous_input_is_not_stale(monkeypatch, hits):
    def strided_kv(inputs):
        inputs["kv"] = strided(inputs["kv"])
        return inputs
    got, planned = same_as_full_path(monkeypatch, hits, DS, strided_kv)
    assert got[0] == "ok" and planned
    for name, want in expected_bits(DS).items():
        assert got[1][name] == want
    got, _ = same_as_full_path(monkeypatch, hits, DS, strided_kv,
                               inplace=False)
    assert got[0] == "ok"
    for name, want in expected_bits(DS).items():
        assert got[1][name] == want


def test_a_non_contiguous_cache_in_place_is_refused(monkeypatch, hits):
    def strided_cache(inputs):
        inputs["k_cache"] = strided(inputs["k_cache"])
        return inputs
    got, _ = same_as_full_path(monkeypatch, hits, DS, strided_cache)
    assert got[0] == "error" and "contiguous" in got[5]
    # copying, it is taken (and the caller's strided cache left alone)
    got, _ = same_as_full_path(monkeypatch, hits, DS, strided_cache,
                               inplace=False)
    assert got[0] == "ok"


def test_a_read_only_cache_in_place_is_refused(monkeypatch, hits):
    def read_only(inputs):
        inputs["ckv_cache"].flags.writeable = False
        return inputs
    got, _ = same_as_full_path(monkeypatch, hits, DS, read_only)
    assert got[0] == "error" and "read-only" in got[5]


def test_inplace_and_copy_do_not_share_a_plan(hits):
    for rep in range(3):
        for inplace in (True, False):
            inputs = as_numpy(DS)
            initial = {n: inputs[n].copy() for n in DS.expected}
            out = kvgold.run(DS.op, inputs, DS.attrs, DS.options,
                             inplace=inplace)
            assert bits(out) == expected_bits(DS)
            for n in DS.expected:
                assert (out[n] is inputs[n]) == inplace
                if not inplace:
                    assert inputs[n].tobytes() == initial[n].tobytes()
    assert len(hits) == 4


def overlapping(inputs, names):
    """inputs with the tensors `names` placed in one buffer, the second
    starting inside the first."""
    a, b = (inputs[n] for n in names)
    buf = np.zeros(a.nbytes + b.nbytes, np.uint8)
    start = a.nbytes // 2
    inputs[names[0]] = buf[:a.nbytes].view(a.dtype).reshape(a.shape)
    inputs[names[1]] = buf[start:start + b.nbytes].view(b.dtype).reshape(
        b.shape)
    inputs[names[0]][...] = a
    return inputs


@pytest.mark.parametrize("names", [("k_cache", "ckv_cache"),
                                   ("kv", "ckv_cache")])
def test_overlapping_tensors_are_refused_through_a_plan(monkeypatch, hits,
                                                        names):
    # the plan of the same shapes, with separate buffers
    got, planned = same_as_full_path(
        monkeypatch, hits, DS, lambda i: overlapping(i, names))
    assert got[0] == "error" and got[1] == kvgold._errors.PARAM_INVALID
    assert planned, "the overlapping call must have run through a plan"


def test_index_out_of_range_is_refused_through_a_plan(monkeypatch, hits):
    def far(inputs):
        inputs["index"] = inputs["index"].copy()
        inputs["index"][0] = 1 << 40
        return inputs
    got, planned = same_as_full_path(monkeypatch, hits, DS, far)
    assert got[0] == "error" and got[2] == "index" and planned


def test_torch_requires_grad_in_place(monkeypatch, hits):
    """An input with a grad history is read as it is; a cache that
    requires grad is written through a detached tensor sharing its memory,
    which is what is returned, as by the full path."""
    def grad(inputs):
        inputs["kv"] = inputs["kv"].float().requires_grad_(True).to(
            torch.bfloat16)
        inputs["k_cache"].requires_grad_(True)
        return inputs
    want = full_path(monkeypatch, lambda: outcome(lambda: kvgold.run(
        DS.op, grad(as_torch(DS)), DS.attrs, DS.options, inplace=True)))
    for _ in range(3):
        inputs = grad(as_torch(DS))
        out = kvgold.run(DS.op, inputs, DS.attrs, DS.options, inplace=True)
        assert ("ok", bits(out)) == want
        for name, bits_ in expected_bits(DS).items():
            assert bits(out)[name] == bits_
        k = out["k_cache"]
        assert k is not inputs["k_cache"] and not k.requires_grad
        assert k.data_ptr() == inputs["k_cache"].data_ptr()
        assert out["ckv_cache"] is inputs["ckv_cache"]
    assert len(hits) == 2


def test_torch_non_contiguous_input(hits):
    for _ in range(3):
        inputs = as_torch(DS)
        kv = inputs["kv"]
        wide = torch.zeros(kv.shape[:-1] + (2 * kv.shape[-1],),
                           dtype=kv.dtype)
        wide[..., ::2] = kv
        inputs["kv"] = wide[..., ::2]
        assert not inputs["kv"].is_contiguous()
        out = kvgold.run(DS.op, inputs, DS.attrs, DS.options, inplace=True)
        assert bits(out) == expected_bits(DS)
    assert len(hits) == 2


def test_plans_from_several_threads(hits):
    """Four threads run the two examples' plans at once, each on its own
    tensors, in place and copying: every result is the expected one."""
    for c in (DS, QWEN):  # the plans exist before the threads start
        kvgold.run(c.op, as_numpy(c), c.attrs, c.options, inplace=True)
        kvgold.run(c.op, as_numpy(c), c.attrs, c.options)

    def worker(seed):
        bad = []
        for i in range(60):
            c = (DS, QWEN)[(seed + i) % 2]
            inplace = (i // 2) % 2 == 0
            inputs = as_numpy(c)
            out = kvgold.run(c.op, inputs, c.attrs, c.options,
                             inplace=inplace)
            got = bits(out)
            bad += [(c.op, n) for n, want in expected_bits(c).items()
                    if got[n] != want]
        return bad
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(worker, range(4)))
    assert results == [[]] * 4
    assert len(hits) == 4 * 60


def test_the_cache_is_bounded(monkeypatch, hits):
    monkeypatch.setattr(_plan, "MAX_PLANS", 3)
    cases = [c for c in GOOD if c.op == DS.op][:8]
    for _ in range(2):
        for c in cases:
            for _ in range(2):
                out = kvgold.run(c.op, as_numpy(c), c.attrs, c.options,
                                 dtypes=c.dtypes)
                for name, want in expected_bits(c).items():
                    assert bits(out)[name] == want, case_id(c.dir)
                assert _plan.size() <= 3
    assert len(hits) == 2 * len(cases)  # each second call, its plan


def test_kinds_plans_do_not_cover_take_the_full_path(tmp_path, hits):
    """A big-endian input (converted per call by the full path), a
    numpy.memmap, an (array, tag) pair: every call is the full path's and
    gives the expected caches."""
    def big_endian(inputs):
        inputs["kv"] = inputs["kv"].astype(">u2")
        return inputs

    def memmap(inputs):
        m = np.memmap(str(tmp_path / "kv.bin"), dtype=inputs["kv"].dtype,
                      mode="w+", shape=inputs["kv"].shape)
        m[...] = inputs["kv"]
        inputs["kv"] = m
        return inputs

    def pair(inputs):
        inputs["kv"] = (inputs["kv"], "bf16")
        return inputs
    for change in (big_endian, memmap, pair):
        for _ in range(3):
            out = kvgold.run(DS.op, change(as_numpy(DS)), DS.attrs,
                             DS.options, inplace=True)
            for name, want in expected_bits(DS).items():
                assert bits(out)[name] == want, change.__name__
    assert hits == [] and _plan.size() == 0
