/*
 * kvgold/scatter_pa_kv_cache.h - ScatterPaKvCache (ops-transformer
 * attention/scatter_pa_kv_cache, aclnnScatterPaKvCache, torch_npu
 * npu_scatter_pa_kv_cache): the paged KV-cache write vLLM-Ascend calls.
 *
 * Every scenario is a byte copy except Rope's mean token. T = slot_mapping
 * dim 0; s = slot_mapping[t]; block s / BS, row s % BS.
 *
 *   Norm / None   key [T, N, Dk] -> key_cache [NB, BS, N, Dk]: the token's
 *                 N*Dk elements to flat element s*N*Dk. value alike with Dv.
 *   Norm / Nct    as Norm / None, but `key` is the STORAGE the caller's
 *                 non-contiguous view lives in (any dense tensor): token t is
 *                 the N*Dk contiguous elements from element
 *                 t*strides[0] + offsets[0] (value: strides[1],
 *                 offsets[1]); N and Dk come from key_cache.
 *   Norm / NHSD   key [T, N, D] -> key_cache [NB, N, BS, D]: head h of the
 *                 token to cache[s / BS][h][s % BS][:].
 *   PA_NZ / None  key [T, N, Dk] -> key_cache [NB, N*Dk/C0, BS, C0] or
 *                 [NB, N, Dk/C0, BS, C0] (the same bytes): chunk c of C0
 *                 elements of the flattened token to cache[s/BS][c][s%BS][:],
 *                 C0 = 32 bytes of the CACHE's dtype. The K pair and the V
 *                 pair may have different dtypes.
 *   key-only      (Norm / None or Nct) value and value_cache both NULL, or
 *                 both rank 0 (aclnn's 0-dim value_cache): only the key.
 *   Norm / Alibi, Rope, Omni (the compressed modes: the semantics of ATB's
 *                 per-head paged copies, computed by the same engine;
 *                 docs/scatter_pa_kv_cache.md): key / value [T, N, D],
 *                 caches [NB, BS, 1, D] (D*size a multiple of 32 bytes),
 *                 slot_mapping, compress_lens and (Rope, Omni)
 *                 compress_seq_offset per head [B*N], seq_lens [B]; head
 *                 i = b*N + h (batch b = rows sum(seq_lens[:b]) ..) writes a
 *                 run of consecutive flat slots from slot_mapping[i]
 *                 (skipped if negative), crossing block boundaries:
 *                   Alibi  the last w = compress_lens[i] tokens;
 *                   Omni   [0, o) and [o+w, L), o = compress_seq_offset[i];
 *                   Rope   [0, o), ONE mean token of [o, o+w) (binary32
 *                          from +0 in token order, / (float)w, RNE to
 *                          fp16 / bf16), [o+w, L);
 *                 Omni and Rope keep all L tokens when o == -1 or w == 0.
 *                 Refused: seq_lens < 1 or summing past T, w outside
 *                 [0, L], o outside {-1} u [0, L-w], runs past the cache or
 *                 sharing a slot, Dv != Dk. Dtypes: Alibi / Omni every copy
 *                 dtype but fp4, Rope fp16 / bf16; index tensors all int32
 *                 or all int64.
 *
 * Dtypes (per-token scenarios): key == key_cache, value == value_cache,
 * key == value except in PA_NZ; fp16, fp32, bf16, int8, uint8, int16,
 * uint16, int32, uint32, hif8, fp8_e5m2, fp8_e4m3fn, and the packed fp4_e2m1 / fp4_e1m2 (one element =
 * one byte = two codes, kvgold/dtype.h: shapes count bytes, so a head of D
 * fp4 codes has D/2 elements, D even; a copy moves whole bytes and never
 * splits a nibble) in Norm / None (with a value) and PA_NZ only.
 * slot_mapping int32 or int64.
 *
 * Slots: a negative slot skips the token (refused in NHSD, whose kernel does
 * not skip it and writes before the block); a slot >= NB*BS and two tokens
 * writing one slot are refused, naming the tokens and the slot (the NPU does
 * not check them and would write past the cache or race). Shape rules as
 * the A2 tiling: NB*BS >= T; NZ: Dk*size and Dv*size multiples of 32 bytes,
 * BS <= 65535; NHSD: D*size a multiple of 32, N <= 4095,
 * (N*Dk + N*Dv)*size <= 196608.
 *
 * strides / offsets are read only in Nct (every other scenario ignores
 * them, as the kernels do); in Nct they must be >= 1 / >= 0 and every token
 * must lie inside the storage.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SCATTER_PA_KV_CACHE_H
#define KVGOLD_SCATTER_PA_KV_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/layout.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cache_mode is kvgold/layout.h's kvg_cache_mode: KVG_CACHE_NORM or
 * KVG_CACHE_PA_NZ (the others are refused by name). The op's own default is
 * Norm; torch_npu's is PA_NZ (the default trap,
 * docs/scatter_pa_kv_cache.md). The attribute "cache_mode" also reads "" as
 * Norm, as aclnn does. The first spellings stay readable: */
typedef kvg_cache_mode kvg_scatter_cache_mode;
#define KVG_SCATTER_CACHE_NORM KVG_CACHE_NORM
#define KVG_SCATTER_CACHE_PA_NZ KVG_CACHE_PA_NZ
#define kvg_scatter_cache_mode_name kvg_cache_mode_name

/* scatter_mode: "None", "Nct", "NHSD", "Alibi", "Rope", "Omni". */
typedef enum kvg_scatter_mode {
    KVG_SCATTER_NONE = 0,
    KVG_SCATTER_NCT = 1,
    KVG_SCATTER_NHSD = 2,
    KVG_SCATTER_ALIBI = 3,
    KVG_SCATTER_ROPE = 4,
    KVG_SCATTER_OMNI = 5
} kvg_scatter_mode;

typedef struct kvg_scatter_pa_kv_cache_args {
    const kvg_tensor *key;
    const kvg_tensor *key_cache;    /* in place */
    const kvg_tensor *slot_mapping; /* [T] int32 or int64 */
    const kvg_tensor *value;        /* NULL (or rank 0): key-only */
    const kvg_tensor *value_cache;  /* in place; NULL (or rank 0): key-only */
    const kvg_tensor *compress_lens;       /* compressed modes */
    const kvg_tensor *compress_seq_offset; /* compressed modes */
    const kvg_tensor *seq_lens;            /* compressed modes */
    kvg_cache_mode cache_mode;             /* default Norm */
    kvg_scatter_mode scatter_mode;         /* default None */
    int64_t strides[2]; /* Nct: [key, value] in elements; default {1, 1} */
    int64_t offsets[2]; /* Nct: [key, value] in elements; default {0, 0} */
    void *workspace;
    size_t workspace_size;
} kvg_scatter_pa_kv_cache_args;

/* Every tensor NULL, Norm / None, strides {1, 1}, offsets {0, 0}. */
KVG_API void kvg_scatter_pa_kv_cache_args_init(
    kvg_scatter_pa_kv_cache_args *args);

/* scatter_mode names; NULL for an invalid value. from_name returns 0 and
 * leaves *mode when `name` is not one. */
KVG_API const char *kvg_scatter_mode_name(kvg_scatter_mode mode);
KVG_API int kvg_scatter_mode_from_name(const char *name,
                                       kvg_scatter_mode *mode);

/* Bytes of workspace (the slot sort of the duplicate / overlap checks;
 * the batch starts and two rows of floats for Rope); depends only on the
 * shapes, checks presence, dtypes and shapes first. */
KVG_API kvg_status kvg_scatter_pa_kv_cache_workspace_size(
    const kvg_scatter_pa_kv_cache_args *args, size_t *bytes, kvg_diag *diag);

/* Write the tokens into key_cache (and value_cache). KVG_OK, 161001,
 * 161002 or KVG_ERR_WORKSPACE; on any error no cache byte has changed. */
KVG_API kvg_status kvg_scatter_pa_kv_cache(
    const kvg_scatter_pa_kv_cache_args *args, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_SCATTER_PA_KV_CACHE_H */
