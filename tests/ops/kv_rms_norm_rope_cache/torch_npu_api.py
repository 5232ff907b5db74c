"""torch_npu's own signatures of this operator's APIs, the outside truth
its call forms (tools/lib/bindings/<op>.c, as kvgold.ops reads them) are
checked against (tests/python/test_prepare.py, test_ttk.py,
test_msprobe.py), cited per API (repo@commit:path:line). The fields:
tests/python/ttk_support.py, torch_npu_schemas(). The Tensors the APIs
return are named as the operator's page (docs/) names them."""
_SOURCE = ("Ascend/op-plugin@517f2e7d0f202f38b76310706cb977ca2388ad21:"
           "op_plugin/config/op_plugin_functions.yaml:")
SCHEMAS = {
    "torch_npu.npu_kv_rmsnorm_rope_cache_v2": dict(
        where=_SOURCE + "5922",
        tensors=("kv", "gamma", "cos", "sin", "index", "k_cache!",
                 "ckv_cache!", "k_rope_scale", "c_kv_scale",
                 "k_rope_offset", "c_kv_offset", "v"),
        attrs=("epsilon", "cache_mode", "is_output_kv", "k_cache_dtype",
               "ckv_cache_dtype"),
        returns=("k_rope", "c_kv"), case_names={}),
    "torch_npu.npu_kv_rmsnorm_rope_cache": dict(
        where=_SOURCE + "5919",
        tensors=("kv", "gamma", "cos", "sin", "index", "k_cache",
                 "ckv_cache", "k_rope_scale", "c_kv_scale",
                 "k_rope_offset", "c_kv_offset", "v"),
        attrs=("epsilon", "cache_mode", "is_output_kv"),
        returns=("k_cache", "ckv_cache", "k_rope", "c_kv"), case_names={},
        not_in_form={"v": "a case with v is the _v2 form's (its "
                          "selector), so prepare never writes this API "
                          "with v"}),
}
