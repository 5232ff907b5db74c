"""torch_npu's own signatures of KvRmsNormRopeCache's APIs, the outside
truth kvgold's call forms (tools/lib/bindings/kv_rms_norm_rope_cache.c) are
checked against (tests/python/test_prepare.py, test_ttk.py); the fields
are those of tests/ops/reshape_and_cache/torch_npu_api.py. The Tensors the
APIs return are named as docs/kv_rms_norm_rope_cache.md names them.
"not_in_form": an argument of the schema kvgold's form leaves out, and
why."""
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
