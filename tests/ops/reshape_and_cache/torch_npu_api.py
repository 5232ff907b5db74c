"""torch_npu's own signatures of this operator's APIs, the outside truth
its call forms (tools/lib/bindings/<op>.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py): written from the schemas op-plugin registers, cited per
API (repo@commit:path:line). The fields: tests/python/ttk_support.py,
torch_npu_schemas()."""
SCHEMAS = {
    "torch_npu._npu_reshape_and_cache": dict(
        where="Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
              "op_plugin/ops/atb/ReshapeAndCachAtb.cpp:60",
        tensors=("key", "value", "key_cache!", "value_cache!",
                 "slot_indices"),
        attrs=(), returns=(None,),
        case_names={"slot_indices": "slot_mapping"}),
    "torch_npu._npu_reshape_and_cache_siso": dict(
        where="Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
              "op_plugin/ops/atb/ReshapeAndCacheSisoAtb.cpp:38",
        tensors=("key", "key_cache!", "slot_indices"),
        attrs=(), returns=(None,),
        case_names={"slot_indices": "slot_mapping"}),
}
