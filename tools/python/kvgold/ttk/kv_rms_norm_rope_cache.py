"""ops-test-kit's plug-in entries for this operator's torch_npu APIs:
kvgold as golden and as third party (kvgold.ttk, docs/ttk.md). The tables
are literals: ops-test-kit reads them without running this file."""
from kvgold.ttk import (  # noqa: F401 (named by the tables)
    KvgoldKvRmsNormRopeCacheTestSpec,
    KvgoldKvRmsNormRopeCacheV2TestSpec,
    kv_rmsnorm_rope_cache_golden,
    kv_rmsnorm_rope_cache_v2_golden,
)

__spec__ = {
    "torch_npu.npu_kv_rmsnorm_rope_cache_v2":
        "KvgoldKvRmsNormRopeCacheV2TestSpec",
    "torch_npu.npu_kv_rmsnorm_rope_cache":
        "KvgoldKvRmsNormRopeCacheTestSpec",
}

__golden__ = {
    "e2e": {
        "torch_npu.npu_kv_rmsnorm_rope_cache_v2":
            "kv_rmsnorm_rope_cache_v2_golden",
        "torch_npu.npu_kv_rmsnorm_rope_cache":
            "kv_rmsnorm_rope_cache_golden",
    },
}
