/*
 * tests/test_compare_repeat.c - the run-to-run check of `kvgold compare
 * CASE DIR1 DIR2 ...` over outputs longer than one KVG_COMPARE_CHUNK: it
 * compares chunk by chunk (giving each chunk's mapped pages back), and its
 * counts, first index and bits must be those of one whole comparison,
 * differences in the second chunk and on both sides of a chunk boundary
 * included. Expected values from first principles: the planted bytes.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_repeat.h"

/* one chunk and a bit: the check needs two chunks */
#define N (KVG_COMPARE_CHUNK + 1000)

typedef struct fx {
    kvg_case_set gold;
    kvg_cli_dumps runs[2];
    unsigned char *a, *b;
    char text[4096];
    char why[256];
} fx;

static void set_run(kvg_cli_dumps *d, unsigned char *data, int64_t n,
                    unsigned long long ino, const char *dir)
{
    memset(d, 0, sizeof *d);
    d->dir = dir;
    d->loaded[0] = 1;
    d->found = 1;
    d->t[0].data = data;
    d->t[0].dtype = KVG_INT8;
    d->t[0].rank = 1;
    d->t[0].shape[0] = n;
    d->t[0].nbytes = (size_t)n;
    d->dev[0] = 1;
    d->ino[0] = ino; /* two files */
}

static void fx_init(fx *f)
{
    int64_t j;
    memset(f, 0, sizeof *f);
    f->a = (unsigned char *)malloc(N);
    f->b = (unsigned char *)malloc(N);
    assert_non_null(f->a);
    assert_non_null(f->b);
    for (j = 0; j < N; j++) /* poisoned, never all zero */
        f->a[j] = (unsigned char)(j * 37 + 11);
    memcpy(f->b, f->a, N);
    f->gold.count = 1;
    (void)snprintf(f->gold.items[0].name, sizeof f->gold.items[0].name,
                   "c_kv");
    f->gold.items[0].t.dtype = KVG_INT8;
    set_run(&f->runs[0], f->a, N, 10, "run1");
    set_run(&f->runs[1], f->b, N, 11, "run2");
}

static kvg_verdict fx_check(fx *f)
{
    static const int selected[1] = {1};
    FILE *out = tmpfile();
    size_t got;
    kvg_verdict v;
    assert_non_null(out);
    v = kvg_cli_repeat_check(&f->gold, selected, f->runs, 2, out, NULL,
                             f->why, sizeof f->why);
    rewind(out);
    got = fread(f->text, 1, sizeof f->text - 1, out);
    f->text[got] = '\0';
    fclose(out);
    return v;
}

static void fx_free(fx *f)
{
    free(f->a);
    free(f->b);
}

static void flip(fx *f, int64_t at, unsigned char to)
{
    assert_true(f->b[at] != to);
    f->b[at] = to;
}

static void test_identical_over_chunks(void **state)
{
    fx f;
    char want[128];
    (void)state;
    fx_init(&f);
    assert_int_equal(fx_check(&f), KVG_VERDICT_PASS);
    (void)snprintf(want, sizeof want, "c_kv: run 2 is bit-identical to run "
                   "1 (%lld elements)", (long long)N);
    assert_non_null(strstr(f.text, want));
    fx_free(&f);
}

static void test_differences_in_the_second_chunk(void **state)
{
    fx f;
    char want[200];
    const int64_t at = KVG_COMPARE_CHUNK + 5;
    (void)state;
    fx_init(&f);
    flip(&f, at, (unsigned char)(f.a[at] ^ 0x80));
    flip(&f, at + 900, (unsigned char)(f.a[at + 900] ^ 0x01));
    assert_int_equal(fx_check(&f), KVG_VERDICT_FAIL);
    (void)snprintf(want, sizeof want, "c_kv: run 2 differs from run 1 in 2 "
                   "of %lld elements (first at index %lld: 0x%02x in run 1, "
                   "0x%02x in run 2)", (long long)N, (long long)at,
                   f.a[at], f.b[at]);
    assert_non_null(strstr(f.text, want));
    fx_free(&f);
}

static void test_both_sides_of_a_chunk_boundary(void **state)
{
    fx f;
    char want[200];
    const int64_t at = KVG_COMPARE_CHUNK - 1;
    (void)state;
    fx_init(&f);
    flip(&f, at, (unsigned char)(f.a[at] + 1));
    flip(&f, at + 1, (unsigned char)(f.a[at + 1] + 1));
    flip(&f, N - 1, (unsigned char)(f.a[N - 1] + 1)); /* the last element */
    assert_int_equal(fx_check(&f), KVG_VERDICT_FAIL);
    (void)snprintf(want, sizeof want, "differs from run 1 in 3 of %lld "
                   "elements (first at index %lld: 0x%02x in run 1, 0x%02x "
                   "in run 2)", (long long)N, (long long)at, f.a[at],
                   f.b[at]);
    assert_non_null(strstr(f.text, want));
    fx_free(&f);
}

static void test_shapes_that_differ_are_refused(void **state)
{
    fx f;
    (void)state;
    fx_init(&f);
    f.runs[1].t[0].shape[0] = N - 1;
    f.runs[1].t[0].nbytes = (size_t)(N - 1);
    assert_int_equal(fx_check(&f), KVG_VERDICT_FAIL);
    assert_non_null(strstr(f.text, "c_kv: run 2 cannot be compared with "
                                   "run 1: "));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_over_chunks),
        cmocka_unit_test(test_differences_in_the_second_chunk),
        cmocka_unit_test(test_both_sides_of_a_chunk_boundary),
        cmocka_unit_test(test_shapes_that_differ_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
