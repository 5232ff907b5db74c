/*
 * tools/fsio/membudget.c - the memory ledger (see membudget.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "membudget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t g_limit;
static uint64_t g_held;
static const char *g_source = "no limit";

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
        if (whole > (UINT64_MAX - 9) / 10)
            return 0;
        whole = whole * 10 + (uint64_t)(*p - '0');
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

static uint64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib;
    uint64_t result = 0;

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

uint64_t kvg_mem_default_limit(const char **source)
{
    uint64_t avail = meminfo_available();
    long pages, page;

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
