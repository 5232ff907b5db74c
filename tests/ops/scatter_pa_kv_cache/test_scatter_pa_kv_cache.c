/*
 * tests/ops/scatter_pa_kv_cache/test_scatter_pa_kv_cache.c - ScatterPaKvCache
 * from first principles: every scenario's addressing written out here as
 * the kernels' formulas (not kvg_layout_offset), the expected cache built
 * byte by byte from the poisoned initial cache, and every refusal checked
 * to leave both caches byte-identical.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"
#include "kvgold/scatter_pa_kv_cache.h"

typedef enum shape_kind { NORM, NHSD, NZ4, NZ5 } shape_kind;

typedef struct side {
    kvg_dtype dt;
    int64_t d;
    shape_kind kind;
    int64_t stride, offset; /* Nct; stride 0: dense [T, N, D] */
    kvg_tensor src, cache;
    unsigned char *before;
} side;

typedef struct fx {
    int64_t tokens, heads, blocks, bs;
    int sides;
    side s[2];
    kvg_tensor slot;
    void *ws;
    size_t ws_size;
    kvg_scatter_pa_kv_cache_args a;
} fx;

#define WS_BYTES (1u << 14)

static int64_t c0_of(kvg_dtype dt) { return 32 / (int64_t)kvg_dtype_size(dt); }

static void make_side(fx *f, side *sd, uint64_t seed)
{
    const int64_t n = f->heads, d = sd->d, c0 = c0_of(sd->dt);
    int64_t ss[3], cs[5];
    int cr = 4;

    if (sd->stride > 0) {
        ss[0] = (f->tokens - 1) * sd->stride + sd->offset + n * d + 2;
        sd->src = kvgt_tensor_new(sd->dt, 1, ss, seed);
    } else {
        ss[0] = f->tokens, ss[1] = n, ss[2] = d;
        sd->src = kvgt_tensor_new(sd->dt, 3, ss, seed);
    }
    cs[0] = f->blocks;
    switch (sd->kind) {
    case NORM: cs[1] = f->bs, cs[2] = n, cs[3] = d; break;
    case NHSD: cs[1] = n, cs[2] = f->bs, cs[3] = d; break;
    case NZ4: cs[1] = n * d / c0, cs[2] = f->bs, cs[3] = c0; break;
    case NZ5:
        cs[1] = n, cs[2] = d / c0, cs[3] = f->bs, cs[4] = c0, cr = 5;
        break;
    }
    sd->cache = kvgt_tensor_new(sd->dt, cr, cs, seed + 1);
}

static void fx_init(fx *f, int sides, const side *k, const side *v,
                    int64_t tokens, int64_t heads, int64_t blocks, int64_t bs,
                    kvg_dtype slot_dt, const int64_t *slots, uint64_t seed)
{
    int64_t t, ts[1];
    int i;

    memset(f, 0, sizeof *f);
    f->tokens = tokens, f->heads = heads, f->blocks = blocks, f->bs = bs;
    f->sides = sides;
    f->s[0] = *k;
    if (sides == 2)
        f->s[1] = *v;
    for (i = 0; i < sides; i++)
        make_side(f, &f->s[i], seed + 10 * (uint64_t)i);
    ts[0] = tokens;
    f->slot = kvgt_tensor_new(slot_dt, 1, ts, seed + 7);
    for (t = 0; t < tokens; t++) {
        if (slot_dt == KVG_INT32) {
            int32_t v32 = (int32_t)slots[t];
            memcpy((unsigned char *)f->slot.data + 4 * t, &v32, 4);
        } else {
            memcpy((unsigned char *)f->slot.data + 8 * t, &slots[t], 8);
        }
    }
    f->ws = kvgt_alloc_poisoned(WS_BYTES, seed + 8);
    f->ws_size = WS_BYTES;
    kvg_scatter_pa_kv_cache_args_init(&f->a);
    f->a.key = &f->s[0].src;
    f->a.key_cache = &f->s[0].cache;
    f->a.slot_mapping = &f->slot;
    if (sides == 2) {
        f->a.value = &f->s[1].src;
        f->a.value_cache = &f->s[1].cache;
    }
    if (k->kind == NZ4 || k->kind == NZ5)
        f->a.cache_mode = KVG_CACHE_PA_NZ;
    if (k->kind == NHSD)
        f->a.scatter_mode = KVG_SCATTER_NHSD;
    if (k->stride > 0) {
        f->a.scatter_mode = KVG_SCATTER_NCT;
        f->a.strides[0] = k->stride, f->a.offsets[0] = k->offset;
        if (sides == 2)
            f->a.strides[1] = v->stride, f->a.offsets[1] = v->offset;
    }
    f->a.workspace = f->ws;
    f->a.workspace_size = f->ws_size;
}

static void fx_free(fx *f)
{
    int i;
    for (i = 0; i < f->sides; i++) {
        kvgt_tensor_free(&f->s[i].src);
        kvgt_tensor_free(&f->s[i].cache);
        free(f->s[i].before);
    }
    kvgt_tensor_free(&f->slot);
    free(f->ws);
}

static void snap(fx *f)
{
    int i;
    for (i = 0; i < f->sides; i++) {
        free(f->s[i].before);
        f->s[i].before = (unsigned char *)malloc(f->s[i].cache.nbytes);
        assert_non_null(f->s[i].before);
        memcpy(f->s[i].before, f->s[i].cache.data, f->s[i].cache.nbytes);
    }
}

static int64_t slot_at(const fx *f, int64_t t)
{
    if (f->slot.dtype == KVG_INT32) {
        int32_t v;
        memcpy(&v, (const unsigned char *)f->slot.data + 4 * t, 4);
        return v;
    }
    {
        int64_t v;
        memcpy(&v, (const unsigned char *)f->slot.data + 8 * t, 8);
        return v;
    }
}

/* The kernels' formulas: element index of channel c (of N*D) of the token
 * written to slot s. */
static int64_t cache_elem(const fx *f, const side *sd, int64_t s, int64_t c)
{
    const int64_t blk = s / f->bs, o = s % f->bs, n = f->heads, d = sd->d;
    const int64_t c0 = c0_of(sd->dt), h = c / d, j = c % d;
    switch (sd->kind) {
    case NORM: return s * n * d + c;
    case NHSD: return ((blk * n + h) * f->bs + o) * d + j;
    case NZ4:
        return ((blk * (n * d / c0) + c / c0) * f->bs + o) * c0 + c % c0;
    case NZ5: /* [NB, N, D/C0, BS, C0] */
        return (((blk * n + h) * (d / c0) + j / c0) * f->bs + o) * c0 +
               j % c0;
    }
    return -1;
}

static int64_t src_elem(const fx *f, const side *sd, int64_t t, int64_t c)
{
    if (sd->stride > 0)
        return t * sd->stride + sd->offset + c;
    return t * f->heads * sd->d + c;
}

/* Run and compare every byte of every cache with the image built here. */
static void run_and_check(fx *f)
{
    kvg_diag diag;
    int i;
    int64_t t, c;

    snap(f);
    if (kvg_scatter_pa_kv_cache(&f->a, &diag) != KVG_OK)
        fail_msg("unexpected refusal: %s", diag.message);
    for (i = 0; i < f->sides; i++) {
        side *sd = &f->s[i];
        const size_t es = kvg_dtype_size(sd->dt);
        unsigned char *want = (unsigned char *)malloc(sd->cache.nbytes);
        assert_non_null(want);
        memcpy(want, sd->before, sd->cache.nbytes);
        for (t = 0; t < f->tokens; t++) {
            const int64_t s = slot_at(f, t);
            if (s < 0)
                continue;
            for (c = 0; c < f->heads * sd->d; c++)
                memcpy(want + (size_t)cache_elem(f, sd, s, c) * es,
                       (const unsigned char *)sd->src.data +
                           (size_t)src_elem(f, sd, t, c) * es,
                       es);
        }
        kvgt_assert_bytes_equal(sd->cache.data, want, sd->cache.nbytes,
                                i == 0 ? "key_cache" : "value_cache");
        /* the poison makes a skipped or missed write visible */
        assert_true(memcmp(sd->cache.data, sd->before, sd->cache.nbytes) != 0);
        free(want);
    }
}

static void refused(fx *f, kvg_status want, const char *tensor,
                    const char *fragment)
{
    kvg_diag diag;
    kvg_status st;
    int i;

    snap(f);
    st = kvg_scatter_pa_kv_cache(&f->a, &diag);
    if (st != want)
        fail_msg("status %d, want %d (%s)", (int)st, (int)want, diag.message);
    if (strcmp(diag.tensor, tensor) != 0)
        fail_msg("diag names \"%s\", want \"%s\" (%s)", diag.tensor, tensor,
                 diag.message);
    if (strstr(diag.message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", diag.message, fragment);
    for (i = 0; i < f->sides; i++)
        kvgt_assert_bytes_equal(f->s[i].cache.data, f->s[i].before,
                                f->s[i].cache.nbytes, "cache after refusal");
}

static side mk(kvg_dtype dt, int64_t d, shape_kind kind)
{
    side s;
    memset(&s, 0, sizeof s);
    s.dt = dt, s.d = d, s.kind = kind;
    return s;
}

/* ---- valid calls --------------------------------------------------------- */

static void test_norm_every_dtype(void **state)
{
    static const kvg_dtype dts[] = {
        KVG_FP16,  KVG_BF16,   KVG_FP32,   KVG_INT8,       KVG_UINT8,
        KVG_INT16, KVG_UINT16, KVG_INT32,  KVG_UINT32,     KVG_HIF8,
        KVG_FP8_E5M2, KVG_FP8_E4M3FN, KVG_FP4_E2M1, KVG_FP4_E1M2};
    static const int64_t slots[] = {5, -1, 0, 7, 2};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        fx f;
        side k = mk(dts[i], 8, NORM), v = mk(dts[i], 4, NORM);
        fx_init(&f, 2, &k, &v, 5, 3, 2, 4,
                i % 2 ? KVG_INT64 : KVG_INT32, slots, 100 + i);
        run_and_check(&f);
        fx_free(&f);
    }
}

static void test_nz_4d_5d_mixed_dtypes(void **state)
{
    static const int64_t slots[] = {9, 0, -1, 15, 4, 8};
    fx f;
    side k = mk(KVG_INT8, 64, NZ5), v = mk(KVG_FP16, 32, NZ4);
    (void)state;
    fx_init(&f, 2, &k, &v, 6, 2, 2, 8, KVG_INT64, slots, 200);
    run_and_check(&f);
    fx_free(&f);
    k = mk(KVG_FP32, 16, NZ4), v = mk(KVG_FP4_E2M1, 32, NZ5);
    fx_init(&f, 2, &k, &v, 6, 3, 4, 4, KVG_INT32, slots, 210);
    run_and_check(&f);
    fx_free(&f);
}

static void test_nhsd(void **state)
{
    static const int64_t slots[] = {3, 6, 1, 0};
    fx f;
    side k = mk(KVG_BF16, 32, NHSD), v = mk(KVG_BF16, 16, NHSD);
    (void)state;
    fx_init(&f, 2, &k, &v, 4, 3, 2, 4, KVG_INT32, slots, 300);
    run_and_check(&f);
    fx_free(&f);
}

static void test_nct_and_key_only(void **state)
{
    static const int64_t slots[] = {2, -1, 7, 4};
    fx f;
    side k = mk(KVG_FP16, 8, NORM), v = mk(KVG_FP16, 4, NORM);
    kvg_tensor scalar;
    int64_t one = 1;
    (void)state;
    k.stride = 21, k.offset = 3, v.stride = 8, v.offset = 0;
    fx_init(&f, 2, &k, &v, 4, 2, 2, 4, KVG_INT32, slots, 400);
    run_and_check(&f);
    fx_free(&f);
    /* key-only: value and value_cache NULL, then both 0-dim (aclnn) */
    k = mk(KVG_BF16, 16, NORM);
    fx_init(&f, 1, &k, NULL, 4, 2, 2, 4, KVG_INT64, slots, 410);
    run_and_check(&f);
    scalar = kvgt_tensor_new(KVG_BF16, 0, &one, 411);
    f.a.value = &scalar;
    f.a.value_cache = &scalar;
    kvgt_poison(f.s[0].cache.data, f.s[0].cache.nbytes, 412);
    run_and_check(&f);
    kvgt_tensor_free(&scalar);
    fx_free(&f);
}

/* A packed fp4 byte keeps both nibbles in place: 0x1F stays 0x1F. */
static void test_fp4_bytes_whole(void **state)
{
    static const int64_t slots[] = {1};
    fx f;
    side k = mk(KVG_FP4_E2M1, 32, NZ4), v = mk(KVG_BF16, 16, NZ4);
    unsigned char *src, *cache;
    int64_t c;
    (void)state;
    fx_init(&f, 2, &k, &v, 1, 1, 1, 4, KVG_INT32, slots, 500);
    src = (unsigned char *)f.s[0].src.data;
    for (c = 0; c < 32; c++)
        src[c] = (unsigned char)(0x10 + (c & 0x0F)) ^ (unsigned char)(c << 4);
    run_and_check(&f);
    cache = (unsigned char *)f.s[0].cache.data;
    for (c = 0; c < 32; c++) /* block 0, group 0, row 1 */
        assert_int_equal(cache[32 + c], src[c]);
    fx_free(&f);
}

/* ---- refusals ---------------------------------------------------------- */

static void norm_fx(fx *f, const int64_t *slots, kvg_dtype slot_dt,
                    uint64_t seed)
{
    side k = mk(KVG_FP16, 16, NORM), v = mk(KVG_FP16, 16, NORM);
    fx_init(f, 2, &k, &v, 4, 2, 2, 4, slot_dt, slots, seed);
}

static void test_refuse_slots(void **state)
{
    static const int64_t dup[] = {0, 5, -1, 5}, out[] = {0, 8, 1, 2};
    static const int64_t wide[] = {0, ((int64_t)1 << 32) + 1, 2, 3};
    static const int64_t neg[] = {0, -1, 1, 2};
    fx f;
    side k = mk(KVG_FP16, 16, NHSD), v = mk(KVG_FP16, 16, NHSD);
    (void)state;
    norm_fx(&f, dup, KVG_INT32, 600);
    refused(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
            "tokens 1 and 3 both write slot 5");
    fx_free(&f);
    norm_fx(&f, out, KVG_INT32, 601);
    refused(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
            "token 1: slot 8 is outside [0, 8)");
    fx_free(&f);
    norm_fx(&f, wide, KVG_INT64, 602);
    refused(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
            "token 1: slot 4294967297 is outside");
    fx_free(&f);
    fx_init(&f, 2, &k, &v, 4, 2, 2, 4, KVG_INT32, neg, 603);
    refused(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
            "token 1: slot -1 is negative");
    fx_free(&f);
}

static void test_refuse_shapes_and_modes(void **state)
{
    static const int64_t ok[] = {0, 1, 2, 3};
    fx f;
    kvg_tensor i64;
    static const int64_t kshape[3] = {4, 2, 16};
    (void)state;
    norm_fx(&f, ok, KVG_INT32, 700);
    f.a.value_cache = NULL;
    refused(&f, KVG_ERR_PARAM_NULLPTR, "value_cache", "absent while value");
    f.a.value_cache = &f.s[1].cache;
    f.a.key = NULL;
    refused(&f, KVG_ERR_PARAM_NULLPTR, "key", "key");
    f.a.key = &f.s[0].src;
    f.a.scatter_mode = KVG_SCATTER_ROPE; /* its index tensors missing */
    refused(&f, KVG_ERR_PARAM_NULLPTR, "compress_lens", "compress_lens");
    f.a.scatter_mode = (kvg_scatter_mode)9;
    refused(&f, KVG_ERR_PARAM_INVALID, "scatter_mode", "is not None");
    f.a.scatter_mode = KVG_SCATTER_NONE;
    f.a.cache_mode = KVG_CACHE_PA_BNSD; /* shared vocabulary, not this op's */
    refused(&f, KVG_ERR_PARAM_INVALID, "cache_mode",
            "PA_BNSD is not a mode of ScatterPaKvCache");
    f.a.cache_mode = (kvg_cache_mode)9;
    refused(&f, KVG_ERR_PARAM_INVALID, "cache_mode", "invalid kvg_cache_mode");
    f.a.scatter_mode = KVG_SCATTER_NCT;
    f.a.cache_mode = KVG_CACHE_PA_NZ;
    refused(&f, KVG_ERR_PARAM_INVALID, "scatter_mode", "PA_NZ takes only");
    f.a.cache_mode = KVG_CACHE_NORM;
    f.a.strides[0] = 40, f.a.offsets[0] = 1; /* 3*40+1+32 > 128 */
    refused(&f, KVG_ERR_PARAM_INVALID, "key", "ends past the storage");
    f.a.strides[0] = 0;
    refused(&f, KVG_ERR_PARAM_INVALID, "strides", "must be >= 1");
    f.a.scatter_mode = KVG_SCATTER_NONE;
    f.a.seq_lens = &f.slot;
    refused(&f, KVG_ERR_PARAM_INVALID, "seq_lens", "not an input");
    f.a.seq_lens = NULL;
    i64 = kvgt_tensor_new(KVG_INT64, 3, kshape, 701);
    f.a.key = &i64;
    refused(&f, KVG_ERR_PARAM_INVALID, "key", "dtype must be");
    f.a.key = &f.s[0].src;
    kvgt_tensor_free(&i64);
    f.a.workspace_size = 8;
    refused(&f, KVG_ERR_WORKSPACE, "workspace", "needed");
    fx_free(&f);
}

static void test_workspace_size(void **state)
{
    static const int64_t ok[] = {0, 1, 2, 3};
    fx f;
    size_t bytes = 0;
    kvg_diag diag;
    (void)state;
    norm_fx(&f, ok, KVG_INT32, 800);
    assert_int_equal(kvg_scatter_pa_kv_cache_workspace_size(&f.a, &bytes,
                                                            &diag),
                     KVG_OK);
    assert_true(bytes >= 4 * 16); /* one (slot, token) pair per token */
    f.a.workspace_size = bytes;
    run_and_check(&f);
    f.a.workspace_size = bytes - 1;
    refused(&f, KVG_ERR_WORKSPACE, "workspace", "needed");
    fx_free(&f);
}

/* ---- compressed modes: one head by hand ---------------------------------- */

typedef struct hx {
    kvg_tensor key, value, kc, vc, slot, lens, seq, off;
    unsigned char *kc0;
    void *ws;
    kvg_scatter_pa_kv_cache_args a;
} hx;

static void set_idx(kvg_tensor *t, int64_t i, int64_t v)
{
    if (t->dtype == KVG_INT32) {
        int32_t x = (int32_t)v;
        memcpy((unsigned char *)t->data + 4 * i, &x, 4);
    } else {
        memcpy((unsigned char *)t->data + 8 * i, &v, 8);
    }
}

/* One batch of L tokens, one head of D fp16 channels, caches of 2 blocks
 * of 4 slots; slot s, w = lens, o = off. */
static void hx_init(hx *h, kvg_scatter_mode mode, kvg_dtype idx, int64_t L,
                    int64_t s, int64_t w, int64_t o, uint64_t seed)
{
    static const int64_t one = 1;
    int64_t ks[3], cs[4];
    memset(h, 0, sizeof *h);
    ks[0] = L, ks[1] = 1, ks[2] = 16;
    cs[0] = 2, cs[1] = 4, cs[2] = 1, cs[3] = 16;
    h->key = kvgt_tensor_new(KVG_FP16, 3, ks, seed);
    h->value = kvgt_tensor_new(KVG_FP16, 3, ks, seed + 1);
    h->kc = kvgt_tensor_new(KVG_FP16, 4, cs, seed + 2);
    h->vc = kvgt_tensor_new(KVG_FP16, 4, cs, seed + 3);
    h->slot = kvgt_tensor_new(idx, 1, &one, seed + 4);
    h->lens = kvgt_tensor_new(idx, 1, &one, seed + 5);
    h->seq = kvgt_tensor_new(idx, 1, &one, seed + 6);
    h->off = kvgt_tensor_new(idx, 1, &one, seed + 7);
    set_idx(&h->slot, 0, s);
    set_idx(&h->lens, 0, w);
    set_idx(&h->seq, 0, L);
    set_idx(&h->off, 0, o);
    h->ws = kvgt_alloc_poisoned(WS_BYTES, seed + 8);
    kvg_scatter_pa_kv_cache_args_init(&h->a);
    h->a.key = &h->key, h->a.value = &h->value;
    h->a.key_cache = &h->kc, h->a.value_cache = &h->vc;
    h->a.slot_mapping = &h->slot, h->a.compress_lens = &h->lens;
    h->a.seq_lens = &h->seq;
    if (mode != KVG_SCATTER_ALIBI)
        h->a.compress_seq_offset = &h->off;
    h->a.scatter_mode = mode;
    h->a.workspace = h->ws, h->a.workspace_size = WS_BYTES;
    h->kc0 = (unsigned char *)malloc(h->kc.nbytes);
    assert_non_null(h->kc0);
    memcpy(h->kc0, h->kc.data, h->kc.nbytes);
}

static void hx_free(hx *h)
{
    kvgt_tensor_free(&h->key), kvgt_tensor_free(&h->value);
    kvgt_tensor_free(&h->kc), kvgt_tensor_free(&h->vc);
    kvgt_tensor_free(&h->slot), kvgt_tensor_free(&h->lens);
    kvgt_tensor_free(&h->seq), kvgt_tensor_free(&h->off);
    free(h->kc0);
    free(h->ws);
}

/* Row r of key (32 bytes) is flat slot `slot` of key_cache. */
static void assert_row(const hx *h, int64_t slot, int64_t r)
{
    kvgt_assert_bytes_equal((const unsigned char *)h->kc.data + slot * 32,
                            (const unsigned char *)h->key.data + r * 32, 32,
                            "key_cache row");
}

static void assert_untouched(const hx *h, int64_t from, int64_t to)
{
    int64_t s;
    for (s = 0; s < 8; s++)
        if (s < from || s >= to)
            kvgt_assert_bytes_equal((const unsigned char *)h->kc.data + s * 32,
                                    h->kc0 + s * 32, 32, "untouched slot");
}

static void hx_run(hx *h)
{
    kvg_diag d;
    if (kvg_scatter_pa_kv_cache(&h->a, &d) != KVG_OK)
        fail_msg("unexpected refusal: %s", d.message);
}

static void test_alibi_and_omni_by_hand(void **state)
{
    hx h;
    (void)state;
    /* Alibi: the last w = 2 of L = 5 tokens to slots 3, 4 (block 0 row 3,
     * block 1 row 0: the run crosses the block), int64 indices */
    hx_init(&h, KVG_SCATTER_ALIBI, KVG_INT64, 5, 3, 2, 0, 900);
    hx_run(&h);
    assert_row(&h, 3, 3);
    assert_row(&h, 4, 4);
    assert_untouched(&h, 3, 5);
    hx_free(&h);
    /* Omni: L = 6, o = 1, w = 3: tokens 0, 4, 5 to slots 2, 3, 4 */
    hx_init(&h, KVG_SCATTER_OMNI, KVG_INT32, 6, 2, 3, 1, 910);
    hx_run(&h);
    assert_row(&h, 2, 0);
    assert_row(&h, 3, 4);
    assert_row(&h, 4, 5);
    assert_untouched(&h, 2, 5);
    hx_free(&h);
}

/* Rope: L = 4, o = 0, w = 3: the mean of tokens 0..2 at slot 5, token 3 at
 * slot 6. Channel 0 holds 2048, 1, 1: binary32 gives 2050 / 3, which fp16
 * rounds to 683.5; the other channels random. */
static void test_rope_mean_by_hand(void **state)
{
    hx h;
    int64_t c, t;
    (void)state;
    hx_init(&h, KVG_SCATTER_ROPE, KVG_INT32, 4, 5, 3, 0, 920);
    for (t = 0; t < 4; t++)
        for (c = 0; c < 16; c++) {
            float v = t == 0 && c == 0 ? 2048.0f
                      : c == 0         ? 1.0f
                                       : (float)((t * 7 + c * 3) % 11) - 5.25f;
            uint16_t b = kvg_f32_to_fp16(v, KVG_OVF_DEFAULT);
            memcpy((unsigned char *)h.key.data + (t * 16 + c) * 2, &b, 2);
        }
    hx_run(&h);
    for (c = 0; c < 16; c++) {
        float acc = 0.0f;
        uint16_t want, got;
        for (t = 0; t < 3; t++) {
            uint16_t b;
            memcpy(&b, (const unsigned char *)h.key.data + (t * 16 + c) * 2,
                   2);
            acc = acc + kvg_fp16_to_f32(b);
        }
        want = kvg_f32_to_fp16(acc / 3.0f, KVG_OVF_DEFAULT);
        memcpy(&got, (const unsigned char *)h.kc.data + (5 * 16 + c) * 2, 2);
        assert_int_equal(got, want);
    }
    {
        uint16_t got0;
        memcpy(&got0, (const unsigned char *)h.kc.data + 5 * 32, 2);
        assert_int_equal(got0, 0x6157); /* 683.5 */
    }
    assert_row(&h, 6, 3);
    assert_untouched(&h, 5, 7);
    hx_free(&h);
}

static void test_compressed_refusals(void **state)
{
    hx h;
    kvg_diag d;
    (void)state;
    /* a run past the cache: Alibi w = 3 from slot 6 of 8 */
    hx_init(&h, KVG_SCATTER_ALIBI, KVG_INT32, 5, 6, 3, 0, 930);
    assert_int_equal(kvg_scatter_pa_kv_cache(&h.a, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "slot_mapping");
    assert_non_null(strstr(d.message, "past the end of the cache"));
    kvgt_assert_bytes_equal(h.kc.data, h.kc0, h.kc.nbytes, "key_cache");
    /* Alibi takes no compress_seq_offset */
    h.a.compress_seq_offset = &h.off;
    assert_int_equal(kvg_scatter_pa_kv_cache(&h.a, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "compress_seq_offset");
    hx_free(&h);
    /* compress_lens > seq_lens names the tensor by its ScatterPaKvCache
     * name */
    hx_init(&h, KVG_SCATTER_OMNI, KVG_INT32, 4, 0, 5, 0, 940);
    assert_int_equal(kvg_scatter_pa_kv_cache(&h.a, &d), KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "compress_lens");
    assert_non_null(strstr(d.message, "outside [0, seq_lens 4]"));
    kvgt_assert_bytes_equal(h.kc.data, h.kc0, h.kc.nbytes, "key_cache");
    hx_free(&h);
}

static void test_mode_names(void **state)
{
    kvg_cache_mode cm = KVG_CACHE_PA_NZ;
    kvg_scatter_mode sm = KVG_SCATTER_NONE;
    (void)state;
    /* The shared vocabulary is exact: "" is Norm only through this
     * operator's attribute (aclnn's reading), not in the parser. */
    assert_false(kvg_cache_mode_from_name("", &cm));
    assert_int_equal(cm, KVG_CACHE_PA_NZ);
    assert_true(kvg_cache_mode_from_name("Norm", &cm));
    assert_int_equal(cm, KVG_CACHE_NORM);
    assert_true(kvg_cache_mode_from_name("PA_NZ", &cm));
    assert_int_equal(cm, KVG_CACHE_PA_NZ);
    assert_false(kvg_cache_mode_from_name("ND", &cm));
    /* the first spellings still compile and mean the same */
    assert_int_equal(KVG_SCATTER_CACHE_PA_NZ, KVG_CACHE_PA_NZ);
    assert_string_equal(kvg_scatter_cache_mode_name(KVG_SCATTER_CACHE_NORM),
                        "Norm");
    assert_true(kvg_scatter_mode_from_name("NHSD", &sm));
    assert_int_equal(sm, KVG_SCATTER_NHSD);
    assert_false(kvg_scatter_mode_from_name("none", &sm));
    assert_string_equal(kvg_scatter_mode_name(KVG_SCATTER_OMNI), "Omni");
    assert_string_equal(kvg_cache_mode_name(KVG_CACHE_PA_NZ), "PA_NZ");
    assert_null(kvg_cache_mode_name((kvg_cache_mode)5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_norm_every_dtype),
        cmocka_unit_test(test_nz_4d_5d_mixed_dtypes),
        cmocka_unit_test(test_nhsd),
        cmocka_unit_test(test_nct_and_key_only),
        cmocka_unit_test(test_fp4_bytes_whole),
        cmocka_unit_test(test_refuse_slots),
        cmocka_unit_test(test_refuse_shapes_and_modes),
        cmocka_unit_test(test_workspace_size),
        cmocka_unit_test(test_alibi_and_omni_by_hand),
        cmocka_unit_test(test_rope_mean_by_hand),
        cmocka_unit_test(test_compressed_refusals),
        cmocka_unit_test(test_mode_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
