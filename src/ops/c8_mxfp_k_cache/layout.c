/*
 * src/ops/c8_mxfp_k_cache/layout.c - the C8-MXFP K write as data for the
 * engines: MX quant's rule (e4m3fn, block 32, scale_alg 0) as a
 * group_quant rule, and one kvg_row_layout over the two caches, with N
 * heads, the PA_NZ pieces of the payload and the 16-slot tiles of the
 * scale cache (kvgold/row_layout.h has the byte formula).
 *
 *   key_cache [Bn, N, D/32, Bs, 32]: element e of head n of slot (b, o)
 *     at b*N*D*Bs + n*D*Bs + (e/32)*Bs*32 + o*32 + e%32
 *     -> head_stride D*Bs, slot_stride 32, piece 32, piece_stride Bs*32;
 *   key_scale_cache [Bn, N, Bs/16, D/64, 16, 2]: scale e = 2j + p of head
 *     n of slot (b, o) at b*N*Bs*D/32 + n*Bs*D/32 + (o/16)*(D/64)*32
 *     + (o%16)*2 + (e/2)*32 + e%2
 *     -> head_stride Bs*D/32, tile 16, tile_stride (D/64)*32,
 *        slot_stride 2, piece 2, piece_stride 32.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/ops/c8_mxfp_k_cache/internal.h"

/* The backend's MX quant (dst_type e4m3fn, scale_alg 0): R-OCP codes, the
 * payload x * 2^(127 - c) saturating, code 0 zeroes, 0xFF casts to +0
 * (group_quant.h says why these fields are that kernel). */
static void dmq_rule(kvg_i_group_rule *r, kvg_dtype key)
{
    memset(r, 0, sizeof *r);
    r->name = "R-OCP (MX quant e4m3fn, block 32, scale_alg 0)";
    r->amax = KVG_I_AMAX_ALL;
    r->e8m0 = KVG_E8M0_OCP;
    r->store = KVG_I_STORE_E8M0;
    r->op = KVG_I_PAY_DIV;
    r->clamp = 1;
    r->cast = KVG_FP8_E4M3FN;
    r->x_dtype = key;
    r->code0_zero = 1;
    r->nan_code_zero = 1;
}

void kvg_i_mxk_plan_layout(kvg_i_c8_mxfp_k_cache_plan *p, kvg_dtype key)
{
    kvg_row_layout *l = &p->layout;
    kvg_row_segment *s;
    const int64_t d = p->d, bs = p->block_size;

    dmq_rule(&p->rule, key);
    memset(l, 0, sizeof *l);
    l->name = "c8_mxfp_k_cache (vllm-ascend C8-MXFP K, PA_NZ)";
    l->tensors = 2;
    l->tensor_name[0] = "key_cache";
    l->tensor_name[1] = "key_scale_cache";
    l->regions = 2;
    l->region_tensor[0] = 0;
    l->region_tensor[1] = 1;
    l->block_size = bs;
    l->blocks = p->blocks;
    l->heads = (int)p->heads;
    /* key_cache */
    l->block_stride[0] = p->heads * d * bs;
    l->head_stride[0] = d * bs;
    l->slot_stride[0] = 32;
    /* key_scale_cache */
    l->block_stride[1] = p->heads * bs * (d / 32);
    l->head_stride[1] = bs * (d / 32);
    l->tile[1] = KVG_I_MXK_TILE;
    l->tile_stride[1] = (d / 64) * 32;
    l->slot_stride[1] = 2;
    l->segments = 2;
    s = &l->seg[0];
    s->name = "key";
    s->field = KVG_ROW_PAYLOAD;
    s->dtype = KVG_FP8_E4M3FN;
    s->region = 0;
    s->count = d;
    s->group = KVG_I_MXK_BLOCK;
    s->of = -1;
    s->piece = 32;
    s->piece_stride = bs * 32;
    s = &l->seg[1];
    s->name = "scale";
    s->field = KVG_ROW_SCALE;
    s->dtype = KVG_E8M0;
    s->region = 1;
    s->count = d / KVG_I_MXK_BLOCK;
    s->of = 0;
    s->piece = 2;
    s->piece_stride = 32;
    l->has_sink = 0;
    l->sink_slot = 0;
}

int kvg_i_mxk_sink(const kvg_tensor *slot_mapping, int64_t tokens)
{
    const kvg_i_packed_tokens k = {slot_mapping, tokens, 0,
                                   KVG_I_SLOT_SINK_SCALES};

    return kvg_i_packed_row_sink_raced(&k);
}
