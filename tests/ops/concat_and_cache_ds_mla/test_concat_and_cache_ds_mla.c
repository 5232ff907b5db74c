/*
 * tests/ops/concat_and_cache_ds_mla/test_concat_and_cache_ds_mla.c - the
 * packed C8 MLA row (656 B) on calls whose every cache byte is derived
 * here from first principles, with the inputs chosen so each step is
 * exact or has one obvious result:
 *   - kv_c all 1.0: sum of squares 512 in every order, rms = sqrtf(1 +
 *     fl(1e-5)) = 1 + 5e-6, so bf16((1 * fl(1 / rms)) * g) = g for every
 *     bf16 g (the error is 5e-6 relative, below half a bf16 ulp 2^-9):
 *     the normed row is gamma, tile by tile;
 *   - cos 1, sin 0: the interleaved RoPE gives r[j] = x[2j], r[32 + j] =
 *     x[2j + 1]; cos 0, sin 1: r[j] = -x[2j + 1], r[32 + j] = x[2j];
 *   - tiles: amax 448 (s = 1, codes 448 -> 0x7E, 1 -> 0x38, -3 -> 0xC4),
 *     amax 896 with -2 (s = 2, 896 -> 0x7E, -2 -> 0xB8), all 0.5 (s =
 *     fl(0.5 / 448) = fl(1/448) / 2 = 0x3A924925 from the spec's fl(1/448)
 *     = 0x3B124925, 0.5 / s -> 448 -> 0x7E), all zero (950: s = 0, codes
 *     0; vLLM: s = FLT_MIN = 0x00800000, codes 0; A2/A3: refused).
 *   - A2/A3 int8: scale = amax * fl(1/127) (0x3C010204), q = rint(y *
 *     fl(fl(1/amax) * 127)); 448 -> 127, 1 -> rint(0.28) = 0, -3 ->
 *     rint(-0.85) = -1; 0.5 -> 0.5 * 254 = 127.
 * vllm-fp8_ds_mla with use_ue8m0 (vLLM PR #49435): scale 2^k, k the
 * least integer with 2^k >= max(amax / 448, 1e-4), stored as fp32 -
 * vllm_ue8m0() lists each tile's k and codes.
 * flashmla-model1 (FlashMLA tests/quant.py MODEL1_FP8Sparse), tiles of
 * 64: scale 2^k, k the least integer with 2^k >= max(amax / 448, 1e-4),
 * byte k + 127, q = e4m3(x / 2^k) - model1_tiles() below lists each
 * tile's k and codes.
 * Every byte outside a written slot's row must keep its poison; a refused
 * call must leave the cache byte-identical.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <math.h>
#include <string.h>

#include "kvgold/concat_and_cache_ds_mla.h"
#include "src/registry/op_desc.h"

extern const kvg_op kvg_i_op_concat_and_cache_ds_mla;

#define T_MAX 3
#define ROW 656
#define M1_BLOCK 1728 /* block_size 2: ceil(2 * 584 / 576) * 576 */
#define CMAX (2 * M1_BLOCK) /* >= 4 * ROW */

typedef struct call {
    kvg_concat_and_cache_ds_mla_args a;
    kvg_tensor kv_c, k_pe, gamma, cos, sin, slots, cache;
    unsigned char kb[T_MAX * 1024], pb[T_MAX * 128], gb[1024];
    unsigned char cb_[T_MAX * 128], sb_[T_MAX * 128], ib[T_MAX * 8];
    unsigned char cb[CMAX], before[CMAX];
    unsigned char ws[1024];
} call;

static void put16(unsigned char *at, unsigned v)
{
    at[0] = (unsigned char)(v & 0xFF);
    at[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *at, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void fill16(unsigned char *at, int n, unsigned v)
{
    int i;
    for (i = 0; i < n; i++)
        put16(at + 2 * i, v);
}

/* The four tiles of a 512-value row: 448 / 1 / -3, all zero (or all 1.0
 * with `no_zero`), all 0.5, 896 / -2. */
static void tiles(unsigned char *row, int no_zero)
{
    fill16(row, 128, 0x3F80);
    put16(row, 0x43E0);
    put16(row + 2 * 127, 0xC040);
    fill16(row + 256, 128, no_zero ? 0x3F80 : 0x0000);
    fill16(row + 512, 128, 0x3F00);
    fill16(row + 768, 128, 0xC000);
    put16(row + 768 + 2 * 5, 0x4460);
}

/* tokens of kv_c [tokens, 512] etc., slots of `sdt`, a poisoned cache of
 * `crank` dims `cshape`, `cdt`. ascend: gamma / cos / sin given. */
static void setup(call *c, kvg_ccdm_preset preset, int64_t tokens,
                  kvg_dtype sdt, const int64_t *slot_values, kvg_dtype cdt,
                  int crank, const int64_t *cshape)
{
    const int64_t ks[2] = {tokens, 512}, ps[2] = {tokens, 64},
                  gs[1] = {512};
    int64_t n = 1, t;
    int i;

    memset(c, 0, sizeof *c);
    kvg_concat_and_cache_ds_mla_args_init(&c->a);
    c->a.preset = preset;
    c->kv_c = kvg_tensor_make(c->kb, (size_t)tokens * 1024, KVG_BF16, 2, ks);
    c->k_pe = kvg_tensor_make(c->pb, (size_t)tokens * 128, KVG_BF16, 2, ps);
    c->gamma = kvg_tensor_make(c->gb, 1024, KVG_BF16, 1, gs);
    c->cos = kvg_tensor_make(c->cb_, (size_t)tokens * 128, KVG_BF16, 2, ps);
    c->sin = kvg_tensor_make(c->sb_, (size_t)tokens * 128, KVG_BF16, 2, ps);
    c->slots = kvg_tensor_make(
        c->ib, (size_t)tokens * (sdt == KVG_INT32 ? 4 : 8), sdt, 1, ks);
    for (t = 0; t < tokens; t++) {
        if (sdt == KVG_INT32) {
            const int32_t v = (int32_t)slot_values[t];
            memcpy(c->ib + 4 * t, &v, 4);
        } else {
            memcpy(c->ib + 8 * t, &slot_values[t], 8);
        }
        fill16(c->kb + 1024 * t, 512, 0x3F80);
        for (i = 0; i < 64; i++)
            put16(c->pb + 128 * t + 2 * i, 0x4000u + (unsigned)i);
        fill16(c->cb_ + 128 * t, 64, 0x3F80); /* cos 1 */
        fill16(c->sb_ + 128 * t, 64, 0x0000); /* sin 0 */
    }
    for (i = 0; i < crank; i++)
        n *= cshape[i];
    assert_true(n <= CMAX);
    kvgt_poison(c->cb, (size_t)n, 656);
    c->cache = kvg_tensor_make(c->cb, (size_t)n, cdt, crank, cshape);
    memcpy(c->before, c->cb, (size_t)n);
    c->a.kv_c = &c->kv_c;
    c->a.k_pe = &c->k_pe;
    if (preset == KVG_CCDM_ASCEND_SFA_C8) {
        c->a.gamma = &c->gamma;
        c->a.cos = &c->cos;
        c->a.sin = &c->sin;
    }
    c->a.slot_mapping = &c->slots;
    c->a.kv_cache = &c->cache;
    c->a.workspace = c->ws;
    c->a.workspace_size = sizeof c->ws;
}

static kvg_status run(call *c, kvg_diag *d)
{
    memset(d, 0, sizeof *d);
    return kvg_concat_and_cache_ds_mla(&c->a, d);
}

/* The fp8 codes of tiles(): 448 -> 0x7E, 1 -> 0x38, -3 -> 0xC4; zero ->
 * 0; 0.5 / s -> 0x7E; 896 / 2 -> 0x7E, -2 / 2 -> 0xB8. */
static void fp8_codes(unsigned char *q)
{
    memset(q, 0x38, 128);
    q[0] = 0x7E;
    q[127] = 0xC4;
    memset(q + 128, 0x00, 128);
    memset(q + 256, 0x7E, 128);
    memset(q + 384, 0xB8, 128);
    q[384 + 5] = 0x7E;
}

/* vllm-fp8_ds_mla, cache [2, 2, 656]: token 0 -> slot 3 (block 1, row
 * 1), tokens 1 and 2 (slots -1, -7) skipped - their NaN never read. Row
 * [codes | 4 fp32 scales | k_pe copied]. Both cache dtypes. */
static void vllm_row(void **state)
{
    static call c;
    const int64_t shape[3] = {2, 2, ROW}, slots[3] = {3, -1, -7};
    const kvg_dtype cdts[2] = {KVG_UINT8, KVG_FP8_E4M3FN};
    unsigned char want[CMAX];
    kvg_diag d;
    int k;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 3, KVG_INT64, slots, cdts[k], 3,
              shape);
        tiles(c.kb, 0);
        put16(c.kb + 1024 + 10, 0x7FC0); /* skipped tokens: never read */
        put16(c.pb + 256 + 4, 0xFF80);
        assert_int_equal(run(&c, &d), KVG_OK);
        memcpy(want, c.before, sizeof want);
        fp8_codes(want + 3 * ROW);
        put32(want + 3 * ROW + 512, 0x3F800000u);
        put32(want + 3 * ROW + 516, 0x00800000u); /* FLT_MIN */
        put32(want + 3 * ROW + 520, 0x3A924925u);
        put32(want + 3 * ROW + 524, 0x40000000u);
        memcpy(want + 3 * ROW + 528, c.pb, 128);
        kvgt_assert_bytes_equal(c.cb, want, sizeof want, "vllm slot 3");
    }
}

/* ascend-sfa-c8, A5 (fp8 cache [4, 656]): gamma = tiles(), token 0 ->
 * slot 3 with cos 1 / sin 0, token 1 -> slot 0 with cos 0 / sin 1. Row
 * [codes | rope bf16 | 4 fp32 scales]; the zero tile's scale is 0 and
 * its codes 0 (DBQ 950's 0 / 0). int32 and int64 slots. */
static void ascend_950(void **state)
{
    static call c;
    const int64_t shape[2] = {4, ROW}, slots[2] = {3, 0};
    const kvg_dtype sdts[2] = {KVG_INT32, KVG_INT64};
    unsigned char want[CMAX], *r;
    kvg_diag d;
    int k, j;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, KVG_CCDM_ASCEND_SFA_C8, 2, sdts[k], slots, KVG_FP8_E4M3FN,
              2, shape);
        tiles(c.gb, 0);
        fill16(c.cb_ + 128, 64, 0x0000);
        fill16(c.sb_ + 128, 64, 0x3F80);
        assert_int_equal(run(&c, &d), KVG_OK);
        memcpy(want, c.before, sizeof want);
        for (j = 0; j < 2; j++) {
            r = want + (j == 0 ? 3 : 0) * ROW;
            fp8_codes(r);
            put32(r + 640, 0x3F800000u);
            put32(r + 644, 0x00000000u);
            put32(r + 648, 0x3A924925u);
            put32(r + 652, 0x40000000u);
        }
        for (j = 0; j < 32; j++) {
            const unsigned even = 0x4000u + 2u * (unsigned)j, odd = even + 1;
            put16(want + 3 * ROW + 512 + 2 * j, even);
            put16(want + 3 * ROW + 512 + 64 + 2 * j, odd);
            put16(want + 512 + 2 * j, odd | 0x8000u); /* -x[2j+1] */
            put16(want + 512 + 64 + 2 * j, even);
        }
        kvgt_assert_bytes_equal(c.cb, want, sizeof want, "ascend 950");
    }
}

/* The A3 row of a setup() token (kv_c 1.0, cos 1, sin 0) under gamma =
 * tiles() without the zero tile (all 1.0 there: scale fl(1/127), q 127).
 * Scales amax * fl(1/127) (0.5 and 1.0: exponent shifts of 0x3C010204). */
static void a2a3_row(unsigned char *r)
{
    const float inv127 = float_of(0x3C010204u);
    volatile float amax;
    int j;

    memset(r, 0x00, 128); /* 1 * fl(fl(1/448) * 127) = 0.28 -> 0 */
    r[0] = 0x7F;          /* 448 -> 127 */
    r[127] = 0xFF;        /* -3 -> -1 */
    memset(r + 128, 0x7F, 128);
    memset(r + 256, 0x7F, 128);
    memset(r + 384, 0x00, 128); /* -2 * fl(fl(1/896) * 127) -> 0 */
    r[384 + 5] = 0x7F;
    for (j = 0; j < 32; j++) {
        put16(r + 512 + 2 * j, 0x4000u + 2u * (unsigned)j);
        put16(r + 512 + 64 + 2 * j, 0x4001u + 2u * (unsigned)j);
    }
    amax = 448.0f;
    put32(r + 640, bits_of(amax * inv127));
    put32(r + 644, 0x3C010204u);
    put32(r + 648, 0x3B810204u);
    amax = 896.0f;
    put32(r + 652, bits_of(amax * inv127));
}

/* ascend-sfa-c8, A3 (int8 cache [2, 2, 656]): one token into slot 2. */
static void ascend_a2a3(void **state)
{
    static call c;
    const int64_t shape[3] = {2, 2, ROW}, slots[1] = {2};
    unsigned char want[CMAX];
    kvg_diag d;
    (void)state;

    setup(&c, KVG_CCDM_ASCEND_SFA_C8, 1, KVG_INT64, slots, KVG_INT8, 3,
          shape);
    tiles(c.gb, 1);
    assert_int_equal(run(&c, &d), KVG_OK);
    memcpy(want, c.before, sizeof want);
    a2a3_row(want + 2 * ROW);
    kvgt_assert_bytes_equal(c.cb, want, sizeof want, "ascend a2a3");
}

/* ascend-sfa-c8 pads as vllm-ascend does: slots -1, 2, -1 (int32 and
 * int64) into an int8 cache [4, 656]. The row scatter
 * (npu_scatter_nd_update_) changes no cache byte for an index < 0
 * (docs/concat_and_cache_ds_mla.md, "Slots"), so only slot 2 is written
 * - token 1's A3 row - and the pad tokens are never read: token 0 is all
 * zero (an all-zero tile, refused if it were written under a2a3), token 2
 * holds NaN in kv_c, +Inf in k_pe and NaN in sin. */
static void ascend_pad_skipped(void **state)
{
    static call c;
    const int64_t shape[2] = {4, ROW}, slots[3] = {-1, 2, -1};
    const kvg_dtype sdts[2] = {KVG_INT32, KVG_INT64};
    unsigned char want[CMAX];
    kvg_diag d;
    int k;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, KVG_CCDM_ASCEND_SFA_C8, 3, sdts[k], slots, KVG_INT8, 2,
              shape);
        tiles(c.gb, 1);
        fill16(c.kb, 512, 0x0000);
        put16(c.kb + 2048 + 2 * 100, 0x7FC0);
        put16(c.pb + 256 + 2 * 9, 0x7F80);
        put16(c.sb_ + 256 + 2 * 4, 0xFFC0);
        assert_int_equal(run(&c, &d), KVG_OK);
        memcpy(want, c.before, sizeof want);
        a2a3_row(want + 2 * ROW);
        kvgt_assert_bytes_equal(c.cb, want, sizeof want, "ascend pads");
    }
}

/* bf16 nearest-even of a finite float, back to float. */
static float bf16_rne(float f)
{
    uint32_t u = bits_of(f);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return float_of(u & 0xFFFF0000u);
}

/* The RmsNorm is ops-nn's: y = (x * rstd) * gamma with rstd = 1 /
 * sqrtf(mean + eps), not (x / rms) * gamma. kv_c = 256 values a then 256
 * values b (a, b bf16 in [1, 4): a^2 + b^2 is exact in binary32, so the
 * sum 256 (a^2 + b^2) is exact in every order and mean = (a^2 + b^2) / 2),
 * gamma all g: tile 0's y is one value, and its 950 scale fl(y / 448)
 * shows it. The first (a, b, g) for which the two forms round to
 * different bf16 y is searched here (one must exist), and the scale must
 * be the multiply's. */
static void rms_multiplies_by_rstd(void **state)
{
    static call c;
    const int64_t shape[2] = {1, ROW}, slots[1] = {0};
    const float eps = 1e-5f;
    unsigned aa, bb, gg, found = 0;
    float a = 0, b = 0, g = 0, ym = 0, yd = 0;
    kvg_diag d;
    (void)state;

    for (aa = 0x3F80; aa < 0x4080 && !found; aa++)
        for (bb = 0x3F80; bb < 0x4080 && !found; bb += 7)
            for (gg = 0x3F80; gg < 0x4000 && !found; gg += 5) {
                const float av = float_of(aa << 16), bv = float_of(bb << 16);
                const float gv = float_of(gg << 16);
                const float ms = (av * av + bv * bv) * 0.5f + eps;
                const float rms = sqrtf(ms);
                const float m = bf16_rne((av * (1.0f / rms)) * gv);
                const float dv = bf16_rne((av / rms) * gv);
                if (m != dv)
                    found = 1, a = av, b = bv, g = gv, ym = m, yd = dv;
            }
    assert_true(found);
    setup(&c, KVG_CCDM_ASCEND_SFA_C8, 1, KVG_INT64, slots, KVG_FP8_E4M3FN, 2,
          shape);
    fill16(c.kb, 256, bits_of(a) >> 16);
    fill16(c.kb + 512, 256, bits_of(b) >> 16);
    fill16(c.gb, 512, bits_of(g) >> 16);
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_int_equal(c.cb[640] | c.cb[641] << 8 | c.cb[642] << 16 |
                         (uint32_t)c.cb[643] << 24,
                     bits_of(ym / 448.0f));
    assert_true(bits_of(ym / 448.0f) != bits_of(yd / 448.0f));
}

static void refused_as(call *c, kvg_status st, const char *name,
                       const char *words)
{
    kvg_diag d;

    assert_int_equal(run(c, &d), st);
    if (strcmp(d.tensor, name) != 0 || strstr(d.message, words) == NULL)
        fail_msg("want %s / \"%s\", got %s / \"%s\"", name, words, d.tensor,
                 d.message);
    kvgt_assert_bytes_equal(c->cb, c->before, c->cache.nbytes,
                            "cache after a refused call");
}

static void refused(call *c, const char *name, const char *words)
{
    refused_as(c, KVG_ERR_PARAM_INVALID, name, words);
}

static void refusals(void **state)
{
    static call c;
    const int64_t shape[2] = {4, ROW}, ok[2] = {0, 1}, pad[2] = {-1, 5};
    const int64_t past[2] = {4, 0}, dup[2] = {2, 2};
    const int64_t narrow[2] = {4, 600};
    const kvg_ccdm_preset A = KVG_CCDM_ASCEND_SFA_C8,
                          V = KVG_CCDM_VLLM_FP8_DS_MLA;
    (void)state;

    setup(&c, A, 2, KVG_INT32, pad, KVG_FP8_E4M3FN, 2, shape);
    refused(&c, "slot_mapping", "outside [0, 4)"); /* the -1 skips */
    setup(&c, V, 2, KVG_INT64, past, KVG_UINT8, 2, shape);
    refused(&c, "slot_mapping", "outside [0, 4)");
    setup(&c, V, 2, KVG_INT64, dup, KVG_UINT8, 2, shape);
    refused(&c, "slot_mapping", "both write slot 2");
    setup(&c, V, 2, KVG_INT32, ok, KVG_UINT8, 2, shape);
    refused(&c, "slot_mapping", "int64");
    setup(&c, A, 2, KVG_INT32, ok, KVG_UINT8, 2, shape);
    refused(&c, "kv_cache", "int8 (A3");
    setup(&c, V, 2, KVG_INT64, ok, KVG_INT8, 2, shape);
    refused(&c, "kv_cache", "uint8 or float8_e4m3fn");
    setup(&c, V, 2, KVG_INT64, ok, KVG_UINT8, 2, narrow);
    refused(&c, "kv_cache", "656");
    setup(&c, V, 2, KVG_INT64, ok, KVG_UINT8, 2, shape);
    c.a.gamma = &c.gamma;
    refused(&c, "gamma", "has no gamma");
    setup(&c, A, 2, KVG_INT32, ok, KVG_INT8, 2, shape);
    c.a.sin = NULL;
    refused_as(&c, KVG_ERR_PARAM_NULLPTR, "sin", "sin");
    setup(&c, V, 2, KVG_INT64, ok, KVG_UINT8, 2, shape);
    put16(c.pb + 128 + 6, 0x7F80); /* +inf in a written token */
    /* half_row.h's one wording: tensor, token, column, dtype, code */
    refused(&c, "k_pe", "k_pe: token 1, column 3: bf16 0x7F80 is not "
                        "finite (refused: what the kernel does with it is "
                        "not established)");
    setup(&c, A, 2, KVG_INT32, ok, KVG_INT8, 2, shape);
    put16(c.cb_ + 2, 0xFFC0);
    refused(&c, "cos", "cos: token 0, column 1: bf16 0xFFC0 is not finite");
    setup(&c, A, 2, KVG_INT32, ok, KVG_INT8, 2, shape);
    put16(c.gb + 2 * 300, 0xFF80); /* gamma is one row: its element */
    refused(&c, "gamma", "gamma: element 300: bf16 0xFF80 is not finite");
    setup(&c, A, 2, KVG_INT32, ok, KVG_INT8, 2, shape);
    tiles(c.gb, 0); /* a zero tile under A2/A3 */
    refused(&c, "kv_c", "all-zero");
    setup(&c, V, 2, KVG_INT64, ok, KVG_UINT8, 2, shape);
    c.a.epsilon = 1e-6;
    refused(&c, "epsilon", "no RmsNorm");
}

/* vLLM's scale tensor: the ds_mla kernel never reads it, so a NaN one
 * writes the same bytes as none; one float32 element, vllm only. */
static void scale_tensor(void **state)
{
    static call c;
    static float sv[2];
    static unsigned char plain[CMAX];
    const int64_t shape[2] = {4, ROW}, ok[2] = {0, 3}, one[1] = {1},
                  two[1] = {2};
    kvg_tensor sc;
    kvg_diag d;
    (void)state;

    sv[0] = float_of(0x7FC00000u), sv[1] = 0.5f;
    setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 2, KVG_INT64, ok, KVG_UINT8, 2,
          shape);
    assert_int_equal(run(&c, &d), KVG_OK);
    memcpy(plain, c.cb, sizeof plain);
    setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 2, KVG_INT64, ok, KVG_UINT8, 2,
          shape);
    sc = kvg_tensor_make(sv, 4, KVG_FP32, 0, NULL);
    c.a.scale = &sc;
    assert_int_equal(run(&c, &d), KVG_OK);
    assert_memory_equal(c.cb, plain, sizeof plain);
    assert_memory_not_equal(c.cb, c.before, sizeof plain);
    setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 2, KVG_INT64, ok, KVG_UINT8, 2,
          shape);
    c.a.scale = &sc;
    sc = kvg_tensor_make(sv, 8, KVG_FP32, 1, two);
    refused(&c, "scale", "one float32");
    sc = kvg_tensor_make(sv, 2, KVG_BF16, 1, one);
    refused(&c, "scale", "scale");
    setup(&c, KVG_CCDM_ASCEND_SFA_C8, 2, KVG_INT32, ok, KVG_INT8, 2, shape);
    sc = kvg_tensor_make(sv + 1, 4, KVG_FP32, 1, one);
    c.a.scale = &sc;
    refused(&c, "scale", "has no scale");
}

/* vllm-fp8_ds_mla with use_ue8m0, cache [2, 2, 656]: token 0 -> slot 3
 * (tiles()), token 1 -> slot 0, token 2 (-1, its NaN never read)
 * skipped; scale tensor NaN (unread). Each tile's v = amax / 448, s = 2^k
 * the least power of two >= max(v, 1e-4) (fl(1e-4) is in (2^-14,
 * 2^-13]), stored as fp32, codes e4m3(x / 2^k) nearest-even:
 *   token 0: 448 -> v 1, s 1 (0x3F800000), codes as fp8_codes(); all
 *     zero -> floor, s 2^-13 (0x39000000), codes 0; all 0.5 -> v 1/896
 *     in (2^-10, 2^-9]: s rounds UP to 2^-9 (0x3B000000; without
 *     use_ue8m0 0x3A924925), 0.5 / 2^-9 = 256 -> 0x78; 896 -> v 2, s 2;
 *   token 1: 336 among 1.0 -> v 0.75, s 1 (PR #49435's example), 336 =
 *     1.3125 * 2^8 is an e4m3 midpoint of 320 / 352 -> even 320 (0x7A),
 *     1 -> 0x38; all 0x3D60 (7 * 2^-7 = 448 * 2^-13) -> v 2^-13
 *     exactly, no step up, codes 448 (0x7E); all 0x3D61 (one bf16
 *     above) -> s 2^-12 (0x39800000), x / s = 225 -> 224 (0x76); all
 *     2^-15 with a -0 -> v below the floor, s 2^-13, codes 0.25 (0x28)
 *     and -0 (0x80). */
static void vllm_ue8m0(void **state)
{
    static call c;
    const int64_t shape[3] = {2, 2, ROW}, slots[3] = {3, 0, -1};
    const kvg_dtype cdts[2] = {KVG_UINT8, KVG_FP8_E4M3FN};
    static unsigned char want[CMAX];
    unsigned char *r;
    float nan_scale = float_of(0x7FC00000u);
    kvg_tensor sc;
    kvg_diag d;
    int k;
    (void)state;

    for (k = 0; k < 2; k++) {
        setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 3, KVG_INT64, slots, cdts[k], 3,
              shape);
        c.a.use_ue8m0 = 1;
        sc = kvg_tensor_make(&nan_scale, 4, KVG_FP32, 0, NULL);
        c.a.scale = &sc;
        tiles(c.kb, 0);
        put16(c.kb + 1024, 0x43A8); /* token 1: 336, then 1.0 */
        fill16(c.kb + 1024 + 256, 128, 0x3D60);
        fill16(c.kb + 1024 + 512, 128, 0x3D61);
        fill16(c.kb + 1024 + 768, 128, 0x3800);
        put16(c.kb + 1024 + 768 + 2 * 9, 0x8000);
        put16(c.kb + 2048 + 10, 0x7FC0); /* skipped token: never read */
        assert_int_equal(run(&c, &d), KVG_OK);
        memcpy(want, c.before, sizeof want);
        r = want + 3 * ROW;
        fp8_codes(r);
        memset(r + 256, 0x78, 128);
        put32(r + 512, 0x3F800000u);
        put32(r + 516, 0x39000000u);
        put32(r + 520, 0x3B000000u);
        put32(r + 524, 0x40000000u);
        memcpy(r + 528, c.pb, 128);
        r = want;
        memset(r, 0x38, 128);
        r[0] = 0x7A;
        memset(r + 128, 0x7E, 128);
        memset(r + 256, 0x76, 128);
        memset(r + 384, 0x28, 128);
        r[384 + 9] = 0x80;
        put32(r + 512, 0x3F800000u);
        put32(r + 516, 0x39000000u);
        put32(r + 520, 0x39800000u);
        put32(r + 524, 0x39000000u);
        memcpy(r + 528, c.pb + 128, 128);
        kvgt_assert_bytes_equal(c.cb, want, 4 * ROW, "vllm use_ue8m0");
    }
    /* the attribute is vllm-fp8_ds_mla's: refused by the others */
    setup(&c, KVG_CCDM_ASCEND_SFA_C8, 2, KVG_INT32, slots, KVG_INT8, 3,
          shape);
    c.a.use_ue8m0 = 1;
    refused(&c, "use_ue8m0", "ascend-sfa-c8 has no use_ue8m0");
}

/* ---- flashmla-model1 ---------------------------------------------------- */

/* model1: kv_c [tokens, 448], k_pe [tokens, 64] (token t's k_pe 0x4000 +
 * 64 t + i), slots of `sdt`, a cache [blocks, bytes] of `cdt` poisoned
 * with `seed`, block_size `bs`. */
static void setup_m1(call *c, int64_t tokens, kvg_dtype sdt,
                     const int64_t *slot_values, kvg_dtype cdt,
                     const int64_t *cshape, int64_t bs, uint64_t seed)
{
    const int64_t ks[2] = {tokens, 448}, ps[2] = {tokens, 64};
    const size_t n = (size_t)(cshape[0] * cshape[1]);
    int64_t t;
    int i;

    memset(c, 0, sizeof *c);
    kvg_concat_and_cache_ds_mla_args_init(&c->a);
    c->a.preset = KVG_CCDM_FLASHMLA_MODEL1;
    c->a.block_size = bs;
    c->kv_c = kvg_tensor_make(c->kb, (size_t)tokens * 896, KVG_BF16, 2, ks);
    c->k_pe = kvg_tensor_make(c->pb, (size_t)tokens * 128, KVG_BF16, 2, ps);
    c->slots = kvg_tensor_make(
        c->ib, (size_t)tokens * (sdt == KVG_INT32 ? 4 : 8), sdt, 1, ks);
    for (t = 0; t < tokens; t++) {
        if (sdt == KVG_INT32) {
            const int32_t v = (int32_t)slot_values[t];
            memcpy(c->ib + 4 * t, &v, 4);
        } else {
            memcpy(c->ib + 8 * t, &slot_values[t], 8);
        }
        fill16(c->kb + 896 * t, 448, 0x3F80);
        for (i = 0; i < 64; i++)
            put16(c->pb + 128 * t + 2 * i,
                  0x4000u + 64u * (unsigned)t + (unsigned)i);
    }
    assert_true(n <= CMAX);
    kvgt_poison(c->cb, n, seed);
    c->cache = kvg_tensor_make(c->cb, n, cdt, 2, cshape);
    memcpy(c->before, c->cb, n);
    c->a.kv_c = &c->kv_c;
    c->a.k_pe = &c->k_pe;
    c->a.slot_mapping = &c->slots;
    c->a.kv_cache = &c->cache;
    c->a.workspace = c->ws;
    c->a.workspace_size = sizeof c->ws;
}

/* Seven tiles of 64 with designed amax (bf16 codes):
 *   0: 448, 1, -3       v = 1, k = 0 (byte 0x7F); 0x7E 0x38 0xC4
 *   1: all 0, one -0    v = 0 -> 1e-4, k = -13 (2^-14 < 1e-4 <= 2^-13;
 *                       0x72); codes 0x00, -0 -> 0x80
 *   2: 1 with one 450   v = 450 / 448 > 1, k = 1 (0x80); 225 -> 224
 *                       (0x76), 0.5 -> 0x30
 *   3: all 0.5          v = 0.5 / 448 in (2^-10, 2^-9], k = -9 (0x76);
 *                       256 -> 0x78
 *   4: -2, one 896      v = 2 exactly, k = 1 (0x80, not 2); 0x7E, -1 ->
 *                       0xB8
 *   5: 2^-7, one 2^-6   v = 2^-6 / 448 < 1e-4: the floor gives k = -13
 *                       (0x72; unfloored it would be -14); 2^7 -> 0x70,
 *                       2^6 -> 0x68
 *   6: 0.125, one 56,   v = 0.125 exactly, k = -3 (0x7C); 448 -> 0x7E,
 *      2.125, 2.375     1 -> 0x38, ties 17 -> 16 (0x58), 19 -> 20 (0x5A)
 * Their scale bytes into s[7] and codes into q[448]. */
static void model1_tiles(unsigned char *x, unsigned char *s,
                         unsigned char *q)
{
    static const unsigned char k_scales[7] = {0x7F, 0x72, 0x80, 0x76,
                                              0x80, 0x72, 0x7C};
    unsigned char *xt;

    fill16(x, 64, 0x3F80);
    put16(x, 0x43E0);
    put16(x + 2 * 63, 0xC040);
    fill16(x + 128, 64, 0x0000);
    put16(x + 128 + 2 * 9, 0x8000);
    fill16(x + 256, 64, 0x3F80);
    put16(x + 256 + 2 * 3, 0x43E1);
    fill16(x + 384, 64, 0x3F00);
    fill16(x + 512, 64, 0xC000);
    put16(x + 512 + 2 * 5, 0x4460);
    xt = x + 640;
    fill16(xt, 64, 0x3C00);
    put16(xt + 2 * 7, 0x3C80);
    xt = x + 768;
    fill16(xt, 64, 0x3E00);
    put16(xt + 2 * 1, 0x4260);
    put16(xt + 2 * 2, 0x4008);
    put16(xt + 2 * 3, 0x4018);
    memcpy(s, k_scales, 7);
    memset(q, 0x38, 64);
    q[0] = 0x7E, q[63] = 0xC4;
    memset(q + 64, 0x00, 64);
    q[64 + 9] = 0x80;
    memset(q + 128, 0x30, 64);
    q[128 + 3] = 0x76;
    memset(q + 192, 0x78, 64);
    memset(q + 256, 0xB8, 64);
    q[256 + 5] = 0x7E;
    memset(q + 320, 0x68, 64);
    q[320 + 7] = 0x70;
    memset(q + 384, 0x38, 64);
    q[384 + 1] = 0x7E, q[384 + 2] = 0x58, q[384 + 3] = 0x5A;
}

/* Token t's row and scales in a model1 block of 2 tokens (1728 bytes):
 * [nope | rope] at r * 576, the 7 scale bytes at 1152 + r * 8; byte
 * 1152 + r * 8 + 7 (the pad) and the tail [1168, 1728) keep theirs. */
static void model1_want(unsigned char *want, const call *c, int64_t t,
                        int64_t slot)
{
    unsigned char *block = want + (slot / 2) * M1_BLOCK;
    const int64_t r = slot % 2;
    unsigned char s[7], q[448];

    model1_tiles((unsigned char *)c->kb + 896 * t, s, q);
    memcpy(block + r * 576, q, 448);
    memcpy(block + r * 576 + 448, c->pb + 128 * t, 128);
    memcpy(block + 1152 + r * 8, s, 7);
}

/* cache [2, 1728] (block_size 2): token 0 -> slot 3 (block 1, row 1),
 * token 1 (slot -1, NaN kv_c) skipped, token 2 -> slot 0 with a NaN and
 * an Inf in k_pe (copied bit for bit). Both cache and slot dtypes, two
 * poisons: every written byte is computed, every other byte - the pads,
 * the rows of slots 1 and 2, the block tails - keeps its poison. */
static void model1_rows(void **state)
{
    static call c;
    static unsigned char want[CMAX];
    const int64_t shape[2] = {2, M1_BLOCK}, slots[3] = {3, -1, 0};
    const kvg_dtype cdts[2] = {KVG_UINT8, KVG_FP8_E4M3FN},
                    sdts[2] = {KVG_INT64, KVG_INT32};
    kvg_diag d;
    int k;
    (void)state;

    for (k = 0; k < 4; k++) {
        setup_m1(&c, 3, sdts[k / 2], slots, cdts[k % 2], shape, 2,
                 (uint64_t)(584 + k));
        model1_tiles(c.kb, want, want + 8); /* scratch: kv_c only */
        model1_tiles(c.kb + 2 * 896, want, want + 8);
        put16(c.kb + 896 + 10, 0x7FC0); /* skipped: never read */
        put16(c.pb + 2 * 128 + 4, 0x7FC1);
        put16(c.pb + 2 * 128 + 6, 0xFF80);
        assert_int_equal(run(&c, &d), KVG_OK);
        memcpy(want, c.before, sizeof want);
        model1_want(want, &c, 0, 3);
        model1_want(want, &c, 2, 0);
        kvgt_assert_bytes_equal(c.cb, want, sizeof want, "model1 rows");
    }
}

static void model1_refusals(void **state)
{
    static call c;
    const int64_t shape[2] = {2, M1_BLOCK}, ok[2] = {0, 3};
    const int64_t past[2] = {4, 0}, dup[2] = {1, 1}, short_[2] = {2, 1727};
    const int64_t one[2] = {3, 1152}, low[2] = {0, 2};
    const kvg_tensor *kv;
    kvg_tensor wide, sc;
    float sv = 1.0f;
    kvg_diag d;
    (void)state;

    /* block_size 1: 584 bytes a block, padded to 1152 */
    setup_m1(&c, 2, KVG_INT32, low, KVG_UINT8, one, 1, 1);
    assert_int_equal(run(&c, &d), KVG_OK);
    setup_m1(&c, 2, KVG_INT32, ok, KVG_UINT8, shape, 2, 1);
    c.a.block_size = 0;
    refused(&c, "block_size", "flashmla-model1 needs");
    setup_m1(&c, 2, KVG_INT32, ok, KVG_UINT8, short_, 2, 1);
    refused(&c, "kv_cache", "dim 1 is 1727 bytes; block_size 2 needs "
                            "ceil(2 * 584 / 576) * 576 = 1728");
    setup_m1(&c, 2, KVG_INT32, ok, KVG_UINT8, shape, 3, 1);
    refused(&c, "kv_cache", "1728 bytes; block_size 3 needs");
    setup_m1(&c, 2, KVG_INT32, ok, KVG_INT8, shape, 2, 1);
    refused(&c, "kv_cache", "uint8 or float8_e4m3fn");
    setup_m1(&c, 2, KVG_INT64, past, KVG_UINT8, shape, 2, 1);
    refused(&c, "slot_mapping", "outside [0, 4)");
    setup_m1(&c, 2, KVG_INT64, dup, KVG_UINT8, shape, 2, 1);
    refused(&c, "slot_mapping", "both write slot 1");
    setup_m1(&c, 2, KVG_INT64, ok, KVG_UINT8, shape, 2, 1);
    put16(c.kb + 896 + 2 * 300, 0xFF80); /* -inf, token 1 column 300 */
    refused(&c, "kv_c", "token 1, column 300");
    setup_m1(&c, 2, KVG_INT64, ok, KVG_UINT8, shape, 2, 1);
    kv = c.a.kv_c;
    wide = kvg_tensor_make(c.kb, 2 * 1024, KVG_BF16, 2,
                           (const int64_t[2]){2, 512});
    c.a.kv_c = &wide;
    refused(&c, "kv_c", "448");
    c.a.kv_c = kv;
    c.a.gamma = &c.gamma;
    c.gamma = kvg_tensor_make(c.gb, 1024, KVG_BF16, 1,
                              (const int64_t[1]){512});
    refused(&c, "gamma", "flashmla-model1 has no gamma");
    c.a.gamma = NULL;
    sc = kvg_tensor_make(&sv, 4, KVG_FP32, 0, NULL);
    c.a.scale = &sc;
    refused(&c, "scale", "flashmla-model1 has no scale");
    c.a.scale = NULL;
    c.a.epsilon = 1e-6;
    refused(&c, "epsilon", "flashmla-model1 has no RmsNorm");
    /* block_size belongs to model1 only */
    setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 2, KVG_INT64, ok, KVG_UINT8, 2,
          (const int64_t[2]){4, ROW});
    c.a.block_size = 64;
    refused(&c, "block_size", "vllm-fp8_ds_mla has no block_size");
    setup_m1(&c, 2, KVG_INT64, ok, KVG_UINT8, shape, 2, 1);
    c.a.use_ue8m0 = 1; /* model1's scales are E8M0 already */
    refused(&c, "use_ue8m0", "flashmla-model1 has no use_ue8m0");
}

/* The compare hook: each preset's byte map on a [2, 2, 656] cache. */
static void row_layout_hook(void **state)
{
    static call c;
    const int64_t shape[3] = {2, 2, ROW}, slots[1] = {0};
    kvg_i_op_args a;
    kvg_row_layout l;
    (void)state;

    setup(&c, KVG_CCDM_VLLM_FP8_DS_MLA, 1, KVG_INT64, slots, KVG_UINT8, 3,
          shape);
    memcpy(a.u.bytes, &c.a, sizeof c.a);
    assert_int_equal(kvg_i_op_concat_and_cache_ds_mla.row_layout(
                         &a, "kv_cache", &l, NULL),
                     KVG_OK);
    assert_int_equal(l.segments, 3);
    assert_int_equal(l.seg[0].field, KVG_ROW_PAYLOAD);
    assert_int_equal(l.seg[0].dtype, KVG_FP8_E4M3FN);
    assert_int_equal(l.seg[0].group, 128);
    assert_int_equal(l.seg[1].field, KVG_ROW_SCALE);
    assert_int_equal(l.seg[1].offset, 512);
    assert_int_equal(l.seg[2].field, KVG_ROW_COPY);
    assert_int_equal(l.seg[2].offset, 528);
    assert_int_equal(l.block_stride[0], 2 * ROW);
    assert_int_equal(l.tensors, 1);
    assert_string_equal(l.tensor_name[0], "kv_cache");
    assert_int_equal(l.blocks, 2);
    {
        const size_t bytes[2] = {4 * ROW, 0};
        assert_int_equal(kvg_row_layout_check(&l, bytes, NULL), KVG_OK);
    }

    setup(&c, KVG_CCDM_ASCEND_SFA_C8, 1, KVG_INT64, slots, KVG_INT8, 3,
          shape);
    memcpy(a.u.bytes, &c.a, sizeof c.a);
    assert_int_equal(kvg_i_op_concat_and_cache_ds_mla.row_layout(
                         &a, "kv_cache", &l, NULL),
                     KVG_OK);
    assert_int_equal(l.seg[0].dtype, KVG_INT8);
    assert_int_equal(l.seg[1].field, KVG_ROW_COPY);
    assert_int_equal(l.seg[1].offset, 512);
    assert_int_equal(l.seg[2].field, KVG_ROW_SCALE);
    assert_int_equal(l.seg[2].offset, 640);
    assert_int_equal(kvg_i_op_concat_and_cache_ds_mla.row_layout(
                         &a, "kv_c", &l, NULL),
                     KVG_OK);
    assert_int_equal(l.segments, 0);
}

/* model1's byte map for block_size 64 (FlashMLA's): a block of
 * ceil(64 * 584 / 576) * 576 = 37440 bytes, the rows at stride 576, the
 * scales from 64 * 576 = 36864 at stride 8 with the pad don't care. */
static void model1_row_layout(void **state)
{
    static unsigned char big[37440];
    const int64_t shape[2] = {1, 37440}, ks[2] = {1, 448}, ps[2] = {1, 64},
                  sl[1] = {63};
    static call c;
    kvg_concat_and_cache_ds_mla_args *x = &c.a;
    kvg_tensor cache, slots;
    kvg_i_op_args a;
    kvg_row_layout l;
    kvg_row_place pl;
    (void)state;

    memset(&c, 0, sizeof c);
    kvg_concat_and_cache_ds_mla_args_init(x);
    x->preset = KVG_CCDM_FLASHMLA_MODEL1;
    x->block_size = 64;
    c.kv_c = kvg_tensor_make(c.kb, 896, KVG_BF16, 2, ks);
    c.k_pe = kvg_tensor_make(c.pb, 128, KVG_BF16, 2, ps);
    slots = kvg_tensor_make((void *)sl, 8, KVG_INT64, 1, ks);
    cache = kvg_tensor_make(big, sizeof big, KVG_FP8_E4M3FN, 2, shape);
    x->kv_c = &c.kv_c, x->k_pe = &c.k_pe, x->slot_mapping = &slots;
    x->kv_cache = &cache;
    memcpy(a.u.bytes, x, sizeof *x);
    assert_int_equal(kvg_i_op_concat_and_cache_ds_mla.row_layout(
                         &a, "kv_cache", &l, NULL),
                     KVG_OK);
    assert_int_equal(l.segments, 4);
    assert_int_equal(l.regions, 2);
    assert_int_equal(l.block_size, 64);
    assert_int_equal(l.block_stride[0], 37440);
    assert_int_equal(l.region_offset[1], 36864);
    assert_int_equal(l.seg[0].group, 64);
    assert_int_equal(l.seg[2].dtype, KVG_E8M0);
    assert_int_equal(l.seg[3].field, KVG_ROW_DONT_CARE);
    /* slot 63's pad, and the first byte of the tail */
    assert_int_equal(kvg_row_element_at(&l, 63, 0, 3, 0), 36864 + 63 * 8 + 7);
    pl = kvg_row_place_of(&l, 0, 64 * 584);
    assert_int_equal(pl.slot, -1);
    pl = kvg_row_place_of(&l, 0, 36864 + 5 * 8 + 3);
    assert_int_equal(pl.slot, 5);
    assert_int_equal(pl.segment, 2);
    assert_int_equal(pl.group, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_row),
        cmocka_unit_test(ascend_950),
        cmocka_unit_test(ascend_a2a3),
        cmocka_unit_test(ascend_pad_skipped),
        cmocka_unit_test(rms_multiplies_by_rstd),
        cmocka_unit_test(refusals),
        cmocka_unit_test(scale_tensor),
        cmocka_unit_test(vllm_ue8m0),
        cmocka_unit_test(row_layout_hook),
        cmocka_unit_test(model1_rows),
        cmocka_unit_test(model1_refusals),
        cmocka_unit_test(model1_row_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
