/*
 * src/engines/group_quant.c - one group quantised under a kvg_i_group_rule
 * (the rule's steps are listed in group_quant.h). The codecs are the
 * format layer's (bf16, fp8, hif8, fp4 e2m1, and the E8M0 rules of
 * kvg_e8m0_from_amax); this file only sequences them as a rule says. The
 * per-element casts and widenings of the hot loops are the inline copies
 * of src/kernels/quant_codes.h and widen.h (proved equal to the formats
 * layer on every input), so that each loop over a chunk vectorises; the
 * group's one call is built per CPU (KVG_I_ROW_KERNEL).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/group_quant.h"

#include "src/common/bits.h"
#include "src/kernels/dispatch.h"
#include "src/kernels/e8m0_step.h"
#include "src/kernels/quant_codes.h"
#include "src/kernels/widen.h"

#define MAG_MASK 0x7FFFFFFFu
#define F32_INF 0x7F800000u

float kvg_i_group_cast_max(kvg_dtype cast)
{
    switch (cast) {
    case KVG_FP8_E4M3FN:
        return 448.0f;
    case KVG_FP8_E5M2:
        return 57344.0f;
    case KVG_HIF8:
        return 32768.0f;
    case KVG_FP4_E2M1:
        return 6.0f;
    case KVG_INT8:
        return 127.0f;
    default:
        return 0.0f;
    }
}

size_t kvg_i_group_scale_bytes(const kvg_i_group_rule *r)
{
    switch (r->store) {
    case KVG_I_STORE_F32:
        return 4;
    case KVG_I_STORE_BF16:
    case KVG_I_STORE_OCP_BF16:
        return 2;
    case KVG_I_STORE_E8M0:
    case KVG_I_STORE_OCP_E8M0:
        return 1;
    default:
        return 0;
    }
}

size_t kvg_i_group_x_bytes(const kvg_i_group_rule *r)
{
    return r->x_dtype == KVG_FP32 ? 4 : 2;
}

size_t kvg_i_group_payload_bytes(const kvg_i_group_rule *r, int64_t n)
{
    return r->cast == KVG_FP4_E2M1 ? (size_t)(n / 2) : (size_t)n;
}

/* Element i of a bf16 row, widened exactly. */
static inline float bf16_at(const unsigned char *x, int64_t i)
{
    const uint16_t code =
        (uint16_t)(x[2 * i] | (uint16_t)((uint16_t)x[2 * i + 1] << 8));
    return kvg_i_float((uint32_t)code << 16);
}

/* Elements are handled in chunks of this many binary32 values on the
 * stack (the core never allocates): each step of the rule is then one
 * tight loop over the chunk with the rule's choice made once, not a
 * switch per element. */
#define CHUNK 128

/* n (<= CHUNK) elements of x in the rule's x_dtype, widened exactly into
 * out: bf16 (every epilog) unless the rule says fp16 or fp32, the choice
 * made once outside the loop. */
KVG_I_IN_EVERY_CLONE
static inline void widen(const kvg_i_group_rule *r, const unsigned char *x,
                         int64_t n, float *out)
{
    int64_t i;
    uint32_t u;

    switch (r->x_dtype) {
    case KVG_FP16:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_fp16_value((uint16_t)(
                x[2 * i] | (uint16_t)((uint16_t)x[2 * i + 1] << 8)));
        return;
    case KVG_FP32:
        for (i = 0; i < n; i++) {
            u = (uint32_t)x[4 * i] | (uint32_t)x[4 * i + 1] << 8 |
                (uint32_t)x[4 * i + 2] << 16 | (uint32_t)x[4 * i + 3] << 24;
            out[i] = kvg_i_float(u);
        }
        return;
    default:
        for (i = 0; i < n; i++)
            out[i] = bf16_at(x, i);
    }
}

/* n (<= CHUNK) fp16 elements as an MX-FP4 kernel feeds them to its bf16
 * multiply (mx_fp4_base.h FP16ConvertMXFP4, then a TRUNC cast): bit 3 is
 * set where the low byte is 1..7, a sticky bit so that truncating 3
 * mantissa bits cannot turn a value above an fp4 tie into the tie. */
KVG_I_IN_EVERY_CLONE
static inline void widen_fp16_sticky(const unsigned char *x, int64_t n,
                                     float *out)
{
    int64_t i;
    uint16_t code;

    for (i = 0; i < n; i++) {
        code = (uint16_t)(x[2 * i] |
                          (uint16_t)((uint16_t)x[2 * i + 1] << 8));
        if ((code & 0xFFu) != 0 && (code & 0xFFu) < 8)
            code = (uint16_t)(code | 8u);
        /* fp16 -> binary32 is exact; dropping 16 bits truncates to 0 */
        out[i] = kvg_i_float(kvg_i_bits(kvg_i_fp16_value(code)) &
                             0xFFFF0000u);
    }
}

/* Round to bf16 (nearest-even) and back: the kernels' bf16 arithmetic,
 * one rounding of the binary32 result (exact for bf16 x bf16). */
static inline float bf16_round(float v)
{
    return kvg_i_float((uint32_t)kvg_i_bf16_rne_code(v) << 16);
}

static void put_le(unsigned char *at, uint32_t v, size_t bytes)
{
    size_t i;

    for (i = 0; i < bytes; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

/* Step 1: the magnitude bits of amax (see kvg_i_amax_kind). A
 * magnitude at or past `skip` counts as 0, which never beats the start:
 * FINITE skips inf and NaN, ALL skips nothing (no magnitude reaches
 * 0xFFFFFFFF). */
KVG_I_IN_EVERY_CLONE
static inline uint32_t chunk_amax(const kvg_i_group_rule *r,
                                  const float *buf, int64_t c, uint32_t best)
{
    const uint32_t skip =
        r->amax == KVG_I_AMAX_FINITE ? F32_INF : 0xFFFFFFFFu;
    uint32_t m;
    int64_t j;

    for (j = 0; j < c; j++) {
        /* written so: gcc 12 vectorises this form of the max */
        m = kvg_i_bits(buf[j]) & MAG_MASK;
        m &= kvg_i_mask_if(m < skip);
        best = best > m ? best : m;
    }
    return best;
}

/* Step 1 over a group longer than a chunk, widened chunk by chunk. */
KVG_I_IN_EVERY_CLONE
static inline uint32_t amax_bits(const kvg_i_group_rule *r,
                                 const unsigned char *x, int64_t n)
{
    const size_t xb = kvg_i_group_x_bytes(r);
    uint32_t best = 0;
    float buf[CHUNK];
    int64_t i, c;

    for (i = 0; i < n; i += CHUNK) {
        c = n - i < CHUNK ? n - i : CHUNK;
        widen(r, x + xb * (size_t)i, c, buf);
        best = chunk_amax(r, buf, c, best);
    }
    return best;
}

/* Step 2: s from amax. */
static float raw_scale(const kvg_i_group_rule *r, float amax)
{
    const float floor_amax = 1e-4f; /* fl(1e-4), as the kernels hold it */
    float a = amax;
    float s;

    if (r->zero_scale_zero && amax == 0.0f)
        return 0.0f;
    if (r->floor_1e4 && a < floor_amax)
        a = floor_amax;
    if (r->coeff_div)
        s = a / kvg_i_group_cast_max(r->cast);
    else
        s = r->coeff != 0 ? a * kvg_i_float(r->coeff) : a;
    /* fmaxf(s, floor), as vLLM's ds_mla kernel keeps a zero tile's scale
     * nonzero */
    if (r->s_floor != 0 && s < kvg_i_float(r->s_floor))
        s = kvg_i_float(r->s_floor);
    return s;
}

/* s rounded up to a power of two on its fields (pow2_up): the exponent
 * plus one where the mantissa is not zero; 0 stays 0, a subnormal s
 * becomes 2^-126 (the integer steps of the indexer epilog's Normal mode,
 * docs/indexer_quant_cache.md). s is not negative here. */
static float pow2_up(float s)
{
    const uint32_t b = kvg_i_bits(s);
    const uint32_t e = (b >> 23) + ((b & 0x7FFFFFu) != 0);

    return kvg_i_float(e << 23);
}

/* What steps 2-4 give: the payload's scale (or multiplier) and the
 * stored scale's bits. */
typedef struct group_scale {
    float sp;      /* s' (DIV), the multiplier (POW2_BF16, INV6_BF16) */
    uint32_t code; /* the stored scale's bits */
} group_scale;

/* R-OCP on the bf16 exponent, stored as a bf16 pattern (cr_v2 mxfp4):
 * E = 0 zeroes the payload; 0 < E <= 2 stores +0 but multiplies by
 * 2^127; a non-finite amax gives 0x7F81 for both. */
static group_scale ocp_bf16(uint32_t amax)
{
    const uint32_t e = amax >> 23;
    group_scale g;

    if (e >= 0xFFu) {
        g.code = 0x7F81u;
        g.sp = kvg_bf16_to_f32(0x7F81u);
        return g;
    }
    g.code = e > 2 ? (e - 2u) << 7 : 0;
    g.sp = e == 0 ? 0.0f : kvg_bf16_to_f32((uint16_t)(0x7F00u - g.code));
    return g;
}

/* An E8M0 rule on s = amax * fl(1/MAX) (R-CEIL, R-EBUMP, R-TRUNC) with
 * an fp8 payload: the cases kvg_i_e8m0_fp8_code copies. */
static int fp8_s_rule(const kvg_i_group_rule *r)
{
    return (r->e8m0 == KVG_E8M0_CEIL || r->e8m0 == KVG_E8M0_EBUMP ||
            r->e8m0 == KVG_E8M0_TRUNC) &&
           (r->cast == KVG_FP8_E4M3FN || r->cast == KVG_FP8_E5M2);
}

/* inlined into the clones: out of line it was 12-14 % of an MX-FP8
 * decode (a call a group of 32) */
KVG_I_IN_EVERY_CLONE
static inline group_scale scale_of(const kvg_i_group_rule *r,
                                   uint32_t amax)
{
    const float a = kvg_i_float(amax);
    group_scale g;
    float stored;
    uint8_t c = 0xFF;

    if (r->store == KVG_I_STORE_OCP_BF16)
        return ocp_bf16(amax);
    if (r->store == KVG_I_STORE_OCP_E8M0) {
        /* the same exponent arithmetic, the code as its E8M0 byte */
        g = ocp_bf16(amax);
        g.code = g.code == 0x7F81u ? 0xFFu : g.code >> 7;
        return g;
    }
    g.sp = raw_scale(r, a);
    if (r->pow2_up)
        g.sp = pow2_up(g.sp);
    if (r->e8m0 != KVG_I_NO_E8M0) {
        /* the format layer's rule (fl(1e-4) floor and fl(1/MAX), as the
         * presets state in floor_1e4 / coeff); a non-finite amax is
         * refused by the operators and leaves the NaN code. The fp8
         * payloads' s-based rules, once a group, inline (e8m0_step.h,
         * equal to the formats layer on every amax); the rest through it */
        if (fp8_s_rule(r))
            c = kvg_i_e8m0_fp8_code((kvg_e8m0_rule)r->e8m0,
                                    r->cast == KVG_FP8_E5M2, amax);
        else
            (void)kvg_e8m0_from_amax((kvg_e8m0_rule)r->e8m0, r->cast, a,
                                     &c);
        if (r->e8m0 != KVG_E8M0_TRUNC)
            g.sp = kvg_i_e8m0_value(c);
    }
    /* the stored scale is the payload's divisor, except FP4-AMAX6,
     * which stores s = amax * fl(1/6) and multiplies by bf16(6 / amax) */
    stored = g.sp;
    if (r->op == KVG_I_PAY_INV6_BF16)
        g.sp = amax == 0 ? 0.0f : bf16_round(6.0f / a);
    /* the A2/A3 block quant (docs/dynamic_block_quant.md) stores s =
     * amax * fl(1/127) but multiplies by fl(fl(1 / amax) * 127) (the
     * operator refuses amax = 0) */
    if (r->op == KVG_I_PAY_RECIP_MUL)
        g.sp = (1.0f / a) * kvg_i_group_cast_max(r->cast);
    switch (r->store) {
    case KVG_I_STORE_F32:
        g.code = kvg_i_bits(stored);
        break;
    case KVG_I_STORE_BF16:
        g.code = kvg_f32_to_bf16(stored, KVG_OVF_DEFAULT);
        break;
    case KVG_I_STORE_E8M0:
        /* without an E8M0 rule, the power of two pow2_up made (a normal
         * s' is 2^(e - 127): its biased exponent is the E8M0 byte) */
        g.code = r->e8m0 == KVG_I_NO_E8M0 && r->pow2_up
                     ? (kvg_i_bits(g.sp) >> 23) & 0xFFu
                     : c;
        break;
    default:
        g.code = 0;
    }
    return g;
}


/* Step 5's arithmetic for the chunk's widened elements xf. */
KVG_I_IN_EVERY_CLONE
static inline void payload_op(const kvg_i_group_rule *r, const float *xf,
                              int64_t n, float sp, float x_scale, float *q)
{
    const uint32_t sb = kvg_i_bits(sp);
    const uint32_t e = (sb >> 23) & 0xFFu;
    float inv;
    int64_t i;

    switch (r->op) {
    case KVG_I_PAY_DIV:
        /* A normal power-of-two s' (every E8M0-rounded s' of R-CEIL /
         * R-EBUMP; TRUNC's and R-BLK128's s only by chance) has an exact
         * reciprocal 2^-k (k <= 126, or 2^-127 for s' = 2^127: a binary32
         * subnormal, still exact), so x / s' and x * 2^-k are the same
         * real number rounded once: bit for bit equal for every x, and the
         * multiply pipelines where the division does not. */
        if ((sb & 0x7FFFFFu) == 0 && e != 0 && e != 0xFFu) {
            inv = 1.0f / sp;
            for (i = 0; i < n; i++)
                q[i] = xf[i] * inv;
        } else {
            for (i = 0; i < n; i++)
                q[i] = xf[i] / sp;
        }
        return;
    case KVG_I_PAY_XSCALE:
        for (i = 0; i < n; i++)
            q[i] = xf[i] * x_scale;
        return;
    case KVG_I_PAY_RECIP_MUL: /* sp is the multiplier m (scale_of) */
        for (i = 0; i < n; i++)
            q[i] = xf[i] * sp;
        return;
    case KVG_I_PAY_RECIP:
        /* fl(1 / s'), +Inf for s' = 0 (spelled as bits: no division by
         * zero); x * Inf is then +-Inf or NaN, which keep_x_nonfinite
         * replaces by x */
        inv = sp == 0.0f ? kvg_i_float(F32_INF) : 1.0f / sp;
        for (i = 0; i < n; i++)
            q[i] = xf[i] * inv;
        return;
    default: /* POW2_BF16, INV6_BF16: a bf16 multiply */
        for (i = 0; i < n; i++)
            q[i] = bf16_round(xf[i] * sp);
    }
}

/* Step 5's selections: q := x where not finite, then the clamp, on bit
 * patterns (widen.h says why). The clamp is `q > max ? max : q < -max ?
 * -max : q`: a magnitude above max's but not NaN's takes max's with q's
 * sign (max is positive, so a NaN or +-0 is left as it is). */
KVG_I_IN_EVERY_CLONE
static inline void payload_fix(const kvg_i_group_rule *r, const float *xf,
                               int64_t n, float *q)
{
    const uint32_t mb = kvg_i_bits(kvg_i_group_cast_max(r->cast));
    uint32_t u, a;
    int64_t i;

    if (r->keep_x_nonfinite)
        for (i = 0; i < n; i++) {
            u = kvg_i_bits(q[i]);
            q[i] = kvg_i_float(kvg_i_pick(
                kvg_i_mask_if((u & MAG_MASK) >= F32_INF), kvg_i_bits(xf[i]),
                u));
        }
    if (r->nan_zero)
        for (i = 0; i < n; i++) {
            u = kvg_i_bits(q[i]);
            q[i] = kvg_i_float((u & MAG_MASK) > F32_INF ? 0u : u);
        }
    if (r->clamp)
        for (i = 0; i < n; i++) {
            u = kvg_i_bits(q[i]);
            a = u & MAG_MASK;
            q[i] = kvg_i_float(a > mb && a <= F32_INF ? (u & ~MAG_MASK) | mb
                                                      : u);
        }
}

/* n (even) fp4 codes, one a byte, packed two a byte, element 2j in the
 * low nibble (kvg_fp4_pack). Eight codes at a time in one 64-bit word
 * (the pairs joined, then the bytes gathered): a group of 32 packs into
 * 16 bytes, fewer than one vector of a byte loop, which therefore ran
 * byte by byte. */
static inline void pack_fp4(const unsigned char *codes, int64_t n,
                            unsigned char *out)
{
    uint64_t w;
    int64_t i, k;

    for (i = 0; i + 8 <= n; i += 8) {
        w = 0;
        for (k = 7; k >= 0; k--)
            w = w << 8 | codes[i + k];
        w = (w | w >> 4) & 0x00FF00FF00FF00FFull;
        w = (w | w >> 8) & 0x0000FFFF0000FFFFull;
        w = (w | w >> 16) & 0xFFFFFFFFull;
        for (k = 0; k < 4; k++)
            out[i / 2 + k] = (unsigned char)(w >> (8 * k));
    }
    for (; i < n; i += 2)
        out[i / 2] = (unsigned char)(codes[i] | codes[i + 1] << 4);
}

/* Step 6 for the chunk: codes at out (fp4: n / 2 packed bytes), through
 * quant_codes.h's copies of the formats layer's encoders (fp8 without
 * saturation, hif8 saturating, fp4 e2m1 nearest-even with NaN to +0);
 * int8, which no hot rule casts to, through the formats layer. */
KVG_I_IN_EVERY_CLONE
static inline void cast_codes(const kvg_i_group_rule *r,
                              const float *restrict q, int64_t n,
                              unsigned char *restrict out)
{
    unsigned char codes[CHUNK];
    int64_t i;

    switch (r->cast) {
    case KVG_FP8_E4M3FN:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_e4m3fn_code(q[i]);
        break;
    case KVG_FP8_E5M2:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_e5m2_code(q[i]);
        break;
    case KVG_HIF8:
        for (i = 0; i < n; i++)
            out[i] = kvg_i_hif8_sat_code(q[i]);
        break;
    case KVG_INT8:
        for (i = 0; i < n; i++)
            out[i] = (unsigned char)kvg_f32_to_int8(q[i]);
        break;
    default:
        /* the codes first, one a byte: a loop over the chunk's n elements
         * vectorises even for a group of 32, whose 16 packed bytes are
         * fewer than one vector of the pairing loop */
        for (i = 0; i < n; i++)
            codes[i] = kvg_i_fp4_code(q[i]);
        pack_fp4(codes, n, out);
        return; /* fp4 casts NaN to +0 already */
    }
    /* MX quant's 0xFF block: AscendC Cast takes NaN to +0 */
    if (r->nan_code_zero)
        for (i = 0; i < n; i++)
            out[i] = (kvg_i_bits(q[i]) & MAG_MASK) > F32_INF ? 0 : out[i];
}

/* An fp16 x whose payload is a bf16 multiply (POW2_BF16, INV6_BF16)
 * takes it through the MX-FP4 kernels' sticky bf16 (widen_fp16_sticky);
 * its amax and the non-finite selection see x exactly. */
static int sticky_bf16(const kvg_i_group_rule *r)
{
    return r->x_dtype == KVG_FP16 && (r->op == KVG_I_PAY_POW2_BF16 ||
                                      r->op == KVG_I_PAY_INV6_BF16);
}

/* code0_zero with code 0: x * 0, the sign kept (the kernel's zero
 * multiplier) */
KVG_I_IN_EVERY_CLONE
static inline void payload_zero(const float *xf, int64_t n, float *q)
{
    int64_t i;

    for (i = 0; i < n; i++)
        q[i] = xf[i] * 0.0f;
}

/* One group (kvg_i_group_quant's contract), inlined into both entry
 * points' clones. */
KVG_I_IN_EVERY_CLONE
static inline void quant_one(const kvg_i_group_rule *r,
                             const unsigned char *x, int64_t n,
                             float x_scale, unsigned char *q,
                             unsigned char *scale)
{
    const size_t xb = kvg_i_group_x_bytes(r);
    /* a group of one chunk (every epilog's: 16 to 128 elements) is
     * widened once, for its amax and its payload */
    const int one_chunk = n <= CHUNK;
    float xf[CHUNK], buf[CHUNK];
    group_scale g = {0.0f, 0};
    int zero = 0;
    int64_t i;

    if (one_chunk)
        widen(r, x, n, xf);
    if (r->store != KVG_I_STORE_NONE) {
        g = scale_of(r, one_chunk ? chunk_amax(r, xf, n, 0)
                                  : amax_bits(r, x, n));
        put_le(scale, g.code, kvg_i_group_scale_bytes(r));
        zero = r->code0_zero && g.code == 0;
    }
    if (q == NULL)
        return; /* the scale only: the payload is skipped */
    /* CHUNK is even, so an fp4 chunk starts on a byte */
    for (i = 0; i < n; i += CHUNK) {
        const int64_t m = n - i < CHUNK ? n - i : CHUNK;

        if (!one_chunk)
            widen(r, x + xb * (size_t)i, m, xf);
        if (zero) {
            payload_zero(xf, m, buf);
        } else if (sticky_bf16(r)) {
            float xs[CHUNK];
            widen_fp16_sticky(x + xb * (size_t)i, m, xs);
            payload_op(r, xs, m, g.sp, x_scale, buf);
        } else {
            payload_op(r, xf, m, g.sp, x_scale, buf);
        }
        payload_fix(r, xf, m, buf);
        cast_codes(r, buf, m,
                   q + (r->cast == KVG_FP4_E2M1 ? i / 2 : i));
    }
}

KVG_I_ROW_KERNEL
void kvg_i_group_quant(const kvg_i_group_rule *r, const unsigned char *x,
                       int64_t n, float x_scale, unsigned char *q,
                       unsigned char *scale)
{
    quant_one(r, x, n, x_scale, q, scale);
}

/* At most this many groups a batch (quant_batch). */
#define BATCH 8

/* b consecutive groups of n (b <= BATCH, b * n <= CHUNK), as b calls of
 * quant_one would quantise them, step by step over the batch: the
 * widening, the element-wise fix-up and the cast are each one loop over
 * the b * n elements, and the groups' amax, scale and payload loops
 * follow one another without a cast between them, so that the groups'
 * chains (amax, scale, payload) overlap. Groups of 32 one at a time
 * had spent more in the set-up of six short loops and in that chain's
 * latency than in their elements (docs/performance.md). */
KVG_I_IN_EVERY_CLONE
static inline void quant_batch(const kvg_i_group_rule *r,
                               const unsigned char *x, int64_t n, int64_t b,
                               float x_scale, unsigned char *q,
                               unsigned char *scale)
{
    const size_t xb = kvg_i_group_x_bytes(r);
    const size_t sb = kvg_i_group_scale_bytes(r);
    float xf[CHUNK], buf[CHUNK];
    group_scale g[BATCH];
    int zero[BATCH];
    int64_t k;

    widen(r, x, b * n, xf);
    for (k = 0; k < b; k++) {
        g[k].sp = 0.0f;
        g[k].code = 0;
        zero[k] = 0;
    }
    if (r->store != KVG_I_STORE_NONE) {
        for (k = 0; k < b; k++)
            g[k] = scale_of(r, chunk_amax(r, xf + k * n, n, 0));
        for (k = 0; k < b; k++) {
            put_le(scale + sb * (size_t)k, g[k].code, sb);
            zero[k] = r->code0_zero && g[k].code == 0;
        }
    }
    if (q == NULL)
        return; /* the scales only */
    for (k = 0; k < b; k++) {
        if (zero[k]) {
            payload_zero(xf + k * n, n, buf + k * n);
        } else if (sticky_bf16(r)) {
            float xs[CHUNK];
            widen_fp16_sticky(x + xb * (size_t)(k * n), n, xs);
            payload_op(r, xs, n, g[k].sp, x_scale, buf + k * n);
        } else {
            payload_op(r, xf + k * n, n, g[k].sp, x_scale, buf + k * n);
        }
    }
    payload_fix(r, xf, b * n, buf);
    cast_codes(r, buf, b * n, q); /* fp4: b * n / 2 bytes from q */
}

/* `groups` groups of n (kvg_i_group_quant_run's contract), inlined
 * with n a constant where the caller has one: whole batches of b groups
 * (b * n <= CHUNK, b <= BATCH: a constant with n), the rest one by
 * one. */
KVG_I_IN_EVERY_CLONE
static inline void run_n(const kvg_i_group_rule *r, const unsigned char *x,
                         int64_t n, int64_t groups, float x_scale,
                         unsigned char *q, unsigned char *scale)
{
    const size_t xstep = kvg_i_group_x_bytes(r) * (size_t)n;
    const size_t qstep = kvg_i_group_payload_bytes(r, n);
    const size_t sstep = kvg_i_group_scale_bytes(r);
    const int64_t b = n <= CHUNK / BATCH ? BATCH : n <= CHUNK ? CHUNK / n
                                                               : 1;
    int64_t k = 0;

    if (b > 1)
        for (; k + b <= groups; k += b)
            quant_batch(r, x + xstep * (size_t)k, n, b, x_scale,
                        q == NULL ? NULL : q + qstep * (size_t)k,
                        scale == NULL ? NULL : scale + sstep * (size_t)k);
    for (; k < groups; k++)
        quant_one(r, x + xstep * (size_t)k, n, x_scale,
                  q == NULL ? NULL : q + qstep * (size_t)k,
                  scale == NULL ? NULL : scale + sstep * (size_t)k);
}

/* The groups of a row in one call: the call, its dispatch and the rule's
 * loads once a row, not once a group (groups of 32 made that ~55 ns a
 * group, docs/performance.md). */
KVG_I_ROW_KERNEL
void kvg_i_group_quant_run(const kvg_i_group_rule *r, const unsigned char *x,
                           int64_t n, int64_t groups, float x_scale,
                           unsigned char *q, unsigned char *scale)
{
    /* the presets' group sizes as constants: each loop of quant_one
     * then has a known trip count, vectorised without a prologue, an
     * epilogue or a run-time trip test (a group of 32 is two AVX-512
     * vectors; its loops' set-up had cost more than their work) */
    if (n == 32)
        run_n(r, x, 32, groups, x_scale, q, scale);
    else if (n == 128)
        run_n(r, x, 128, groups, x_scale, q, scale);
    else
        run_n(r, x, n, groups, x_scale, q, scale);
}
