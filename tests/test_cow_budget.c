/*
 * tests/test_cow_budget.c - the pages the golden copies in a cache that is
 * a private copy-on-write mapping of its file count against the memory
 * limit (tools/lib/fsio/membudget.h): for every vector case with a cache, the
 * bytes reserved equal the private dirty pages the kernel reports for the
 * mapping after the run (/proc/self/smaps, the kernel's own count of the
 * copies), and a limit one byte short of what the run needs is refused
 * before the operator runs, with a message naming the cache, leaving
 * nothing reserved.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_list.h"
#include "kvgold/op.h"
#include "membudget.h"

/* Private_Dirty of the mapping starting at `base`, in bytes; -1 when
 * /proc/self/smaps does not list it. */
static long long private_dirty(const void *base)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    long long result = -1;
    assert_non_null(f);
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        unsigned long long kib;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ':') &&
            strchr(line, '-') < strchr(line, ' ')) {
            inside = (uintptr_t)lo == (uintptr_t)base;
            continue;
        }
        if (inside && sscanf(line, "Private_Dirty: %llu kB", &kib) == 1) {
            result = (long long)kib * 1024;
            break;
        }
    }
    fclose(f);
    return result;
}

static uint64_t g_held_in_run;

/* kvg_op_run, noting how much the command holds when the operator runs. */
static kvg_status noting_run(const kvg_op_call *call, kvg_diag *diag)
{
    g_held_in_run = kvg_mem_held();
    return kvg_op_run(call, diag);
}

static int g_limit_checked;

/* One byte under what the run holds: refused before the operator runs,
 * naming the mapped cache; nothing stays reserved. At the exact need: it
 * runs. */
static void check_limit(const char *dir, uint64_t need, uint64_t base)
{
    static kvg_case c;
    static kvg_case_set gold;
    kvg_diag diag;
    kvg_status st;

    kvg_mem_set_limit(need - 1, "--max-memory");
    assert_int_equal(kvg_case_load_with(dir, &c,
                                        KVG_CASE_MAP_ALL |
                                            KVG_CASE_NO_EXPECTED_DATA,
                                        &diag),
                     KVG_OK);
    memset(&gold, 0, sizeof gold);
    g_held_in_run = 0;
    st = kvg_case_run_with(&c, &gold, noting_run, &diag);
    assert_int_equal(st, KVG_ERR_NOMEM);
    assert_true(g_held_in_run == 0); /* the operator never ran */
    if (strstr(diag.message, "copy-on-write of mapped ") == NULL ||
        strstr(diag.message, "pages the golden writes") == NULL ||
        strstr(diag.message, "--max-memory") == NULL)
        fail_msg("%s: %s", dir, diag.message);
    assert_true(kvg_mem_held() == base); /* only the case's own inputs */
    kvg_mem_set_limit(need, "--max-memory");
    assert_int_equal(kvg_case_run_with(&c, &gold, noting_run, &diag), KVG_OK);
    assert_true(g_held_in_run == need);
    kvg_case_set_free(&gold);
    kvg_case_free(&c);
    kvg_mem_set_limit(0, NULL);
    g_limit_checked++;
}

/* One case: 1 when it has a copy-on-write cache whose pages were
 * counted. */
static int check_case(const char *dir)
{
    static kvg_case c;
    static kvg_case_set gold;
    kvg_diag diag;
    uint64_t base, cow = 0;
    int i, caches = 0;

    if (kvg_case_load_with(dir, &c,
                           KVG_CASE_MAP_ALL | KVG_CASE_NO_EXPECTED_DATA,
                           &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
    if (c.expect_error) {
        kvg_case_free(&c);
        return 0;
    }
    base = kvg_mem_held();
    memset(&gold, 0, sizeof gold);
    if (kvg_case_run_with(&c, &gold, noting_run, &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
    for (i = 0; i < gold.count; i++) {
        const kvg_case_tensor *g = &gold.items[i];
        long long dirty;
        if (g->map.base == NULL || g->map.mode != KVG_MAP_PRIVATE)
            continue;
        dirty = private_dirty(g->map.base);
        if (dirty < 0)
            fail_msg("%s: %s: the mapping is not in /proc/self/smaps", dir,
                     g->name);
        /* the kernel copied exactly the pages reserved: never fewer (the
         * limit would be optimistic), never more (the count would refuse
         * cases that fit) */
        if ((long long)g->cow_reserved != dirty)
            fail_msg("%s: %s: %llu bytes reserved, %lld copied", dir,
                     g->name, (unsigned long long)g->cow_reserved, dirty);
        cow += g->cow_reserved;
        caches++;
    }
    kvg_case_set_free(&gold);
    assert_true(kvg_mem_held() == base); /* the copies are given back */
    kvg_case_free(&c);
    if (cow != 0 && g_limit_checked < 3)
        check_limit(dir, g_held_in_run, base);
    return caches > 0;
}

static void test_cow_pages_reserved(void **state)
{
    (void)state;
    kvg_mem_set_limit(0, NULL);
    assert_true(kvgt_check_every_op(check_case) >= 22);
    assert_int_equal(g_limit_checked, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cow_pages_reserved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
