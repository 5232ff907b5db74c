"""The torch APIs' own signatures of this operator (five of one name, one
per implementation), the outside truth its call forms
(tools/lib/bindings/kv_compress_epilog.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited per API (repo@commit:path:line). The fields:
tests/python/ttk_support.py, torch_npu_schemas(); case_names maps an
argument or attribute the API spells otherwise to case.json's name."""
_SGK_NAMES = {"kv_compress_cache": "cache",
              "round_scale_flag": "round_scale"}
SCHEMAS = {
    # kv_compress_epilog(Tensor(a!) kv_compress_cache, Tensor x,
    # Tensor slot_mapping, int quant_group_size, int quant_mode,
    # bool round_scale_flag, int layout) -> ()
    "torch.ops.npu.kv_compress_epilog": dict(
        where="sgl-project/sgl-kernel-npu@"
              "064559ba892155ea1b1cd4f8622472a4e5d3d1dd:"
              "csrc/pytorch_extensions.cpp:157",
        tensors=("kv_compress_cache!", "x", "slot_mapping"),
        attrs=("quant_group_size", "quant_mode", "round_scale_flag",
               "layout"),
        returns=(None,), case_names=_SGK_NAMES),
    # the schema (csrc/torch_binding.cpp) was not readable: the meta
    # function's arguments (csrc/torch_binding_meta.cpp
    # kv_compress_epilog_meta: kv_compress_cache, x, slot_mapping,
    # quant_group_size, quant_mode, round_scale_flag, layout) and its
    # caller's keywords, as the research note read them
    # (shared/spec/reference/quant_epilogs.md §5.3)
    "torch.ops._C_ascend.kv_compress_epilog": dict(
        where="vllm-project/vllm-ascend@182b75ea84:"
              "vllm_ascend/device/device_op.py:1473",
        tensors=("kv_compress_cache!", "x", "slot_mapping"),
        attrs=("quant_group_size", "quant_mode", "round_scale_flag",
               "layout"),
        returns=(None,), case_names=_SGK_NAMES),
    # kv_compress_epilog(Tensor(a!) kv_compress_cache, Tensor x,
    # Tensor slot_mapping, *, int quant_group_size=64, int quant_mode=2,
    # bool round_scale_flag=True, float scale=1.0) -> ()
    "torch.ops.custom.kv_compress_epilog": dict(
        where="hicann/cann-recipes-infer@"
              "fbc225d2de3157a093a2e7dfc2b23086d23ed8f9:ops/ascendc/"
              "torch_ops_extension/custom_ops/csrc/"
              "ops_def_registration.cpp:95",
        tensors=("kv_compress_cache!", "x", "slot_mapping"),
        attrs=("quant_group_size", "quant_mode", "round_scale_flag",
               "scale"),
        returns=(None,), case_names=dict(_SGK_NAMES, scale="x_scale")),
    # custom.kv_compress_epilog_v2(Tensor(a!) cache, Tensor x,
    # Tensor slot_mapping, *, int quant_group_size=32,
    # str quant_mode="mxfp8_bf16", bool round_scale=True,
    # float x_scale=1.0) -> () (its page; the C++ registration is not in
    # the index)
    "torch.ops.custom.kv_compress_epilog_v2": dict(
        where="hicann/cann-recipes-infer@"
              "5fda5b8ba1fe4ac50c256e87c2c401f3fd367023:ops/ascendc/docs/"
              "custom-npu_kv_compress_epilog_v2.md:40",
        tensors=("cache!", "x", "slot_mapping"),
        attrs=("quant_group_size", "quant_mode", "round_scale", "x_scale"),
        returns=(None,), case_names={}),
    # kv_compress_epilog(Tensor(a!) cache, Tensor x, Tensor slot_mapping,
    # *, int quant_group_size=64, str quant_mode="fp8_e8m0",
    # bool round_scale=True, float x_scale=1.0) -> ()
    "cann_ops_transformer.kv_compress_epilog": dict(
        where="cannmirror/ops-transformer@"
              "25fb6b92890d33582f2a377aa5f9c975301a73a3:torch_extension/"
              "cann_ops_transformer/ops/kv_compress_epilog.py:55",
        tensors=("cache!", "x", "slot_mapping"),
        attrs=("quant_group_size", "quant_mode", "round_scale", "x_scale"),
        returns=(None,), case_names={}),
    # the schema the package registers (OpBuilder.schema, :47-52), the
    # spelling ops-test-kit's CSVs and DeepSeek-V4 use
    "torch.ops.cann_ops_transformer.kv_compress_epilog": dict(
        where="cannmirror/ops-transformer@"
              "25fb6b92890d33582f2a377aa5f9c975301a73a3:torch_extension/"
              "cann_ops_transformer/ops/kv_compress_epilog.py:47",
        tensors=("cache!", "x", "slot_mapping"),
        attrs=("quant_group_size", "quant_mode", "round_scale", "x_scale"),
        returns=(None,), case_names={}),
}
