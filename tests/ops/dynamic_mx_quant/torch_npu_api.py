"""torch_npu's own signatures of this operator's APIs, the outside truth
its call forms (tools/lib/bindings/<op>.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited per API (repo@commit:path:line). The fields:
tests/python/ttk_support.py, torch_npu_schemas()."""
SCHEMAS = {
    # npu_dynamic_mx_quant(Tensor input, *, int axis=-1,
    # str round_mode="rint", int dst_type=296, int block_size=32,
    # int? scale_alg=0, float dst_type_max=0.0, float max_low_bound=0.0)
    # -> (Tensor, Tensor)
    "torch_npu.npu_dynamic_mx_quant": dict(
        where="Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
              "op_plugin/config/op_plugin_functions.yaml:6148",
        tensors=("input",),
        attrs=("axis", "round_mode", "dst_type", "block_size", "scale_alg",
               "dst_type_max", "max_low_bound"),
        returns=("y", "mxscale"), case_names={"input": "x"}),
}
