/*
 * tools/bench/timing.c - sampling, written-byte measurement and the memcpy
 * floors (see bench.h).
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

/* k doubles until one sample of k calls lasts sample_s (the last sample's
 * time in *dt). */
static long calibrate(const timed *t, const kvgb_config *cfg, double *dt)
{
    long k = 1;
    while ((*dt = time_k(t, k)) < cfg->sample_s * 1e9 && k < (1L << 30))
        k *= 2;
    return k;
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Calibrated; then samples until the budget is spent (at least
 * min_samples, at most max_samples). */
static void sample(const timed *t, const kvgb_config *cfg, kvgb_stats *st)
{
    const double budget = cfg->budget_s * 1e9;
    double *v = (double *)malloc(sizeof *v * (size_t)cfg->max_samples);
    double spent = 0.0, dt;
    long k = calibrate(t, cfg, &dt);
    int n = 0;

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
    st->median_ns = median_of(v, n);
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

/* One untimed call, then k timed: the sample starts from the state its
 * own function leaves the caches in, not the other's (a memcpy of 16 MiB
 * evicts the op's buffers from L2 and L3). */
static double warm_time_k(const timed *t, long k)
{
    t->run(t->ctx, 1);
    return time_k(t, k);
}

/* The op against memcpy sample for sample: the two alternate (which of
 * them goes first alternating too) and the result is the median of the
 * pairs' ratios, each pair timed on the same machine within milliseconds.
 * A ratio of two medians taken at different times moves with the machine:
 * on this project's benchmark VM, a memcpy of 16 MiB took 0.76 to 1.99 ms
 * in runs minutes apart (docs/performance.md). */
static void paired_ratio(const timed *op, long k_op, const timed *copy,
                         const kvgb_config *cfg, kvgb_result *res)
{
    const int most = cfg->max_samples;
    double *v = (double *)malloc(sizeof *v * (size_t)most);
    double spent = 0.0, dt, a, b;
    long k_copy = calibrate(copy, cfg, &dt);
    int n = 0;

    if (v == NULL)
        return;
    while (n < most && (n < cfg->min_samples || spent < cfg->budget_s * 1e9)) {
        if (n % 2 == 0) {
            a = warm_time_k(op, k_op);
            b = warm_time_k(copy, k_copy);
        } else {
            b = warm_time_k(copy, k_copy);
            a = warm_time_k(op, k_op);
        }
        spent += a + b;
        v[n++] = (a / (double)k_op) / (b / (double)k_copy);
    }
    res->paired_ratio = median_of(v, n);
    res->pairs = n;
    free(v);
}

/* memcpy of `bytes` alone, and (op not NULL) against the op, paired. */
static void memcpy_floor(uint64_t bytes, const timed *op, long k_op,
                         kvgb_result *res)
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
        memset(&res->copy, 0, sizeof res->copy);
        return;
    }
    pattern((unsigned char *)c.src, n, 11);
    pattern(c.dst, n, 12);
    t.run = run_copy;
    t.ctx = &c;
    /* 0.2 s at most for each: the memcpy alone, and the pairs (at least
     * 11), whose ratio is the judged one */
    cfg = *g_cfg;
    cfg.budget_s = cfg.budget_s < 0.2 ? cfg.budget_s : 0.2;
    sample(&t, &cfg, &res->copy);
    if (op != NULL) {
        cfg.min_samples = cfg.min_samples > 11 ? cfg.min_samples : 11;
        paired_ratio(op, k_op, &t, &cfg, res);
    }
    free(c.dst);
    free((void *)c.src);
}

/* ---- written bytes and runs -------------------------------------------- */

/* A maximal range of consecutive bytes of one output that the op writes. */
typedef struct run {
    int out;    /* index into the outputs */
    size_t off; /* first byte */
    size_t len;
    size_t src; /* where its bytes come from in the timed copy's source */
} run;

/* Where the op writes: the runs of every output, output by output, each in
 * address order. `runs` is NULL (n_runs still counted) if there was no
 * memory for the list. */
typedef struct places {
    run *runs;
    uint64_t n_runs;
} places;

/* The runs of one written-byte mask m[0..n) (1 written, 0 not); stores
 * them from runs[at] if runs is not NULL, returns how many there are. */
static uint64_t mask_runs(const unsigned char *m, size_t n, int out,
                          run *runs, uint64_t at)
{
    uint64_t k = 0;
    size_t j = 0;
    while (j < n) {
        size_t start;
        while (j < n && !m[j])
            j++;
        if (j == n)
            break;
        start = j;
        while (j < n && m[j])
            j++;
        if (runs != NULL) {
            runs[at + k].out = out;
            runs[at + k].off = start;
            runs[at + k].len = j - start;
        }
        k++;
    }
    return k;
}

/*
 * Fill every output with P, run, keep the image; fill with ~P, run,
 * compare: a byte the op writes holds its value both times, a byte it
 * leaves holds P and ~P. Outputs end as `keep` (the op's result). The
 * written bytes of each output are also gathered into runs (`where`).
 * Returns 0, with the outputs untouched and where->n_runs 0, if memory
 * runs out.
 */
static uint64_t written_bytes(const op_ctx *c, const kvg_tensor *const *outs,
                              int n_outs, places *where)
{
    uint64_t total = 0;
    unsigned char **keep = (unsigned char **)calloc((size_t)n_outs + 1,
                                                    sizeof *keep);
    unsigned char **first = (unsigned char **)calloc((size_t)n_outs + 1,
                                                     sizeof *first);
    int i, ok = keep != NULL && first != NULL;

    where->runs = NULL;
    where->n_runs = 0;
    for (i = 0; ok && i < n_outs; i++) {
        size_t n = outs[i]->nbytes;
        keep[i] = (unsigned char *)malloc(n ? n : 1);
        first[i] = (unsigned char *)malloc(n ? n : 1);
        ok = keep[i] != NULL && first[i] != NULL;
    }
    if (ok) { /* everything allocated: only now touch the outputs */
        uint64_t at = 0;
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
            for (j = 0; j < n; j++) { /* first[i] becomes the mask */
                first[i][j] = d[j] == first[i][j];
                total += first[i][j];
            }
            memcpy(outs[i]->data, keep[i], n);
            where->n_runs += mask_runs(first[i], n, i, NULL, 0);
        }
        if (where->n_runs > 0 &&
            where->n_runs <= (uint64_t)((size_t)-1 / sizeof(run)))
            where->runs = (run *)malloc((size_t)where->n_runs *
                                        sizeof(run));
        for (i = 0; where->runs != NULL && i < n_outs; i++)
            at += mask_runs(first[i], outs[i]->nbytes, i, where->runs, at);
        if (where->runs != NULL) { /* read from one contiguous source */
            uint64_t r;
            size_t from = 0;
            for (r = 0; r < where->n_runs; r++) {
                where->runs[r].src = from;
                from += where->runs[r].len;
            }
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

/* ---- where each written byte comes from --------------------------------- */

/* As many outputs as a case can hold (tools/lib/case/case.h). */
#define KVGB_MAX_OUTS 32

static void flip_sources(const kvg_tensor *const *srcs, int n_srcs,
                         int bit)
{
    uint64_t j = 0;
    int i;
    for (i = 0; i < n_srcs; i++) {
        unsigned char *d = (unsigned char *)srcs[i]->data;
        size_t k;
        for (k = 0; k < srcs[i]->nbytes; k++, j++)
            if (bit < 0 || (j >> bit) & 1u)
                d[k] = (unsigned char)~d[k];
    }
}

/*
 * The written runs again, in the order of the source bytes they copy:
 * which source byte (of the `srcs` tensors, end to end) each written byte
 * holds is found with one op call per bit of the source index, the source
 * bytes whose index has that bit set inverted: a written byte that comes
 * out inverted has the bit. A last call inverts every source byte, and
 * every written byte must follow: an op that converts, computes or writes
 * a byte from nowhere has no such order (returns 0). The runs are then
 * maximal where both the source and the destination bytes are
 * consecutive; run.src is the source index. Inputs and outputs end as
 * they were. Returns 0, measuring nothing, if memory runs out or a size
 * does not fit the 32-bit indexes.
 */
static int source_order(const op_ctx *c, const kvg_tensor *const *outs,
                        int n_outs, const kvg_tensor *const *srcs,
                        int n_srcs, const places *where, uint64_t written,
                        places *order, uint64_t *src_bytes)
{
    uint64_t S = 0, V = 0, r, j, w, n;
    uint64_t base[KVGB_MAX_OUTS + 1];
    unsigned char *orig = NULL;
    uint32_t *idx = NULL, *dst_of = NULL;
    int i, bit, bits = 0, ok = 1;

    order->runs = NULL;
    order->n_runs = 0;
    for (i = 0; i < n_srcs; i++)
        S += srcs[i]->nbytes;
    for (i = 0; i < n_outs; i++) {
        base[i] = V;
        V += outs[i]->nbytes;
    }
    base[n_outs] = V;
    *src_bytes = S;
    if (where->runs == NULL || written == 0 || S == 0 ||
        n_outs > KVGB_MAX_OUTS || S >= 0xFFFFFFFFu || V >= 0xFFFFFFFFu ||
        written > (uint64_t)((size_t)-1 / sizeof *idx))
        return 0;
    while (((uint64_t)1 << bits) < S)
        bits++;
    orig = (unsigned char *)malloc((size_t)written);
    idx = (uint32_t *)calloc((size_t)written, sizeof *idx);
    if (orig == NULL || idx == NULL) {
        free(orig);
        free(idx);
        return 0;
    }
    for (r = 0, w = 0; r < where->n_runs; r++) {
        const run *x = &where->runs[r];
        memcpy(orig + w, (unsigned char *)outs[x->out]->data + x->off,
               x->len);
        w += x->len;
    }
    for (bit = 0; ok && bit <= bits; bit++) {
        const int b = bit < bits ? bit : -1; /* -1: every source byte */
        flip_sources(srcs, n_srcs, b);
        (void)c->op(c->args, NULL);
        flip_sources(srcs, n_srcs, b);
        for (r = 0, w = 0; ok && r < where->n_runs; r++) {
            const run *x = &where->runs[r];
            const unsigned char *d =
                (const unsigned char *)outs[x->out]->data + x->off;
            size_t k;
            for (k = 0; k < x->len; k++, w++) {
                if (d[k] == (unsigned char)~orig[w]) {
                    if (b >= 0)
                        idx[w] |= (uint32_t)1 << b;
                } else if (b < 0 || d[k] != orig[w]) {
                    ok = 0;
                    break;
                }
            }
        }
    }
    for (r = 0, w = 0; r < where->n_runs; r++) { /* the op's result back */
        const run *x = &where->runs[r];
        memcpy((unsigned char *)outs[x->out]->data + x->off, orig + w,
               x->len);
        w += x->len;
    }
    free(orig);
    if (ok) /* 0: no written byte comes from here, else its address + 1 */
        dst_of = (uint32_t *)calloc((size_t)S, sizeof *dst_of);
    ok = ok && dst_of != NULL;
    for (r = 0, w = 0; ok && r < where->n_runs; r++) {
        const run *x = &where->runs[r];
        size_t k;
        for (k = 0; ok && k < x->len; k++, w++) {
            ok = idx[w] < S && dst_of[idx[w]] == 0; /* one copy each */
            if (ok)
                dst_of[idx[w]] = (uint32_t)(base[x->out] + x->off + k + 1);
        }
    }
    free(idx);
    for (n = 0; ok && n < 2; n++) { /* count the runs, then store them */
        uint64_t k = 0;
        for (j = 0; j < S; j++) {
            uint32_t a = dst_of[j];
            int o = 0;
            if (a == 0)
                continue;
            while (base[o + 1] <= a - 1u)
                o++;
            if (j > 0 && dst_of[j - 1] != 0 && a == dst_of[j - 1] + 1u &&
                a - 1u != base[o]) {
                if (order->runs != NULL)
                    order->runs[k - 1].len++;
                continue;
            }
            if (order->runs != NULL) {
                order->runs[k].out = o;
                order->runs[k].off = (size_t)(a - 1u - base[o]);
                order->runs[k].len = 1;
                order->runs[k].src = (size_t)j;
            }
            k++;
        }
        order->n_runs = k;
        if (n == 0)
            order->runs = (run *)malloc((size_t)k * sizeof(run));
        ok = order->runs != NULL;
    }
    free(dst_of);
    if (!ok) {
        free(order->runs);
        order->runs = NULL;
    }
    return ok;
}

/* Destination order: by output, then address. */
static int cmp_dst(const void *a, const void *b)
{
    const run *x = (const run *)a, *y = (const run *)b;
    if (x->out != y->out)
        return (x->out > y->out) - (x->out < y->out);
    return (x->off > y->off) - (x->off < y->off);
}

/* ---- memcpy at the same places ----------------------------------------- */

typedef struct places_ctx {
    unsigned char **dst; /* one buffer per output, of the output's size */
    const unsigned char *src;
    const run *runs;
    uint64_t n_runs;
} places_ctx;

/*
 * Every run copied from its place in one contiguous source, in the order
 * of the list: for `places` (memcpy_places_ns) address order within each
 * output, output after output, from consecutive source bytes (the op's
 * own order of writes is not known there; address order is the one a
 * plain copy loop over the destination takes, and the friendliest to the
 * hardware prefetchers); for the source order (memcpy_order_ns) the
 * order of the source bytes, from their own offsets; for the destination
 * order (memcpy_dst_order_ns) the same moves sorted by destination.
 * Runs of up to 256 bytes whose length is a multiple of 16 (the NZ
 * layouts' 32-byte runs) are copied as fixed 16-byte memcpy calls, which
 * the compiler turns into plain loads and stores as it does the
 * operators' fixed-size copies; a library call per 32 bytes would charge
 * the floor a call the operators do not pay. Longer runs go through the
 * library memcpy, through the volatile pointer.
 */
static void run_places(void *p, long k)
{
    const places_ctx *c = (const places_ctx *)p;
    long i;
    for (i = 0; i < k; i++) {
        uint64_t r;
        for (r = 0; r < c->n_runs; r++) {
            unsigned char *d = c->dst[c->runs[r].out] + c->runs[r].off;
            const unsigned char *s = c->src + c->runs[r].src;
            const size_t len = c->runs[r].len;
            if (len <= 256 && len % 16 == 0) {
                size_t o;
                for (o = 0; o < len; o += 16)
                    memcpy(d + o, s + o, 16);
            } else {
                (void)g_memcpy(d, s, len);
            }
        }
    }
}

/*
 * The same bytes to the same places: into a fresh buffer the size of each
 * output (patterned, as the caches the op writes into are), every run of
 * `where` from a contiguous source of `bytes` bytes. Timed as memcpy_floor.
 * Returns 0, measuring nothing, without the runs or the memory.
 */
static int memcpy_places(const kvg_tensor *const *outs, int n_outs,
                         const places *where, uint64_t bytes,
                         kvgb_stats *st)
{
    kvgb_config cfg;
    places_ctx c;
    timed t;
    int i, ok;

    memset(st, 0, sizeof *st);
    if (where->runs == NULL || bytes == 0 ||
        bytes > (uint64_t)(size_t)-1)
        return 0;
    c.dst = (unsigned char **)calloc((size_t)n_outs + 1, sizeof *c.dst);
    c.src = (const unsigned char *)malloc((size_t)bytes);
    ok = c.dst != NULL && c.src != NULL;
    for (i = 0; ok && i < n_outs; i++) {
        const size_t n = outs[i]->nbytes;
        c.dst[i] = (unsigned char *)malloc(n ? n : 1);
        ok = c.dst[i] != NULL;
    }
    if (ok) {
        pattern((unsigned char *)c.src, (size_t)bytes, 11);
        for (i = 0; i < n_outs; i++)
            pattern(c.dst[i], outs[i]->nbytes, 200 + (uint64_t)i);
        c.runs = where->runs;
        c.n_runs = where->n_runs;
        t.run = run_places;
        t.ctx = &c;
        cfg = *g_cfg; /* the budget of memcpy_floor */
        cfg.budget_s = cfg.budget_s < 0.2 ? cfg.budget_s : 0.2;
        sample(&t, &cfg, st);
    }
    for (i = 0; c.dst != NULL && i < n_outs; i++)
        free(c.dst[i]);
    free(c.dst);
    free((void *)c.src);
    return ok;
}

kvg_status kvgb_measure(kvgb_op_fn op, const void *args,
                        const kvg_tensor *const *outs, int n_outs,
                        const kvg_tensor *const *ins, int n_ins,
                        const kvg_tensor *const *srcs, int n_srcs,
                        int copy_only, kvg_diag *diag)
{
    const double entered = kvgb_now_ns();
    op_ctx c;
    timed t;
    kvg_status st;
    places where, order;
    uint64_t src_bytes = 0;
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
    g_res->bytes_written = written_bytes(&c, outs, n_outs, &where);
    g_res->written_runs = where.n_runs;
    g_res->bytes_read = copy_only ? g_res->bytes_written : 0;
    for (i = 0; i < n_ins; i++)
        if (ins[i] != NULL)
            g_res->bytes_read += ins[i]->nbytes;
    g_res->copy_only = copy_only;
    memcpy_floor(g_res->bytes_written, copy_only ? &t : NULL,
                 g_res->op.per_sample, g_res);
    g_res->places_measured = memcpy_places(outs, n_outs, &where,
                                           g_res->bytes_written,
                                           &g_res->places);
    if (copy_only &&
        source_order(&c, outs, n_outs, srcs, n_srcs, &where,
                     g_res->bytes_written, &order, &src_bytes)) {
        g_res->order_runs = order.n_runs;
        g_res->order_measured = memcpy_places(outs, n_outs, &order,
                                              src_bytes, &g_res->order);
        qsort(order.runs, (size_t)order.n_runs, sizeof *order.runs,
              cmp_dst);
        g_res->dst_order_measured = memcpy_places(outs, n_outs, &order,
                                                  src_bytes,
                                                  &g_res->dst_order);
        free(order.runs);
    }
    free(where.runs);
    g_res->measured = 1;
    return KVG_OK;
}
