"""How IndexerQuantCache is written in a dump, for the scan tests (the
generic writers are tests/python/scan/scan_dumps.py). Its torch API,
cann_ops_transformer.indexer_quant_cache (tools/lib/bindings/
indexer_quant_cache.c), writes cache and cache_scale in place and returns
nothing, so an ops-test-kit e2e case has the return (None, a *_none
marker) and then the two caches of inplace_input_indexes (0, 1) as its
goldens: judged, each tensor field by field. A CANN dump of the kernel
(op type IndexerQuantCache: inputs cache, cache_scale, x, slot_mapping;
outputs the two caches after the launch; attributes quant_mode,
round_scale, x_scale as the kernel's numbers, ops-transformer@25fb6b928
attention/indexer_quant_cache/op_host/indexer_quant_cache_def.cpp:91-93)
holds both caches after the call: judged. msprobe records the torch
call's inputs before it and its None return, no post-call cache: NOT
JUDGED, unless a later record takes the caches (read-back,
docs/scan.md). This writer keeps no generic hook name (msprobe / cann / E2E_API
...): the generic format tests judge every writer's SAMPLE there, which
an in-place op whose API returns None does not fit; test_iqc_scan.py uses
FORM, cann_call and msprobe_call."""
import scan_dumps as sd

OP = "indexer_quant_cache"
ALIAS = "iqc"
SAMPLE = "m0_e4m3_bf16_blocks"


class Form:
    """The torch API as ops-test-kit's e2e case spells it (the E2E_*
    names scan_dumps.write_ttk_e2e reads)."""
    E2E_API = "cann_ops_transformer.indexer_quant_cache"
    E2E_IN = ["cache", "cache_scale", "x", "slot_mapping"]
    E2E_OUT = ["(returns None)", "cache", "cache_scale"]
    E2E_ATTRS = ["quant_mode", "round_scale", "x_scale"]
    # its quant_mode strings (ops-transformer@25fb6b928 torch_extension/
    # cann_ops_transformer/ops/indexer_quant_cache.py:18-24)
    E2E_VALUES = {"quant_mode": {0: "mxfp8", 1: "fp8", 2: "hifloat8",
                                 3: "mxfp4"}}


FORM = Form()


def case(name):
    """Vector case `name` of the operator as a call."""
    return sd.Call(OP, name)


def e2e(call, root, name, fmt="bin"):
    """The call as an ops-test-kit e2e case; its CSV row."""
    row = sd.write_ttk_e2e(FORM, call, root, name, fmt)
    row["inplace_input_indexes"] = "(0, 1)"  # cache, cache_scale
    return row


def write_csv(path, rows):
    """ops-test-kit's e2e testcase CSV with its inplace_input_indexes
    column (scan_dumps.write_ttk_csv's columns leave it out)."""
    import csv
    cols = list(rows[0])
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path


OP_TYPE = "IndexerQuantCache"
IN = ["cache", "cache_scale", "x", "slot_mapping"]
OUT = ["cache", "cache_scale"]


def cann_call(call, root, name, task=1):
    """The call as one CANN dump file of its kernel: the pre-call tensors
    as inputs, the post-call caches as outputs, every attribute the case
    gives under the kernel's own name."""
    attrs = [(k, sd.attr_text(call.attrs[k])) for k in FORM.E2E_ATTRS
             if k in call.attrs]
    return sd.write_cann(root, OP_TYPE, name,
                         [call.inputs[n] for n in IN],
                         [call.post[n] for n in OUT], attrs, task)


def msprobe_call(step, call):
    """The call as msprobe records it: the pre-call tensors, quant_mode
    as the API's string, no output (the API returns None)."""
    kw = {k: FORM.E2E_VALUES.get(k, {}).get(v, v)
          for k, v in call.attrs.items() if k in FORM.E2E_ATTRS}
    return step.call("cann_ops_transformer", "indexer_quant_cache",
                     [call.inputs[n] for n in IN], kw, [])
