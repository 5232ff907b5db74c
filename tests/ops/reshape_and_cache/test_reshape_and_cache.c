/*
 * tests/test_reshape_and_cache.c - ReshapeAndCache from first principles:
 * ND and NZ addressing checked element by element against the layout
 * formulas written out here (not kvg_layout_offset), KVHEAD runs by hand,
 * KVHEAD_ROPE compensation tokens computed by hand (including values where
 * the binary32 sequential sum differs from the exact mean), and every
 * validation rule with a poisoned-cache atomicity check.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "copy_fixture.h"

#include "kvgold/format.h"
#include "kvgold/reshape_and_cache.h"

typedef struct pf {
    int64_t tokens, heads, dk, dv, blocks, block_size, c0k, c0v;
    kvg_tensor key, value, kc, vc, slot, wins, seq, off;
    unsigned char *kc0, *vc0;
    void *ws;
    kvg_reshape_and_cache_args a;
} pf;

#define WS_BYTES (1u << 16)

static void pf_common(pf *p, uint64_t seed)
{
    p->ws = kvgt_alloc_poisoned(WS_BYTES, seed + 9);
    kvg_reshape_and_cache_args_init(&p->a);
    p->a.key = &p->key;
    p->a.value = &p->value;
    p->a.key_cache = &p->kc;
    p->a.value_cache = &p->vc;
    p->a.slot_mapping = &p->slot;
    p->a.workspace = p->ws;
    p->a.workspace_size = WS_BYTES;
}

/* compress_type UNDEFINED, ND or NZ caches. */
static void pf_tokens(pf *p, kvg_layout_kind layout, kvg_dtype kd,
                      kvg_dtype vd, int64_t tokens, int64_t heads, int64_t dk,
                      int64_t dv, int64_t blocks, int64_t block_size,
                      uint64_t seed)
{
    int64_t ks[3], vs[3], kcs[4], vcs[4], ts[1];
    memset(p, 0, sizeof *p);
    p->tokens = tokens, p->heads = heads, p->dk = dk, p->dv = dv;
    p->blocks = blocks, p->block_size = block_size;
    p->c0k = kvg_c0_of(kd), p->c0v = kvg_c0_of(vd);
    ks[0] = vs[0] = tokens, ks[1] = vs[1] = heads, ks[2] = dk, vs[2] = dv;
    kcs[0] = vcs[0] = blocks;
    if (layout == KVG_LAYOUT_NZ) {
        kcs[1] = heads * dk / p->c0k, kcs[2] = block_size, kcs[3] = p->c0k;
        vcs[1] = heads * dv / p->c0v, vcs[2] = block_size, vcs[3] = p->c0v;
    } else {
        kcs[1] = vcs[1] = block_size, kcs[2] = vcs[2] = heads;
        kcs[3] = dk, vcs[3] = dv;
    }
    ts[0] = tokens;
    p->key = kvgt_tensor_new(kd, 3, ks, seed);
    p->value = kvgt_tensor_new(vd, 3, vs, seed + 1);
    p->kc = kvgt_tensor_new(kd, 4, kcs, seed + 2);
    p->vc = kvgt_tensor_new(vd, 4, vcs, seed + 3);
    p->slot = kvgt_tensor_new(KVG_INT32, 1, ts, seed + 4);
    pf_common(p, seed);
    p->a.cache_layout = layout;
}

/* KVHEAD / KVHEAD_ROPE: caches [NB, BS, 1, D], per-head indices. */
static void pf_heads(pf *p, kvg_rac_compress mode, kvg_dtype dt,
                     int64_t tokens, int64_t heads, int64_t dim, int64_t batch,
                     int64_t blocks, int64_t block_size, uint64_t seed)
{
    int64_t ks[3], cs[4], hs[1], bs[1];
    memset(p, 0, sizeof *p);
    p->tokens = tokens, p->heads = heads, p->dk = p->dv = dim;
    p->blocks = blocks, p->block_size = block_size;
    ks[0] = tokens, ks[1] = heads, ks[2] = dim;
    cs[0] = blocks, cs[1] = block_size, cs[2] = 1, cs[3] = dim;
    hs[0] = batch * heads;
    bs[0] = batch;
    p->key = kvgt_tensor_new(dt, 3, ks, seed);
    p->value = kvgt_tensor_new(dt, 3, ks, seed + 1);
    p->kc = kvgt_tensor_new(dt, 4, cs, seed + 2);
    p->vc = kvgt_tensor_new(dt, 4, cs, seed + 3);
    p->slot = kvgt_tensor_new(KVG_INT32, 1, hs, seed + 4);
    p->wins = kvgt_tensor_new(KVG_INT32, 1, hs, seed + 5);
    p->seq = kvgt_tensor_new(KVG_INT32, 1, bs, seed + 6);
    p->off = kvgt_tensor_new(KVG_INT32, 1, hs, seed + 7);
    pf_common(p, seed);
    p->a.compress_type = mode;
    p->a.wins = &p->wins;
    p->a.seq_len = &p->seq;
    if (mode == KVG_RAC_COMPRESS_KVHEAD_ROPE)
        p->a.offset_index = &p->off;
}

static void pf_free(pf *p)
{
    kvgt_tensor_free(&p->key);
    kvgt_tensor_free(&p->value);
    kvgt_tensor_free(&p->kc);
    kvgt_tensor_free(&p->vc);
    kvgt_tensor_free(&p->slot);
    if (p->wins.data != NULL) {
        kvgt_tensor_free(&p->wins);
        kvgt_tensor_free(&p->seq);
        kvgt_tensor_free(&p->off);
    }
    free(p->ws);
    free(p->kc0);
    free(p->vc0);
}

static void pf_snap(pf *p)
{
    free(p->kc0);
    free(p->vc0);
    p->kc0 = kvgt_snapshot(&p->kc);
    p->vc0 = kvgt_snapshot(&p->vc);
}

static void pf_run_ok(pf *p)
{
    kvg_diag d;
    kvg_status st;
    pf_snap(p);
    st = kvg_reshape_and_cache(&p->a, &d);
    if (st != KVG_OK)
        fail_msg("unexpected failure: %s", d.message);
}

static void pf_reject(pf *p, kvg_status want, const char *tensor,
                      const char *fragment, int64_t position)
{
    kvg_diag d;
    kvg_status st;
    pf_snap(p);
    st = kvg_reshape_and_cache(&p->a, &d);
    kvgt_assert_diag(st, &d, want, tensor, fragment, position);
    kvgt_assert_bytes_equal(p->kc.data, p->kc0, p->kc.nbytes, "key_cache");
    kvgt_assert_bytes_equal(p->vc.data, p->vc0, p->vc.nbytes, "value_cache");
}

/* ---- element access and marks ------------------------------------------ */

static unsigned elem(const kvg_tensor *t, int64_t i)
{
    if (kvg_dtype_size(t->dtype) == 1)
        return ((const unsigned char *)t->data)[i];
    return kvgt_get16(t, i);
}

static unsigned old_elem(const kvg_tensor *t, const unsigned char *snap,
                         int64_t i)
{
    uint16_t v;
    if (kvg_dtype_size(t->dtype) == 1)
        return snap[i];
    memcpy(&v, snap + i * 2, 2);
    return v;
}

/* Distinct marks per (token, head, channel); value marks differ from key. */
static unsigned mark(const kvg_tensor *t, int is_value, int64_t tok,
                     int64_t h, int64_t c)
{
    if (kvg_dtype_size(t->dtype) == 1)
        return (unsigned)((tok * 41 + h * 13 + c * 3 + 5 + is_value * 0x55) &
                          0xFF);
    return (unsigned)((0x1000 + tok * 1024 + h * 128 + c) ^
                      (is_value ? 0x8000 : 0));
}

static void fill(kvg_tensor *t, int is_value, int64_t d)
{
    int64_t n = (int64_t)(t->nbytes / kvg_dtype_size(t->dtype)), i;
    int64_t heads = t->shape[1];
    for (i = 0; i < n; i++) {
        unsigned m = mark(t, is_value, i / (heads * d), i / d % heads, i % d);
        if (kvg_dtype_size(t->dtype) == 1)
            ((unsigned char *)t->data)[i] = (unsigned char)m;
        else
            kvgt_set16(t, i, (uint16_t)m);
    }
}

static void pf_marks(pf *p)
{
    fill(&p->key, 0, p->dk);
    fill(&p->value, 1, p->dv);
}

/* ---- token writes: ND and NZ ------------------------------------------- */

/* Offset of channel c (= head*D + d) of flat slot s, from the header:
 * ND  ((blk*BS + off)*N*D + c);  NZ ((blk*(N*D/C0) + c/C0)*BS + off)*C0 +
 * c%C0, with blk = s / BS, off = s % BS. */
static int64_t token_offset(int nz, int64_t s, int64_t c, int64_t heads,
                            int64_t d, int64_t bs, int64_t c0)
{
    int64_t blk = s / bs, off = s % bs;
    if (!nz)
        return (blk * bs + off) * heads * d + c;
    return ((blk * (heads * d / c0) + c / c0) * bs + off) * c0 + c % c0;
}

/* Every element of one cache: the token's mark where a slot was written,
 * the old byte pattern everywhere else. */
static void check_token_cache(const pf *p, int is_value, const int32_t *slots)
{
    const kvg_tensor *cache = is_value ? &p->vc : &p->kc;
    const kvg_tensor *src = is_value ? &p->value : &p->key;
    const unsigned char *snap = is_value ? p->vc0 : p->kc0;
    int64_t d = is_value ? p->dv : p->dk, c0 = is_value ? p->c0v : p->c0k;
    int64_t n = (int64_t)(cache->nbytes / kvg_dtype_size(cache->dtype));
    int nz = p->a.cache_layout == KVG_LAYOUT_NZ;
    char *written = (char *)calloc((size_t)n, 1);
    int64_t t, c, i;

    assert_non_null(written);
    for (t = 0; t < p->tokens; t++) {
        if (slots[t] < 0)
            continue;
        for (c = 0; c < p->heads * d; c++) {
            int64_t at = token_offset(nz, slots[t], c, p->heads, d,
                                      p->block_size, c0);
            written[at] = 1;
            if (elem(cache, at) != mark(src, is_value, t, c / d, c % d))
                fail_msg("%s token %lld channel %lld (slot %d): 0x%x, want "
                         "0x%x", is_value ? "value" : "key", (long long)t,
                         (long long)c, slots[t], elem(cache, at),
                         mark(src, is_value, t, c / d, c % d));
        }
    }
    for (i = 0; i < n; i++)
        if (!written[i] && elem(cache, i) != old_elem(cache, snap, i))
            fail_msg("%s cache element %lld changed",
                     is_value ? "value" : "key", (long long)i);
    free(written);
}

static void token_case(kvg_layout_kind layout, kvg_dtype kd, kvg_dtype vd,
                       int64_t heads, int64_t dk, int64_t dv, int64_t bs,
                       const int32_t *slots, int64_t tokens, int64_t blocks)
{
    pf p;
    pf_tokens(&p, layout, kd, vd, tokens, heads, dk, dv, blocks, bs, 101);
    pf_marks(&p);
    kvgt_set_i32(&p.slot, slots, tokens);
    pf_run_ok(&p);
    check_token_cache(&p, 0, slots);
    check_token_cache(&p, 1, slots);
    pf_free(&p);
}

static void test_nd(void **state)
{
    static const int32_t s3[] = {5, -1, 0}, s4[] = {7, 2, INT32_MIN, 3};
    (void)state;
    token_case(KVG_LAYOUT_ND, KVG_FP16, KVG_FP16, 2, 32, 32, 4, s3, 3, 2);
    token_case(KVG_LAYOUT_ND, KVG_BF16, KVG_BF16, 3, 64, 16, 4, s4, 4, 2);
    token_case(KVG_LAYOUT_ND, KVG_INT8, KVG_INT8, 4, 32, 32, 2, s4, 4, 4);
}

static void test_nz(void **state)
{
    static const int32_t s3[] = {17, -1, 0}, s4[] = {31, 2, -5, 16};
    (void)state;
    token_case(KVG_LAYOUT_NZ, KVG_FP16, KVG_FP16, 2, 32, 32, 16, s3, 3, 2);
    token_case(KVG_LAYOUT_NZ, KVG_BF16, KVG_FP16, 1, 64, 48, 16, s4, 4, 2);
    /* int8 key: C0 = 32; Dk = 16 puts two heads in one 32-channel chunk */
    token_case(KVG_LAYOUT_NZ, KVG_INT8, KVG_FP16, 2, 16, 32, 16, s4, 4, 2);
    token_case(KVG_LAYOUT_NZ, KVG_INT8, KVG_BF16, 3, 32, 48, 32, s4, 4, 1);
}

static void test_token_validation(void **state)
{
    static const int32_t dup[] = {0, 5, -1, 5}, big[] = {0, 8, 1, 2};
    pf p;
    (void)state;
    pf_tokens(&p, KVG_LAYOUT_ND, KVG_FP16, KVG_FP16, 4, 2, 32, 32, 2, 4, 111);
    kvgt_set_i32(&p.slot, dup, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "tokens 1 and 3 both write slot 5", 3);
    kvgt_set_i32(&p.slot, big, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "token 1: slot 8 is outside [0, 8)", 1);
    p.value.dtype = KVG_BF16;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "value", "must be fp16, got bf16",
              -1);
    p.value.dtype = KVG_FP16;
    p.vc.dtype = KVG_BF16;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "value_cache", "must be fp16", -1);
    p.vc.dtype = KVG_FP16;
    p.kc.shape[2] = 1, p.kc.shape[1] = 8; /* [2, 8, 1, 32]: N mismatch */
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key_cache", "dim 2 must be 2", -1);
    p.kc.shape[2] = 2, p.kc.shape[1] = 4;
    p.vc.shape[0] = 1, p.vc.shape[1] = 8;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "value_cache", "dim 0 must be 2",
              -1);
    p.vc.shape[0] = 2, p.vc.shape[1] = 4;
    p.slot.shape[0] = 2, p.slot.nbytes = 8;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "dim 0 must be 4 (num_tokens of key)", -1);
    p.slot.shape[0] = 4, p.slot.nbytes = 16;
    p.slot.dtype = KVG_FP32;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping", "must be int32", -1);
    p.slot.dtype = KVG_INT32;
    p.a.slot_mapping = NULL;
    pf_reject(&p, KVG_ERR_PARAM_NULLPTR, "slot_mapping", "NULL", -1);
    p.a.slot_mapping = &p.slot;
    p.a.workspace_size = 8;
    pf_reject(&p, KVG_ERR_WORKSPACE, "workspace", "needed", -1);
    pf_free(&p);
}

static void test_nz_validation(void **state)
{
    static const int32_t ok[] = {0, 1, 2};
    pf p;
    (void)state;
    pf_tokens(&p, KVG_LAYOUT_NZ, KVG_INT8, KVG_FP16, 3, 2, 32, 32, 2, 16,
              121);
    kvgt_set_i32(&p.slot, ok, 3);
    pf_run_ok(&p);
    p.value.dtype = KVG_INT8, p.value.nbytes /= 2;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "value", "2-byte", -1);
    p.value.dtype = KVG_FP16, p.value.nbytes *= 2;
    p.kc.shape[3] = 16, p.kc.shape[1] = 4; /* an fp16-shaped int8 cache */
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key_cache",
              "dim 1 must be 2 (N*D/C0)", -1);
    p.kc.shape[1] = 2, p.kc.shape[2] = 32; /* [2, 2, 32, 16] */
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key_cache",
              "dim 3 must be 32 (C0 of the cache dtype)", -1);
    p.kc.shape[2] = 16, p.kc.shape[3] = 32;
    pf_free(&p);
    /* N*Dk = 48 is no multiple of int8's C0 = 32 */
    pf_tokens(&p, KVG_LAYOUT_NZ, KVG_FP16, KVG_FP16, 3, 3, 16, 16, 2, 16,
              122);
    p.key.dtype = KVG_INT8, p.key.nbytes /= 2;
    p.kc.dtype = KVG_INT8, p.kc.nbytes /= 2;
    kvgt_set_i32(&p.slot, ok, 3);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key",
              "N*D = 3*16 = 48 must be a multiple of C0 = 32", -1);
    pf_free(&p);
    /* block_size 8 */
    pf_tokens(&p, KVG_LAYOUT_NZ, KVG_FP16, KVG_FP16, 3, 1, 32, 32, 4, 8, 123);
    kvgt_set_i32(&p.slot, ok, 3);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key_cache",
              "multiple of 16 for an NZ cache, got 8",
              -1);
    pf_free(&p);
}

/* ---- modes and attributes ---------------------------------------------- */

static void test_mode_tensors(void **state)
{
    static const int32_t ok[] = {0, 1, 2};
    kvg_tensor extra;
    pf p;
    (void)state;
    memset(&extra, 0, sizeof extra);
    pf_tokens(&p, KVG_LAYOUT_ND, KVG_FP16, KVG_FP16, 3, 1, 32, 32, 1, 4, 131);
    kvgt_set_i32(&p.slot, ok, 3);
    p.a.wins = &extra;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "wins",
              "not an input of compress_type UNDEFINED", -1);
    p.a.wins = NULL, p.a.seq_len = &extra;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "seq_len", "UNDEFINED", -1);
    p.a.seq_len = NULL, p.a.offset_index = &extra;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "offset_index", "UNDEFINED", -1);
    p.a.offset_index = NULL;
    p.a.compress_type = (kvg_rac_compress)7;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "compress_type", "7 is not", -1);
    p.a.compress_type = KVG_RAC_COMPRESS_UNDEFINED;
    p.a.cache_layout = KVG_LAYOUT_BNSD;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "cache_layout", "is not ND", -1);
    p.a.cache_layout = KVG_LAYOUT_NZ;
    p.a.compress_type = KVG_RAC_COMPRESS_KVHEAD;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "cache_layout",
              "NZ caches take only compress_type UNDEFINED, got KVHEAD", -1);
    pf_free(&p);
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD, KVG_FP16, 4, 1, 32, 1, 2, 4, 132);
    p.a.offset_index = &p.off;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "offset_index", "KVHEAD", -1);
    p.a.offset_index = NULL, p.a.wins = NULL;
    pf_reject(&p, KVG_ERR_PARAM_NULLPTR, "wins", "NULL", -1);
    pf_free(&p);
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, KVG_FP16, 4, 1, 32, 1, 2, 4,
             133);
    p.a.offset_index = NULL;
    pf_reject(&p, KVG_ERR_PARAM_NULLPTR, "offset_index", "NULL", -1);
    pf_free(&p);
}

static void test_names_and_init(void **state)
{
    kvg_reshape_and_cache_args a;
    kvg_rac_compress c = KVG_RAC_COMPRESS_UNDEFINED;
    (void)state;
    assert_string_equal(kvg_rac_compress_name(KVG_RAC_COMPRESS_KVHEAD_ROPE),
                        "KVHEAD_ROPE");
    assert_null(kvg_rac_compress_name((kvg_rac_compress)3));
    assert_int_equal(kvg_rac_compress_from_name("KVHEAD", &c), 1);
    assert_int_equal(c, KVG_RAC_COMPRESS_KVHEAD);
    assert_int_equal(kvg_rac_compress_from_name("kvhead", &c), 0);
    assert_int_equal(c, KVG_RAC_COMPRESS_KVHEAD);
    memset(&a, 0x5A, sizeof a);
    kvg_reshape_and_cache_args_init(&a);
    assert_int_equal(a.compress_type, KVG_RAC_COMPRESS_UNDEFINED);
    assert_int_equal(a.cache_layout, KVG_LAYOUT_ND);
    assert_null(a.key);
    assert_null(a.workspace);
}

/* ---- KVHEAD ------------------------------------------------------------ */

/* Flat slot s of a [NB, BS, 1, D] cache holds (tok, h) or its old bytes. */
static void assert_run_slot(const pf *p, int64_t s, int64_t tok, int64_t h)
{
    int64_t c;
    for (c = 0; c < p->dk; c++) {
        int64_t i = s * p->dk + c;
        unsigned wk = tok < 0 ? old_elem(&p->kc, p->kc0, i)
                              : mark(&p->key, 0, tok, h, c);
        unsigned wv = tok < 0 ? old_elem(&p->vc, p->vc0, i)
                              : mark(&p->value, 1, tok, h, c);
        if (elem(&p->kc, i) != wk || elem(&p->vc, i) != wv)
            fail_msg("slot %lld channel %lld: k 0x%x v 0x%x, want 0x%x 0x%x",
                     (long long)s, (long long)c, elem(&p->kc, i),
                     elem(&p->vc, i), wk, wv);
    }
}

static void test_kvhead(void **state)
{
    /* B=2, N=2, seq_len [5, 3]: head i = b*2 + h keeps the last w tokens */
    static const int32_t seq[] = {5, 3}, wins[] = {2, 0, 3, 1},
                         slot[] = {0, 2, 6, 10};
    static const int64_t want[12][2] = {
        {3, 0}, {4, 0}, {-1, 0}, {-1, 0}, {-1, 0}, {-1, 0}, /* w=0: none */
        {5, 0}, {6, 0}, {7, 0}, {-1, 0}, {7, 1}, {-1, 0}};
    kvg_dtype dts[3] = {KVG_FP16, KVG_BF16, KVG_INT8};
    int k, s;
    (void)state;
    for (k = 0; k < 3; k++) {
        pf p;
        pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD, dts[k], 8, 2, 32, 2, 3, 4, 141);
        pf_marks(&p);
        kvgt_set_i32(&p.seq, seq, 2);
        kvgt_set_i32(&p.wins, wins, 4);
        kvgt_set_i32(&p.slot, slot, 4);
        pf_run_ok(&p);
        for (s = 0; s < 12; s++)
            assert_run_slot(&p, s, want[s][0], want[s][1]);
        pf_free(&p);
    }
}

static void test_kvhead_validation(void **state)
{
    static const int32_t seq[] = {5, 3}, wins[] = {2, 0, 9, 1},
                         slot[] = {0, 2, 6, 10}, slot2[] = {0, 2, 6, 8};
    pf p;
    (void)state;
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD, KVG_INT8, 8, 2, 32, 2, 3, 4, 151);
    kvgt_set_i32(&p.seq, seq, 2);
    kvgt_set_i32(&p.wins, wins, 4);
    kvgt_set_i32(&p.slot, slot, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "wins",
              "head 2 (batch 1, head 0): wins 9 is outside [0, 8]", 2);
    kvgt_set_i32(&p.wins, (const int32_t[]){6, 0, 3, 1}, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "wins",
              "head 0 (batch 0, head 0): wins 6 is outside [0, 5]", 0);
    kvgt_set_i32(&p.wins, (const int32_t[]){2, -1, 3, 1}, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "wins",
              "head 1 (batch 0, head 1): wins -1 is outside [0, 5]", 1);
    kvgt_set_i32(&p.wins, (const int32_t[]){2, 0, 3, 1}, 4);
    kvgt_set_i32(&p.slot, slot2, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "writes slots [6, 9) and head 3 (batch 1, head 1) writes [8, 9)",
              3);
    pf_free(&p);
    /* KVHEAD has no 16384 limit on D (only the ROPE kernel checks it) */
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD, KVG_FP16, 1, 1, 16416, 1, 1, 1, 152);
    kvgt_set_i32(&p.seq, (const int32_t[]){1}, 1);
    kvgt_set_i32(&p.wins, (const int32_t[]){1}, 1);
    kvgt_set_i32(&p.slot, (const int32_t[]){0}, 1);
    pf_marks(&p);
    pf_run_ok(&p);
    assert_int_equal(elem(&p.kc, 16415), mark(&p.key, 0, 0, 0, 16415));
    pf_free(&p);
}

/* ATB's KVHEAD kernel (reshape_and_cache_compress.cpp) turns seq_len into
 * cumulative ends and reads the w rows before the batch's end, so w > L
 * takes the earlier batches' last tokens. B=3, N=2, seq_len [3, 1, 4]
 * (ends 3, 4, 8). */
static void test_kvhead_past_batch(void **state)
{
    static const int32_t seq[] = {3, 1, 4}, wins[] = {3, 1, 2, 4, 6, 0},
                         slot[] = {0, 3, 4, 6, 10, 16};
    /* slot -> (token, head): -1 keeps the old bytes */
    static const int64_t want[20][2] = {
        {0, 0}, {1, 0}, {2, 0},                 /* head 0: rows 0..2 */
        {2, 1},                                 /* head 1: row 2 */
        {2, 0}, {3, 0},                         /* head 2: w 2 > L 1 */
        {0, 1}, {1, 1}, {2, 1}, {3, 1},         /* head 3: w 4 = end */
        {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}, /* head 4: w 6 > 4 */
        {-1, 0}, {-1, 0}, {-1, 0}, {-1, 0}};    /* head 5: w 0 */
    kvg_dtype dts[2] = {KVG_FP16, KVG_INT8};
    int k, s;
    (void)state;
    for (k = 0; k < 2; k++) {
        pf p;
        pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD, dts[k], 8, 2, 32, 3, 5, 4, 145);
        pf_marks(&p);
        kvgt_set_i32(&p.seq, seq, 3);
        kvgt_set_i32(&p.wins, wins, 6);
        kvgt_set_i32(&p.slot, slot, 6);
        pf_run_ok(&p);
        for (s = 0; s < 20; s++)
            assert_run_slot(&p, s, want[s][0], want[s][1]);
        /* batch 0 has no rows before it: w 4 would read before key */
        kvgt_set_i32(&p.wins, (const int32_t[]){4, 1, 2, 4, 6, 0}, 6);
        pf_reject(&p, KVG_ERR_PARAM_INVALID, "wins",
                  "head 0 (batch 0, head 0): wins 4 is outside [0, 3]", 0);
        /* batch 2 ends at row 8: w 9 would read row -1 */
        kvgt_set_i32(&p.wins, (const int32_t[]){3, 1, 2, 4, 9, 0}, 6);
        pf_reject(&p, KVG_ERR_PARAM_INVALID, "wins",
                  "head 4 (batch 2, head 0): wins 9 is outside [0, 8]", 4);
        pf_free(&p);
    }
}

/* ---- key only (kv_cache_cfg K_CACHE_V_BYPASS) -------------------------- */

static void pf_key_only(pf *p)
{
    p->a.kv_cache_cfg = KVG_RAC_K_CACHE_V_BYPASS;
    p->a.value = NULL;
    p->a.value_cache = NULL;
}

static void test_siso(void **state)
{
    /* any D (ATB's SISO tests draw 1..255); padding slots skipped */
    static const int32_t s5[] = {9, -1, 0, 4, INT32_MIN};
    kvg_dtype dts[3] = {KVG_FP16, KVG_BF16, KVG_INT8};
    int k;
    (void)state;
    for (k = 0; k < 3; k++) {
        pf p;
        pf_tokens(&p, KVG_LAYOUT_ND, dts[k], dts[k], 5, 3, 7, 7, 3, 4,
                  121 + (uint64_t)k);
        pf_key_only(&p);
        pf_marks(&p);
        kvgt_set_i32(&p.slot, s5, 5);
        pf_run_ok(&p);
        check_token_cache(&p, 0, s5);
        kvgt_assert_bytes_equal(p.vc.data, p.vc0, p.vc.nbytes, "value_cache");
        pf_free(&p);
    }
}

static void test_siso_validation(void **state)
{
    static const int32_t dup[] = {0, 5, -1, 5}, big[] = {0, 8, 1, 2},
                         ok[] = {0, 5, -1, 6};
    kvg_rac_kv_cache_cfg cfg = KVG_RAC_K_CACHE_V_CACHE;
    pf p;
    (void)state;
    pf_tokens(&p, KVG_LAYOUT_ND, KVG_FP16, KVG_FP16, 4, 2, 32, 32, 2, 4, 131);
    pf_key_only(&p);
    kvgt_set_i32(&p.slot, dup, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "tokens 1 and 3 both write slot 5", 3);
    kvgt_set_i32(&p.slot, big, 4);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "token 1: slot 8 is outside [0, 8)", 1);
    kvgt_set_i32(&p.slot, ok, 4);
    p.kc.dtype = KVG_BF16;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key_cache", "must be fp16", -1);
    p.kc.dtype = KVG_FP16;
    p.kc.shape[3] = 16, p.kc.shape[1] = 8;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key_cache", "dim 3 must be 32", -1);
    p.kc.shape[3] = 32, p.kc.shape[1] = 4;
    p.slot.dtype = KVG_INT64, p.slot.shape[0] = 2;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping", "int32", -1);
    p.slot.dtype = KVG_INT32, p.slot.shape[0] = 4;
    /* the tensors and attributes BYPASS does not take */
    p.a.value = &p.value;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "value",
              "value: not an input of compress_type UNDEFINED with "
              "kv_cache_cfg K_CACHE_V_BYPASS", -1);
    p.a.value = NULL, p.a.value_cache = &p.vc;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "value_cache", "pass NULL", -1);
    p.a.value_cache = NULL;
    p.a.compress_type = KVG_RAC_COMPRESS_KVHEAD;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "kv_cache_cfg",
              "K_CACHE_V_BYPASS takes only compress_type UNDEFINED, got "
              "KVHEAD", -1);
    p.a.compress_type = KVG_RAC_COMPRESS_UNDEFINED;
    p.a.cache_layout = KVG_LAYOUT_NZ;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "kv_cache_cfg", "ND key_cache", -1);
    p.a.cache_layout = KVG_LAYOUT_ND;
    p.a.kv_cache_cfg = (kvg_rac_kv_cache_cfg)2;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "kv_cache_cfg",
              "2 is not K_CACHE_V_CACHE (0) or K_CACHE_V_BYPASS (1)", -1);
    /* K_CACHE_V_CACHE still needs value and value_cache */
    p.a.kv_cache_cfg = KVG_RAC_K_CACHE_V_CACHE;
    pf_reject(&p, KVG_ERR_PARAM_NULLPTR, "value", "NULL", -1);
    p.a.value = &p.value;
    pf_reject(&p, KVG_ERR_PARAM_NULLPTR, "value_cache", "NULL", -1);
    p.a.kv_cache_cfg = KVG_RAC_K_CACHE_V_BYPASS, p.a.value = NULL;
    pf_run_ok(&p);
    pf_free(&p);
    assert_string_equal(kvg_rac_kv_cache_cfg_name(KVG_RAC_K_CACHE_V_BYPASS),
                        "K_CACHE_V_BYPASS");
    assert_null(kvg_rac_kv_cache_cfg_name((kvg_rac_kv_cache_cfg)2));
    assert_int_equal(kvg_rac_kv_cache_cfg_from_name("K_CACHE_V_BYPASS", &cfg),
                     1);
    assert_int_equal(cfg, KVG_RAC_K_CACHE_V_BYPASS);
    assert_int_equal(kvg_rac_kv_cache_cfg_from_name("BYPASS", &cfg), 0);
    assert_int_equal(cfg, KVG_RAC_K_CACHE_V_BYPASS);
}

/* ---- KVHEAD_ROPE ------------------------------------------------------- */

static uint16_t code(kvg_dtype dt, float x)
{
    return dt == KVG_FP16 ? kvg_f32_to_fp16(x, KVG_OVF_DEFAULT)
                          : kvg_f32_to_bf16(x, KVG_OVF_DEFAULT);
}

/*
 * Window rows 1..3 of a 5-token head, channel by channel, with the mean the
 * contract gives, worked out by hand:
 *   ch 0  1, 2, 4          7/3 -> fp16 0x40AB (1.1666.. * 2: 171/1024 up),
 *                                 bf16 0x4015 (7/3 = 0x40155555 rounds down)
 *   ch 1  big, tiny, -big  fp16 big 2^15, tiny 2^-10; bf16 big 2^24, tiny 1:
 *                          big + tiny rounds back to big in binary32, so the
 *                          sum is +0 and the mean +0 (the exact mean would
 *                          be tiny/3, fp16 0x0D55)
 *   ch 2  -0, -0, -0       +0: the accumulator starts at +0
 *   ch 3  1, 1, 2          4/3 -> fp16 0x3D55, bf16 0x3FAB (0x3FAAAAAB up)
 *   ch c  x, x, x          x (3x is exact, /3 gives x back)
 * The value rows are the negated key rows; their means are the negated
 * means, except channels 1 and 2, which stay +0.
 */
static void rope_window(pf *p, kvg_dtype dt)
{
    float big = dt == KVG_FP16 ? 32768.0f : 16777216.0f;
    float tiny = dt == KVG_FP16 ? 0.0009765625f : 1.0f;
    const float w0[3] = {1, 2, 4}, w3[3] = {1, 1, 2};
    float w1[3];
    int64_t j, c;

    w1[0] = big, w1[1] = tiny, w1[2] = -big;
    for (j = 0; j < 3; j++)
        for (c = 0; c < 32; c++) {
            float x = c == 0 ? w0[j] : c == 1 ? w1[j] : c == 2 ? -0.0f
                      : c == 3 ? w3[j] : 1.0f + (float)c / 64.0f;
            kvgt_set16(&p->key, (1 + j) * 32 + c, code(dt, x));
            kvgt_set16(&p->value, (1 + j) * 32 + c, code(dt, -x));
        }
}

static void test_rope_mean_token(void **state)
{
    kvg_dtype dts[2] = {KVG_FP16, KVG_BF16};
    const uint16_t m0[2] = {0x40AB, 0x4015}, m3[2] = {0x3D55, 0x3FAB};
    int k;
    int64_t c;
    (void)state;
    for (k = 0; k < 2; k++) {
        kvg_dtype dt = dts[k];
        pf p;
        /* L=5, o=1, w=3 from slot 2: x0 -> 2, mean(x1..x3) -> 3, x4 -> 4
         * (block 1) */
        pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, dt, 5, 1, 32, 1, 2, 4, 161);
        pf_marks(&p);
        rope_window(&p, dt);
        kvgt_set_i32(&p.seq, (const int32_t[]){5}, 1);
        kvgt_set_i32(&p.wins, (const int32_t[]){3}, 1);
        kvgt_set_i32(&p.off, (const int32_t[]){1}, 1);
        kvgt_set_i32(&p.slot, (const int32_t[]){2}, 1);
        pf_run_ok(&p);
        assert_run_slot(&p, 1, -1, 0);
        assert_run_slot(&p, 2, 0, 0);
        assert_run_slot(&p, 4, 4, 0);
        assert_run_slot(&p, 5, -1, 0);
        assert_int_equal(kvgt_get16(&p.kc, 3 * 32 + 0), m0[k]);
        assert_int_equal(kvgt_get16(&p.vc, 3 * 32 + 0), m0[k] | 0x8000);
        assert_int_equal(kvgt_get16(&p.kc, 3 * 32 + 1), 0x0000);
        assert_int_equal(kvgt_get16(&p.vc, 3 * 32 + 1), 0x0000);
        assert_int_equal(kvgt_get16(&p.kc, 3 * 32 + 2), 0x0000);
        assert_int_equal(kvgt_get16(&p.vc, 3 * 32 + 2), 0x0000);
        assert_int_equal(kvgt_get16(&p.kc, 3 * 32 + 3), m3[k]);
        assert_int_equal(kvgt_get16(&p.vc, 3 * 32 + 3), m3[k] | 0x8000);
        for (c = 4; c < 32; c++) {
            float x = 1.0f + (float)c / 64.0f;
            assert_int_equal(kvgt_get16(&p.kc, 3 * 32 + c), code(dt, x));
            assert_int_equal(kvgt_get16(&p.vc, 3 * 32 + c), code(dt, -x));
        }
        pf_free(&p);
    }
}

/*
 * The mean divides by (float)w; it does not multiply by a reciprocal. With
 * w = 7 and a window of hi, lo, then five +0, the sum S is exact and S / 7
 * is exactly halfway between two 16-bit neighbours, so division gives the
 * tie and RNE picks the even code; S * fl(1/7) lands one binary32 ulp
 * above the tie and would round up.
 *   bf16  hi 0x4117 = 9.4375, lo 0xBB80 = -2^-8: S = 9.43359375,
 *         S / 7 = 1.34765625 between 0x3FAC (1.34375) and 0x3FAD -> 0x3FAC
 *   fp16  hi 0x48AC = 9.34375, lo 0x9900 = -1.25 * 2^-9: S = 9.34130859375,
 *         S / 7 = 1.33447265625 between 0x3D56 (1.333984375) and 0x3D57
 *         -> 0x3D56
 * Other channels hold the same x in all 7 rows, whose mean is x.
 */
static void test_rope_divides(void **state)
{
    const kvg_dtype dts[2] = {KVG_BF16, KVG_FP16};
    const uint16_t hi[2] = {0x4117, 0x48AC}, lo[2] = {0xBB80, 0x9900},
                   want[2] = {0x3FAC, 0x3D56};
    int k;
    int64_t j, c;
    (void)state;
    for (k = 0; k < 2; k++) {
        pf p;
        /* L = 8, o = 0, w = 7 from slot 3: mean -> 3, token 7 -> 4 */
        pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, dts[k], 8, 1, 32, 1, 2, 4,
                 165);
        pf_marks(&p);
        for (j = 0; j < 7; j++)
            for (c = 0; c < 32; c++) {
                uint16_t x = c == 0 ? (j == 0 ? hi[k] : j == 1 ? lo[k] : 0)
                                    : code(dts[k], 1.0f + (float)c / 64.0f);
                kvgt_set16(&p.key, j * 32 + c, x);
                kvgt_set16(&p.value, j * 32 + c, x);
            }
        kvgt_set_i32(&p.seq, (const int32_t[]){8}, 1);
        kvgt_set_i32(&p.wins, (const int32_t[]){7}, 1);
        kvgt_set_i32(&p.off, (const int32_t[]){0}, 1);
        kvgt_set_i32(&p.slot, (const int32_t[]){3}, 1);
        pf_run_ok(&p);
        assert_int_equal(kvgt_get16(&p.kc, 3 * 32), want[k]);
        assert_int_equal(kvgt_get16(&p.vc, 3 * 32), want[k]);
        for (c = 1; c < 32; c++)
            assert_int_equal(kvgt_get16(&p.kc, 3 * 32 + c),
                             code(dts[k], 1.0f + (float)c / 64.0f));
        assert_run_slot(&p, 2, -1, 0);
        assert_run_slot(&p, 4, 7, 0);
        assert_run_slot(&p, 5, -1, 0);
        pf_free(&p);
    }
}

/* Count and placement at the edges: w = L (the mean alone), o + w = L, and
 * the two inactive forms. */
static void test_rope_edges(void **state)
{
    /* 4 heads of L = 4 (B=1, N=4): (o, w) = (0, 4), (1, 3), (-1, 2), (2, 0) */
    static const int32_t off[] = {0, 1, -1, 2}, wins[] = {4, 3, 2, 0},
                         slot[] = {0, 1, 4, 8};
    pf p;
    (void)state;
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, KVG_FP16, 4, 4, 32, 1, 4, 4,
             171);
    pf_marks(&p);
    kvgt_set_i32(&p.seq, (const int32_t[]){4}, 1);
    kvgt_set_i32(&p.wins, wins, 4);
    kvgt_set_i32(&p.off, off, 4);
    kvgt_set_i32(&p.slot, slot, 4);
    pf_run_ok(&p);
    /* head 0: one mean token at slot 0 (asserted below), head 1: x0, mean */
    assert_run_slot(&p, 1, 0, 1);
    assert_run_slot(&p, 3, -1, 0);
    assert_run_slot(&p, 4, 0, 2);
    assert_run_slot(&p, 7, 3, 2);
    assert_run_slot(&p, 8, 0, 3);
    assert_run_slot(&p, 11, 3, 3);
    assert_run_slot(&p, 12, -1, 0);
    {
        /* channel 0 of head 0's mean: marks of rows 0..3 are m, m+1024,
         * m+2048, m+3072 as fp16 codes; compute their mean here */
        float acc = 0.0f;
        int64_t t;
        for (t = 0; t < 4; t++)
            acc = acc + kvg_fp16_to_f32((uint16_t)mark(&p.key, 0, t, 0, 0));
        assert_int_equal(kvgt_get16(&p.kc, 0), code(KVG_FP16, acc / 4.0f));
        acc = 0.0f;
        for (t = 1; t < 4; t++)
            acc = acc + kvg_fp16_to_f32((uint16_t)mark(&p.key, 0, t, 1, 0));
        assert_int_equal(kvgt_get16(&p.kc, 2 * 32), code(KVG_FP16, acc / 3.0f));
    }
    pf_free(&p);
}

static void test_rope_validation(void **state)
{
    /* slots packed for L - w (Omni's count) collide through the +1 */
    static const int32_t off[] = {1, 1}, wins[] = {2, 2}, slot[] = {0, 4};
    pf p;
    (void)state;
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, KVG_BF16, 6, 2, 32, 1, 4, 4,
             181);
    kvgt_set_i32(&p.seq, (const int32_t[]){6}, 1);
    kvgt_set_i32(&p.wins, wins, 2);
    kvgt_set_i32(&p.off, off, 2);
    kvgt_set_i32(&p.slot, slot, 2);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "head 0 (batch 0, head 0) writes slots [0, 5) and head 1 "
              "(batch 0, head 1) writes [4, 9)", 1);
    kvgt_set_i32(&p.slot, (const int32_t[]){0, 5}, 2);
    pf_run_ok(&p);
    kvgt_set_i32(&p.off, (const int32_t[]){5, 1}, 2);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "offset_index",
              "offset_index 5 must be -1 or in [0, seq_len - wins] = [0, 4]",
              0);
    kvgt_set_i32(&p.off, (const int32_t[]){-1, 1}, 2);
    kvgt_set_i32(&p.wins, (const int32_t[]){-9, 2}, 2); /* ignored at -1 */
    kvgt_set_i32(&p.slot, (const int32_t[]){0, 6}, 2);
    pf_run_ok(&p);
    p.key.dtype = p.value.dtype = p.kc.dtype = p.vc.dtype = KVG_INT8;
    p.key.nbytes /= 2, p.value.nbytes /= 2, p.kc.nbytes /= 2,
        p.vc.nbytes /= 2;
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key", "fp16 or bf16, got int8", -1);
    pf_free(&p);
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, KVG_FP16, 1, 1, 16416, 1, 1, 1,
             182);
    pf_reject(&p, KVG_ERR_PARAM_INVALID, "key", "at most 16384", -1);
    pf_free(&p);
}

static void test_workspace_size(void **state)
{
    kvg_diag d;
    size_t tok = 0, rope = 0;
    pf p;
    (void)state;
    pf_tokens(&p, KVG_LAYOUT_ND, KVG_FP16, KVG_FP16, 40, 1, 32, 32, 10, 4,
              191);
    assert_int_equal(kvg_reshape_and_cache_workspace_size(&p.a, &tok, &d),
                     KVG_OK);
    assert_true(tok >= 40 * 16);
    pf_free(&p);
    pf_heads(&p, KVG_RAC_COMPRESS_KVHEAD_ROPE, KVG_FP16, 4, 2, 64, 2, 2, 4,
             192);
    assert_int_equal(kvg_reshape_and_cache_workspace_size(&p.a, &rope, &d),
                     KVG_OK);
    assert_true(rope >= 2 * 64 * 4);
    kvgt_set_i32(&p.seq, (const int32_t[]){2, 2}, 2);
    kvgt_set_i32(&p.wins, (const int32_t[]){0, 0, 0, 0}, 4);
    kvgt_set_i32(&p.off, (const int32_t[]){-1, -1, -1, -1}, 4);
    kvgt_set_i32(&p.slot, (const int32_t[]){0, 2, 4, 6}, 4);
    p.a.workspace_size = rope - 1;
    pf_reject(&p, KVG_ERR_WORKSPACE, "workspace", "needed", -1);
    p.a.workspace_size = rope;
    pf_run_ok(&p);
    p.a.key = NULL;
    kvgt_assert_diag(kvg_reshape_and_cache_workspace_size(&p.a, &rope, &d), &d,
                    KVG_ERR_PARAM_NULLPTR, "key", "NULL", -1);
    kvgt_assert_diag(kvg_reshape_and_cache(NULL, &d), &d,
                    KVG_ERR_PARAM_NULLPTR, "args", "NULL", -1);
    pf_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nd),
        cmocka_unit_test(test_nz),
        cmocka_unit_test(test_token_validation),
        cmocka_unit_test(test_nz_validation),
        cmocka_unit_test(test_mode_tensors),
        cmocka_unit_test(test_names_and_init),
        cmocka_unit_test(test_kvhead),
        cmocka_unit_test(test_kvhead_validation),
        cmocka_unit_test(test_kvhead_past_batch),
        cmocka_unit_test(test_siso),
        cmocka_unit_test(test_siso_validation),
        cmocka_unit_test(test_rope_mean_token),
        cmocka_unit_test(test_rope_divides),
        cmocka_unit_test(test_rope_edges),
        cmocka_unit_test(test_rope_validation),
        cmocka_unit_test(test_workspace_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
