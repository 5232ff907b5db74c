/*
 * src/ops/dynamic_mx_quant/entry.c - DynamicMxQuant: the entry points
 * (through the entry skeleton, src/common/entry.h) and the compute step
 * (validation is in check.c, the block arithmetic both use in blocks.c).
 *
 * The compute step walks x as [outer, n, inner] one block row at a time
 * (inner blocks side by side, so x is read in memory order): their codes
 * and multipliers (kvg_i_dynamic_mx_quant_block_row), the codes into
 * mxscale, then each element's x * m narrowed once. The rules are in
 * kvgold/dynamic_mx_quant.h; docs/dynamic_mx_quant.md cites the kernel.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/format.h"
#include "src/common/entry.h"
#include "src/ops/dynamic_mx_quant/internal.h"

void kvg_dynamic_mx_quant_args_init(kvg_dynamic_mx_quant_args *args)
{
    if (args == NULL)
        return;
    memset(args, 0, sizeof *args);
    args->axis = -1;
    args->round_mode = KVG_FP4_RINT;
    args->dst_type = KVG_FP4_E2M1;
    args->block_size = 32;
    args->scale_alg = 0;
    args->dst_type_max = 0.0;
    args->max_low_bound = 0.0;
}

/* The one rounding: fp4 in the round mode, fp8 nearest-even, both
 * saturating; NaN (the elements of a 0xFF block) to the +0 code (AscendC
 * Cast: "input nan, output 0"). The product x * m is exact (m a power of
 * two or 0; check.c refuses the subnormal products whose sign is open). */
static uint8_t narrow(const kvg_i_dynamic_mx_quant_plan *p, float z)
{
    if (z != z)
        return 0;
    switch (p->yt) {
    case KVG_FP8_E4M3FN:
        return kvg_f32_to_fp8e4m3fn(z, KVG_OVF_SATURATE);
    case KVG_FP8_E5M2:
        return kvg_f32_to_fp8e5m2(z, KVG_OVF_SATURATE);
    default:
        return kvg_f32_to_fp4e2m1(z, p->mode, KVG_FP4_NAN_ZERO);
    }
}

/* Code of flat element e into y: a byte, or a nibble of byte e / 2 (even
 * e low). Both nibbles of every byte are written (x's last dim is even). */
static void store(unsigned char *y, const kvg_i_dynamic_mx_quant_plan *p,
                  int64_t e, uint8_t code)
{
    unsigned char *at;

    if (!p->fp4) {
        y[e] = code;
        return;
    }
    at = y + e / 2;
    *at = (e & 1) ? (unsigned char)((*at & 0x0F) | (code << 4))
                  : (unsigned char)((*at & 0xF0) | code);
}

/* mxscale[o, j / 2, i, j % 2] (x's dims around the pair axis) for block
 * row j, from the codes the value pass computed; j == blocks is the pad
 * of an odd count, code 0x00. */
static void write_codes(const kvg_dynamic_mx_quant_args *a,
                        const kvg_i_dynamic_mx_quant_plan *p, int64_t o,
                        int64_t j, const kvg_i_dynamic_mx_quant_ws *w)
{
    unsigned char *s = (unsigned char *)a->mxscale->data;
    int64_t i;

    for (i = 0; i < p->inner; i++)
        s[((o * p->pairs + j / 2) * p->inner + i) * 2 + j % 2] =
            j < p->blocks ? w->code[kvg_i_dynamic_mx_quant_block(p, o, j, i)]
                          : 0;
}

/* One block of len contiguous elements from flat e0 (inner == 1), all
 * scaled by m: the common case, its loops chosen per y dtype outside
 * them. fp4 then means x's last dim is the axis and even (an odd unit dim
 * is refused), and e0 and len are even: whole bytes. NaN products (a
 * 0xFF block) give the +0 code, as narrow() says. */
static void contiguous(const kvg_dynamic_mx_quant_args *a,
                       const kvg_i_dynamic_mx_quant_plan *p, unsigned char *y,
                       int64_t e0, int64_t len, float m)
{
    const int64_t e1 = e0 + len;
    int64_t e;
    float z0, z1;

    if (m != m) { /* a 0xFF block: every product NaN */
        memset(y + (p->fp4 ? e0 / 2 : e0), 0,
               (size_t)(p->fp4 ? len / 2 : len));
        return;
    }
    switch (p->yt) {
    case KVG_FP8_E4M3FN:
        for (e = e0; e < e1; e++)
            y[e] = kvg_f32_to_fp8e4m3fn(kvg_i_dynamic_mx_quant_x(a, p, e) * m,
                                        KVG_OVF_SATURATE);
        return;
    case KVG_FP8_E5M2:
        for (e = e0; e < e1; e++)
            y[e] = kvg_f32_to_fp8e5m2(kvg_i_dynamic_mx_quant_x(a, p, e) * m,
                                      KVG_OVF_SATURATE);
        return;
    default:
        for (e = e0; e < e1; e += 2) {
            z0 = kvg_i_dynamic_mx_quant_x(a, p, e) * m;
            z1 = kvg_i_dynamic_mx_quant_x(a, p, e + 1) * m;
            y[e / 2] = kvg_fp4_pack(
                kvg_f32_to_fp4e2m1(z0, p->mode, KVG_FP4_NAN_ZERO),
                kvg_f32_to_fp4e2m1(z1, p->mode, KVG_FP4_NAN_ZERO));
        }
    }
}

/* Validation is complete (and has left every block's code and multiplier
 * in the workspace): from here on every byte written is final. */
static void compute(const kvg_dynamic_mx_quant_args *a,
                    const kvg_i_dynamic_mx_quant_plan *p,
                    const kvg_i_dynamic_mx_quant_ws *w)
{
    unsigned char *y = (unsigned char *)a->y->data;
    const float *mult;
    int64_t o, j, r, r0, r1, i, e;

    for (o = 0; o < p->outer; o++) {
        for (j = 0; j < p->blocks; j++) {
            write_codes(a, p, o, j, w);
            mult = w->mult + kvg_i_dynamic_mx_quant_block(p, o, j, 0);
            kvg_i_dynamic_mx_quant_rows(p, j, &r0, &r1);
            if (p->inner == 1) {
                contiguous(a, p, y, kvg_i_dynamic_mx_quant_flat(p, o, r0, 0),
                           r1 - r0, mult[0]);
                continue;
            }
            for (r = r0; r < r1; r++)
                for (i = 0; i < p->inner; i++) {
                    e = kvg_i_dynamic_mx_quant_flat(p, o, r, i);
                    store(y, p, e,
                          narrow(p, kvg_i_dynamic_mx_quant_x(a, p, e) *
                                        mult[i]));
                }
        }
        if (p->blocks % 2 != 0)
            write_codes(a, p, o, p->blocks, w);
    }
}

/* ---- the entry skeleton's view (src/common/entry.h) --------------------- */

typedef kvg_dynamic_mx_quant_args args_t;

static kvg_status e_check(const void *a, void *p, kvg_diag *diag)
{
    return kvg_i_dynamic_mx_quant_check_args(
        (const args_t *)a, (kvg_i_dynamic_mx_quant_plan *)p, diag);
}

/* Written: y and mxscale. */
static size_t e_spans(const void *args, const void *p, kvg_i_span *s)
{
    const args_t *a = (const args_t *)args;
    const kvg_i_span list[] = {
        {"x", a->x, 0}, {"y", a->y, 1}, {"mxscale", a->mxscale, 1}};
    (void)p;
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

/* One block row's magnitudes; every block's code and multiplier. */
static void e_carve(const void *p, kvg_i_ws *ws, void *w)
{
    const kvg_i_dynamic_mx_quant_plan *plan =
        (const kvg_i_dynamic_mx_quant_plan *)p;
    kvg_i_dynamic_mx_quant_ws *pieces = (kvg_i_dynamic_mx_quant_ws *)w;
    const size_t n = (size_t)plan->inner;
    /* at most x's element count (blocks <= n), which fits: x is dense */
    const size_t nb = (size_t)(plan->outer * plan->blocks * plan->inner);

    pieces->amax = (uint32_t *)kvg_i_ws_take(ws, n, sizeof(uint32_t));
    pieces->minneg = (uint32_t *)kvg_i_ws_take(ws, n, sizeof(uint32_t));
    pieces->minmag = (uint32_t *)kvg_i_ws_take(ws, n, sizeof(uint32_t));
    pieces->code = (uint8_t *)kvg_i_ws_take(ws, nb, sizeof(uint8_t));
    pieces->mult = (float *)kvg_i_ws_take(ws, nb, sizeof(float));
}

static kvg_status e_values(const void *a, const void *p, void *w,
                           kvg_diag *diag)
{
    return kvg_i_dynamic_mx_quant_check_values(
        (const args_t *)a, (const kvg_i_dynamic_mx_quant_plan *)p,
        (const kvg_i_dynamic_mx_quant_ws *)w, diag);
}

static void e_compute(const void *a, const void *p, void *w)
{
    compute((const args_t *)a, (const kvg_i_dynamic_mx_quant_plan *)p,
            (const kvg_i_dynamic_mx_quant_ws *)w);
}

KVG_I_ENTRY_POINTS(dynamic_mx_quant, kvg_i_dynamic_mx_quant_plan,
                   kvg_i_dynamic_mx_quant_ws);
