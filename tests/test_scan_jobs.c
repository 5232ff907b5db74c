/*
 * tests/test_scan_jobs.c - kvgold scan's default --jobs: the CPUs this
 * process may run on, capped by its cgroup's CPU quota (v2 cpu.max, v1
 * cpu.cfs_quota_us / cpu.cfs_period_us), read from a fake tree; and the
 * natural order the readers list calls in.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read_common.h"
#include "scan_jobs.h"

static char g_root[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    FILE *f;
    (void)snprintf(path, sizeof path, "%s/%s", g_root, rel);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    char path[256];
    (void)state;
    (void)snprintf(g_root, sizeof g_root, "/tmp/kvg_scan_jobs_XXXXXX");
    if (mkdtemp(g_root) == NULL)
        return -1;
    (void)snprintf(path, sizeof path, "%s/sys", g_root);
    (void)mkdir(path, 0700);
    (void)snprintf(path, sizeof path, "%s/sys/fs", g_root);
    (void)mkdir(path, 0700);
    (void)snprintf(path, sizeof path, "%s/sys/fs/cgroup", g_root);
    (void)mkdir(path, 0700);
    (void)snprintf(path, sizeof path, "%s/sys/fs/cgroup/cpu", g_root);
    (void)mkdir(path, 0700);
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    return system(cmd) == 0 ? 0 : -1;
}

static void clear(void)
{
    char path[256];
    (void)snprintf(path, sizeof path, "%s/sys/fs/cgroup/cpu.max", g_root);
    (void)remove(path);
    (void)snprintf(path, sizeof path,
                   "%s/sys/fs/cgroup/cpu/cpu.cfs_quota_us", g_root);
    (void)remove(path);
    (void)snprintf(path, sizeof path,
                   "%s/sys/fs/cgroup/cpu/cpu.cfs_period_us", g_root);
    (void)remove(path);
}

static void test_no_quota_is_the_affinity(void **state)
{
    int all;
    (void)state;
    clear();
    all = kvg_scan_default_jobs_at(g_root);
    assert_true(all >= 1);
    put("sys/fs/cgroup/cpu.max", "max 100000\n");
    assert_int_equal(kvg_scan_default_jobs_at(g_root), all);
}

static void test_v2_quota_caps(void **state)
{
    (void)state;
    clear();
    /* half a CPU still gets one worker */
    put("sys/fs/cgroup/cpu.max", "50000 100000\n");
    assert_int_equal(kvg_scan_default_jobs_at(g_root), 1);
    /* a quota above the affinity does not raise it */
    put("sys/fs/cgroup/cpu.max", "100000000 100000\n");
    assert_int_equal(kvg_scan_default_jobs_at(g_root),
                     kvg_scan_default_jobs_at("/nonexistent"));
}

static void test_v1_quota_caps(void **state)
{
    (void)state;
    clear();
    put("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "20000\n");
    put("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    assert_int_equal(kvg_scan_default_jobs_at(g_root), 1);
    put("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
    assert_int_equal(kvg_scan_default_jobs_at(g_root),
                     kvg_scan_default_jobs_at("/nonexistent"));
}

static void test_natural_order(void **state)
{
    (void)state;
    assert_true(kvg_scan_natcmp("2_Op", "10_Op") < 0);
    assert_true(kvg_scan_natcmp("10_Op", "2_Op") > 0);
    assert_true(kvg_scan_natcmp("intensor9.bin", "intensor10.bin") < 0);
    assert_true(kvg_scan_natcmp("a007", "a7") == 0);
    assert_true(kvg_scan_natcmp("ab", "abc") < 0);
    assert_int_equal(kvg_scan_natcmp("x1y", "x1y"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_quota_is_the_affinity),
        cmocka_unit_test(test_v2_quota_caps),
        cmocka_unit_test(test_v1_quota_caps),
        cmocka_unit_test(test_natural_order),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
