"""ops-test-kit's plug-in entries for this operator's torch_npu APIs:
kvgold as golden and as third party (kvgold.ttk, docs/ttk.md). The tables
are literals: ops-test-kit reads them without running this file."""
from kvgold.ttk import (  # noqa: F401 (named by the tables)
    KvgoldScatterPaKvCacheTestSpec,
    scatter_pa_kv_cache_golden,
)

__spec__ = {
    "torch_npu.npu_scatter_pa_kv_cache":
        "KvgoldScatterPaKvCacheTestSpec",
}

__golden__ = {
    "e2e": {
        "torch_npu.npu_scatter_pa_kv_cache":
            "scatter_pa_kv_cache_golden",
    },
}
