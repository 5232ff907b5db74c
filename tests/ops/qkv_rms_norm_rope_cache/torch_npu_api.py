"""torch_npu's own signatures of this operator's APIs, the outside truth
its call forms (tools/lib/bindings/<op>.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited per API (repo@commit:path:line). The fields:
tests/python/ttk_support.py, torch_npu_schemas(). The three Tensors the
API returns are the "before quant" outputs (the operator's page, docs/)."""
SCHEMAS = {
    "torch_npu.npu_qkv_rms_norm_rope_cache": dict(
        where="Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
              "op_plugin/config/op_plugin_functions.yaml:5928",
        tensors=("qkv", "q_gamma", "k_gamma", "cos", "sin", "index",
                 "q_out!", "k_cache!", "v_cache!", "k_scale", "v_scale",
                 "k_offset", "v_offset"),
        attrs=("qkv_size", "head_nums", "epsilon", "cache_mode",
               "is_output_qkv"),
        returns=("q_out_before_quant", "k_out_before_quant",
                 "v_out_before_quant"),
        case_names={}),
}
