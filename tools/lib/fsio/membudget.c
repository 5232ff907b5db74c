/*
 * tools/lib/fsio/membudget.c - the memory ledger (see membudget.h).
 * SPDX-License-Identifier: Apache-2.0
 */
/* sched_getaffinity and CPU_COUNT (kvg_available_cores) are GNU */
#define _GNU_SOURCE 1
#include "membudget.h"

#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t g_limit;
static uint64_t g_held;
static const char *g_source = "no limit";

const char *kvg_mem_limit_source(void) { return g_source; }

void kvg_mem_set_limit(uint64_t bytes, const char *source)
{
    g_limit = bytes;
    g_source = source != NULL ? source : "--max-memory";
}

uint64_t kvg_mem_limit(void) { return g_limit; }

uint64_t kvg_mem_held(void) { return g_held; }

/* "16 KiB", "1.3 GiB": the size a reader takes in at a glance. */
static void human(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB",
                                        "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        (void)snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
    else
        (void)snprintf(buf, cap, "%.1f %s", v, units[u]);
}

kvg_status kvg_mem_reserve(uint64_t bytes, const char *what, kvg_diag *diag)
{
    uint64_t total = g_held + bytes;

    if (total < g_held || (g_limit != 0 && total > g_limit)) {
        if (diag != NULL) {
            char hb[32], ht[32], hl[32];
            human(bytes, hb, sizeof hb);
            human(total < g_held ? UINT64_MAX : total, ht, sizeof ht);
            human(g_limit, hl, sizeof hl);
            kvg_diag_clear(diag);
            diag->status = KVG_ERR_NOMEM;
            (void)snprintf(diag->message, sizeof diag->message,
                           "%s needs %llu bytes (%s): the command would then "
                           "hold %llu bytes (%s), over the limit of %llu "
                           "bytes (%s, %s); refused before allocating (raise "
                           "the limit with --max-memory BYTES)",
                           what, (unsigned long long)bytes, hb,
                           (unsigned long long)total, ht,
                           (unsigned long long)g_limit, hl, g_source);
        }
        return KVG_ERR_NOMEM;
    }
    g_held = total;
    return KVG_OK;
}

void kvg_mem_release(uint64_t bytes)
{
    g_held = bytes > g_held ? 0 : g_held - bytes;
}

int kvg_mem_parse_size(const char *text, uint64_t *bytes)
{
    static const char units[] = "KMGT";
    uint64_t whole = 0, scale = 1, frac_num = 0, frac_den = 1, result;
    const char *p = text, *u;
    int digits = 0;

    if (text == NULL || bytes == NULL)
        return 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        uint64_t d = (uint64_t)(*p - '0');
        /* exact: UINT64_MAX itself is a valid count */
        if (whole > UINT64_MAX / 10 ||
            (whole == UINT64_MAX / 10 && d > UINT64_MAX % 10))
            return 0;
        whole = whole * 10 + d;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            if (frac_den < 1000000u) {
                frac_num = frac_num * 10 + (uint64_t)(*p - '0');
                frac_den *= 10;
            }
    }
    if (digits == 0)
        return 0;
    if (*p != '\0' && (u = strchr(units, *p >= 'a' ? *p - 32 : *p)) != NULL) {
        int k;
        for (k = 0; k <= (int)(u - units); k++)
            scale *= 1024;
        p++;
        if (*p == 'i')
            p++;
    }
    if (*p == 'B' || *p == 'b')
        p++;
    if (*p != '\0' || (scale == 1 && frac_num != 0))
        return 0;
    if (whole > UINT64_MAX / scale)
        return 0;
    result = whole * scale;
    if (frac_num != 0) {
        uint64_t extra = scale * frac_num / frac_den; /* < 2^60 */
        if (result + extra < result)
            return 0;
        result += extra;
    }
    *bytes = result;
    return 1;
}

/* root + rel, malloc'ed (NULL when memory runs out). */
static char *rooted(const char *root, const char *rel, const char *leaf)
{
    size_t a = strlen(root), b = strlen(rel), c = leaf ? strlen(leaf) : 0;
    char *p = (char *)malloc(a + b + c + 2);
    if (p == NULL)
        return NULL;
    memcpy(p, root, a);
    memcpy(p + a, rel, b);
    if (c != 0) {
        p[a + b] = '/';
        memcpy(p + a + b + 1, leaf, c + 1);
    } else {
        p[a + b] = '\0';
    }
    return p;
}

static uint64_t meminfo_available(const char *root)
{
    char *path = rooted(root, "/proc/meminfo", NULL);
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    char line[256];
    unsigned long long kib;
    uint64_t result = 0;

    free(path);
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            result = (uint64_t)kib * 1024u;
            break;
        }
    fclose(f);
    return result;
}

/* The number in dir/leaf (a cgroup file): 1 with *v set, 0 when the file
 * is absent or holds no number ("max": no limit). */
static int read_number(const char *dir, const char *leaf, uint64_t *v)
{
    char *path = rooted(dir, "", leaf);
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    unsigned long long n;
    int ok;

    free(path);
    if (f == NULL)
        return 0;
    ok = fscanf(f, "%llu", &n) == 1;
    fclose(f);
    if (ok)
        *v = (uint64_t)n;
    return ok;
}

/* The value of `key` in dir/memory.stat ("inactive_file 4096" lines); 0
 * when absent. */
static uint64_t stat_value(const char *dir, const char *key)
{
    char *path = rooted(dir, "", "memory.stat");
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    char line[256], name[64];
    unsigned long long v;
    uint64_t result = 0;

    free(path);
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "%63s %llu", name, &v) == 2 &&
            strcmp(name, key) == 0) {
            result = (uint64_t)v;
            break;
        }
    fclose(f);
    return result;
}

/* Limits at or above this are "no limit" (cgroup v1 writes the largest
 * page-aligned signed 64-bit value, 2^63 - 4096, for none). */
#define CGROUP_UNLIMITED ((uint64_t)1 << 62)

/* Walk from the cgroup directory `leaf` up to `top` (both existing
 * directories, leaf inside top) and keep the least room: limit - usage at
 * every level, since every ancestor's limit applies too. 1 when some
 * level has a limit. */
static int walk_cgroup(char *leaf, size_t top_len, const char *limit_name,
                       const char *usage_name, const char *inactive_name,
                       uint64_t *room)
{
    int found = 0;
    for (;;) {
        uint64_t lim, use = 0, inactive;
        char *slash;
        if (read_number(leaf, limit_name, &lim) && lim < CGROUP_UNLIMITED) {
            (void)read_number(leaf, usage_name, &use);
            /* the usage counts the page cache; its inactive part is
             * reclaimed before the OOM killer acts (the working set, as
             * container tools compute it) */
            inactive = stat_value(leaf, inactive_name);
            use = inactive < use ? use - inactive : 0;
            lim = use >= lim ? 0 : lim - use;
            if (!found || lim < *room)
                *room = lim;
            found = 1;
        }
        if (strlen(leaf) <= top_len)
            break;
        slash = strrchr(leaf, '/');
        if (slash == NULL || (size_t)(slash - leaf) < top_len)
            break;
        *slash = '\0';
    }
    return found;
}

/* The path of this process's cgroup for `controller` ("memory" for v1;
 * NULL for the v2 "0::" line) from root/proc/self/cgroup, malloc'ed. */
static char *own_cgroup(const char *root, const char *controller)
{
    char *path = rooted(root, "/proc/self/cgroup", NULL);
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    char line[4096], *result = NULL;

    free(path);
    if (f == NULL)
        return NULL;
    while (result == NULL && fgets(line, sizeof line, f) != NULL) {
        char *c1 = strchr(line, ':'), *c2, *nl;
        int match = 0;
        if (c1 == NULL || (c2 = strchr(c1 + 1, ':')) == NULL)
            continue;
        *c2 = '\0';
        if (controller == NULL) {
            match = strncmp(line, "0:", 2) == 0 && c1 + 1 == c2;
        } else {
            char *tok = c1 + 1, *end;
            for (; !match && tok < c2; tok = end + 1) {
                end = strchr(tok, ',');
                if (end == NULL || end > c2)
                    end = c2;
                match = (size_t)(end - tok) == strlen(controller) &&
                        strncmp(tok, controller, (size_t)(end - tok)) == 0;
            }
        }
        if (!match)
            continue;
        if ((nl = strchr(c2 + 1, '\n')) != NULL)
            *nl = '\0';
        result = (char *)malloc(strlen(c2 + 1) + 1);
        if (result != NULL)
            memcpy(result, c2 + 1, strlen(c2 + 1) + 1);
    }
    fclose(f);
    return result;
}

/* One hierarchy: root + mount + own path, walked up to the mount; when
 * the own path is not visible there (a cgroup namespace shows the
 * container's cgroup as the mount itself), the mount alone. */
static int cgroup_room(const char *root, const char *mount,
                       const char *controller, const char *limit_name,
                       const char *usage_name, const char *inactive_name,
                       uint64_t *room)
{
    char *top = rooted(root, mount, NULL), *own, *leaf = NULL;
    struct stat sb;
    int found = 0;

    if (top == NULL)
        return 0;
    own = own_cgroup(root, controller);
    if (own != NULL && own[0] == '/' && own[1] != '\0' &&
        strstr(own, "/..") == NULL) {
        leaf = rooted(top, own, NULL);
        if (leaf != NULL && (stat(leaf, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
            free(leaf);
            leaf = NULL;
        }
    }
    if (leaf == NULL)
        leaf = rooted(top, "", NULL);
    if (leaf != NULL)
        found = walk_cgroup(leaf, strlen(top), limit_name, usage_name,
                            inactive_name, room);
    free(leaf);
    free(own);
    free(top);
    return found;
}

int kvg_mem_cgroup_room(const char *root, uint64_t *room)
{
    uint64_t v1 = 0, v2 = 0;
    int has1, has2;

    if (root == NULL)
        root = "";
    has2 = cgroup_room(root, "/sys/fs/cgroup", NULL, "memory.max",
                       "memory.current", "inactive_file", &v2);
    if (!has2) /* hybrid layouts mount v2 at unified/ */
        has2 = cgroup_room(root, "/sys/fs/cgroup/unified", NULL,
                           "memory.max", "memory.current", "inactive_file",
                           &v2);
    has1 = cgroup_room(root, "/sys/fs/cgroup/memory", "memory",
                       "memory.limit_in_bytes", "memory.usage_in_bytes",
                       "total_inactive_file", &v1);
    if (has1 && has2)
        *room = v1 < v2 ? v1 : v2;
    else if (has1 || has2)
        *room = has1 ? v1 : v2;
    return has1 || has2;
}

uint64_t kvg_mem_default_limit_at(const char *root, const char **source)
{
    uint64_t avail = meminfo_available(root), room = 0;
    long pages, page;

    if (kvg_mem_cgroup_room(root, &room) && (avail == 0 || room < avail)) {
        *source = "default: the cgroup's memory limit minus its usage";
        return room != 0 ? room : 1; /* 0 would mean no limit */
    }
    if (avail != 0) {
        *source = "default: MemAvailable in /proc/meminfo";
        return avail;
    }
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    pages = sysconf(_SC_PHYS_PAGES);
    page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        *source = "default: the physical memory";
        return (uint64_t)pages * (uint64_t)page;
    }
#else
    (void)pages;
    (void)page;
#endif
    *source = "no limit";
    return 0;
}

uint64_t kvg_mem_default_limit(const char **source)
{
    return kvg_mem_default_limit_at("", source);
}

/* The CPU quota of one cgroup level as cores (quota / period, rounded
 * up): 1 with *cores set when `dir` has a quota. v2 cpu.max reads "max
 * 100000" (none) or "200000 100000"; v1 has cpu.cfs_quota_us (-1: none)
 * and cpu.cfs_period_us. */
static int cpu_quota(const char *dir, int v1, long *cores)
{
    long long quota = -1, period = 0;
    char *path = rooted(dir, "", v1 ? "cpu.cfs_quota_us" : "cpu.max");
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    int ok = 0;

    free(path);
    if (f == NULL)
        return 0;
    if (v1) {
        ok = fscanf(f, "%lld", &quota) == 1;
        fclose(f);
        path = rooted(dir, "", "cpu.cfs_period_us");
        f = path != NULL ? fopen(path, "r") : NULL;
        free(path);
        if (f == NULL)
            return 0;
        ok = ok && fscanf(f, "%lld", &period) == 1;
    } else {
        ok = fscanf(f, "%lld %lld", &quota, &period) == 2; /* "max": 0 */
    }
    fclose(f);
    if (!ok || quota <= 0 || period <= 0)
        return 0;
    *cores = (long)((quota + period - 1) / period);
    return 1;
}

/* The least quota from cgroup directory `leaf` up to the mount `top`
 * (every ancestor's quota applies too); 1 when some level has one. */
static int cpu_walk(char *leaf, size_t top_len, int v1, long *cores)
{
    int found = 0;
    for (;;) {
        long c;
        char *slash;
        if (cpu_quota(leaf, v1, &c) && (!found || c < *cores)) {
            *cores = c;
            found = 1;
        }
        if (strlen(leaf) <= top_len || (slash = strrchr(leaf, '/')) == NULL ||
            (size_t)(slash - leaf) < top_len)
            break;
        *slash = '\0';
    }
    return found;
}

/* One hierarchy, as cgroup_room walks the memory one. */
static int cpu_hierarchy(const char *root, const char *mount,
                         const char *controller, long *cores)
{
    char *top = rooted(root, mount, NULL), *own, *leaf = NULL;
    struct stat sb;
    int found = 0;

    if (top == NULL)
        return 0;
    if (stat(top, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        free(top);
        return 0;
    }
    own = own_cgroup(root, controller);
    if (own != NULL && own[0] == '/' && own[1] != '\0' &&
        strstr(own, "/..") == NULL) {
        leaf = rooted(top, own, NULL);
        if (leaf != NULL && (stat(leaf, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
            free(leaf);
            leaf = NULL;
        }
    }
    if (leaf == NULL)
        leaf = rooted(top, "", NULL);
    if (leaf != NULL)
        found = cpu_walk(leaf, strlen(top), controller != NULL, cores);
    free(leaf);
    free(own);
    free(top);
    return found;
}

int kvg_available_cores_at(const char *root, long affinity,
                           const char **source)
{
    static const char *const v1_mounts[] = {
        "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
        "/sys/fs/cgroup/cpuacct,cpu"};
    long n = affinity > 0 ? affinity : 1, q = 0;
    const char *why = affinity > 0 ? "the CPUs this process may run on "
                                     "(sched_getaffinity)"
                                   : "one core (the CPU set is unknown)";
    size_t i;
    int has = 0;

    if (root == NULL)
        root = "";
    has = cpu_hierarchy(root, "/sys/fs/cgroup", NULL, &q) ||
          cpu_hierarchy(root, "/sys/fs/cgroup/unified", NULL, &q);
    for (i = 0; i < sizeof v1_mounts / sizeof v1_mounts[0]; i++) {
        long v = 0;
        if (cpu_hierarchy(root, v1_mounts[i], "cpu", &v) && (!has || v < q)) {
            q = v;
            has = 1;
        }
    }
    if (has && q < n) {
        n = q;
        why = "the cgroup's CPU quota (cpu.max, or cpu.cfs_quota_us / "
              "cpu.cfs_period_us), rounded up";
    }
    if (source != NULL)
        *source = why;
    return n > 4096 ? 4096 : (int)n;
}

long kvg_affinity_cpus(void)
{
    long n = 0;
#if defined(__linux__) && defined(CPU_COUNT_S)
    int size;
    /* a mask big enough for the machine: EINVAL means too small */
    for (size = 1024; size <= 1 << 20 && n == 0; size *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)size);
        size_t bytes = CPU_ALLOC_SIZE((size_t)size);
        if (set == NULL)
            break;
        CPU_ZERO_S(bytes, set);
        if (sched_getaffinity(0, bytes, set) == 0)
            n = CPU_COUNT_S(bytes, set);
        CPU_FREE(set);
        if (n == 0 && errno != EINVAL)
            break;
    }
#endif
#ifdef _SC_NPROCESSORS_ONLN
    if (n == 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return n > 0 ? n : 0;
}

int kvg_available_cores(const char **source)
{
    return kvg_available_cores_at("", kvg_affinity_cpus(), source);
}
