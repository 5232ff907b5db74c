/*
 * tests/case_list.c - see case_list.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_list.h"
#include "kvgold/op.h"

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

void kvgt_list_cases(const char *sub, kvgt_case_list *l)
{
    const char *root = getenv("KVG_VECTORS_DIR");
    struct dirent *e;
    DIR *d;

    if (root == NULL)
        fail_msg("KVG_VECTORS_DIR is not set");
    (void)snprintf(l->dir, sizeof l->dir, "%s/%s", root, sub);
    d = opendir(l->dir);
    if (d == NULL)
        fail_msg("%s: no vectors for %s", l->dir, sub);
    l->count = 0;
    while ((e = readdir(d)) != NULL && l->count < KVGT_MAX_CASES)
        if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof l->names[0])
            strcpy(l->names[l->count++], e->d_name);
    closedir(d);
    qsort(l->names, (size_t)l->count, sizeof l->names[0], by_name);
    if (l->count == 0)
        fail_msg("%s: no cases", l->dir);
}

void kvgt_case_path(const kvgt_case_list *l, int i, char *buf, size_t cap)
{
    (void)snprintf(buf, cap, "%s/%s", l->dir, l->names[i]);
}

/* KVGT_CASE_STRIDE=s (set for the valgrind twins, tests/CMakeLists.txt):
 * every s-th case, and every case until one has been judged, so that a
 * walk under valgrind (40 times slower) still reaches every operator and
 * still cannot pass on no case. The native run walks every case. */
static int case_stride(void)
{
    const char *s = getenv("KVGT_CASE_STRIDE");
    int v = s != NULL ? atoi(s) : 1;
    return v > 1 ? v : 1;
}

int kvgt_check_cases(const char *sub, kvgt_case_check check)
{
    static kvgt_case_list l;
    char dir[1200];
    int i, n = 0, stride = case_stride();

    kvgt_list_cases(sub, &l);
    for (i = 0; i < l.count; i++) {
        if (i % stride != 0 && n > 0)
            continue;
        kvgt_case_path(&l, i, dir, sizeof dir);
        n += check(dir);
    }
    return n;
}

int kvgt_check_every_op(kvgt_case_check check)
{
    size_t k;
    int n, total = 0;

    for (k = 0; k < kvg_op_count(); k++) {
        n = kvgt_check_cases(kvg_op_name(kvg_op_at(k)), check);
        if (n == 0)
            fail_msg("no case of %s was checked", kvg_op_name(kvg_op_at(k)));
        total += n;
    }
    return total;
}
