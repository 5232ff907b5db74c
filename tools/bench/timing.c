/*
 * tools/bench/timing.c - sampling, written-byte measurement and the memcpy
 * floor (see bench.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The session the shims report into. A benchmark tool runs one operator at
 * a time; the library itself has no such state. */
static const kvgb_config *g_cfg;
static kvgb_result *g_res;
static double g_start_ns;

double kvgb_now_ns(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void kvgb_session_begin(const kvgb_config *cfg, kvgb_result *res,
                        double start_ns)
{
    g_cfg = cfg;
    g_res = res;
    g_start_ns = start_ns;
    memset(res, 0, sizeof *res);
}

void kvgb_session_end(void)
{
    g_cfg = NULL;
    g_res = NULL;
}

/* ---- sampling ------------------------------------------------------------ */

/* One thing to time: k calls of run(ctx) per sample. */
typedef struct timed {
    void (*run)(void *ctx, long k);
    void *ctx;
} timed;

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double time_k(const timed *t, long k)
{
    const double t0 = kvgb_now_ns();
    t->run(t->ctx, k);
    return kvgb_now_ns() - t0;
}

/* k doubles until one sample of k calls lasts sample_s; then samples until
 * the budget is spent (at least min_samples, at most max_samples). */
static void sample(const timed *t, const kvgb_config *cfg, kvgb_stats *st)
{
    const double want = cfg->sample_s * 1e9, budget = cfg->budget_s * 1e9;
    double *v = (double *)malloc(sizeof *v * (size_t)cfg->max_samples);
    double spent = 0.0, dt;
    long k = 1;
    int n = 0;

    while ((dt = time_k(t, k)) < want && k < (1L << 30))
        k *= 2;
    if (v == NULL) { /* no room for statistics: report the calibration */
        st->median_ns = st->min_ns = dt / (double)k;
        st->per_sample = k;
        st->samples = 1;
        return;
    }
    while (n < cfg->max_samples && (n < cfg->min_samples || spent < budget)) {
        dt = time_k(t, k);
        spent += dt;
        v[n++] = dt / (double)k;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    st->median_ns = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    st->min_ns = v[0];
    st->per_sample = k;
    st->samples = n;
    free(v);
}

/* ---- the operator -------------------------------------------------------- */

typedef struct op_ctx {
    kvgb_op_fn op;
    const void *args;
    kvg_status status; /* first non-OK status of a timed call */
} op_ctx;

static void run_op(void *p, long k)
{
    op_ctx *c = (op_ctx *)p;
    long i;
    for (i = 0; i < k; i++) {
        kvg_status st = c->op(c->args, NULL);
        if (st != KVG_OK && c->status == KVG_OK)
            c->status = st;
    }
}

/* ---- memcpy floor -------------------------------------------------------- */

typedef struct copy_ctx {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
} copy_ctx;

/* Called through a volatile pointer so no compiler merges the repeats. */
static void *(*volatile g_memcpy)(void *, const void *, size_t) = memcpy;

static void run_copy(void *p, long k)
{
    copy_ctx *c = (copy_ctx *)p;
    long i;
    for (i = 0; i < k; i++)
        (void)g_memcpy(c->dst, c->src, c->n);
}

/* splitmix64 bytes: a seeded fill, different for every output. */
static void pattern(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t s = seed, z = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        if (i % 8 == 0) {
            z = (s += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            z ^= z >> 31;
        }
        p[i] = (unsigned char)(z >> (8 * (i % 8)));
    }
}

static void memcpy_floor(uint64_t bytes, kvgb_stats *st)
{
    kvgb_config cfg;
    copy_ctx c;
    timed t;
    const size_t n = bytes ? (size_t)bytes : 1;
    c.dst = (unsigned char *)malloc(n);
    c.src = (const unsigned char *)malloc(n);
    c.n = n;
    if (c.dst == NULL || c.src == NULL) {
        free(c.dst);
        free((void *)c.src);
        memset(st, 0, sizeof *st);
        return;
    }
    pattern((unsigned char *)c.src, n, 11);
    pattern(c.dst, n, 12);
    t.run = run_copy;
    t.ctx = &c;
    /* a contiguous copy is steady: a short budget is enough */
    cfg = *g_cfg;
    cfg.budget_s = cfg.budget_s < 0.2 ? cfg.budget_s : 0.2;
    sample(&t, &cfg, st);
    free(c.dst);
    free((void *)c.src);
}

/* ---- written bytes ------------------------------------------------------- */

/*
 * Fill every output with P, run, keep the image; fill with ~P, run,
 * compare: a byte the op writes holds its value both times, a byte it
 * leaves holds P and ~P. Outputs end as `keep` (the op's result).
 * Returns 0, with the outputs untouched, if memory runs out.
 */
static uint64_t written_bytes(const op_ctx *c, const kvg_tensor *const *outs,
                              int n_outs)
{
    uint64_t total = 0;
    unsigned char **keep = (unsigned char **)calloc((size_t)n_outs + 1,
                                                    sizeof *keep);
    unsigned char **first = (unsigned char **)calloc((size_t)n_outs + 1,
                                                     sizeof *first);
    int i, ok = keep != NULL && first != NULL;

    for (i = 0; ok && i < n_outs; i++) {
        size_t n = outs[i]->nbytes;
        keep[i] = (unsigned char *)malloc(n ? n : 1);
        first[i] = (unsigned char *)malloc(n ? n : 1);
        ok = keep[i] != NULL && first[i] != NULL;
    }
    if (ok) { /* everything allocated: only now touch the outputs */
        for (i = 0; i < n_outs; i++) {
            memcpy(keep[i], outs[i]->data, outs[i]->nbytes);
            pattern((unsigned char *)outs[i]->data, outs[i]->nbytes,
                    100 + (uint64_t)i);
        }
        (void)c->op(c->args, NULL);
        for (i = 0; i < n_outs; i++) {
            unsigned char *d = (unsigned char *)outs[i]->data;
            size_t j, n = outs[i]->nbytes;
            memcpy(first[i], d, n);
            pattern(d, n, 100 + (uint64_t)i);
            for (j = 0; j < n; j++)
                d[j] = (unsigned char)~d[j];
        }
        (void)c->op(c->args, NULL);
        for (i = 0; i < n_outs; i++) {
            const unsigned char *d = (const unsigned char *)outs[i]->data;
            size_t j, n = outs[i]->nbytes;
            for (j = 0; j < n; j++)
                total += d[j] == first[i][j];
            memcpy(outs[i]->data, keep[i], n);
        }
    }
    for (i = 0; keep != NULL && first != NULL && i < n_outs; i++) {
        free(keep[i]);
        free(first[i]);
    }
    free(keep);
    free(first);
    return total;
}

kvg_status kvgb_measure(kvgb_op_fn op, const void *args,
                        const kvg_tensor *const *outs, int n_outs,
                        const kvg_tensor *const *ins, int n_ins,
                        int copy_only, kvg_diag *diag)
{
    const double entered = kvgb_now_ns();
    op_ctx c;
    timed t;
    kvg_status st;
    int i;

    if (g_res == NULL || g_cfg == NULL) /* no session: just run the op */
        return op(args, diag);
    g_res->setup_ns = entered - g_start_ns;
    /* One checked call first: an invalid case stops here with its message.
     * It is also the cold call (caches and pages as the adapter left them). */
    st = op(args, diag);
    g_res->op.first_ns = kvgb_now_ns() - entered;
    if (st != KVG_OK)
        return st;
    c.op = op;
    c.args = args;
    c.status = KVG_OK;
    t.run = run_op;
    t.ctx = &c;
    sample(&t, g_cfg, &g_res->op);
    if (c.status != KVG_OK)
        return op(args, diag); /* cannot happen: the op is deterministic */
    g_res->bytes_written = written_bytes(&c, outs, n_outs);
    g_res->bytes_read = copy_only ? g_res->bytes_written : 0;
    for (i = 0; i < n_ins; i++)
        if (ins[i] != NULL)
            g_res->bytes_read += ins[i]->nbytes;
    g_res->copy_only = copy_only;
    memcpy_floor(g_res->bytes_written, &g_res->copy);
    g_res->measured = 1;
    return KVG_OK;
}
