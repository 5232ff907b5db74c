/*
 * tests/test_overlap.c - buffers that share memory where an operator
 * writes are refused before anything is written (src/common/apart.c).
 *
 * First principles: a cache or output that overlaps another tensor would
 * be written while that tensor is read, and a workspace that overlaps any
 * tensor would be written by the index sort during validation. So for
 * every operator kind (tests/op_fixture.h builds a valid call), every
 * written tensor W and every other tensor O: W pointed at O's bytes, and
 * at O's last byte only, must give 161002 naming both, with every byte of
 * every buffer as it was; the workspace pointed at any tensor, likewise.
 * Then kvg_i_check_apart itself at the boundaries: touching buffers and
 * read-only tensors sharing memory are accepted.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <string.h>

#include "op_fixture.h"
#include "src/common/internal.h"

#define SEEDS 3

/* The tensors the call actually sees (present, with data). */
static int present(const opf_tensor *x)
{
    return x->t.data != NULL && *x->slot == &x->t;
}

static void expect_refused(opf *f, const char *a, const char *b,
                           const char *what)
{
    kvg_diag d;
    const kvg_status st = opf_call(f, &d);

    if (st != KVG_ERR_PARAM_INVALID || strstr(d.message, "overlaps") == NULL ||
        strstr(d.message, a) == NULL || strstr(d.message, b) == NULL)
        fail_msg("%s seed %llu, %s: status %d, \"%s\"; expected 161002 "
                 "naming %s and %s", f->desc->label,
                 (unsigned long long)f->seed, what, (int)st, d.message, a, b);
    opf_assert_unchanged(f, what);
}

static int tensors_apart(opf *f)
{
    int i, j, cases = 0;

    for (i = 0; i < f->n; i++) {
        opf_tensor *w = &f->t[i];
        if (w->role == OPF_INPUT || !present(w))
            continue;
        for (j = 0; j < f->n; j++) {
            opf_tensor *o = &f->t[j];
            unsigned char *at[2];
            int k;
            if (j == i || !present(o))
                continue;
            at[0] = (unsigned char *)o->t.data;
            at[1] = (unsigned char *)o->t.data + o->t.nbytes - 1;
            for (k = 0; k < 2; k++) {
                char what[160];
                /* a missing check would write W's bytes from there on:
                 * only inside O's allocation, so that it fails cleanly */
                if ((size_t)(at[k] - o->alloc) + w->t.nbytes >
                    o->cap + 2 * OPF_GUARD)
                    continue;
                snprintf(what, sizeof what, "%s on %s%s", w->name, o->name,
                         k ? " (last byte)" : "");
                w->t.data = at[k];
                opf_snapshot(f);
                expect_refused(f, w->name, o->name, what);
                opf_restore(f);
                cases++;
            }
        }
    }
    return cases;
}

static int workspace_apart(opf *f)
{
    int i, cases = 0;

    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        char what[160];
        if (!present(x) || f->need > x->cap)
            continue;
        snprintf(what, sizeof what, "workspace on %s", x->name);
        opf_set_workspace(f, x->t.data, f->need);
        opf_snapshot(f);
        expect_refused(f, "workspace", x->name, what);
        opf_restore(f);
        cases++;
    }
    return cases;
}

static void test_kind(const opf_kind_desc *kind)
{
    int s, tensors = 0, ws = 0;

    for (s = 0; s < SEEDS; s++) {
        opf f;
        kvg_diag d;
        opf_init(&f, kind, (uint64_t)(500 + s));
        tensors += tensors_apart(&f);
        ws += workspace_apart(&f);
        /* and the untouched call still works */
        if (opf_call(&f, &d) != KVG_OK)
            fail_msg("%s: valid call refused after the overlaps: %s",
                     kind->label, d.message);
        opf_free(&f);
    }
    if (tensors == 0 || ws == 0)
        fail_msg("%s: %d tensor and %d workspace overlaps tried",
                 kind->label, tensors, ws);
}

/* The boundaries, on one buffer cut into views. */
static void test_check_apart_boundaries(void **state)
{
    unsigned char buf[64];
    kvg_tensor a = {0}, b = {0};
    kvg_i_span s[2];
    kvg_diag d;

    (void)state;
    kvgt_poison(buf, sizeof buf, 1);
    a.data = buf, a.nbytes = 16;
    b.data = buf + 16, b.nbytes = 16;
    s[0].name = "out", s[0].t = &a, s[0].written = 1;
    s[1].name = "in", s[1].t = &b, s[1].written = 0;
    /* touching, not overlapping */
    assert_int_equal(kvg_i_check_apart(s, 2, buf + 32, 32, &d), KVG_OK);
    /* one shared byte */
    b.data = buf + 15;
    assert_int_equal(kvg_i_check_apart(s, 2, NULL, 0, &d),
                     KVG_ERR_PARAM_INVALID);
    assert_non_null(strstr(d.message, "out: its buffer overlaps in's"));
    /* two read-only tensors may share memory */
    s[0].written = 0;
    assert_int_equal(kvg_i_check_apart(s, 2, NULL, 0, &d), KVG_OK);
    /* the workspace may not overlap even a read-only one, by one byte */
    b.data = buf + 16;
    assert_int_equal(kvg_i_check_apart(s, 2, buf + 31, 8, &d),
                     KVG_ERR_PARAM_INVALID);
    assert_non_null(strstr(d.message, "workspace: overlaps in's buffer"));
    /* absent tensors are skipped */
    s[1].t = NULL;
    assert_int_equal(kvg_i_check_apart(s, 2, buf + 8, 8, &d),
                     KVG_ERR_PARAM_INVALID);
    s[0].t = NULL;
    assert_int_equal(kvg_i_check_apart(s, 2, buf, 64, &d), KVG_OK);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_check_apart_boundaries),
    };
    static const opf_per_kind per[] = {{"apart", test_kind}};
    return opf_run_tests("test_overlap", fixed, 1, per, 1);
}
