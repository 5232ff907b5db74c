"""torch_npu's own signatures of this operator's APIs, the outside truth
its call forms (tools/lib/bindings/<op>.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited per API (repo@commit:path:line). The fields:
tests/python/ttk_support.py, torch_npu_schemas()."""
SCHEMAS = {
    "torch_npu.npu_scatter_pa_kv_cache": dict(
        where="Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
              "op_plugin/config/op_plugin_functions.yaml:6950",
        tensors=("key", "value", "key_cache!", "value_cache!",
                 "slot_mapping", "compress_lens", "compress_seq_offsets",
                 "seq_lens"),
        attrs=("cache_mode",), returns=(None,),
        case_names={"compress_seq_offsets": "compress_seq_offset"}),
}
