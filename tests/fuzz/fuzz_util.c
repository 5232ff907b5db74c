/*
 * tests/fuzz/fuzz_util.c - input reader, value stream, exact-size tensors
 * and the shared invariants of the operator fuzz targets.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"

void fz_fail(const char *file, int line, const char *what, const char *info)
{
    fprintf(stderr, "%s:%d: fuzz invariant broken: %s%s%s\n", file, line,
            what, info != NULL ? " -- " : "", info != NULL ? info : "");
    abort();
}

/* ---- reading the input -------------------------------------------------- */

void fz_in_init(fz_in *in, const uint8_t *data, size_t size)
{
    in->p = data;
    in->n = size;
    in->at = 0;
}

uint8_t fz_u8(fz_in *in)
{
    return in->at < in->n ? in->p[in->at++] : 0;
}

uint64_t fz_u64(fz_in *in)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; i++)
        v |= (uint64_t)fz_u8(in) << (8 * i);
    return v;
}

int64_t fz_pick(fz_in *in, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(fz_u8(in) % (unsigned)(hi - lo + 1));
}

int64_t fz_weird(fz_in *in)
{
    /* 3 * 6148914691236517248 and 128 * (2^57 + 3) wrap 2^64 to 128 and
     * 384: a shape check that multiplies without overflow detection would
     * take them for small tensors. */
    static const int64_t table[] = {
        0, -1, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 127, 128, 129, 500,
        16384, 16416, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN,
        (int64_t)1 << 32, (int64_t)1 << 62, INT64_MAX, INT64_MIN,
        INT64_MAX / 2 + 1, (int64_t)6148914691236517248LL,
        (int64_t)6148914691236517206LL, ((int64_t)1 << 57) + 3,
    };
    uint8_t k = fz_u8(in);
    if (k >= 0xF0)
        return (int64_t)fz_u64(in);
    return table[k % (sizeof table / sizeof table[0])];
}

/* ---- the value stream ---------------------------------------------------- */

uint64_t fz_next(fz_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t fz_below(fz_rng *r, uint64_t n)
{
    return fz_next(r) % n;
}

/* Special bit patterns: quiet/signalling/negative NaNs, +-inf, +-0, the
 * smallest and largest subnormal, +-max. */
static const uint16_t k_special16[] = {0x7E00, 0xFE01, 0x7C01, 0x7C00,
                                       0xFC00, 0x0000, 0x8000, 0x0001,
                                       0x03FF, 0x7BFF, 0xFBFF};
static const uint16_t k_special_bf16[] = {0x7FC0, 0xFF81, 0x7F81, 0x7F80,
                                          0xFF80, 0x0000, 0x8000, 0x0001,
                                          0x007F, 0x7F7F, 0xFF7F};
static const uint32_t k_special32[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u,
                                       0x7F800000u, 0xFF800000u, 0x00000000u,
                                       0x80000000u, 0x00000001u, 0x007FFFFFu,
                                       0x7F7FFFFFu, 0xFF7FFFFFu};

static void put_special(kvg_dtype dt, unsigned char *dst, fz_rng *r)
{
    const size_t k = (size_t)fz_below(r, 11);
    switch (dt) {
    case KVG_FP16:
        memcpy(dst, &k_special16[k], 2);
        break;
    case KVG_BF16:
        memcpy(dst, &k_special_bf16[k], 2);
        break;
    case KVG_FP32:
        memcpy(dst, &k_special32[k], 4);
        break;
    default:
        dst[0] = (unsigned char)fz_next(r);
        break;
    }
}

void fz_fill(void *buf, size_t bytes, kvg_dtype dtype, fz_values mode,
             fz_rng *r)
{
    unsigned char *p = (unsigned char *)buf;
    const size_t es = kvg_dtype_size(dtype);
    const int floating = dtype == KVG_FP16 || dtype == KVG_BF16 ||
                         dtype == KVG_FP32 || dtype == KVG_INT8 ||
                         dtype == KVG_FP8_E4M3FN || dtype == KVG_FP8_E5M2 ||
                         dtype == KVG_HIF8;
    size_t i = 0;

    if (floating && mode != FZ_VAL_RAW) {
        for (; i + es <= bytes; i += es) {
            float v = (float)((double)(fz_next(r) >> 40) / 2097152.0 - 4.0);
            /* fp32 tensors are scales and offsets: rarer specials, so that
             * a zero scale (refused) does not end most int8 calls */
            if (mode == FZ_VAL_SPECIAL &&
                fz_below(r, dtype == KVG_FP32 ? 256 : 8) == 0)
                put_special(dtype, p + i, r);
            else
                (void)kvg_encode_f32(dtype, v, KVG_OVF_DEFAULT, p + i);
        }
    }
    for (; i < bytes; i++)
        p[i] = (unsigned char)(fz_next(r) >> 56);
}

/* ---- tensors ----------------------------------------------------------- */

void *fz_alloc(size_t size, uint64_t seed)
{
    unsigned char *p = (unsigned char *)malloc(size ? size : 1);
    fz_rng r;
    size_t i;
    if (p == NULL)
        abort();
    r.s = seed ^ 0x5EED5EEDull;
    /* poison: random bytes with the low bit set, so never a zero byte */
    for (i = 0; i + 8 <= size; i += 8) {
        uint64_t x = fz_next(&r) | 0x0101010101010101ull;
        memcpy(p + i, &x, 8);
    }
    for (; i < size; i++)
        p[i] = (unsigned char)(fz_next(&r) | 1u);
    return p;
}

void fz_pool_init(fz_pool *pool, uint64_t seed, fz_values mode)
{
    memset(pool, 0, sizeof *pool);
    pool->rng.s = seed;
    pool->mode = mode;
}

void fz_pool_free(fz_pool *pool)
{
    int i;
    for (i = 0; i < pool->n; i++) {
        free(pool->b[i].mem);
        free(pool->b[i].snap);
        free(pool->b[i].after);
    }
    pool->n = 0;
}

/* Bytes of a shape, or 0 with *ok = 0 when negative/overflowing/absurd. */
static size_t shape_bytes(kvg_dtype dt, int rank, const int64_t *sh, int *ok)
{
    uint64_t n = kvg_dtype_size(dt);
    int i;
    *ok = 1;
    if (n == 0 || rank < 0 || rank > KVG_MAX_RANK) {
        *ok = 0;
        return 0;
    }
    for (i = 0; i < rank; i++) {
        if (sh[i] < 0 || (sh[i] != 0 && n > ((uint64_t)1 << 20) /
                                                 (uint64_t)sh[i])) {
            *ok = 0;
            return 0;
        }
        n *= (uint64_t)sh[i];
    }
    return (size_t)n;
}

fz_buf *fz_tensor(fz_pool *pool, fz_in *in, const char *name, fz_role role,
                  kvg_dtype dtype, int rank, const int64_t *shape)
{
    fz_buf *b;
    int64_t sh[KVG_MAX_RANK];
    kvg_dtype dt = dtype;
    int rk = rank, i, ok, null_view = 0, null_data = 0;
    int64_t delta = 0;
    size_t size;
    uint8_t m;

    if (pool->n >= FZ_MAX_BUFS)
        abort();
    b = &pool->b[pool->n++];
    memset(b, 0, sizeof *b);
    for (i = 0; i < KVG_MAX_RANK; i++)
        sh[i] = i < rank ? shape[i] : 1;
    m = fz_u8(in);
    if (m >= 0xC0) {
        const int k = rk > 0 ? (int)fz_pick(in, 0, rk - 1) : 0;
        pool->mutated = 1;
        switch ((m - 0xC0) % 12) {
        case 0: null_view = 1; break;
        case 1: null_data = 1; break;
        case 2: dt = (kvg_dtype)fz_pick(in, 0, 10); break;
        case 3: rk = (int)fz_pick(in, -1, 9); break;
        case 4: sh[k] = fz_weird(in); break;
        case 5: sh[k] += fz_pick(in, -2, 2); break;
        case 6: sh[k] *= 2; break;
        case 7: delta = fz_pick(in, -3, 3); break;
        case 8:
            for (i = 0; i < rk && i < KVG_MAX_RANK; i++)
                sh[i] = fz_weird(in);
            break;
        case 9:
            if (rk > 1) {
                int64_t tmp = sh[0];
                sh[0] = sh[rk - 1];
                sh[rk - 1] = tmp;
            }
            break;
        case 10: dt = dt == KVG_FP16 ? KVG_BF16 : KVG_FP16; break;
        default: /* an extra trailing dim of 1: same bytes, other rank */
            if (rk < KVG_MAX_RANK)
                sh[rk++] = 1;
            break;
        }
    }
    size = shape_bytes(dt, rk, sh, &ok);
    if (!ok)
        size = 64;
    if (delta < 0 && (size_t)(-delta) > size)
        size = 0;
    else
        size = (size_t)((int64_t)size + delta);
    b->name = name;
    b->role = role;
    b->size = size;
    b->mem = (unsigned char *)fz_alloc(size, pool->rng.s + (uint64_t)pool->n);
    if (role == FZ_INPUT)
        fz_fill(b->mem, size, dt, pool->mode, &pool->rng);
    b->t = kvg_tensor_make(null_data ? NULL : b->mem, size, dt, rk, sh);
    b->view = null_view ? NULL : &b->t;
    return b;
}

int fz_index_get(const fz_buf *b, int64_t i, int64_t *v)
{
    const size_t es = b->t.dtype == KVG_INT32 ? 4 : 8;
    if ((b->t.dtype != KVG_INT32 && b->t.dtype != KVG_INT64) || i < 0 ||
        (uint64_t)i >= b->size / es)
        return 0;
    if (es == 4) {
        int32_t x;
        memcpy(&x, b->mem + (size_t)i * 4u, 4);
        *v = x;
    } else {
        memcpy(v, b->mem + (size_t)i * 8u, 8);
    }
    return 1;
}

void fz_index_set(fz_buf *b, int64_t i, int64_t v)
{
    const size_t es = b->t.dtype == KVG_INT32 ? 4 : 8;
    if ((b->t.dtype != KVG_INT32 && b->t.dtype != KVG_INT64) || i < 0 ||
        (uint64_t)i >= b->size / es)
        return;
    if (es == 4) {
        /* Out-of-range values wrap as a caller's int32 store would. */
        int32_t x = (int32_t)(uint32_t)(uint64_t)v;
        memcpy(b->mem + (size_t)i * 4u, &x, 4);
    } else {
        memcpy(b->mem + (size_t)i * 8u, &v, 8);
    }
}

/* ---- snapshots ---------------------------------------------------------- */

static unsigned char *dup(const unsigned char *p, size_t n)
{
    unsigned char *q = (unsigned char *)malloc(n ? n : 1);
    if (q == NULL)
        abort();
    if (n)
        memcpy(q, p, n);
    return q;
}

void fz_pool_snapshot(fz_pool *pool)
{
    int i;
    for (i = 0; i < pool->n; i++) {
        free(pool->b[i].snap);
        pool->b[i].snap = dup(pool->b[i].mem, pool->b[i].size);
    }
}

static void same(const fz_buf *b, const unsigned char *want, const char *why)
{
    char info[160];
    size_t k;
    if (b->size == 0 || memcmp(b->mem, want, b->size) == 0)
        return;
    for (k = 0; b->mem[k] == want[k]; k++)
        ;
    (void)snprintf(info, sizeof info, "%s: %s byte %lu changed", why,
                   b->name, (unsigned long)k);
    fz_fail(__FILE__, __LINE__, "buffer unchanged", info);
}

void fz_pool_check_unchanged(const fz_pool *pool, const char *why)
{
    int i;
    for (i = 0; i < pool->n; i++)
        same(&pool->b[i], pool->b[i].snap, why);
}

void fz_pool_check_inputs(const fz_pool *pool)
{
    int i;
    for (i = 0; i < pool->n; i++)
        if (pool->b[i].role == FZ_INPUT)
            same(&pool->b[i], pool->b[i].snap, "input written");
}

void fz_pool_restore(fz_pool *pool)
{
    int i;
    for (i = 0; i < pool->n; i++)
        if (pool->b[i].size)
            memcpy(pool->b[i].mem, pool->b[i].snap, pool->b[i].size);
}

void fz_pool_record(fz_pool *pool)
{
    int i;
    for (i = 0; i < pool->n; i++) {
        free(pool->b[i].after);
        pool->b[i].after = dup(pool->b[i].mem, pool->b[i].size);
    }
}

void fz_pool_check_same_as_recorded(const fz_pool *pool)
{
    int i;
    for (i = 0; i < pool->n; i++)
        same(&pool->b[i], pool->b[i].after, "second run differs");
}

void fz_check_error(const fz_pool *pool, kvg_status st, const kvg_diag *diag)
{
    char info[KVG_DIAG_MESSAGE_MAX + 64];
    (void)snprintf(info, sizeof info, "status %d: %s", (int)st,
                   diag->message);
    FZ_CHECK(st == KVG_ERR_PARAM_NULLPTR || st == KVG_ERR_PARAM_INVALID ||
                 st == KVG_ERR_WORKSPACE, info);
    FZ_CHECK(diag->status == st, info);
    FZ_CHECK(diag->message[0] != '\0', info);
    FZ_CHECK(diag->tensor[0] != '\0', info);
    FZ_CHECK(memchr(diag->message, '\0', sizeof diag->message) != NULL, info);
    fz_pool_check_unchanged(pool, "rejected call");
}

/* ---- the driver --------------------------------------------------------- */

static void same_diag(const kvg_diag *x, const kvg_diag *y)
{
    FZ_CHECK(x->status == y->status, y->message);
    FZ_CHECK(strcmp(x->tensor, y->tensor) == 0, y->message);
    FZ_CHECK(strcmp(x->message, y->message) == 0, y->message);
}

static int named(const char *const *names, const char *tensor)
{
    for (; names != NULL && *names != NULL; names++)
        if (strcmp(*names, tensor) == 0)
            return 1;
    return 0;
}

/* KVG_FUZZ_VERBOSE=1 prints each input's outcome (to see what a seed or a
 * crash input reaches). */
static void trace(const char *stage, kvg_status st, const kvg_diag *d)
{
    if (getenv("KVG_FUZZ_VERBOSE") != NULL)
        fprintf(stderr, "fuzz: %s: %s %s\n", stage, kvg_status_name(st),
                st == KVG_OK ? "" : d->message);
}

static void rejected_query(fz_pool *pool, const fz_op *op, void *args,
                           kvg_status qst, const kvg_diag *qd)
{
    unsigned char *ws = (unsigned char *)fz_alloc(4096, 7);
    kvg_diag d;
    kvg_status st;

    fz_check_error(pool, qst, qd);
    op->set_workspace(args, ws, 4096);
    st = op->call(args, &d);
    FZ_CHECK(st == qst, d.message);
    same_diag(qd, &d);
    fz_check_error(pool, st, &d);
    FZ_CHECK(op->call(args, NULL) == st, "diag NULL changes the status");
    fz_pool_check_unchanged(pool, "rejected call, diag NULL");
    free(ws);
}

void fz_drive(fz_pool *pool, fz_in *in, const fz_op *op, void *args)
{
    const uint8_t mode = fz_u8(in) % 6;
    unsigned char *ws;
    size_t need = 0, give;
    kvg_diag qd, d;
    kvg_status qst, st;
    int short_ws = mode == 1 || mode == 2 || mode == 3;

    fz_pool_snapshot(pool);
    if (mode == 5) { /* NULL argument struct and result pointer */
        FZ_CHECK(op->size(NULL, &need, &qd) == KVG_ERR_PARAM_NULLPTR,
                 qd.message);
        FZ_CHECK(op->size(args, NULL, &qd) == KVG_ERR_PARAM_NULLPTR,
                 qd.message);
        FZ_CHECK(op->call(NULL, &d) == KVG_ERR_PARAM_NULLPTR, d.message);
        fz_pool_check_unchanged(pool, "NULL arguments");
    }
    qst = op->size(args, &need, &qd);
    trace("query", qst, &qd);
    if (qst != KVG_OK) {
        rejected_query(pool, op, args, qst, &qd);
        return;
    }
    fz_pool_check_unchanged(pool, "workspace query");
    FZ_CHECK(need > 0, "a successful query returned 0 bytes");
    give = mode == 2 ? need - 1 : mode == 3 ? 0 : mode == 4 ? need + 13
                                                            : need;
    ws = (unsigned char *)fz_alloc(give + 1, 11);
    op->set_workspace(args, mode == 1 ? NULL : ws + (mode == 4 ? 1 : 0),
                      give);
    st = op->call(args, &d);
    trace(short_ws ? "call (short workspace)" : "call", st, &d);
    if (short_ws) {
        FZ_CHECK(st == KVG_ERR_WORKSPACE, d.message);
        fz_check_error(pool, st, &d);
    } else if (st != KVG_OK) {
        FZ_CHECK(st == KVG_ERR_PARAM_INVALID, d.message);
        FZ_CHECK(named(op->value_tensors, d.tensor), d.message);
        FZ_CHECK(d.position >= 0, d.message);
        fz_check_error(pool, st, &d);
        FZ_CHECK(op->call(args, NULL) == st, "diag NULL changes the status");
        fz_pool_check_unchanged(pool, "rejected call, diag NULL");
    } else {
        fz_pool_check_inputs(pool);
        if (op->on_success != NULL)
            op->on_success(op->ctx);
        fz_pool_record(pool);
        fz_pool_restore(pool);
        memset(ws, 0x5A, give + 1);
        FZ_CHECK(op->call(args, &d) == KVG_OK, d.message);
        fz_pool_check_same_as_recorded(pool);
    }
    free(ws);
}
