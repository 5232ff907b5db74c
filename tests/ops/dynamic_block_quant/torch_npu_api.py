"""torch_npu's own signatures of this operator's APIs, the outside truth
its call forms (tools/lib/bindings/<op>.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited per API (repo@commit:path:line). The fields:
tests/python/ttk_support.py, torch_npu_schemas()."""
SCHEMAS = {
    # npu_dynamic_block_quant(Tensor x, *, float min_scale=0.0,
    # str round_mode="rint", int dst_type=1, int row_block_size=1,
    # int col_block_size=128, float dst_type_max=0.0)
    # -> (Tensor y, Tensor scale)
    "torch_npu.npu_dynamic_block_quant": dict(
        where="Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
              "op_plugin/config/op_plugin_functions.yaml:7551",
        tensors=("x",),
        attrs=("min_scale", "round_mode", "dst_type", "row_block_size",
               "col_block_size", "dst_type_max"),
        returns=("y", "scale"), case_names={}),
}
