/*
 * tools/lib/scan/scan_jobs.h - the default --jobs of `kvgold scan`.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_SCAN_JOBS_H
#define KVGOLD_TOOLS_SCAN_JOBS_H

/* The CPUs available: the affinity mask, capped by the cgroup's CPU quota
 * (files read under `root`, "" for the real system). At least 1. */
int kvg_scan_default_jobs(void);
int kvg_scan_default_jobs_at(const char *root);

#endif /* KVGOLD_TOOLS_SCAN_JOBS_H */
