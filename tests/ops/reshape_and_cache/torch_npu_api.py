"""torch_npu's own signatures of ReshapeAndCache's APIs, the outside truth
kvgold's call forms (tools/lib/bindings/reshape_and_cache.c) are checked
against (tests/python/test_prepare.py, test_ttk.py): written from the
schemas op-plugin registers, cited per API (repo@commit:path:line).
"tensors": the tensor arguments in signature order, "!" marking a
Tensor(a!) one (updated in place); "attrs": the other arguments;
"returns": what the API returns, by kvgold name ((None,): "-> ()", which
ops-test-kit lists as [None]); "case_names": kvgold's case.json name of an
argument where it differs."""
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
