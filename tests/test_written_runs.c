/*
 * tests/test_written_runs.c - kvg_op_written_runs (kvgold/op.h), driven by
 * the registry over every vector case of every operator (no operator is
 * named here).
 *
 *   valid cases    for each cache and output, the elements in the runs are
 *                  exactly those the two-run method finds: the golden run
 *                  from the case's caches and from bit-inverted copies
 *                  (outputs poisoned, then inverted), an element written
 *                  iff both runs agree (kvg_compare_written_mask) - an
 *                  independent check of the addressing; and every element
 *                  outside the runs is, in the NumPy generator's expected
 *                  tensor, still the initial contents. The runs are sorted,
 *                  disjoint, merged and inside the tensor; the size query
 *                  gives at least their number; a capacity one too small is
 *                  refused with the needed number and the array untouched;
 *                  an output the attributes switch off reports produced 0,
 *                  as kvg_op_output_shape does; no tensor is written.
 *   refused cases  refused with kvg_op_run's status, tensor and message,
 *                  for every cache and output name, nothing written.
 *   names          an input, an unknown name, NULL results: refused.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_list.h"
#include "kvgold/compare.h"
#include "kvgold/op.h"

/* ---- a case as a call, its caches and outputs private ------------------- */

typedef struct setup {
    kvg_case c;
    kvg_case_call cc;
    kvg_case_set written; /* caches (copies) and outputs (poisoned) */
    kvg_status ws_status; /* of kvg_op_workspace_size */
    void *ws;
} setup;

/* What the test saw, so that no assertion is vacuous. */
static struct {
    long valid, refused, switched_off, runs, elements;
} g_seen;

static void put_tensor(kvg_case_call *cc, const char *name,
                       const kvg_tensor *t)
{
    size_t i;
    for (i = 0; i < cc->call.tensor_count; i++)
        if (strcmp(cc->tensors[i].name, name) == 0) {
            cc->tensors[i].tensor = t;
            return;
        }
    assert_true(i < KVG_CASE_MAX_TENSORS);
    cc->tensors[i].name = name;
    cc->tensors[i].tensor = t;
    cc->call.tensor_count++;
}

/* An output the case does not give, allocated as the harness does
 * (tools/lib/case/case_op.c): by kvg_op_output_shape, or [1] when its shape
 * cannot be derived, so that the operator itself refuses the call. */
static void add_output(setup *s, const kvg_op_tensor_info *t, uint64_t seed)
{
    int64_t shape[KVG_MAX_RANK] = {1};
    kvg_dtype dtype = s->c.inputs.items[0].t.dtype;
    int produced = 0, rank = 1;
    kvg_tensor *o;
    kvg_diag diag;

    if (kvg_op_output_shape(&s->cc.call, t->name, &produced, &dtype, &rank,
                            shape, NULL) == KVG_OK) {
        if (!produced)
            return;
    } else if (t->presence == KVG_OP_REQUIRED) {
        return;
    }
    o = kvg_case_set_add(&s->written, t->name, dtype, rank, shape, NULL,
                         &diag);
    assert_non_null(o);
    kvgt_poison(o->data, o->nbytes, seed);
    put_tensor(&s->cc, t->name, o);
}

/* 0 when the case file itself is malformed (no call to make). */
static int setup_case(const kvg_op *op, const kvgt_case_list *l, int n,
                      setup *s)
{
    char dir[1200];
    size_t i, bytes = 0;
    kvg_diag diag;

    (void)snprintf(dir, sizeof dir, "%s/%s", l->dir, l->names[n]);
    memset(&s->written, 0, sizeof s->written);
    s->ws = NULL;
    if (kvg_case_load(dir, &s->c, &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
    if (kvg_case_call_build(&s->c, &s->cc, &diag) != KVG_OK) {
        assert_true(s->c.expect_error);
        return 0;
    }
    for (i = 0; i < kvg_op_tensor_count(op); i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, i);
        const kvg_tensor *in = kvg_case_find(&s->c.inputs, t->name);
        kvg_tensor *copy;
        if (t->kind == KVG_OP_INPUT)
            continue;
        if (in == NULL) {
            if (t->kind == KVG_OP_OUTPUT)
                add_output(s, t, 31 + i);
            continue;
        }
        copy = kvg_case_set_add(&s->written, t->name, KVG_DTYPE_INVALID, 0,
                                NULL, in, &diag);
        assert_non_null(copy);
        put_tensor(&s->cc, t->name, copy);
    }
    s->ws_status = kvg_op_workspace_size(&s->cc.call, &bytes, &diag);
    if (s->ws_status == KVG_OK) {
        s->ws = kvgt_alloc_poisoned(bytes ? bytes : 1, 7);
        s->cc.call.workspace = s->ws;
        s->cc.call.workspace_size = bytes;
    }
    return 1;
}

static void free_setup(setup *s)
{
    free(s->ws);
    s->ws = NULL;
    kvg_case_set_free(&s->written);
    kvg_case_free(&s->c);
}

static kvg_case_set snapshot(const kvg_case_set *from)
{
    kvg_case_set copy;
    kvg_diag diag;
    int i;
    memset(&copy, 0, sizeof copy);
    for (i = 0; i < from->count; i++)
        assert_non_null(kvg_case_set_add(&copy, from->items[i].name,
                                         KVG_DTYPE_INVALID, 0, NULL,
                                         &from->items[i].t, &diag));
    return copy;
}

static void assert_sets_equal(const kvg_case_set *got,
                              const kvg_case_set *want, const char *what)
{
    int i;
    assert_int_equal(got->count, want->count);
    for (i = 0; i < got->count; i++) {
        assert_int_equal(got->items[i].t.nbytes, want->items[i].t.nbytes);
        kvgt_assert_bytes_equal(got->items[i].t.data, want->items[i].t.data,
                                want->items[i].t.nbytes, what);
    }
}

static int64_t numel(const kvg_tensor *t)
{
    return (int64_t)(t->nbytes / kvg_dtype_size(t->dtype));
}

/* ---- the runs of one tensor --------------------------------------------- */

typedef struct runs_of {
    int produced;
    size_t count;
    kvg_elem_run *runs;
} runs_of;

/* Sorted, disjoint, merged (a gap between neighbours), inside [0, n). */
static void assert_well_formed(const char *dir, const char *name,
                               const runs_of *r, int64_t n)
{
    size_t i;
    for (i = 0; i < r->count; i++) {
        const kvg_elem_run *v = &r->runs[i];
        if (v->first < 0 || v->count < 1 || v->first > n - v->count)
            fail_msg("%s %s: run %lu [%lld, +%lld) is not inside [0, %lld)",
                     dir, name, (unsigned long)i, (long long)v->first,
                     (long long)v->count, (long long)n);
        if (i > 0 && v->first <= v[-1].first + v[-1].count)
            fail_msg("%s %s: run %lu starts at %lld, not after the end %lld "
                     "of the one before (unsorted, overlapping or unmerged)",
                     dir, name, (unsigned long)i, (long long)v->first,
                     (long long)(v[-1].first + v[-1].count));
    }
}

/* A capacity one too small: refused, the needed number reported, and not
 * one byte of the array written (the part past cap included). */
static void assert_small_cap_refused(setup *s, const char *name,
                                     size_t need)
{
    kvg_elem_run *runs, *before;
    const size_t bytes = need * sizeof *runs;
    size_t count = 0;
    int produced = -1;
    kvg_diag diag;

    if (need == 0)
        return;
    runs = (kvg_elem_run *)kvgt_alloc_poisoned(bytes, 53);
    before = (kvg_elem_run *)kvgt_alloc_poisoned(bytes, 53);
    assert_int_equal(kvg_op_written_runs(&s->cc.call, name, &produced, runs,
                                         need - 1, &count, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(diag.tensor, name);
    assert_int_equal(count, need);
    kvgt_assert_bytes_equal(runs, before, bytes, "runs past a small cap");
    free(runs);
    free(before);
}

static runs_of query_runs(setup *s, const kvg_op_tensor_info *t)
{
    runs_of r;
    size_t need = 0;
    int produced = -1;
    kvg_diag diag;

    if (kvg_op_written_runs(&s->cc.call, t->name, &produced, NULL, 0, &need,
                            &diag) != KVG_OK)
        fail_msg("%s %s: size query: %s", s->c.dir, t->name, diag.message);
    r.produced = produced;
    r.count = 0;
    r.runs = (kvg_elem_run *)kvgt_alloc_poisoned(
        (need ? need : 1) * sizeof *r.runs, 59);
    if (!produced) {
        assert_int_equal(need, 0);
        return r;
    }
    if (kvg_op_written_runs(&s->cc.call, t->name, &produced, r.runs, need,
                            &r.count, &diag) != KVG_OK)
        fail_msg("%s %s: %s", s->c.dir, t->name, diag.message);
    assert_int_equal(produced, 1);
    assert_true(r.count <= need);
    assert_small_cap_refused(s, t->name, need);
    return r;
}

/* produced as kvg_op_output_shape says (outputs), always for caches. */
static void assert_produced(setup *s, const kvg_op_tensor_info *t,
                            const runs_of *r)
{
    int64_t shape[KVG_MAX_RANK];
    kvg_dtype dtype;
    int produced = -1, rank;
    kvg_diag diag;

    if (t->kind == KVG_OP_CACHE) {
        /* an optional cache the case leaves out (key-only) is not written */
        assert_int_equal(r->produced,
                         kvg_case_find(&s->c.inputs, t->name) != NULL);
        return;
    }
    assert_int_equal(kvg_op_output_shape(&s->cc.call, t->name, &produced,
                                         &dtype, &rank, shape, &diag),
                     KVG_OK);
    assert_int_equal(r->produced, produced);
    if (!produced) {
        assert_null(kvg_case_find(&s->c.expected, t->name));
        g_seen.switched_off++;
    }
}

/* One byte per element: 1 inside a run. */
static unsigned char *runs_mask(const runs_of *r, int64_t n)
{
    unsigned char *m = (unsigned char *)calloc((size_t)(n ? n : 1), 1);
    size_t i;
    int64_t e;
    assert_non_null(m);
    for (i = 0; i < r->count; i++)
        for (e = 0; e < r->runs[i].count; e++)
            m[r->runs[i].first + e] = 1;
    return m;
}

/* The runs against the two-run mask, element by element. */
static void assert_same_as_two_runs(const char *dir, const char *name,
                                    const unsigned char *from_runs,
                                    const kvg_tensor *out_a,
                                    const kvg_tensor *init_a,
                                    const kvg_tensor *out_b,
                                    const kvg_tensor *init_b)
{
    const int64_t n = numel(out_a);
    unsigned char *mask = (unsigned char *)malloc((size_t)(n ? n : 1));
    kvg_diag diag;
    int64_t e;

    assert_non_null(mask);
    if (kvg_compare_written_mask(out_a, init_a, out_b, init_b, mask,
                                 (size_t)n, &diag) != KVG_OK)
        fail_msg("%s %s: two-run mask: %s", dir, name, diag.message);
    for (e = 0; e < n; e++)
        if ((mask[e] != 0) != (from_runs[e] != 0))
            fail_msg("%s %s: element %lld is %s by the runs but %s by the "
                     "two golden runs", dir, name, (long long)e,
                     from_runs[e] ? "written" : "not written",
                     mask[e] ? "written" : "not written");
    free(mask);
}

/* Outside the runs, the generator's expected tensor is the initial one. */
static void assert_expected_untouched(const char *dir, const char *name,
                                      const unsigned char *from_runs,
                                      const kvg_tensor *init,
                                      const kvg_tensor *expected)
{
    const size_t es = kvg_dtype_size(init->dtype);
    const int64_t n = numel(init);
    int64_t e;

    if (expected == NULL)
        return;
    assert_int_equal(expected->nbytes, init->nbytes);
    for (e = 0; e < n; e++)
        if (!from_runs[e] &&
            memcmp((const unsigned char *)expected->data + (size_t)e * es,
                   (const unsigned char *)init->data + (size_t)e * es,
                   es) != 0)
            fail_msg("%s %s: element %lld is outside every run, yet the "
                     "generator's expected tensor changed it", dir, name,
                     (long long)e);
}

static void invert(kvg_case_set *set)
{
    int i;
    size_t k;
    for (i = 0; i < set->count; i++)
        for (k = 0; k < set->items[i].t.nbytes; k++)
            ((unsigned char *)set->items[i].t.data)[k] ^= 0xFFu;
}

/* ---- a valid case ------------------------------------------------------- */

static void check_valid(const kvg_op *op, const kvgt_case_list *l, int n)
{
    static setup a, b;
    runs_of r[KVG_CASE_MAX_TENSORS];
    kvg_case_set init_a, init_b;
    kvg_diag diag;
    size_t i;

    assert_true(setup_case(op, l, n, &a));
    assert_int_equal(a.ws_status, KVG_OK);
    init_a = snapshot(&a.written);
    for (i = 0; i < kvg_op_tensor_count(op); i++)
        if (kvg_op_tensor_at(op, i)->kind != KVG_OP_INPUT) {
            r[i] = query_runs(&a, kvg_op_tensor_at(op, i));
            assert_produced(&a, kvg_op_tensor_at(op, i), &r[i]);
        }
    assert_sets_equal(&a.written, &init_a, "written by kvg_op_written_runs");

    /* the two golden runs: as given, and every initial bit inverted */
    assert_true(setup_case(op, l, n, &b));
    invert(&b.written);
    init_b = snapshot(&b.written);
    if (kvg_op_run(&a.cc.call, &diag) != KVG_OK ||
        kvg_op_run(&b.cc.call, &diag) != KVG_OK)
        fail_msg("%s: %s", a.c.dir, diag.message);

    for (i = 0; i < kvg_op_tensor_count(op); i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, i);
        const kvg_tensor *out_a;
        unsigned char *from_runs;
        if (t->kind == KVG_OP_INPUT)
            continue;
        out_a = kvg_case_find(&a.written, t->name);
        if (r[i].produced) {
            assert_non_null(out_a);
            assert_well_formed(a.c.dir, t->name, &r[i], numel(out_a));
            from_runs = runs_mask(&r[i], numel(out_a));
            assert_same_as_two_runs(a.c.dir, t->name, from_runs, out_a,
                                    kvg_case_find(&init_a, t->name),
                                    kvg_case_find(&b.written, t->name),
                                    kvg_case_find(&init_b, t->name));
            assert_expected_untouched(a.c.dir, t->name, from_runs,
                                      kvg_case_find(&init_a, t->name),
                                      kvg_case_find(&a.c.expected, t->name));
            free(from_runs);
            g_seen.runs += (long)r[i].count;
            g_seen.elements += r[i].count > 0;
        }
        free(r[i].runs);
    }
    kvg_case_set_free(&init_a);
    kvg_case_set_free(&init_b);
    free_setup(&a);
    free_setup(&b);
    g_seen.valid++;
}

/* ---- a refused case ----------------------------------------------------- */

static void check_refused(const kvg_op *op, const kvgt_case_list *l, int n)
{
    static setup s;
    kvg_case_set before;
    kvg_diag run_diag, diag;
    kvg_status run_st;
    size_t i;

    if (!setup_case(op, l, n, &s)) { /* a malformed file: no call at all */
        free_setup(&s);
        return;
    }
    before = snapshot(&s.written);
    for (i = 0; i < kvg_op_tensor_count(op); i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, i);
        kvg_elem_run runs[4];
        size_t count = 77;
        int produced = 77;
        kvg_status st;
        if (t->kind == KVG_OP_INPUT)
            continue;
        st = kvg_op_written_runs(&s.cc.call, t->name, &produced, runs, 4,
                                 &count, &diag);
        run_st = kvg_op_run(&s.cc.call, &run_diag);
        if (st != run_st || strcmp(diag.tensor, run_diag.tensor) != 0 ||
            strcmp(diag.message, run_diag.message) != 0)
            fail_msg("%s %s: kvg_op_written_runs %d naming \"%s\" (%s), "
                     "kvg_op_run %d naming \"%s\" (%s)", s.c.dir, t->name,
                     (int)st, diag.tensor, diag.message, (int)run_st,
                     run_diag.tensor, run_diag.message);
        assert_int_equal(run_st, s.c.expect_status);
        assert_int_equal(count, 77); /* results untouched on a refusal */
        assert_int_equal(produced, 77);
    }
    assert_sets_equal(&s.written, &before, "written by a refused call");
    kvg_case_set_free(&before);
    free_setup(&s);
    g_seen.refused++;
}

static void test_every_case(void **state)
{
    static kvgt_case_list l;
    size_t i;
    int n;
    (void)state;
    memset(&g_seen, 0, sizeof g_seen);
    for (i = 0; i < kvg_op_count(); i++) {
        const kvg_op *op = kvg_op_at(i);
        long valid = g_seen.valid, refused = g_seen.refused;
        kvgt_list_cases(kvg_op_name(op), &l);
        for (n = 0; n < l.count; n++) {
            static kvg_case c;
            char dir[1200];
            kvg_diag diag;
            int expect_error;
            (void)snprintf(dir, sizeof dir, "%s/%s", l.dir, l.names[n]);
            if (kvg_case_load(dir, &c, &diag) != KVG_OK)
                fail_msg("%s: %s", dir, diag.message);
            expect_error = c.expect_error;
            kvg_case_free(&c);
            if (expect_error)
                check_refused(op, &l, n);
            else
                check_valid(op, &l, n);
        }
        /* every operator has valid cases and refusals among its vectors */
        assert_true(g_seen.valid > valid);
        assert_true(g_seen.refused > refused);
    }
    print_message("%ld valid cases (%ld runs), %ld refused, %ld outputs "
                  "switched off\n", g_seen.valid, g_seen.runs,
                  g_seen.refused, g_seen.switched_off);
    assert_true(g_seen.switched_off > 0);
    assert_true(g_seen.runs > 0 && g_seen.elements > 0);
}

/* ---- names and pointers ------------------------------------------------- */

static void test_names(void **state)
{
    static setup s;
    static kvgt_case_list l;
    const kvg_op *op = kvg_op_at(0);
    const char *input = NULL, *cache = NULL;
    size_t i, count = 5;
    int produced = 5, n;
    kvg_diag diag;
    (void)state;

    kvgt_list_cases(kvg_op_name(op), &l);
    for (n = 0; n < l.count; n++) {
        (void)setup_case(op, &l, n, &s);
        if (!s.c.expect_error)
            break;
        free_setup(&s);
    }
    assert_true(n < l.count);
    for (i = 0; i < kvg_op_tensor_count(op); i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, i);
        if (t->kind == KVG_OP_INPUT && input == NULL)
            input = t->name;
        if (t->kind == KVG_OP_CACHE && cache == NULL)
            cache = t->name;
    }
    assert_non_null(input);
    assert_non_null(cache);
    assert_int_equal(kvg_op_written_runs(&s.cc.call, input, &produced, NULL,
                                         0, &count, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(diag.tensor, input);
    assert_int_equal(kvg_op_written_runs(&s.cc.call, "no_such_tensor",
                                         &produced, NULL, 0, &count, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(diag.tensor, "no_such_tensor");
    assert_int_equal(kvg_op_written_runs(&s.cc.call, cache, NULL, NULL, 0,
                                         &count, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_op_written_runs(&s.cc.call, cache, &produced, NULL,
                                         0, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_op_written_runs(NULL, cache, &produced, NULL, 0,
                                         &count, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(count, 5);
    assert_int_equal(produced, 5);
    /* the workspace is the call's: without it the call is refused as
     * kvg_op_run refuses it */
    s.cc.call.workspace = NULL;
    assert_int_equal(kvg_op_written_runs(&s.cc.call, cache, &produced, NULL,
                                         0, &count, &diag),
                     KVG_ERR_WORKSPACE);
    free_setup(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_case),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
