/*
 * kvgold/reshape_and_cache_omni.h - ATB ReshapeAndCacheOmniOperation, the
 * paged KV-cache write of OmniAttention head compression.
 *
 * Each (batch b, head h) pair, i = b*N + h, owns a run of consecutive flat
 * cache slots starting at slot_mapping[i]. Its tokens are the seq_len[b] rows
 * of batch b (batch b starts at row cum[b] = seq_len[0] + ... + seq_len[b-1]
 * of key/value). With L = seq_len[b], w = wins[i], o = offset_index[i]:
 *
 *   compression active  (o != -1 and w != 0): tokens [0, o) then [o+w, L)
 *                                             (the window [o, o+w) is dropped)
 *   otherwise                                 all tokens [0, L)
 *
 * and the k-th kept token goes to flat slot slot_mapping[i] + k, which may
 * run across block boundaries into the next block: flat slot s is
 * cache[s / block_size][s % block_size][0][:]. K and V use the same slots.
 * The copy is bit-exact (no arithmetic); every other cache byte is left as
 * it was. A negative slot_mapping[i] skips head i (as the ATB Python
 * goldens; the device kernel has no such check).
 *
 * Tensors (spec section 5 names):
 *   key, value        [num_tokens, N, D]            fp16 or bf16
 *   key_cache,        [num_blocks, block_size, 1, D] the dtype of key,
 *   value_cache                                      updated in place
 *   slot_mapping,     [batch*N]                     int32
 *   wins, offset_index
 *   seq_len           [batch]                       int32
 * with D % 32 == 0, D <= 16384 and batch*N < 500 (the ATB limits).
 *
 * Checks the real operator does not make but an oracle must (all 161002,
 * all before the first byte is written; docs/reshape_and_cache.md):
 *   seq_len[b] >= 1; seq_len[0] + ... + seq_len[batch-1] <= num_tokens;
 *   offset_index[i] == -1 (then wins[i] is ignored, whatever it holds: the
 *   decode step keeps the prefill wins next to seq_len 1), or
 *   0 <= wins[i] <= seq_len[b] and 0 <= offset_index[i] <= seq_len[b] -
 *   wins[i];
 *   for slot_mapping[i] >= 0: slot_mapping[i] < num_blocks*block_size and
 *   the run [slot_mapping[i], slot_mapping[i] + count) fits in the cache;
 *   no two heads' runs share a slot (distinct start slots are not enough).
 * The message names the head as "head i (batch b, head h)".
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_RESHAPE_AND_CACHE_OMNI_H
#define KVGOLD_RESHAPE_AND_CACHE_OMNI_H

#include <stddef.h>

#include "kvgold/api.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ATB limit on batch*N (the kernel keeps per-head arrays on chip). */
#define KVG_OMNI_MAX_HEADS 500
/* The ATB limit on D. */
#define KVG_OMNI_MAX_DIM 16384

typedef struct kvg_reshape_and_cache_omni_args {
    const kvg_tensor *key;
    const kvg_tensor *value;
    const kvg_tensor *key_cache;   /* in place */
    const kvg_tensor *value_cache; /* in place */
    const kvg_tensor *slot_mapping;
    const kvg_tensor *wins;
    const kvg_tensor *seq_len;
    const kvg_tensor *offset_index;
    /* Caller-owned scratch of at least
     * kvg_reshape_and_cache_omni_workspace_size bytes (any alignment). */
    void *workspace;
    size_t workspace_size;
} kvg_reshape_and_cache_omni_args;

/* Every tensor NULL, no workspace. The op has no attributes (ATB's param is
 * eight reserved bytes). */
KVG_API void kvg_reshape_and_cache_omni_args_init(
    kvg_reshape_and_cache_omni_args *args);

/*
 * Bytes of workspace the call needs (index sorting for the overlap check and
 * the batch offsets). Depends only on the shapes; checks the tensors'
 * presence, dtypes and shapes first and fails as the op would.
 */
KVG_API kvg_status kvg_reshape_and_cache_omni_workspace_size(
    const kvg_reshape_and_cache_omni_args *args, size_t *bytes,
    kvg_diag *diag);

/*
 * Write the kept tokens of every head into key_cache and value_cache.
 * Returns KVG_OK, KVG_ERR_PARAM_NULLPTR (161001), KVG_ERR_PARAM_INVALID
 * (161002) or KVG_ERR_WORKSPACE; on any error no cache byte has changed.
 */
KVG_API kvg_status kvg_reshape_and_cache_omni(
    const kvg_reshape_and_cache_omni_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_RESHAPE_AND_CACHE_OMNI_H */
