"""The torch APIs' own signatures of this operator, the outside truth its
call forms (tools/lib/bindings/indexer_compress_epilog.c, as kvgold.ops
reads them) are checked against (tests/python/test_prepare.py,
test_ttk.py, test_msprobe.py), cited as repo@commit:path:line. The fields:
tests/python/ttk_support.py, torch_npu_schemas()."""
SCHEMAS = {
    # indexer_compress_epilog(Tensor(a!) indexer_compress_cache,
    # Tensor(b!) indexer_compress_scale, Tensor x, Tensor slot_mapping, *,
    # int quant_mode=1, bool round_scale=True, float scale=1.0) -> ()
    "torch.ops.custom.indexer_compress_epilog": dict(
        where="hicann/cann-recipes-infer@fbc225d:ops/ascendc/"
              "torch_ops_extension/custom_ops/csrc/"
              "ops_def_registration.cpp:45",
        tensors=("indexer_compress_cache!", "indexer_compress_scale!", "x",
                 "slot_mapping"),
        attrs=("quant_mode", "round_scale", "scale"),
        returns=(None,),
        case_names={"indexer_compress_cache": "cache",
                    "indexer_compress_scale": "cache_scale"}),
    # indexer_compress_epilog_v2(Tensor(a!) indexer_compress_cache,
    # Tensor x, Tensor slot_mapping, int layout=2) -> ()
    "torch.ops._C_ascend.indexer_compress_epilog_v2": dict(
        where="vllm-project/vllm-ascend@182b75ea84:csrc/"
              "torch_binding.cpp:2485",
        tensors=("indexer_compress_cache!", "x", "slot_mapping"),
        attrs=("layout",),
        returns=(None,),
        case_names={"indexer_compress_cache": "cache"}),
}
