/*
 * tests/test_threads.c - the library is safe to call from several threads
 * at once: every vector case of every registered operator is run by
 * KVGT_THREADS threads at the same moment, each repeatedly, and every
 * thread's result (status, diagnostic, every byte of every written tensor)
 * must equal the single-threaded run's.
 *
 * How: the case harness builds the call (tools/lib/case, single-threaded: its
 * memory ledger is process-wide) and hands it to run_threads() in place of
 * kvg_op_run. There the call runs once alone (the reference, which the
 * vectors test already proves equal to the NumPy golden), then every thread
 * gets its own copy of the written tensors (restored to their initial
 * poisoned bytes before each run) and its own workspace, while the
 * read-only inputs are shared, as a program calling the library from a
 * thread pool shares them. Any shared mutable state in the library (a
 * static scratch row, a lazily filled table, a global diagnostic) makes
 * some thread's bytes differ.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _POSIX_C_SOURCE 200809L

#include "kvg_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_list.h"
#include "kvgold/op.h"

#define KVGT_THREADS 4
#define KVGT_REPS 3

/* The written tensors of the case being run (set before each case). */
static const kvg_case_set *g_outputs;
static const char *g_case;
static int g_ran;

typedef struct ref_run {
    kvg_status st;
    kvg_diag diag;
    size_t count;                                 /* written tensors */
    size_t at[KVG_CASE_MAX_TENSORS];              /* their call positions */
    const unsigned char *init[KVG_CASE_MAX_TENSORS];  /* bytes before */
    const unsigned char *after[KVG_CASE_MAX_TENSORS]; /* bytes after */
} ref_run;

typedef struct worker {
    const ref_run *ref;
    pthread_barrier_t *start;
    kvg_op_call call;
    kvg_named_tensor named[KVG_CASE_MAX_TENSORS];
    kvg_tensor views[KVG_CASE_MAX_TENSORS];
    unsigned char *own[KVG_CASE_MAX_TENSORS];
    int bad;              /* runs whose result differed */
    char what[256];       /* the first difference */
} worker;

static int written(const kvg_tensor *t)
{
    int i;
    for (i = 0; i < g_outputs->count; i++)
        if (g_outputs->items[i].t.data == t->data && t->data != NULL)
            return 1;
    return 0;
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    const ref_run *r = w->ref;
    int rep;
    size_t k;

    (void)pthread_barrier_wait(w->start);
    for (rep = 0; rep < KVGT_REPS; rep++) {
        kvg_diag d;
        kvg_status st;
        for (k = 0; k < r->count; k++)
            memcpy(w->own[k], r->init[k], w->views[r->at[k]].nbytes);
        memset(&d, 0, sizeof d);
        st = kvg_op_run(&w->call, &d);
        if (st != r->st || d.status != r->diag.status ||
            strcmp(d.message, r->diag.message) != 0 ||
            strcmp(d.tensor, r->diag.tensor) != 0) {
            if (!w->bad++)
                (void)snprintf(w->what, sizeof w->what,
                               "status %d \"%.100s\", alone %d \"%.100s\"",
                               (int)st, d.message, (int)r->st,
                               r->diag.message);
            continue;
        }
        for (k = 0; k < r->count; k++)
            if (memcmp(w->own[k], r->after[k], w->views[r->at[k]].nbytes)) {
                if (!w->bad++)
                    (void)snprintf(w->what, sizeof w->what,
                                   "tensor %s differs",
                                   w->named[r->at[k]].name);
                break;
            }
    }
    return NULL;
}

/* The runner kvg_case_run_with calls in place of kvg_op_run. */
static kvg_status run_threads(const kvg_op_call *call, kvg_diag *diag)
{
    static ref_run r;
    static worker w[KVGT_THREADS];
    pthread_t th[KVGT_THREADS];
    pthread_barrier_t start;
    unsigned char *init_copy[KVG_CASE_MAX_TENSORS];
    size_t i, k;
    int t;

    memset(&r, 0, sizeof r);
    for (i = 0; i < call->tensor_count; i++) {
        const kvg_tensor *tt = call->tensors[i].tensor;
        if (tt == NULL || !written(tt))
            continue;
        assert_true(r.count < KVG_CASE_MAX_TENSORS);
        init_copy[r.count] = (unsigned char *)malloc(tt->nbytes + 1);
        assert_non_null(init_copy[r.count]);
        memcpy(init_copy[r.count], tt->data, tt->nbytes);
        r.init[r.count] = init_copy[r.count];
        r.after[r.count] = (const unsigned char *)tt->data;
        r.at[r.count++] = i;
    }
    if (r.count == 0)
        fail_msg("%s: the call writes no tensor", g_case);
    /* the reference: alone, on the harness's own buffers */
    r.st = kvg_op_run(call, &r.diag);

    assert_int_equal(pthread_barrier_init(&start, NULL, KVGT_THREADS), 0);
    for (t = 0; t < KVGT_THREADS; t++) {
        worker *x = &w[t];
        memset(x, 0, sizeof *x);
        x->ref = &r;
        x->start = &start;
        x->call = *call;
        for (i = 0; i < call->tensor_count; i++) {
            x->named[i] = call->tensors[i];
            if (call->tensors[i].tensor != NULL)
                x->views[i] = *call->tensors[i].tensor;
        }
        for (k = 0; k < r.count; k++) {
            x->own[k] = (unsigned char *)malloc(x->views[r.at[k]].nbytes + 1);
            assert_non_null(x->own[k]);
            x->views[r.at[k]].data = x->own[k];
            x->named[r.at[k]].tensor = &x->views[r.at[k]];
        }
        x->call.tensors = x->named;
        x->call.workspace =
            call->workspace_size ? malloc(call->workspace_size) : NULL;
        assert_true(call->workspace_size == 0 || x->call.workspace != NULL);
    }
    for (t = 0; t < KVGT_THREADS; t++)
        assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
    for (t = 0; t < KVGT_THREADS; t++)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    (void)pthread_barrier_destroy(&start);
    for (t = 0; t < KVGT_THREADS; t++) {
        if (w[t].bad)
            fail_msg("%s: thread %d, %d of %d runs differ from the "
                     "single-threaded run: %s", g_case, t, w[t].bad,
                     KVGT_REPS, w[t].what);
        for (k = 0; k < r.count; k++)
            free(w[t].own[k]);
        free(w[t].call.workspace);
    }
    for (k = 0; k < r.count; k++)
        free(init_copy[k]);
    g_ran++;
    if (diag != NULL)
        *diag = r.diag;
    return r.st;
}

static int one_case(const char *dir)
{
    kvg_case c;
    kvg_case_set out;
    kvg_diag diag;
    kvg_status st;

    st = kvg_case_load(dir, &c, &diag);
    if (st != KVG_OK)
        fail_msg("%s: load failed: %s", dir, diag.message);
    memset(&out, 0, sizeof out);
    g_outputs = &out;
    g_case = dir;
    g_ran = 0;
    st = kvg_case_run_with(&c, &out, run_threads, &diag);
    if (!c.expect_error && st != KVG_OK)
        fail_msg("%s: run failed: %s", dir, diag.message);
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    /* a case the harness refused before the call judges nothing */
    return g_ran;
}

static void every_case_in_threads(void **state)
{
    int n;
    (void)state;
    n = kvgt_check_every_op(one_case);
    print_message("%d cases, each run by %d threads at once, %d times "
                  "each\n", n, KVGT_THREADS, KVGT_REPS);
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_case_in_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
