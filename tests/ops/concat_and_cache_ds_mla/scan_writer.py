"""How the packed C8 MLA row is written in a dump, for the scan tests (the
generic writers are tests/python/scan/scan_dumps.py). Its one call form,
vLLM's torch.ops._C_cache_ops.concat_and_cache_mla(kv_c, k_pe, kv_cache,
slot_mapping, kv_cache_dtype, scale) (tools/lib/bindings/
concat_and_cache_ds_mla.c), writes kv_cache in place and returns nothing:
- ops-test-kit e2e (.bin / .npy / .pt, with its testcase CSV): the five
  tensors in signature order (scale a 0-d or [1] float32), the attribute
  {"kv_cache_dtype": "fp8_ds_mla"} as `kvgold prepare --csv` writes it;
  the goldens are the return (None, a *_none marker) then the cache its
  inplace_input_indexes (2,) names: judged.
- msprobe: the inputs before the call and the None it returns; no
  post-call cache in the record, so it is read back from the next record
  that takes the cache (NOT JUDGED with no such record).
The Ascend preset's composite has no call of its own: a dump holds
npu_rms_norm, npu_interleave_rope, the block quant
(docs/dynamic_block_quant.md) and npu_scatter_nd_update_ one by one
(docs/concat_and_cache_ds_mla.md).
This writer keeps no generic hook name (E2E_API, msprobe, cann ...): the
generic format tests judge every writer's SAMPLE there; test_c8_scan.py
uses FORM."""
import os

import numpy as np

import scan_dumps as sd

OP = "concat_and_cache_ds_mla"
ALIAS = "c8"
SAMPLE = "vllm_rows_skip_negative"
API = "torch.ops._C_cache_ops.concat_and_cache_mla"


class Form:
    """vLLM's API as ops-test-kit's e2e case spells it (the E2E_* names
    scan_dumps.write_ttk_e2e reads); its one attribute is written by
    e2e() under the API's keyword."""
    E2E_API = API
    E2E_IN = ["kv_c", "k_pe", "kv_cache", "slot_mapping", "scale"]
    # the API's return (None: a *_none golden), then the in-place cache
    E2E_OUT = ["(returns None)", "kv_cache"]
    E2E_ATTRS = []


FORM = Form()


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


def e2e(call, root, name, fmt="bin"):
    """The call as an ops-test-kit e2e case of vLLM's API; its CSV row."""
    row = sd.write_ttk_e2e(FORM, call, root, name, fmt)
    row["attributes"] = repr({"kv_cache_dtype": "fp8_ds_mla"})
    row["inplace_input_indexes"] = "(2,)"  # kv_cache, tensor slot 2
    return row


def write_csv(path, rows):
    """ops-test-kit's e2e testcase CSV with its inplace_input_indexes
    column."""
    import csv
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def msprobe_call(step, call):
    """The call as msprobe records it: the pre-call tensors and the
    kv_cache_dtype string as inputs, no output (the API returns None)."""
    args = [call.inputs[n] for n in ("kv_c", "k_pe", "kv_cache",
                                     "slot_mapping")]
    return step.call("_C_cache_ops", "concat_and_cache_mla", args,
                     {"kv_cache_dtype": "fp8_ds_mla",
                      "scale": call.inputs["scale"]}, [])


# ---- the Ascend composite as msprobe records its chain ---------------------

def _kvgen():
    """The independent generator's module (tools/gen on sys.path)."""
    import sys
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..", "..", "tools", "gen")
    if gen not in sys.path:
        sys.path.insert(0, gen)
    from kvgen import concat_and_cache_ds_mla as g
    return g


def ascend_chain(step, call, post=None, drop=(), extra=(), lead=1):
    """vllm-ascend's custom_kv_rmsnorm_rope and its store (vllm-ascend@
    182b75ea84 vllm_ascend/attention/sfa_v1.py:1708-1744, :1369-1384) as
    msprobe records them, from ascend vector case `call` (the NumPy
    generator's): npu_rms_norm(x [T, 1, 1, 512], gamma, epsilon=eps) ->
    (y, rstd); npu_interleave_rope(k_pe [T, 1, 1, 64], cos, sin), recorded
    under register_custom_api's prefix "torch_npu"; the block quant
    (dst_type as msprobe's {}) -> (q, scale); npu_scatter_nd_update_(
    cache [rows, 656] before the call, slot_mapping [T, 1], packed [T,
    656]) -> the cache after it (`post`, default the generator's expected
    cache); between the last two, the query's npu_interleave_rope ([T, 2,
    1, 64]: no link, two rows a token). The packed rows are the expected rows at each token's slot
    (what the NPU's torch.cat made), 0x5A bytes for a pad token the kernel
    skips. `drop` leaves out calls by API name; `extra` adds (api, args,
    kwargs) calls of those APIs first (another norm in the window).
    `lead` rows of leading calls: an npu_rms_norm of a 1536-wide query
    first, which is no link of the chain."""
    g = _kvgen()
    dbq = sd.op("dbq").TORCH  # the block quant operator's torch_npu name
    tag_c, cache = call.inputs["kv_cache"]
    kv_c = call.inputs["kv_c"][1].reshape(-1, 512)
    k_pe = call.inputs["k_pe"][1].reshape(-1, 64)
    cos = call.inputs["cos"][1].reshape(-1, 64)
    sin = call.inputs["sin"][1].reshape(-1, 64)
    gamma = call.inputs["gamma"][1]
    slots = call.inputs["slot_mapping"]
    eps = call.attrs.get("epsilon", 1e-5)
    order = call.attrs.get("reduce_order", "pairwise")
    t = kv_c.shape[0]
    y, rope = g.ascend_front(kv_c, k_pe, gamma, cos, sin, eps, order)
    expected = call.post["kv_cache"][1]
    rows = expected.reshape(-1, 656)
    packed = np.full((t, 656), 0x5A, dtype=np.uint8).view(cache.dtype)
    flat = slots[1].reshape(-1)
    for i in range(t):
        if flat[i] >= 0:
            packed[i] = rows[flat[i]]
    q = np.ascontiguousarray(packed[:, :512]).reshape(t, 1, 512)
    scale = np.ascontiguousarray(packed[:, 640:]).view(np.float32)
    x = ("bf16", kv_c.reshape(t, 1, 1, 512))
    calls = {
        "npu_rms_norm": ("NPU", [x, ("bf16", gamma)], {"epsilon": eps},
                         [("bf16", y.reshape(t, 1, 1, 512)),
                          ("fp32", np.ones((t, 1, 1, 1), np.float32))]),
        "npu_interleave_rope": (
            "torch_npu", [("bf16", k_pe.reshape(t, 1, 1, 64)),
                          ("bf16", cos.reshape(t, 1, 1, 64)),
                          ("bf16", sin.reshape(t, 1, 1, 64))], {},
            [("bf16", rope.reshape(t, 1, 1, 64))]),
        dbq: (
            "NPU", [("bf16", y.reshape(t, 1, 512))],
            {"row_block_size": 1, "col_block_size": 128},
            [(tag_c, q), ("fp32", scale.reshape(t, 1, 4))]),
        # the query's rope (sfa_v1.py:1593, rope_single: [B, N, 1, 64])
        # comes between the block quant and the store: also 64 wide, but
        # two rows a token, so it is no link of the chain
        "q_rope": ("torch_npu", [("bf16", np.repeat(
            k_pe.reshape(t, 1, 1, 64), 2, axis=1))] + [
                ("bf16", cos.reshape(t, 1, 1, 64)),
                ("bf16", sin.reshape(t, 1, 1, 64))], {},
            [("bf16", np.repeat(rope.reshape(t, 1, 1, 64), 2, axis=1))]),
        "npu_scatter_nd_update_": (
            "NPU", [(tag_c, cache), (slots[0], slots[1].reshape(t, 1)),
                    (tag_c, packed)], {},
            [(tag_c, expected if post is None else post)]),
    }
    for _ in range(lead):
        q_in = np.arange(t * 1536, dtype=np.uint16).reshape(t, 1536) | 0x3C00
        step.call("NPU", "npu_rms_norm", [("bf16", q_in),
                                          ("bf16", q_in[0])],
                  {"epsilon": 1e-6}, [("bf16", q_in)])
    for api, args, kwargs in extra:
        step.call(calls[api][0], api, args, kwargs, calls[api][3])
    for api, (kind, args, kwargs, outs) in calls.items():
        if api in drop:
            continue
        key = step.call(kind, "npu_interleave_rope" if api == "q_rope"
                        else api, args, kwargs, outs)
        if api == dbq:
            # msprobe writes {} for a torch.dtype under dst_type
            step.data[key]["input_kwargs"]["dst_type"] = {}
    return calls
