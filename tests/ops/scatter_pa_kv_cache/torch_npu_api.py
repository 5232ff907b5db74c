"""torch_npu's own signature of ScatterPaKvCache's API, the outside truth
kvgold's call form (tools/lib/bindings/scatter_pa_kv_cache.c) is checked
against (tests/python/test_prepare.py, test_ttk.py); the fields are those
of tests/ops/reshape_and_cache/torch_npu_api.py."""
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
