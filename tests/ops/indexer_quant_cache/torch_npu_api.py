"""The torch API's own signature of this operator, the outside truth its
call form (tools/lib/bindings/indexer_quant_cache.c, as kvgold.ops reads
it) is checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited as repo@commit:path:line. The fields:
tests/python/ttk_support.py, torch_npu_schemas()."""
SCHEMAS = {
    # indexer_quant_cache(Tensor(a!) cache, Tensor(b!) cache_scale,
    # Tensor x, Tensor slot_mapping, *, str quant_mode="fp8",
    # bool round_scale=True, float x_scale=1.0) -> ()
    "cann_ops_transformer.indexer_quant_cache": dict(
        where="cannmirror/ops-transformer@"
              "25fb6b92890d33582f2a377aa5f9c975301a73a3:torch_extension/"
              "cann_ops_transformer/ops/indexer_quant_cache.py:54",
        tensors=("cache!", "cache_scale!", "x", "slot_mapping"),
        attrs=("quant_mode", "round_scale", "x_scale"),
        returns=(None,), case_names={}),
}
