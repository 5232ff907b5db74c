/*
 * tools/lib/scan/jobs.c - how many processes `kvgold scan` may run: the same
 * default as check and compare over many cases (kvg_available_cores,
 * tools/lib/fsio/membudget.h): the CPUs this process may run on (its affinity
 * mask), fewer when its cgroup or an ancestor has a CPU quota (v2
 * cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>

#include "membudget.h"
#include "scan_jobs.h"

int kvg_scan_default_jobs_at(const char *root)
{
    int n = kvg_available_cores_at(root, kvg_affinity_cpus(), NULL);
    return n > 256 ? 256 : n;
}

int kvg_scan_default_jobs(void) { return kvg_scan_default_jobs_at(""); }
