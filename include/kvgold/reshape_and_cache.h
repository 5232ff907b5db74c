/*
 * kvgold/reshape_and_cache.h - ATB ReshapeAndCacheOperation: the paged
 * KV-cache write, per token (ND / NZ caches) or per head (the two head
 * compression modes).
 *
 * compress_type UNDEFINED (the plain op). Token t with slot
 * s = slot_mapping[t] >= 0 is copied, bit for bit, to block s / block_size,
 * row s % block_size of each cache; a negative slot skips the token.
 *   ND  key_cache   [num_blocks, block_size, N, Dk]
 *       value_cache [num_blocks, block_size, N, Dv]
 *       key, value and both caches share one dtype: fp16, bf16 or int8.
 *   NZ  key_cache   [num_blocks, N*Dk/C0k, block_size, C0k]
 *       value_cache [num_blocks, N*Dv/16,  block_size, 16]
 *       the flattened token (N*D channels) is cut into chunks of C0 that go
 *       to cache[blk][c / C0][s % block_size][0..C0); C0 is 16 for
 *       fp16/bf16 and 32 for int8 (kvgold/layout.h). key is fp16, bf16 or
 *       int8; value is fp16 or bf16 (the ATB NZ kernel always moves the
 *       value as a 2-byte type); block_size % 16 == 0.
 *   key [num_tokens, N, Dk], value [num_tokens, N, Dv] (Dk may differ from
 *   Dv), slot_mapping [num_tokens] int32. Slots must be < num_blocks *
 *   block_size and, among the non-negative ones, distinct.
 *
 * compress_type KVHEAD and KVHEAD_ROPE (ND only), the per-head runs ATB's
 * Omni operator also writes (docs/reshape_and_cache_omni.md): key/value [num_tokens, N, D] with
 * D % 32 == 0, caches [num_blocks, block_size, 1, D], per-head int32
 * slot_mapping and wins [batch*N], seq_len [batch]; head i = b*N + h writes
 * a run of consecutive flat slots from slot_mapping[i] (skipped if
 * negative), crossing block boundaries.
 *   KVHEAD       ("alibi"; fp16, bf16 or int8): the w = wins[i] tokens
 *                that end where batch b ends, [L-w, L) of the batch; as
 *                ATB's kernel reads them, w > L takes the earlier batches'
 *                last tokens. 0 <= w <= seq_len[0] + ... + seq_len[b].
 *   KVHEAD_ROPE  (RazorAttention; fp16 or bf16, D <= 16384; needs
 *                offset_index [batch*N]): when o = offset_index[i] == -1 or
 *                w == 0, all L tokens; otherwise tokens [0, o), then ONE
 *                compensation token, then [o+w, L) (L - w + 1 slots). The
 *                compensation token is, per channel, acc = +0.0f;
 *                acc = acc + x[j] for j = o .. o+w-1 in binary32, then
 *                acc / (float)w, rounded to nearest even into the cache
 *                dtype (overflow to inf).
 * Value checks as for Omni: seq_len >= 1 and their sum <= num_tokens,
 * wins and offset_index ranges (KVHEAD: as above; KVHEAD_ROPE:
 * wins is ignored where offset_index is -1), runs inside the cache, no two
 * runs sharing a slot. NZ caches with a compress type are refused (as ATB).
 *
 * kv_cache_cfg K_CACHE_V_BYPASS (ATB's SISO kernel, torch_npu's
 * _npu_reshape_and_cache_siso): key only. value and value_cache must be
 * NULL; compress_type UNDEFINED and an ND key_cache [num_blocks, block_size,
 * N, D] of key's dtype (fp16, bf16 or int8, any D); the token rules above.
 *
 * Tensors a mode does not use (wins, seq_len for UNDEFINED; offset_index
 * unless KVHEAD_ROPE; value, value_cache for K_CACHE_V_BYPASS) must be
 * NULL, so a case cannot silently ignore them.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_RESHAPE_AND_CACHE_H
#define KVGOLD_RESHAPE_AND_CACHE_H

#include <stddef.h>

#include "kvgold/api.h"
#include "kvgold/layout.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ATB's infer::ReshapeAndCacheParam::CompressType, same values. */
typedef enum kvg_rac_compress {
    KVG_RAC_COMPRESS_UNDEFINED = 0,
    KVG_RAC_COMPRESS_KVHEAD = 1,
    KVG_RAC_COMPRESS_KVHEAD_ROPE = 2
} kvg_rac_compress;

/* ATB's infer::ReshapeAndCacheParam::KvCacheCfg, same values; its
 * K_CACHE_V_CACHE_NZ (2) is cache_layout KVG_LAYOUT_NZ here. */
typedef enum kvg_rac_kv_cache_cfg {
    KVG_RAC_K_CACHE_V_CACHE = 0,
    KVG_RAC_K_CACHE_V_BYPASS = 1
} kvg_rac_kv_cache_cfg;

typedef struct kvg_reshape_and_cache_args {
    const kvg_tensor *key;
    const kvg_tensor *value;       /* NULL for K_CACHE_V_BYPASS */
    const kvg_tensor *key_cache;   /* in place */
    const kvg_tensor *value_cache; /* in place; NULL for K_CACHE_V_BYPASS */
    const kvg_tensor *slot_mapping;
    const kvg_tensor *wins;         /* KVHEAD, KVHEAD_ROPE */
    const kvg_tensor *seq_len;      /* KVHEAD, KVHEAD_ROPE */
    const kvg_tensor *offset_index; /* KVHEAD_ROPE */
    /* Default KVG_RAC_COMPRESS_UNDEFINED. */
    kvg_rac_compress compress_type;
    /* KVG_LAYOUT_ND (default) or KVG_LAYOUT_NZ; BNSD is refused. */
    kvg_layout_kind cache_layout;
    /* Default KVG_RAC_K_CACHE_V_CACHE; K_CACHE_V_BYPASS writes key only. */
    kvg_rac_kv_cache_cfg kv_cache_cfg;
    void *workspace;
    size_t workspace_size;
} kvg_reshape_and_cache_args;

/* Every tensor NULL, compress UNDEFINED, layout ND, K_CACHE_V_CACHE, no
 * workspace. */
KVG_API void kvg_reshape_and_cache_args_init(kvg_reshape_and_cache_args *args);

/* "UNDEFINED" / "KVHEAD" / "KVHEAD_ROPE"; NULL for an invalid value. */
KVG_API const char *kvg_rac_compress_name(kvg_rac_compress type);
/* Parse a name; returns 0 and leaves *type when it is not one. */
KVG_API int kvg_rac_compress_from_name(const char *name,
                                       kvg_rac_compress *type);

/* "K_CACHE_V_CACHE" / "K_CACHE_V_BYPASS"; NULL for an invalid value. */
KVG_API const char *kvg_rac_kv_cache_cfg_name(kvg_rac_kv_cache_cfg cfg);
/* Parse a name; returns 0 and leaves *cfg when it is not one. */
KVG_API int kvg_rac_kv_cache_cfg_from_name(const char *name,
                                           kvg_rac_kv_cache_cfg *cfg);

/*
 * Bytes of workspace the call needs (slot sorting for the duplicate and
 * overlap checks; the batch offsets and two rows of floats for KVHEAD_ROPE).
 * Depends only on the shapes; checks presence, dtypes and shapes first.
 */
KVG_API kvg_status kvg_reshape_and_cache_workspace_size(
    const kvg_reshape_and_cache_args *args, size_t *bytes, kvg_diag *diag);

/*
 * Write the tokens into key_cache and value_cache. Returns KVG_OK,
 * KVG_ERR_PARAM_NULLPTR (161001), KVG_ERR_PARAM_INVALID (161002) or
 * KVG_ERR_WORKSPACE; on any error no cache byte has changed.
 */
KVG_API kvg_status kvg_reshape_and_cache(const kvg_reshape_and_cache_args *args,
                                         kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_RESHAPE_AND_CACHE_H */
