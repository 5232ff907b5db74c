"""Golden ReshapeAndCacheOmni: the per-head run engine (kvgen/head_runs.py)
in its Omni form.

Head i = b*N + h keeps tokens [0, o) and [o+w, L) of its batch (all L when
o == -1 or w == 0) and writes the k-th, bit for bit, to flat slot
slot_mapping[i] + k.
"""
from .head_runs import (bits, check_runs, head_params, omni,  # noqa: F401
                        omni_counts, ragged, scatter_rows)


def reshape_and_cache_omni(key, value, key_cache, value_cache, slot_mapping,
                           wins, seq_len, offset_index):
    """Return the updated (key_cache, value_cache); inputs are not changed."""
    return omni(key, value, key_cache, value_cache, slot_mapping, wins,
                seq_len, offset_index)
