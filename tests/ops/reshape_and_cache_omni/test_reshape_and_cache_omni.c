/*
 * tests/test_reshape_and_cache_omni.c - ReshapeAndCacheOmni from first
 * principles: the hand-worked example of docs/reshape_and_cache.md (every
 * slot named by hand), marked values at the head-size limit, bit-exact
 * copies of NaN/inf/subnormal patterns, and every validation rule with a
 * poisoned-cache atomicity check. No expected value comes from the C code.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "copy_fixture.h"

#include "kvgold/reshape_and_cache_omni.h"

typedef struct fx {
    int64_t tokens, heads, dim, batch, blocks, block_size;
    kvg_tensor key, value, kc, vc, slot, wins, seq, off;
    unsigned char *kc0, *vc0;
    void *ws;
    kvg_reshape_and_cache_omni_args a;
} fx;

#define WS_BYTES (1u << 16)

static void fx_init(fx *f, kvg_dtype dt, int64_t tokens, int64_t heads,
                    int64_t dim, int64_t batch, int64_t blocks,
                    int64_t block_size, uint64_t seed)
{
    int64_t ks[3], cs[4], hs[1], bs[1];

    memset(f, 0, sizeof *f);
    f->tokens = tokens, f->heads = heads, f->dim = dim, f->batch = batch;
    f->blocks = blocks, f->block_size = block_size;
    ks[0] = tokens, ks[1] = heads, ks[2] = dim;
    cs[0] = blocks, cs[1] = block_size, cs[2] = 1, cs[3] = dim;
    hs[0] = batch * heads;
    bs[0] = batch;
    f->key = kvgt_tensor_new(dt, 3, ks, seed);
    f->value = kvgt_tensor_new(dt, 3, ks, seed + 1);
    f->kc = kvgt_tensor_new(dt, 4, cs, seed + 2);
    f->vc = kvgt_tensor_new(dt, 4, cs, seed + 3);
    f->slot = kvgt_tensor_new(KVG_INT32, 1, hs, seed + 4);
    f->wins = kvgt_tensor_new(KVG_INT32, 1, hs, seed + 5);
    f->seq = kvgt_tensor_new(KVG_INT32, 1, bs, seed + 6);
    f->off = kvgt_tensor_new(KVG_INT32, 1, hs, seed + 7);
    f->ws = kvgt_alloc_poisoned(WS_BYTES, seed + 8);
    kvg_reshape_and_cache_omni_args_init(&f->a);
    f->a.key = &f->key;
    f->a.value = &f->value;
    f->a.key_cache = &f->kc;
    f->a.value_cache = &f->vc;
    f->a.slot_mapping = &f->slot;
    f->a.wins = &f->wins;
    f->a.seq_len = &f->seq;
    f->a.offset_index = &f->off;
    f->a.workspace = f->ws;
    f->a.workspace_size = WS_BYTES;
}

static void fx_free(fx *f)
{
    kvgt_tensor_free(&f->key);
    kvgt_tensor_free(&f->value);
    kvgt_tensor_free(&f->kc);
    kvgt_tensor_free(&f->vc);
    kvgt_tensor_free(&f->slot);
    kvgt_tensor_free(&f->wins);
    kvgt_tensor_free(&f->seq);
    kvgt_tensor_free(&f->off);
    free(f->ws);
    free(f->kc0);
    free(f->vc0);
}

static void fx_snap(fx *f)
{
    free(f->kc0);
    free(f->vc0);
    f->kc0 = kvgt_snapshot(&f->kc);
    f->vc0 = kvgt_snapshot(&f->vc);
}

/* Index values; heads listed in i = b*N + h order. */
static void fx_index(fx *f, const int32_t *seq, const int32_t *slot,
                     const int32_t *wins, const int32_t *off)
{
    int64_t n = f->batch * f->heads;
    kvgt_set_i32(&f->seq, seq, f->batch);
    kvgt_set_i32(&f->slot, slot, n);
    kvgt_set_i32(&f->wins, wins, n);
    kvgt_set_i32(&f->off, off, n);
}

static void fx_run_ok(fx *f)
{
    kvg_diag d;
    kvg_status st;
    fx_snap(f);
    st = kvg_reshape_and_cache_omni(&f->a, &d);
    if (st != KVG_OK)
        fail_msg("unexpected failure: %s", d.message);
    assert_int_equal(d.status, KVG_OK);
}

/* The call fails as described and no cache byte changes. */
static void fx_reject(fx *f, kvg_status want, const char *tensor,
                      const char *fragment, int64_t position)
{
    kvg_diag d;
    kvg_status st;
    fx_snap(f);
    st = kvg_reshape_and_cache_omni(&f->a, &d);
    kvgt_assert_diag(st, &d, want, tensor, fragment, position);
    kvgt_assert_bytes_equal(f->kc.data, f->kc0, f->kc.nbytes, "key_cache");
    kvgt_assert_bytes_equal(f->vc.data, f->vc0, f->vc.nbytes, "value_cache");
}

/* Marked 16-bit codes: key row (t, h) channel c, value the same ^ 0x8000. */
static uint16_t mark(int64_t t, int64_t h, int64_t c)
{
    return (uint16_t)(0x1000 + t * 64 + h * 32 + c);
}

static void fill_marks(fx *f)
{
    int64_t t, h, c;
    for (t = 0; t < f->tokens; t++)
        for (h = 0; h < f->heads; h++)
            for (c = 0; c < f->dim; c++) {
                int64_t i = (t * f->heads + h) * f->dim + c;
                kvgt_set16(&f->key, i, mark(t, h, c));
                kvgt_set16(&f->value, i, (uint16_t)(mark(t, h, c) ^ 0x8000));
            }
}

/* Slot s of both caches holds row (t, h); or, for t < 0, its old bytes. */
static void assert_slot(const fx *f, int64_t s, int64_t t, int64_t h)
{
    int64_t c;
    for (c = 0; c < f->dim; c++) {
        int64_t i = s * f->dim + c;
        uint16_t want_k, want_v;
        if (t < 0) {
            memcpy(&want_k, f->kc0 + i * 2, 2);
            memcpy(&want_v, f->vc0 + i * 2, 2);
        } else {
            want_k = mark(t, h, c);
            want_v = (uint16_t)(mark(t, h, c) ^ 0x8000);
        }
        if (kvgt_get16(&f->kc, i) != want_k || kvgt_get16(&f->vc, i) != want_v)
            fail_msg("slot %lld channel %lld: got k 0x%04x v 0x%04x, want "
                     "0x%04x 0x%04x", (long long)s, (long long)c,
                     kvgt_get16(&f->kc, i), kvgt_get16(&f->vc, i), want_k,
                     want_v);
    }
}

/* The worked example: N=2, D=32, block_size 4, 8 blocks, seq_len [6, 5]. */
static const int32_t we_seq[] = {6, 5}, we_slot[] = {0, 4, 10, 15},
                     we_wins[] = {2, 3, 0, 4}, we_off[] = {1, -1, 2, 1};

static void worked_example(fx *f, kvg_dtype dt)
{
    fx_init(f, dt, 11, 2, 32, 2, 8, 4, 11);
    fill_marks(f);
    fx_index(f, we_seq, we_slot, we_wins, we_off);
}

static void test_worked_example(void **state)
{
    /* slot -> source (token, head), written out by hand from the rule */
    static const int64_t want[16][2] = {
        {0, 0}, {3, 0}, {4, 0}, {5, 0},                  /* head 0: 0,3,4,5 */
        {0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1},  /* head 1: o=-1 */
        {6, 0}, {7, 0}, {8, 0}, {9, 0}, {10, 0},         /* head 2: w=0 */
        {6, 1}};                                         /* head 3: token 0 */
    kvg_dtype dts[2] = {KVG_FP16, KVG_BF16};
    int k, s;
    (void)state;
    for (k = 0; k < 2; k++) {
        fx f;
        worked_example(&f, dts[k]);
        fx_run_ok(&f);
        for (s = 0; s < 16; s++)
            assert_slot(&f, s, want[s][0], want[s][1]);
        for (s = 16; s < 32; s++)
            assert_slot(&f, s, -1, 0);
        fx_free(&f);
    }
}

/* D = 16384 (the limit): a 2-token head from slot 1 crosses into block 1. */
static void test_max_head_size(void **state)
{
    static const int32_t seq[] = {2}, slot[] = {1}, wins[] = {0},
                         off[] = {-1};
    fx f;
    (void)state;
    fx_init(&f, KVG_BF16, 2, 1, KVG_OMNI_MAX_DIM, 1, 2, 2, 21);
    fill_marks(&f);
    fx_index(&f, seq, slot, wins, off);
    fx_run_ok(&f);
    assert_slot(&f, 0, -1, 0);
    assert_slot(&f, 1, 0, 0);
    assert_slot(&f, 2, 1, 0);
    assert_slot(&f, 3, -1, 0);
    fx_free(&f);
}

/* Copies move bit patterns: NaN payloads, infinities, subnormals, -0. */
static void test_bit_exact_copy(void **state)
{
    static const uint16_t pats[] = {0x7C01, 0xFE3F, 0x7C00, 0xFC00, 0x0001,
                                    0x8000, 0x7FFF, 0x03FF};
    static const int32_t seq[] = {1}, slot[] = {2}, wins[] = {7},
                         off[] = {-1};
    fx f;
    int64_t c;
    (void)state;
    fx_init(&f, KVG_FP16, 1, 1, 32, 1, 1, 4, 31);
    for (c = 0; c < 32; c++) {
        kvgt_set16(&f.key, c, pats[c % 8]);
        kvgt_set16(&f.value, c, pats[(c + 3) % 8]);
    }
    fx_index(&f, seq, slot, wins, off);
    fx_run_ok(&f);
    for (c = 0; c < 32; c++) {
        assert_int_equal(kvgt_get16(&f.kc, 2 * 32 + c), pats[c % 8]);
        assert_int_equal(kvgt_get16(&f.vc, 2 * 32 + c), pats[(c + 3) % 8]);
    }
    kvgt_assert_bytes_equal(f.kc.data, f.kc0, 2 * 32 * 2, "slots 0-1");
    kvgt_assert_bytes_equal((unsigned char *)f.kc.data + 3 * 64,
                            f.kc0 + 3 * 64, 64, "slot 3");
    fx_free(&f);
}

/* Edge cases of the keep rule on one head of L = 6 from slot 1. */
static void keep_case(int32_t w, int32_t o, const int64_t *kept, int n)
{
    const int32_t seq[] = {6}, slot[] = {1};
    int32_t wins[1], off[1];
    fx f;
    int k;
    wins[0] = w;
    off[0] = o;
    fx_init(&f, KVG_FP16, 6, 1, 32, 1, 3, 4, 41);
    fill_marks(&f);
    fx_index(&f, seq, slot, wins, off);
    fx_run_ok(&f);
    assert_slot(&f, 0, -1, 0);
    for (k = 0; k < n; k++)
        assert_slot(&f, 1 + k, kept[k], 0);
    for (k = 1 + n; k < 12; k++)
        assert_slot(&f, k, -1, 0);
    fx_free(&f);
}

static void test_keep_edges(void **state)
{
    static const int64_t all[] = {0, 1, 2, 3, 4, 5};
    static const int64_t o0[] = {2, 3, 4, 5};    /* o = 0, w = 2 */
    static const int64_t tail[] = {0, 1, 2};     /* o + w = L */
    static const int64_t mid[] = {0, 4, 5};      /* o = 1, w = 3 */
    (void)state;
    keep_case(2, 0, o0, 4);
    keep_case(3, 3, tail, 3);
    keep_case(6, 0, all, 0);   /* w = L: nothing written */
    keep_case(0, 4, all, 6);   /* w = 0: a plain copy */
    keep_case(0, 6, all, 6);   /* o = L, w = 0 */
    keep_case(3, -1, all, 6);  /* -1 overrides wins */
    keep_case(99, -1, all, 6); /* ...whatever wins holds (decode) */
    keep_case(-7, -1, all, 6);
    keep_case(3, 1, mid, 3);
}

/* A negative slot skips its head, even if its run would overlap another. */
static void test_negative_slot_skips(void **state)
{
    static const int32_t seq[] = {3}, slot[] = {-1, 0}, wins[] = {0, 0},
                         off[] = {-1, -1};
    fx f;
    (void)state;
    fx_init(&f, KVG_FP16, 3, 2, 32, 1, 2, 4, 51);
    fill_marks(&f);
    fx_index(&f, seq, slot, wins, off);
    fx_run_ok(&f);
    assert_slot(&f, 0, 0, 1);
    assert_slot(&f, 1, 1, 1);
    assert_slot(&f, 2, 2, 1);
    assert_slot(&f, 3, -1, 0);
    fx_free(&f);
}

/* Runs that touch (end == next start) and empty runs are not overlaps. */
static void test_touching_and_empty_runs(void **state)
{
    static const int32_t seq[] = {4}, slot[] = {0, 4, 2}, wins[] = {0, 0, 4},
                         off[] = {-1, -1, 0};
    fx f;
    (void)state;
    fx_init(&f, KVG_BF16, 4, 3, 32, 1, 3, 4, 61);
    fill_marks(&f);
    fx_index(&f, seq, slot, wins, off); /* head 2 keeps nothing, from slot 2 */
    fx_run_ok(&f);
    assert_slot(&f, 0, 0, 0);
    assert_slot(&f, 3, 3, 0);
    assert_slot(&f, 4, 0, 1);
    assert_slot(&f, 7, 3, 1);
    assert_slot(&f, 8, -1, 0);
    fx_free(&f);
}

/* ---- validation: every rule, nothing written ---------------------------- */

static void test_null_pointers(void **state)
{
    const kvg_tensor **slots[8];
    static const char *const names[8] = {
        "key", "value", "key_cache", "value_cache", "slot_mapping", "wins",
        "seq_len", "offset_index"};
    kvg_diag d;
    fx f;
    int k;
    (void)state;
    worked_example(&f, KVG_FP16);
    slots[0] = &f.a.key, slots[1] = &f.a.value, slots[2] = &f.a.key_cache;
    slots[3] = &f.a.value_cache, slots[4] = &f.a.slot_mapping;
    slots[5] = &f.a.wins, slots[6] = &f.a.seq_len, slots[7] = &f.a.offset_index;
    for (k = 0; k < 8; k++) {
        const kvg_tensor *keep = *slots[k];
        kvg_tensor nodata = *keep;
        *slots[k] = NULL;
        fx_reject(&f, KVG_ERR_PARAM_NULLPTR, names[k], "is NULL", -1);
        nodata.data = NULL;
        *slots[k] = &nodata;
        fx_reject(&f, KVG_ERR_PARAM_NULLPTR, names[k], "data pointer", -1);
        *slots[k] = keep;
    }
    kvgt_assert_diag(kvg_reshape_and_cache_omni(NULL, &d), &d,
                    KVG_ERR_PARAM_NULLPTR, "args", "NULL", -1);
    fx_free(&f);
}

/* Swap one tensor for a poisoned one of another dtype/shape and expect the
 * call to name it. */
static void reject_with(fx *f, const kvg_tensor **field, kvg_dtype dt,
                        int rank, const int64_t *shape, const char *tensor,
                        const char *fragment)
{
    const kvg_tensor *keep = *field;
    kvg_tensor t = kvgt_tensor_new(dt, rank, shape, 99);
    *field = &t;
    fx_reject(f, KVG_ERR_PARAM_INVALID, tensor, fragment, -1);
    *field = keep;
    kvgt_tensor_free(&t);
}

static void test_dtypes(void **state)
{
    const int64_t ks[3] = {11, 2, 32}, cs[4] = {8, 4, 1, 32}, hs[1] = {4},
                  bs[1] = {2};
    fx f;
    (void)state;
    worked_example(&f, KVG_FP16);
    reject_with(&f, &f.a.key, KVG_FP32, 3, ks, "key", "fp16 or bf16");
    reject_with(&f, &f.a.key, KVG_INT8, 3, ks, "key", "got int8");
    reject_with(&f, &f.a.value, KVG_BF16, 3, ks, "value", "must be fp16");
    reject_with(&f, &f.a.key_cache, KVG_BF16, 4, cs, "key_cache",
                "must be fp16");
    reject_with(&f, &f.a.value_cache, KVG_FP32, 4, cs, "value_cache",
                "must be fp16");
    reject_with(&f, &f.a.slot_mapping, KVG_INT64, 1, hs, "slot_mapping",
                "must be int32");
    reject_with(&f, &f.a.wins, KVG_INT64, 1, hs, "wins", "must be int32");
    reject_with(&f, &f.a.seq_len, KVG_INT64, 1, bs, "seq_len",
                "must be int32");
    reject_with(&f, &f.a.offset_index, KVG_FP32, 1, hs, "offset_index",
                "must be int32");
    fx_free(&f);
}

static void test_shapes(void **state)
{
    const int64_t k2[2] = {11, 64}, k33[3] = {10, 2, 32}, kn[3] = {11, 3, 32},
                  kd[3] = {11, 2, 64}, c2[4] = {8, 4, 2, 32},
                  c3[4] = {8, 4, 1, 64}, vc0[4] = {9, 4, 1, 32},
                  vc1[4] = {8, 5, 1, 32}, h5[1] = {5}, b2[2] = {2, 1};
    fx f;
    (void)state;
    worked_example(&f, KVG_FP16);
    reject_with(&f, &f.a.key, KVG_FP16, 2, k2, "key", "rank must be 3");
    reject_with(&f, &f.a.value, KVG_FP16, 3, k33, "value", "dim 0 must be 11");
    reject_with(&f, &f.a.value, KVG_FP16, 3, kn, "value", "dim 1 must be 2");
    reject_with(&f, &f.a.value, KVG_FP16, 3, kd, "value", "dim 2 must be 32");
    reject_with(&f, &f.a.key_cache, KVG_FP16, 4, c2, "key_cache",
                "dim 2 must be 1");
    reject_with(&f, &f.a.key_cache, KVG_FP16, 4, c3, "key_cache",
                "dim 3 must be 32");
    reject_with(&f, &f.a.value_cache, KVG_FP16, 4, vc0, "value_cache",
                "dim 0 must be 8");
    reject_with(&f, &f.a.value_cache, KVG_FP16, 4, vc1, "value_cache",
                "dim 1 must be 4");
    reject_with(&f, &f.a.slot_mapping, KVG_INT32, 1, h5, "slot_mapping",
                "dim 0 must be 4 (batch*N)");
    reject_with(&f, &f.a.wins, KVG_INT32, 1, h5, "wins", "batch*N");
    reject_with(&f, &f.a.offset_index, KVG_INT32, 1, h5, "offset_index",
                "batch*N");
    reject_with(&f, &f.a.seq_len, KVG_INT32, 2, b2, "seq_len",
                "rank must be 1");
    f.key.nbytes -= 2; /* a shape that does not describe the buffer */
    fx_reject(&f, KVG_ERR_PARAM_INVALID, "key", "bytes", -1);
    f.key.nbytes += 2;
    fx_free(&f);
}

static void test_head_size_limits(void **state)
{
    const int32_t seq[] = {1}, slot[] = {0}, wins[] = {0}, off[] = {-1};
    fx f;
    (void)state;
    fx_init(&f, KVG_FP16, 1, 1, 48, 1, 1, 2, 71);
    fx_index(&f, seq, slot, wins, off);
    fx_reject(&f, KVG_ERR_PARAM_INVALID, "key", "multiple of 32, got 48", -1);
    fx_free(&f);
    fx_init(&f, KVG_FP16, 1, 1, KVG_OMNI_MAX_DIM + 32, 1, 1, 1, 72);
    fx_index(&f, seq, slot, wins, off);
    fx_reject(&f, KVG_ERR_PARAM_INVALID, "key", "at most 16384, got 16416",
              -1);
    fx_free(&f);
}

/* batch*N < 500: 499 heads pass, 500 are refused. */
static void test_head_count_limit(void **state)
{
    int32_t seq[500], slot[500], wins[500], off[500];
    fx f;
    int k, n;
    (void)state;
    for (n = 499; n <= 500; n++) {
        for (k = 0; k < n; k++)
            seq[k] = 1, slot[k] = k, wins[k] = 0, off[k] = -1;
        fx_init(&f, KVG_FP16, n, 1, 32, n, 63, 8, 81);
        fx_index(&f, seq, slot, wins, off);
        if (n == 499)
            fx_run_ok(&f);
        else
            fx_reject(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
                      "500 heads; ATB's kernel takes fewer than 500",
                      -1);
        fx_free(&f);
    }
}

/* One index value changed from the valid worked example. */
static void reject_value(const char *which, int64_t at, int32_t v,
                         const char *tensor, const char *fragment,
                         int64_t position)
{
    fx f;
    kvg_tensor *t;
    int32_t x = v;
    worked_example(&f, KVG_BF16);
    t = strcmp(which, "seq") == 0    ? &f.seq
        : strcmp(which, "slot") == 0 ? &f.slot
        : strcmp(which, "wins") == 0 ? &f.wins
                                     : &f.off;
    memcpy((unsigned char *)t->data + at * 4, &x, 4);
    fx_reject(&f, KVG_ERR_PARAM_INVALID, tensor, fragment, position);
    fx_free(&f);
}

static void test_index_values(void **state)
{
    (void)state;
    reject_value("seq", 1, 0, "seq_len", "batch 1 has seq_len 0", 1);
    reject_value("seq", 0, -3, "seq_len", "at least 1", 0);
    /* 6 + 6 rows > 11 tokens: Sum(seq_len) must fit in key */
    reject_value("seq", 1, 6, "seq_len", "hold 12 tokens, more than the 11",
                 1);
    reject_value("wins", 3, 6, "wins",
                 "head 3 (batch 1, head 1): wins 6 is outside [0, seq_len 5]",
                 3);
    reject_value("wins", 0, -1, "wins", "head 0 (batch 0, head 0)", 0);
    reject_value("off", 0, -2, "offset_index", "must be -1 or in [0, "
                 "seq_len - wins] = [0, 4]", 0);
    reject_value("off", 3, 2, "offset_index",
                 "head 3 (batch 1, head 1): offset_index 2", 3);
    reject_value("slot", 1, 32, "slot_mapping",
                 "head 1 (batch 0, head 1): slot 32 is outside [0, 32)", 1);
    /* head 2 (w = 0) keeps all 5 tokens: from slot 28 they pass slot 31 */
    reject_value("slot", 2, 28, "slot_mapping",
                 "its 5 tokens from slot 28 run to slot 32", 2);
}

/* Unique start slots are not enough: the runs must be disjoint. */
static void test_overlapping_runs(void **state)
{
    /* head 1 (batch 0, head 1) owns [4, 10); head 3 starts at 9 */
    static const int32_t seq[] = {6, 5}, slot[] = {0, 4, 20, 9},
                         wins[] = {2, 3, 0, 4}, off[] = {1, -1, 2, 1};
    /* head 0 [0, 4) and head 2 [3, 8), far apart in index order */
    static const int32_t slot2[] = {0, 20, 3, 12};
    fx f;
    (void)state;
    worked_example(&f, KVG_FP16);
    fx_index(&f, seq, slot, wins, off);
    fx_reject(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "head 1 (batch 0, head 1) writes slots [4, 10) and head 3 "
              "(batch 1, head 1) writes [9, 10): the runs overlap from slot "
              "9", 3);
    fx_index(&f, seq, slot2, wins, off);
    fx_reject(&f, KVG_ERR_PARAM_INVALID, "slot_mapping",
              "head 0 (batch 0, head 0) writes slots [0, 4) and head 2 "
              "(batch 1, head 0) writes [3, 8)", 2);
    fx_free(&f);
}

static void test_workspace(void **state)
{
    kvg_diag d;
    size_t need = 0, again = 0;
    fx f;
    (void)state;
    worked_example(&f, KVG_FP16);
    assert_int_equal(kvg_reshape_and_cache_omni_workspace_size(&f.a, &need,
                                                               &d), KVG_OK);
    assert_true(need > 0 && need <= WS_BYTES);
    /* shapes only: other index values, same size */
    memset(f.wins.data, 0x7F, f.wins.nbytes);
    assert_int_equal(kvg_reshape_and_cache_omni_workspace_size(&f.a, &again,
                                                               &d), KVG_OK);
    assert_int_equal(need, again);
    fx_index(&f, we_seq, we_slot, we_wins, we_off);
    f.a.workspace_size = need - 1;
    fx_reject(&f, KVG_ERR_WORKSPACE, "workspace", "needed", -1);
    f.a.workspace = NULL;
    f.a.workspace_size = need;
    fx_reject(&f, KVG_ERR_WORKSPACE, "workspace", "NULL", -1);
    f.a.workspace = f.ws;
    fx_run_ok(&f); /* exactly `need` bytes suffice */
    assert_slot(&f, 15, 6, 1);
    f.a.key_cache = NULL;
    kvgt_assert_diag(kvg_reshape_and_cache_omni_workspace_size(&f.a, &need,
                                                              &d),
                    &d, KVG_ERR_PARAM_NULLPTR, "key_cache", "NULL", -1);
    fx_free(&f);
}

static void test_args_init(void **state)
{
    kvg_reshape_and_cache_omni_args a;
    (void)state;
    memset(&a, 0x5A, sizeof a);
    kvg_reshape_and_cache_omni_args_init(&a);
    assert_null(a.key);
    assert_null(a.offset_index);
    assert_null(a.workspace);
    assert_int_equal(a.workspace_size, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_max_head_size),
        cmocka_unit_test(test_bit_exact_copy),
        cmocka_unit_test(test_keep_edges),
        cmocka_unit_test(test_negative_slot_skips),
        cmocka_unit_test(test_touching_and_empty_runs),
        cmocka_unit_test(test_null_pointers),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_head_size_limits),
        cmocka_unit_test(test_head_count_limit),
        cmocka_unit_test(test_index_values),
        cmocka_unit_test(test_overlapping_runs),
        cmocka_unit_test(test_workspace),
        cmocka_unit_test(test_args_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
