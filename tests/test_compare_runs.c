/*
 * tests/test_compare_runs.c - the written set given as runs
 * (kvg_compare_args.written_runs) judges exactly as the byte
 * mask does: the same status, the same result struct byte for byte, the
 * same text and JSON reports; on hand-made tensors (runs at the edges, no
 * run, one run over everything, an NZ layout) and on every vector case
 * with a cache, where the mask comes from the two-run method
 * (kvg_compare_written_mask) and the NPU stand-in is the NumPy expected
 * output with one written and one untouched element corrupted. Bad runs
 * are refused with 161002 naming the run, and the result is untouched.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_list.h"
#include "element_class.h"
#include "kvgold/compare.h"
#include "kvgold/op.h"

#define MAX_RUNS 4096

/* The runs of 1s of a mask (an independent, obvious conversion). */
static size_t mask_to_runs(const unsigned char *m, int64_t n,
                           kvg_elem_run *runs, size_t cap)
{
    size_t count = 0;
    int64_t i = 0;

    while (i < n) {
        int64_t j = i;
        if (m[i] == 0) {
            i++;
            continue;
        }
        while (j < n && m[j] != 0)
            j++;
        if (count == cap)
            fail_msg("more than %lu runs", (unsigned long)cap);
        runs[count].first = i;
        runs[count].count = j - i;
        count++;
        i = j;
    }
    return count;
}

static char *render(const kvg_compare_result *r, int json)
{
    size_t len = 0;
    char *buf;
    kvg_diag diag;

    assert_int_equal(json ? kvg_compare_report_json(r, 1, NULL, 0, &len, &diag)
                          : kvg_compare_report_text(r, 1, NULL, 0, &len, &diag),
                     KVG_OK);
    buf = (char *)malloc(len + 1);
    assert_non_null(buf);
    assert_int_equal(json ? kvg_compare_report_json(r, 1, buf, len + 1, &len,
                                                    &diag)
                          : kvg_compare_report_text(r, 1, buf, len + 1, &len,
                                                    &diag),
                     KVG_OK);
    return buf;
}

/* Judge `a` (which carries the mask) once with the mask and once with its
 * runs; everything must agree. Returns the status. */
static kvg_status judge_both(const kvg_compare_args *a, kvg_compare_result *out)
{
    static kvg_elem_run runs[MAX_RUNS];
    static kvg_compare_result by_mask, by_runs;
    kvg_compare_args b = *a;
    kvg_diag dm, dr;
    kvg_status sm, sr;
    char *tm, *tr;
    int json;

    kvgt_poison(&by_mask, sizeof by_mask, 7);
    kvgt_poison(&by_runs, sizeof by_runs, 7);
    b.written = NULL;
    b.written_count = 0;
    b.written_runs = runs;
    b.written_run_count =
        mask_to_runs(a->written, (int64_t)a->written_count, runs, MAX_RUNS);
    kvg_diag_clear(&dm); /* untouched on KVG_OK */
    kvg_diag_clear(&dr);
    sm = kvg_compare_tensor(a, &by_mask, &dm);
    sr = kvg_compare_tensor(&b, &by_runs, &dr);
    assert_int_equal(sr, sm);
    assert_true(sm == KVG_OK || sm == KVG_ERR_MISMATCH);
    assert_string_equal(dr.message, dm.message);
    kvgt_assert_bytes_equal(&by_runs, &by_mask, sizeof by_mask, "result");
    for (json = 0; json < 2; json++) {
        tm = render(&by_mask, json);
        tr = render(&by_runs, json);
        assert_string_equal(tr, tm);
        free(tm);
        free(tr);
    }
    *out = by_runs;
    return sr;
}

/* ---- hand-made ---------------------------------------------------------- */

#define N 320

typedef struct hand {
    uint16_t init[N], gold[N], npu[N];
    unsigned char mask[N];
    kvg_tensor t_init, t_gold, t_npu;
    kvg_compare_args a;
} hand;

static void hand_init(hand *h, int64_t rank, const int64_t *shape)
{
    int64_t i;

    kvgt_poison(h->init, sizeof h->init, 11);
    memset(h->mask, 0, sizeof h->mask);
    memcpy(h->gold, h->init, sizeof h->gold);
    h->t_init = kvg_tensor_make(h->init, sizeof h->init, KVG_BF16, (int)rank,
                                shape);
    h->t_gold = kvg_tensor_make(h->gold, sizeof h->gold, KVG_BF16, (int)rank,
                                shape);
    h->t_npu = kvg_tensor_make(h->npu, sizeof h->npu, KVG_BF16, (int)rank,
                               shape);
    for (i = 0; i < N; i++)
        h->init[i] &= 0x3FFF; /* finite, so only the planted NaN is one */
    memcpy(h->gold, h->init, sizeof h->gold);
    kvg_compare_args_init(&h->a);
    h->a.name = "k_cache";
    h->a.golden = &h->t_gold;
    h->a.actual = &h->t_npu;
    h->a.initial = &h->t_init;
    h->a.written = h->mask;
    h->a.written_count = N;
}

/* The golden writes [from, to) with 1.0 + i/256 (bf16). */
static void hand_write(hand *h, int64_t from, int64_t to)
{
    int64_t i;
    for (i = from; i < to; i++) {
        h->gold[i] = (uint16_t)(0x3F80u + (unsigned)(i & 0x7F));
        h->mask[i] = 1;
    }
}

static void test_hand_made(void **state)
{
    static const int64_t flat[1] = {N};
    static hand h;
    kvg_compare_result r;
    (void)state;

    /* runs at both edges and inside; the NPU errs in one written element
     * by one ULP, puts a NaN in another, changes one untouched element */
    hand_init(&h, 1, flat);
    hand_write(&h, 0, 5);
    hand_write(&h, 40, 41);
    hand_write(&h, 100, 164);
    hand_write(&h, 300, 320);
    memcpy(h.npu, h.gold, sizeof h.npu);
    h.npu[120] ^= 1;
    h.npu[3] = 0x7FC0;
    h.npu[200] ^= 0x10;
    assert_int_equal(judge_both(&h.a, &r), KVG_ERR_MISMATCH);
    assert_int_equal(r.written, 5 + 1 + 64 + 20);
    assert_int_equal(r.untouched, N - 90);
    assert_int_equal(r.untouched_changed, 1);
    assert_int_equal(r.untouched_first[0].index, 200);
    assert_int_equal(r.bits_differ, 2);
    assert_int_equal(r.nonfinite_mismatch, 1);

    /* nothing written: count 0, every element audited */
    hand_init(&h, 1, flat);
    memcpy(h.npu, h.gold, sizeof h.npu);
    h.npu[N - 1] ^= 0x100;
    assert_int_equal(judge_both(&h.a, &r), KVG_ERR_MISMATCH);
    assert_int_equal(r.written, 0);
    assert_int_equal(r.untouched_changed, 1);
    assert_int_equal(r.untouched_first[0].index, N - 1);

    /* everything written: one run, exact NPU */
    hand_init(&h, 1, flat);
    hand_write(&h, 0, N);
    memcpy(h.npu, h.gold, sizeof h.npu);
    assert_int_equal(judge_both(&h.a, &r), KVG_OK);
    assert_int_equal(r.written, N);
    assert_int_equal(r.untouched, 0);
}

static void test_hand_made_nz(void **state)
{
    /* 2 blocks x 5 slots x 2 heads x 16 channels of bf16 in NZ (c0 16):
     * [block, heads * dim / c0, slot, c0] */
    static const int64_t shape[4] = {2, 2, 5, 16};
    /* static: its padding is zero, and the result copies it bytewise */
    static const kvg_cache_layout nz = {KVG_LAYOUT_NZ, 2, 5, 2, 16, 16};
    static hand h;
    kvg_compare_result r;
    int64_t slot, ch;
    (void)state;

    hand_init(&h, 4, shape);
    h.a.layout = &nz;
    for (slot = 1; slot < 3; slot++) /* block 1, slots 1-2, head 0 */
        for (ch = 0; ch < 16; ch++) {
            kvg_cache_coord c = {1, slot, 0, ch};
            int64_t i = kvg_layout_offset(&nz, &c);
            hand_write(&h, i, i + 1);
        }
    memcpy(h.npu, h.gold, sizeof h.npu);
    {
        kvg_cache_coord bad = {1, 2, 0, 13}, stray = {1, 4, 1, 3};
        h.npu[kvg_layout_offset(&nz, &bad)] ^= 0x0003;
        h.npu[kvg_layout_offset(&nz, &stray)] ^= 0x0001;
    }
    assert_int_equal(judge_both(&h.a, &r), KVG_ERR_MISMATCH);
    assert_int_equal(r.written, 32);
    assert_int_equal(r.untouched_changed, 1);
    assert_int_equal(r.untouched_first[0].coord[1], 4);
    assert_int_equal(r.untouched_first[0].coord[2], 1);
    assert_int_equal(r.worst[0].coord[1], 2);
    assert_int_equal(r.worst[0].coord[3], 13);
}

/* The report's judge (tools/lib/report) classes every element the same by
 * runs as by the mask; with a changed untouched element and a bad written
 * one among them, so a judge that ignored the set would differ. */
static void test_report_judge(void **state)
{
    static const int64_t flat[1] = {N};
    static hand h;
    static kvg_elem_run runs[8];
    kvg_report_tensor by_mask, by_runs;
    kvg_elem_judge jm, jr;
    kvg_compare_result r;
    int64_t i, changed = 0;
    (void)state;

    hand_init(&h, 1, flat);
    hand_write(&h, 0, 7);
    hand_write(&h, 77, 150);
    hand_write(&h, 319, 320);
    memcpy(h.npu, h.gold, sizeof h.npu);
    h.npu[100] ^= 0x40;
    h.npu[318] ^= 0x01;
    assert_int_equal(judge_both(&h.a, &r), KVG_ERR_MISMATCH);
    memset(&by_mask, 0, sizeof by_mask);
    by_mask.result = &r;
    by_mask.golden = &h.t_gold;
    by_mask.actual = &h.t_npu;
    by_mask.initial = &h.t_init;
    by_mask.written = h.mask;
    by_runs = by_mask;
    by_runs.written = NULL;
    by_runs.written_runs = runs;
    by_runs.written_run_count = mask_to_runs(h.mask, N, runs, 8);
    assert_int_equal(by_runs.written_run_count, 3);
    kvg_elem_judge_init(&jm, &by_mask);
    kvg_elem_judge_init(&jr, &by_runs);
    for (i = 0; i < N; i++) {
        kvg_elem_judgement em, er;
        kvg_elem_judge_one(&jm, i, &em);
        kvg_elem_judge_one(&jr, i, &er);
        if (em.cls != er.cls || em.expected_bits != er.expected_bits)
            fail_msg("element %lld: class %d by mask, %d by runs",
                     (long long)i, (int)em.cls, (int)er.cls);
        changed += er.cls == KVG_EC_CHANGED;
    }
    assert_int_equal(changed, 1);
}

/* left_behind: called for the gaps only, in order, in chunks
 * of at most KVG_COMPARE_CHUNK elements, covering every gap once when the
 * runs are checked and once when they are measured; the result is the
 * same as without it. A 17 Mi-element int8 tensor has a gap longer than
 * one chunk. The callback scribbles nothing: it only records. */
typedef struct behind_log {
    int64_t covered, calls, last_end, max_len, in_runs;
    const kvg_elem_run *runs;
    size_t run_count;
} behind_log;

static void record_behind(void *user, int64_t first, int64_t end)
{
    behind_log *log = (behind_log *)user;
    size_t k;
    if (first < log->last_end && log->calls > 0 && first != 0)
        fail_msg("left_behind [%lld, %lld) after %lld", (long long)first,
                 (long long)end, (long long)log->last_end);
    for (k = 0; k < log->run_count; k++)
        if (first < log->runs[k].first + log->runs[k].count &&
            end > log->runs[k].first)
            log->in_runs++;
    log->calls++;
    log->covered += end - first;
    log->last_end = end;
    if (end - first > log->max_len)
        log->max_len = end - first;
}

static void test_left_behind(void **state)
{
    const int64_t n = ((int64_t)1 << 24) + ((int64_t)1 << 20);
    int8_t *init = (int8_t *)kvgt_alloc_poisoned((size_t)n, 31);
    int8_t *gold = (int8_t *)malloc((size_t)n);
    int8_t *npu = (int8_t *)malloc((size_t)n);
    kvg_elem_run runs[2] = {{1000, 64}, {((int64_t)1 << 24) + 2000, 128}};
    kvg_tensor ti, tg, tn;
    kvg_compare_args a;
    kvg_compare_result with, without;
    behind_log log;
    kvg_diag diag;
    int64_t i, gaps = n - 64 - 128;
    (void)state;

    assert_non_null(gold);
    assert_non_null(npu);
    memcpy(gold, init, (size_t)n);
    for (i = 0; i < 2; i++)
        memset(gold + runs[i].first, 7, (size_t)runs[i].count);
    memcpy(npu, gold, (size_t)n);
    npu[n - 5] ^= 1; /* untouched, changed: found past the first chunk */
    ti = kvg_tensor_make(init, (size_t)n, KVG_INT8, 1, &n);
    tg = kvg_tensor_make(gold, (size_t)n, KVG_INT8, 1, &n);
    tn = kvg_tensor_make(npu, (size_t)n, KVG_INT8, 1, &n);
    kvg_compare_args_init(&a);
    a.golden = &tg;
    a.actual = &tn;
    a.initial = &ti;
    a.written_runs = runs;
    a.written_run_count = 2;
    kvgt_poison(&with, sizeof with, 5);
    kvgt_poison(&without, sizeof without, 5);
    assert_int_equal(kvg_compare_tensor(&a, &without, &diag),
                     KVG_ERR_MISMATCH);
    memset(&log, 0, sizeof log);
    log.runs = runs;
    log.run_count = 2;
    a.left_behind = record_behind;
    a.left_behind_user = &log;
    assert_int_equal(kvg_compare_tensor(&a, &with, &diag), KVG_ERR_MISMATCH);
    kvgt_assert_bytes_equal(&with, &without, sizeof with, "result");
    assert_int_equal(with.untouched_changed, 1);
    assert_int_equal(with.untouched_first[0].index, n - 5);
    assert_int_equal(log.covered, 2 * gaps);
    assert_int_equal(log.in_runs, 0);
    assert_true(log.max_len <= KVG_COMPARE_CHUNK);
    assert_true(log.calls >= 8); /* 3 gaps, the middle one 2+ chunks, x2 */
    free(init);
    free(gold);
    free(npu);
}

/* ---- refusals ----------------------------------------------------------- */

static void expect_refused(const kvg_compare_args *a, const char *fragment)
{
    kvg_compare_result r, poisoned;
    kvg_diag diag;

    kvgt_poison(&r, sizeof r, 3);
    memcpy(&poisoned, &r, sizeof r);
    assert_int_equal(kvg_compare_tensor(a, &r, &diag), KVG_ERR_PARAM_INVALID);
    if (strstr(diag.message, fragment) == NULL)
        fail_msg("\"%s\" lacks \"%s\"", diag.message, fragment);
    kvgt_assert_bytes_equal(&r, &poisoned, sizeof r, "refused result");
}

static void test_refusals(void **state)
{
    static const int64_t flat[1] = {N};
    static hand h;
    kvg_elem_run runs[3];
    kvg_compare_args b;
    (void)state;

    hand_init(&h, 1, flat);
    hand_write(&h, 10, 20);
    hand_write(&h, 50, 60);
    memcpy(h.npu, h.gold, sizeof h.npu);
    b = h.a;
    b.written = NULL;
    b.written_runs = runs;
    runs[0].first = 10;
    runs[0].count = 10;
    runs[1].first = 50;
    runs[1].count = 10;
    b.written_run_count = 2;
    {
        kvg_compare_result r;
        kvg_diag diag;
        assert_int_equal(kvg_compare_tensor(&b, &r, &diag), KVG_OK);
    }
    b.written = h.mask; /* both */
    expect_refused(&b, "not both");
    b.written = NULL;
    runs[1].first = 15; /* overlaps run 0 */
    expect_refused(&b, "run 1 starts at element 15");
    runs[1].first = 5; /* unsorted */
    expect_refused(&b, "sorted and disjoint");
    runs[1].first = 315; /* past the end */
    expect_refused(&b, "run 1 [315, +10)");
    runs[1].first = 50;
    runs[1].count = 0; /* empty */
    expect_refused(&b, "non-empty");
    runs[1].count = -3;
    expect_refused(&b, "non-empty");
    runs[1].count = 10;
    runs[0].first = -1;
    expect_refused(&b, "run 0");
    runs[0].first = 10;
    b.written_run_count = 1; /* the golden wrote [50, 60) too */
    expect_refused(&b, "element 50 is outside the written runs");
}

/* ---- gaps across chunks and blocks --------------------------------------- */

/* Gaps are checked and measured in bulk, chunk by chunk (memcmp blocks
 * inside): one changed byte is found wherever it sits: at either end of
 * every gap (next to a written run, at the first and last element of the
 * tensor) and on either side of every power-of-two distance from a gap's
 * start that a chunk or a block could end at, with the mask's result byte
 * for byte (judge_both); a golden element changed there (outside the runs)
 * is refused, naming it. The caches are poison (no zero byte), the written
 * elements differ from the initial ones. */
#define MAX_AT 128

/* Where to change a byte: the gaps' ends and start + b - 1, b, b + 1. */
static int boundary_spots(const kvg_elem_run *runs, int n_runs, int64_t n,
                          const int64_t *b, int n_b, int64_t *at)
{
    int64_t from, to;
    int k, j, d, m = 0;

    for (k = 0; k <= n_runs; k++) {
        from = k > 0 ? runs[k - 1].first + runs[k - 1].count : 0;
        to = k < n_runs ? runs[k].first : n;
        at[m++] = from;
        at[m++] = to - 1;
        for (j = 0; j < n_b; j++)
            for (d = -1; d <= 1; d++)
                if (from + b[j] + d > from && from + b[j] + d < to - 1)
                    at[m++] = from + b[j] + d;
        assert_true(m <= MAX_AT - 2 - 3 * n_b);
    }
    return m;
}

static void boundaries_case(kvg_dtype dt, int64_t n, const kvg_elem_run *runs,
                            int n_runs, const int64_t *b, int n_b)
{
    const size_t es = kvg_dtype_size(dt), bytes = (size_t)n * es;
    unsigned char *init = (unsigned char *)kvgt_alloc_poisoned(bytes, 41);
    unsigned char *gold = (unsigned char *)malloc(bytes);
    unsigned char *npu = (unsigned char *)malloc(bytes);
    unsigned char *mask = (unsigned char *)calloc((size_t)n, 1);
    kvg_elem_run as_runs[MAX_RUNS];
    kvg_tensor ti, tg, tn;
    kvg_compare_args a, r_args;
    kvg_compare_result r;
    int64_t at[MAX_AT], i, written = 0;
    int k, m;

    assert_non_null(gold);
    assert_non_null(npu);
    assert_non_null(mask);
    memcpy(gold, init, bytes);
    for (k = 0; k < n_runs; k++)
        for (i = runs[k].first; i < runs[k].first + runs[k].count; i++) {
            mask[i] = 1;
            gold[(size_t)i * es] ^= 0x11;
            written++;
        }
    m = boundary_spots(runs, n_runs, n, b, n_b, at);
    memcpy(npu, gold, bytes);
    ti = kvg_tensor_make(init, bytes, dt, 1, &n);
    tg = kvg_tensor_make(gold, bytes, dt, 1, &n);
    tn = kvg_tensor_make(npu, bytes, dt, 1, &n);
    kvg_compare_args_init(&a);
    a.golden = &tg;
    a.actual = &tn;
    a.initial = &ti;
    a.written = mask;
    a.written_count = (size_t)n;
    assert_int_equal(judge_both(&a, &r), KVG_OK);
    assert_int_equal(r.untouched_changed, 0);
    assert_int_equal(r.untouched, n - written);
    r_args = a;
    r_args.written = NULL;
    r_args.written_count = 0;
    r_args.written_runs = as_runs;
    r_args.written_run_count = mask_to_runs(mask, n, as_runs, MAX_RUNS);
    assert_int_equal(r_args.written_run_count, n_runs);
    for (k = 0; k < m; k++) {
        char want[80];
        size_t off = (size_t)at[k] * es + es - 1; /* the last byte */
        assert_int_equal(mask[at[k]], 0);
        npu[off] ^= 0x40;
        assert_int_equal(judge_both(&a, &r), KVG_ERR_MISMATCH);
        assert_int_equal(r.untouched_changed, 1);
        assert_int_equal(r.untouched_first[0].index, at[k]);
        npu[off] ^= 0x40;
        /* the golden changed there: the runs do not describe it */
        gold[off] ^= 0x40;
        (void)snprintf(want, sizeof want, "element %lld is outside",
                       (long long)at[k]);
        expect_refused(&r_args, want);
        gold[off] ^= 0x40;
    }
    free(init);
    free(gold);
    free(npu);
    free(mask);
}

static void test_gap_boundaries(void **state)
{
    static const int64_t b[] = {4096, (int64_t)1 << 15, (int64_t)1 << 16,
                                (int64_t)1 << 17, (int64_t)1 << 18,
                                (int64_t)1 << 20, (int64_t)1 << 21,
                                (int64_t)1 << 22, KVG_COMPARE_CHUNK};
    /* int8: the middle gap is longer than KVG_COMPARE_CHUNK, the last run
     * straddles a power-of-two distance from its start */
    const kvg_elem_run r8[2] = {
        {1000, 5}, {1005 + KVG_COMPARE_CHUNK + ((int64_t)1 << 18) - 2, 5}};
    /* fp16: two bytes an element */
    const kvg_elem_run r16[2] = {{700, 5}, {705 + ((int64_t)1 << 17) - 2, 5}};
    (void)state;
    boundaries_case(KVG_INT8, r8[1].first + 5 + 3000, r8, 2, b, 9);
    boundaries_case(KVG_FP16, r16[1].first + 5 + ((int64_t)1 << 17) + 77,
                    r16, 2, b, 6);
}

/* ---- every vector case with a cache ------------------------------------- */

/* The mask of cache `name` by the two-run method (inverted caches). */
static int two_run_masks(const kvg_case *c, const kvg_case_set *gold,
                         unsigned char **mask)
{
    kvg_case alt = *c;
    kvg_case_set gold_b;
    unsigned char *inv[KVG_CASE_MAX_TENSORS] = {0};
    kvg_diag diag;
    int i, any = 0;

    for (i = 0; i < alt.inputs.count; i++) {
        kvg_tensor *t = &alt.inputs.items[i].t;
        size_t k;
        if (kvg_case_find(gold, alt.inputs.items[i].name) == NULL)
            continue;
        inv[i] = (unsigned char *)malloc(t->nbytes + 1);
        assert_non_null(inv[i]);
        for (k = 0; k < t->nbytes; k++)
            inv[i][k] = (unsigned char)~((unsigned char *)t->data)[k];
        t->data = inv[i];
    }
    memset(&gold_b, 0, sizeof gold_b);
    assert_int_equal(kvg_case_run(&alt, &gold_b, &diag), KVG_OK);
    for (i = 0; i < gold->count; i++) {
        const kvg_tensor *ia = kvg_case_find(&c->inputs, gold->items[i].name);
        const kvg_tensor *ib = kvg_case_find(&alt.inputs, gold->items[i].name);
        size_t n;
        mask[i] = NULL;
        if (ia == NULL)
            continue;
        n = ia->nbytes / kvg_dtype_size(ia->dtype);
        mask[i] = (unsigned char *)malloc(n + 1);
        assert_non_null(mask[i]);
        assert_int_equal(kvg_compare_written_mask(
                             &gold->items[i].t, ia,
                             kvg_case_find(&gold_b, gold->items[i].name), ib,
                             mask[i], n, &diag),
                         KVG_OK);
        any = 1;
    }
    kvg_case_set_free(&gold_b);
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++)
        free(inv[i]);
    return any;
}

/* Flip the low bit of the first element whose mask is `m`; 0 if none. */
static int corrupt_first(kvg_tensor *t, const unsigned char *mask, int64_t n,
                         unsigned char m)
{
    size_t es = kvg_dtype_size(t->dtype);
    int64_t i;
    for (i = 0; i < n; i++)
        if (mask[i] == m) {
            ((unsigned char *)t->data)[(size_t)i * es] ^= 1;
            return 1;
        }
    return 0;
}

/* Judge every cache of one case by mask and by runs; the number of
 * caches judged. */
static int check_case(const char *dir)
{
    static kvg_case c;
    static kvg_case_set gold;
    unsigned char *mask[KVG_CASE_MAX_TENSORS];
    kvg_cache_layout layout;
    kvg_diag diag;
    int i, judged = 0, has_layout;

    if (kvg_case_load(dir, &c, &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
    memset(&gold, 0, sizeof gold);
    if (c.expect_error || kvg_case_run(&c, &gold, &diag) != KVG_OK ||
        !two_run_masks(&c, &gold, mask)) {
        kvg_case_set_free(&gold);
        kvg_case_free(&c);
        return 0;
    }
    for (i = 0; i < gold.count; i++) {
        const kvg_case_tensor *g = &gold.items[i];
        kvg_tensor *want = (kvg_tensor *)kvg_case_find(&c.expected, g->name);
        kvg_compare_args a;
        kvg_compare_result r;
        int64_t n = (int64_t)(g->t.nbytes / kvg_dtype_size(g->t.dtype));
        int bad_w, bad_u;
        if (mask[i] == NULL || want == NULL)
            continue;
        /* the NPU stand-in: NumPy's expected, one written and one
         * untouched element off by a bit */
        bad_w = corrupt_first(want, mask[i], n, 1);
        bad_u = corrupt_first(want, mask[i], n, 0);
        kvg_compare_args_init(&a);
        a.name = g->name;
        a.golden = &g->t;
        a.actual = want;
        a.initial = kvg_case_find(&c.inputs, g->name);
        a.written = mask[i];
        a.written_count = (size_t)n;
        has_layout = 0;
        (void)kvg_case_describe_output(&c, g->name, &g->t, &a.role,
                                       &has_layout, &layout, NULL);
        a.layout = has_layout ? &layout : NULL;
        (void)judge_both(&a, &r);
        if (r.untouched_changed != bad_u || r.bits_differ != bad_w)
            fail_msg("%s %s: untouched_changed %lld bits_differ %lld, "
                     "planted %d and %d", dir, g->name,
                     (long long)r.untouched_changed,
                     (long long)r.bits_differ, bad_u, bad_w);
        judged++;
    }
    for (i = 0; i < gold.count; i++)
        free(mask[i]);
    kvg_case_set_free(&gold);
    kvg_case_free(&c);
    return judged;
}

static void test_vector_caches(void **state)
{
    (void)state;
    /* every registered operator's vectors, each contributing */
    assert_true(kvgt_check_every_op(check_case) >= 22);
    assert_true(kvgt_check_cases("examples", check_case) >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_made),
        cmocka_unit_test(test_hand_made_nz),
        cmocka_unit_test(test_report_judge),
        cmocka_unit_test(test_left_behind),
        cmocka_unit_test(test_gap_boundaries),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_vector_caches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
