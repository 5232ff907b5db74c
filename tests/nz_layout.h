/*
 * tests/nz_layout.h - the two worked examples of the NZ-ordered packed-row
 * layout (kvgold/row_layout.h: heads, tiles, pieces), small enough to
 * visit every byte: C8-MXFP's K cache, fp8 viewed [Bn, N, D/32, Bs, 32]
 * (PA_NZ), and its E8M0 scale cache [Bn, N, Bs/16, D/64, 16, 2]
 * (vllm-ascend AscendC8MXFPAttentionBackend, quant_epilogs.md 6.3 of the
 * spec), as one layout over two tensors.
 *
 * The expected addresses (nz_k_index, nz_scale_index) are the row-major
 * flat index of those views, written from the shapes alone - not from
 * the layout's formula - so a test comparing the two checks the formula
 * and the layout's fields against the kernels' views. A token at slot s
 * is in block b = s / Bs at position o = s % Bs; its scale k (block of 32
 * channels k) is pair element q = k % 2 of pair j = k / 2
 * (`kscale_cache[b, n, o/16, j, o%16, q]`).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_NZ_LAYOUT_H
#define KVGOLD_TESTS_NZ_LAYOUT_H

#include <stdint.h>
#include <string.h>

#include "kvgold/row_layout.h"

#define NZ_D 128 /* head dim: 4 groups of 32, 2 scale pairs */
#define NZ_N 2   /* heads */
#define NZ_BS 32 /* block size: 2 tiles of 16 slots */
#define NZ_BN 2  /* blocks */
#define NZ_SLOTS (NZ_BN * NZ_BS)
#define NZ_K_BYTES (NZ_BN * NZ_N * NZ_D * NZ_BS)        /* 16384 */
#define NZ_S_BYTES (NZ_BN * NZ_N * NZ_BS * NZ_D / 32)   /* 512 */

enum { NZ_K = 0, NZ_SCALE = 1 };

/* [Bn, N, D/32, Bs, 32]: channel d of head n of slot s. */
static inline int64_t nz_k_index(int64_t s, int n, int64_t d)
{
    const int64_t b = s / NZ_BS, o = s % NZ_BS;

    return (((b * NZ_N + n) * (NZ_D / 32) + d / 32) * NZ_BS + o) * 32 +
           d % 32;
}

/* [Bn, N, Bs/16, D/64, 16, 2]: scale k of head n of slot s. */
static inline int64_t nz_scale_index(int64_t s, int n, int64_t k)
{
    const int64_t b = s / NZ_BS, o = s % NZ_BS, j = k / 2, q = k % 2;

    return ((((b * NZ_N + n) * (NZ_BS / 16) + o / 16) * (NZ_D / 64) + j) *
                16 +
            o % 16) *
               2 +
           q;
}

/* The layout, with the interface's fields: K heads N, head_stride D * Bs,
 * slot_stride 32, piece 32, piece_stride Bs * 32; scales heads N,
 * head_stride Bs * D/32, tile 16, tile_stride (D/64) * 32, slot_stride 2,
 * piece 2, piece_stride 32. */
static inline kvg_row_layout nz_layout(void)
{
    kvg_row_layout l;

    memset(&l, 0, sizeof l);
    l.name = "test c8 mxfp k";
    l.segments = 2;
    l.seg[NZ_K].name = "k", l.seg[NZ_K].field = KVG_ROW_PAYLOAD;
    l.seg[NZ_K].dtype = KVG_FP8_E4M3FN, l.seg[NZ_K].region = 0;
    l.seg[NZ_K].count = NZ_D, l.seg[NZ_K].group = 32, l.seg[NZ_K].of = -1;
    l.seg[NZ_K].piece = 32, l.seg[NZ_K].piece_stride = NZ_BS * 32;
    l.seg[NZ_SCALE].name = "k scale", l.seg[NZ_SCALE].field = KVG_ROW_SCALE;
    l.seg[NZ_SCALE].dtype = KVG_E8M0, l.seg[NZ_SCALE].region = 1;
    l.seg[NZ_SCALE].count = NZ_D / 32, l.seg[NZ_SCALE].of = NZ_K;
    l.seg[NZ_SCALE].piece = 2, l.seg[NZ_SCALE].piece_stride = 32;
    l.tensors = 2;
    l.tensor_name[0] = "cache";
    l.tensor_name[1] = "cache_scale";
    l.regions = 2;
    l.region_tensor[0] = 0, l.region_tensor[1] = 1;
    l.slot_stride[0] = 32, l.slot_stride[1] = 2;
    l.heads = NZ_N;
    l.head_stride[0] = NZ_D * NZ_BS, l.head_stride[1] = NZ_BS * NZ_D / 32;
    l.tile[1] = 16, l.tile_stride[1] = NZ_D / 64 * 32;
    l.block_size = NZ_BS;
    l.block_stride[0] = NZ_N * NZ_D * NZ_BS;
    l.block_stride[1] = NZ_N * NZ_BS * NZ_D / 32;
    l.blocks = NZ_BN;
    return l;
}

#endif /* KVGOLD_TESTS_NZ_LAYOUT_H */
