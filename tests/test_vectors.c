/*
 * tests/test_vectors.c - run every case under a vectors/<op> directory
 * through the generic case adapter (so through kvg_op_run, kvgold/op.h)
 * and require the C results to equal the NumPy generator's expected
 * tensors bit for bit. Expected caches are the initial (poisoned) caches with only the
 * addressed slots changed, so comparing whole caches also proves that no
 * other byte was touched.
 *
 * Usage: test_vectors DIR   (one cmocka test per case subdirectory)
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

static char g_root[1024];

/* Bit-exact, through the harness's one verification. */
static void compare_tensor(const kvg_case *c, int i, const kvg_case_set *out,
                           const char *case_name)
{
    kvg_case_verdict v;
    char what[256];

    if (kvg_case_verify_tensor(c, out, i, &v))
        return;
    if (v.got == NULL)
        fail_msg("%s: the op produced no output \"%s\"", case_name, v.name);
    if (!v.same_geometry)
        fail_msg("%s: output %s is %s rank %d (%lu bytes), expected %s rank "
                 "%d (%lu bytes), or a dim differs", case_name, v.name,
                 kvg_dtype_name(v.got->dtype), v.got->rank,
                 (unsigned long)v.got->nbytes, kvg_dtype_name(v.want->dtype),
                 v.want->rank, (unsigned long)v.want->nbytes);
    (void)snprintf(what, sizeof what, "%s: %s", case_name, v.name);
    kvgt_assert_bytes_equal(v.got->data, v.want->data, v.want->nbytes, what);
    fail_msg("%s: %lld elements differ", what, v.differing);
}

static void run_case(void **state)
{
    const char *name = (const char *)*state;
    char dir[2048];
    kvg_case c;
    kvg_case_set out;
    kvg_diag diag;
    kvg_status st;
    int i;

    (void)snprintf(dir, sizeof dir, "%s/%s", g_root, name);
    st = kvg_case_load(dir, &c, &diag);
    if (st != KVG_OK)
        fail_msg("%s: load failed: %s", name, diag.message);
    memset(&out, 0, sizeof out);
    st = kvg_case_run(&c, &out, &diag);
    if (c.expect_error) {
        if (st != c.expect_status)
            fail_msg("%s: expected status %d, got %d (%s)", name,
                     (int)c.expect_status, (int)st, diag.message);
        if (c.expect_tensor[0] != '\0' &&
            strcmp(c.expect_tensor, diag.tensor) != 0)
            fail_msg("%s: expected the error to name \"%s\", it named \"%s\" "
                     "(%s)", name, c.expect_tensor, diag.tensor, diag.message);
    } else {
        if (st != KVG_OK)
            fail_msg("%s: run failed: %s (%s)", name, kvg_status_name(st),
                     diag.message);
        if (c.expected.count == 0)
            fail_msg("%s: case has no expected outputs", name);
        for (i = 0; i < c.expected.count; i++)
            compare_tensor(&c, i, &out, name);
    }
    kvg_case_set_free(&out);
    kvg_case_free(&c);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    struct CMUnitTest *tests;
    char group[1100];
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTOR_DIR\n", argv[0]);
        return 2;
    }
    (void)snprintf(g_root, sizeof g_root, "%s", argv[1]);
    d = opendir(g_root);
    if (d == NULL) {
        fprintf(stderr, "%s: cannot open vector directory\n", g_root);
        return 2;
    }
    while ((e = readdir(d)) != NULL) {
        char probe[2048];
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        (void)snprintf(probe, sizeof probe, "%s/%s/case.json", g_root,
                       e->d_name);
        if ((f = fopen(probe, "r")) == NULL)
            continue;
        fclose(f);
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = (char **)realloc(names, cap * sizeof *names);
            if (names == NULL)
                return 2;
        }
        names[n] = (char *)malloc(strlen(e->d_name) + 1);
        if (names[n] == NULL)
            return 2;
        strcpy(names[n++], e->d_name);
    }
    closedir(d);
    if (n == 0) {
        fprintf(stderr, "%s: no cases found\n", g_root);
        return 2;
    }
    qsort(names, n, sizeof *names, by_name);
    tests = (struct CMUnitTest *)calloc(n, sizeof *tests);
    if (tests == NULL)
        return 2;
    for (i = 0; i < n; i++) {
        tests[i].name = names[i];
        tests[i].test_func = run_case;
        tests[i].initial_state = names[i];
    }
    (void)snprintf(group, sizeof group, "vectors:%s", g_root);
    rc = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(tests);
    return rc;
}
