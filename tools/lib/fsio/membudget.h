/*
 * tools/lib/fsio/membudget.h - how much memory a kvgold command may use.
 *
 * The tools allocate every tensor they hold (inputs, golden outputs, NPU
 * dumps, compare's extra copies) through a reservation against one limit,
 * made before the malloc: a case that does not fit is refused with a
 * message saying how much it needs and what the limit is, instead of the
 * process being OOM-killed halfway. The ledger is process-wide (the tools
 * are single-threaded); the core library never allocates and knows nothing
 * of it. With no limit set (0, the default in tests) reservations only
 * count.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_MEMBUDGET_H
#define KVGOLD_TOOLS_MEMBUDGET_H

#include <stdint.h>

#include "kvgold/status.h"

/* Set the limit in bytes (0: none) and say where it came from, for the
 * message ("--max-memory", "MemAvailable in /proc/meminfo"). */
void kvg_mem_set_limit(uint64_t bytes, const char *source);
uint64_t kvg_mem_limit(void);
/* Where the limit came from (the `source` given to kvg_mem_set_limit). */
const char *kvg_mem_limit_source(void);

/* Bytes reserved and not yet released. */
uint64_t kvg_mem_held(void);

/*
 * Reserve `bytes` for `what` (e.g. "inputs.k_cache (k_cache.npy)") before
 * allocating them. Fails with KVG_ERR_NOMEM and a message naming `what`,
 * the total the command then needs and the limit; nothing is reserved then.
 */
kvg_status kvg_mem_reserve(uint64_t bytes, const char *what, kvg_diag *diag);

/* Give back a reservation (after free). */
void kvg_mem_release(uint64_t bytes);

/* "4096", "512K", "1.5G"... (K, M, G, T: powers of 1024; an optional
 * trailing B or iB). 1 on success, 0 on a malformed or overflowing text. */
int kvg_mem_parse_size(const char *text, uint64_t *bytes);

/* The default limit: the least of MemAvailable from /proc/meminfo and the
 * room left in this process's memory cgroup (kvg_mem_cgroup_room), else
 * the physical memory (sysconf), else 0 (none). *source names which one
 * was used. */
uint64_t kvg_mem_default_limit(const char **source);

/* The same with every file read under directory prefix `root` ("" for the
 * real system; a test passes a fake tree). */
uint64_t kvg_mem_default_limit_at(const char *root, const char **source);

/* The room (limit minus usage) in this process's memory cgroup and every
 * ancestor's, least of them, from root/proc/self/cgroup and
 * root/sys/fs/cgroup: v2 (memory.max, memory.current; also under
 * unified/) and v1 (memory/<path>/memory.limit_in_bytes,
 * memory.usage_in_bytes). The usage is taken without the inactive page
 * cache (memory.stat's inactive_file, v1 total_inactive_file), which the
 * kernel reclaims before it OOM-kills. 1 with *room set when some level
 * has a limit, 0 when none does ("max", or v1's 2^63 - 4096). */
int kvg_mem_cgroup_room(const char *root, uint64_t *room);

/*
 * The cores this process may use, for a command's default --jobs (kvgold
 * check / compare over many cases, kvgold scan): the CPUs in its affinity
 * mask (sched_getaffinity: taskset, cpuset cgroups, container CPU sets),
 * lowered to the CPU quota of its cgroup and every ancestor's, rounded up
 * (v2 cpu.max "200000 100000" is 2 cores; v1 cpu.cfs_quota_us /
 * cpu.cfs_period_us), since a process that runs more workers than its
 * quota only gets them throttled. At least 1. *source (may be NULL) says
 * which bound was used.
 */
int kvg_available_cores(const char **source);

/* The same with the cgroup files read under directory prefix `root` ("" for
 * the real system; a test passes a fake tree) and the affinity count given
 * (0: unknown, 1 core). */
int kvg_available_cores_at(const char *root, long affinity,
                           const char **source);

/* The CPUs in this process's affinity mask (sched_getaffinity, else the
 * online CPUs); 0 when neither can be had. */
long kvg_affinity_cpus(void);

#endif /* KVGOLD_TOOLS_MEMBUDGET_H */
