"""ops-test-kit's plug-in entries for this operator's torch_npu APIs:
kvgold as golden and as third party (kvgold.ttk, docs/ttk.md). The tables
are literals: ops-test-kit reads them without running this file."""
from kvgold.ttk import (  # noqa: F401 (named by the tables)
    KvgoldQkvRmsNormRopeCacheTestSpec,
    qkv_rms_norm_rope_cache_golden,
)

__spec__ = {
    "torch_npu.npu_qkv_rms_norm_rope_cache":
        "KvgoldQkvRmsNormRopeCacheTestSpec",
}

__golden__ = {
    "e2e": {
        "torch_npu.npu_qkv_rms_norm_rope_cache":
            "qkv_rms_norm_rope_cache_golden",
    },
}
