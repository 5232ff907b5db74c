"""ScatterPaKvCache as aclnnScatterPaKvCache (scatter_pa_kv_cache) and as
torch_npu.npu_scatter_pa_kv_cache / npu_scatter_pa_kv_cache_functional.

torch_npu's default cache_mode is "PA_NZ" while the operator's own is
"Norm": an ND cache written without cache_mode="Norm" receives NZ bytes
(docs/scatter_pa_kv_cache.md, "the default trap"). The torch_npu functions
keep torch_npu's default, so they reproduce that trap faithfully.
"""
from typing import (Any, FrozenSet, Mapping, Optional, Sequence, Tuple)

from .._types import DTypes, TensorLike
from ._common import call, framework_value

__all__ = ["scatter_pa_kv_cache", "npu_scatter_pa_kv_cache",
           "npu_scatter_pa_kv_cache_functional"]


# What only Python knows of torch_npu's call of this operator
# (kvgold/ops/__init__.py describes the fields; its arguments, outputs and
# default cache_mode PA_NZ are tools/lib/bindings/scatter_pa_kv_cache.c).
TORCH_NPU_PYTHON: Mapping[str, Mapping[str, Any]] = {
    "torch_npu.npu_scatter_pa_kv_cache": {
        "function": "npu_scatter_pa_kv_cache_functional",
        "ttk_spec": "KvgoldScatterPaKvCacheTestSpec",
        "ttk_golden": "scatter_pa_kv_cache_golden"},
}

# It copies caches of any dtype, float32 included: FP32_ARGS None.
FP32_ARGS: Optional[FrozenSet[str]] = None



def scatter_pa_kv_cache(
        key: TensorLike, key_cache: TensorLike, slot_mapping: TensorLike,
        value: Optional[TensorLike] = None,
        value_cache: Optional[TensorLike] = None, *,
        compress_lens: Optional[TensorLike] = None,
        compress_seq_offset: Optional[TensorLike] = None,
        seq_lens: Optional[TensorLike] = None, cache_mode: str = "Norm",
        scatter_mode: str = "None", strides: Sequence[int] = (1, 1),
        offsets: Sequence[int] = (0, 0), dtypes: DTypes = None,
        inplace: bool = True
) -> Tuple[TensorLike, Optional[TensorLike]]:
    """aclnnScatterPaKvCache (the op's defaults: cache_mode "Norm",
    scatter_mode "None"). value / value_cache None: key-only. With
    scatter_mode "Nct", key and value are the storages the strided views
    live in (token t at element t*strides[i] + offsets[i]).
    Returns (key_cache, value_cache); value_cache is None when key-only."""
    out = call("scatter_pa_kv_cache", dict(
        key=key, key_cache=key_cache, slot_mapping=slot_mapping, value=value,
        value_cache=value_cache, compress_lens=compress_lens,
        compress_seq_offset=compress_seq_offset, seq_lens=seq_lens),
        dict(cache_mode=cache_mode, scatter_mode=scatter_mode,
             strides=list(strides), offsets=list(offsets)), None,
        dtypes, inplace)
    return out["key_cache"], out.get("value_cache")


def _auto_scatter_mode(key: TensorLike, compress_lens: Optional[TensorLike],
                       compress_seq_offsets: Optional[TensorLike],
                       seq_lens: Optional[TensorLike]) -> str:
    """The scatter_mode a torch_npu call reaches: torch_npu always passes
    None, which the 950 turns into Alibi or Rope for a 4-D key with
    compress_lens and seq_lens (docs/scatter_pa_kv_cache.md). The rule is
    the C call form's (tools/lib/bindings/scatter_pa_kv_cache.c), which
    `kvgold scan` and `kvgold prepare` follow too."""
    return str(framework_value(
        "torch_npu.npu_scatter_pa_kv_cache", "scatter_mode",
        {"key": key, "compress_lens": compress_lens,
         "compress_seq_offset": compress_seq_offsets, "seq_lens": seq_lens}))


def npu_scatter_pa_kv_cache(
        key: TensorLike, value: Optional[TensorLike], key_cache: TensorLike,
        value_cache: Optional[TensorLike], slot_mapping: TensorLike, *,
        compress_lens: Optional[TensorLike] = None,
        compress_seq_offsets: Optional[TensorLike] = None,
        seq_lens: Optional[TensorLike] = None,
        cache_mode: Optional[str] = "PA_NZ") -> None:
    """torch_npu.npu_scatter_pa_kv_cache: key_cache and value_cache updated
    in place; returns None as torch_npu does. cache_mode=None is the op's
    own default, Norm (torch_npu passes a null pointer)."""
    scatter_pa_kv_cache(key, key_cache, slot_mapping, value, value_cache,
                        compress_lens=compress_lens,
                        compress_seq_offset=compress_seq_offsets,
                        seq_lens=seq_lens,
                        cache_mode="Norm" if cache_mode is None
                        else cache_mode,
                        scatter_mode=_auto_scatter_mode(
                            key, compress_lens, compress_seq_offsets,
                            seq_lens))


def npu_scatter_pa_kv_cache_functional(
        key: TensorLike, value: Optional[TensorLike], key_cache: TensorLike,
        value_cache: Optional[TensorLike], slot_mapping: TensorLike, *,
        compress_lens: Optional[TensorLike] = None,
        compress_seq_offsets: Optional[TensorLike] = None,
        seq_lens: Optional[TensorLike] = None,
        cache_mode: Optional[str] = "PA_NZ"
) -> Tuple[TensorLike, Optional[TensorLike]]:
    """torch_npu.npu_scatter_pa_kv_cache_functional: the same write on
    copies of the caches; returns (key_cache, value_cache), the inputs
    untouched."""
    return scatter_pa_kv_cache(key, key_cache, slot_mapping, value,
                               value_cache, compress_lens=compress_lens,
                               compress_seq_offset=compress_seq_offsets,
                               seq_lens=seq_lens,
                               cache_mode="Norm" if cache_mode is None
                               else cache_mode,
                               scatter_mode=_auto_scatter_mode(
                                   key, compress_lens, compress_seq_offsets,
                                   seq_lens), inplace=False)
