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
  post-call cache, so the record is listed NOT JUDGED, naming the
  operator.
The Ascend preset's composite has no call of its own: a dump holds
npu_rms_norm, npu_interleave_rope, the block quant
(docs/dynamic_block_quant.md) and npu_scatter_nd_update_ one by one
(docs/concat_and_cache_ds_mla.md).
This writer keeps no generic hook name (E2E_API, msprobe, cann ...): the
generic format tests judge every writer's SAMPLE there; test_c8_scan.py
uses FORM."""
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
