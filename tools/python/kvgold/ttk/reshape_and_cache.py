"""ops-test-kit's plug-in entries for this operator's torch_npu APIs:
kvgold as golden and as third party (kvgold.ttk, docs/ttk.md). The tables
are literals: ops-test-kit reads them without running this file."""
from kvgold.ttk import (  # noqa: F401 (named by the tables)
    KvgoldReshapeAndCacheSisoTestSpec,
    KvgoldReshapeAndCacheTestSpec,
    reshape_and_cache_golden,
    reshape_and_cache_siso_golden,
)

__spec__ = {
    "torch_npu._npu_reshape_and_cache":
        "KvgoldReshapeAndCacheTestSpec",
    "torch_npu._npu_reshape_and_cache_siso":
        "KvgoldReshapeAndCacheSisoTestSpec",
}

__golden__ = {
    "e2e": {
        "torch_npu._npu_reshape_and_cache":
            "reshape_and_cache_golden",
        "torch_npu._npu_reshape_and_cache_siso":
            "reshape_and_cache_siso_golden",
    },
}
