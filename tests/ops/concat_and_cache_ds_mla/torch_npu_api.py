"""vLLM's own signature of this operator's torch API, the outside truth
its call form (tools/lib/bindings/concat_and_cache_ds_mla.c, as
kvgold.ops reads it) is checked against (tests/python/test_prepare.py,
test_ttk.py, test_msprobe.py). The fields: tests/python/ttk_support.py,
torch_npu_schemas(); case_names maps an argument the API spells
otherwise to case.json's name (kv_cache_dtype "fp8_ds_mla" is the
preset vllm-fp8_ds_mla)."""
SCHEMAS = {
    # concat_and_cache_mla(Tensor kv_c, Tensor k_pe, Tensor! kv_cache,
    # Tensor slot_mapping, str kv_cache_dtype, Tensor scale) -> ()
    "torch.ops._C_cache_ops.concat_and_cache_mla": dict(
        where="vllm-project/vllm@"
              "00256d59e65973d42db9150c28218fce69615b13:"
              "csrc/torch_bindings.cpp (cache_ops.def of "
              "concat_and_cache_mla)",
        tensors=("kv_c", "k_pe", "kv_cache!", "slot_mapping", "scale"),
        attrs=("kv_cache_dtype",),
        returns=(None,), case_names={"kv_cache_dtype": "preset"}),
}
