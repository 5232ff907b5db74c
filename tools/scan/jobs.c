/*
 * tools/scan/jobs.c - how many processes `kvgold scan` may run: the CPUs
 * this process may run on (its affinity mask), fewer when its cgroup has
 * a CPU quota (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us).
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE 1
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scan_jobs.h"

/* The quota of cgroup file(s) under root as CPUs (rounded up); 0: none. */
static long quota_cpus(const char *root)
{
    char path[512];
    long long q = -1, p = 0;
    FILE *f;

    (void)snprintf(path, sizeof path, "%s/sys/fs/cgroup/cpu.max", root);
    if ((f = fopen(path, "r")) != NULL) {
        char word[32];
        if (fscanf(f, "%31s %lld", word, &p) == 2 &&
            strcmp(word, "max") != 0)
            (void)sscanf(word, "%lld", &q);
        fclose(f);
    } else {
        (void)snprintf(path, sizeof path,
                       "%s/sys/fs/cgroup/cpu/cpu.cfs_quota_us", root);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%lld", &q) != 1)
                q = -1;
            fclose(f);
        }
        (void)snprintf(path, sizeof path,
                       "%s/sys/fs/cgroup/cpu/cpu.cfs_period_us", root);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%lld", &p) != 1)
                p = 0;
            fclose(f);
        }
    }
    if (q <= 0 || p <= 0)
        return 0;
    return (long)((q + p - 1) / p);
}

int kvg_scan_default_jobs_at(const char *root)
{
    long n = 0, q;
#ifdef CPU_COUNT
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
#endif
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0)
        n = 1;
    q = quota_cpus(root);
    if (q > 0 && q < n)
        n = q;
    return n > 256 ? 256 : (int)n;
}

int kvg_scan_default_jobs(void) { return kvg_scan_default_jobs_at(""); }
