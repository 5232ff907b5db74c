/*
 * tools/lib/fsio/map_guard.c - see map_guard.h. POSIX.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "map_guard.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The live mappings, for the SIGBUS handler (which may read only what is
 * fixed in place): it names the file from the faulting address. A slot is
 * filled path first, base last, and emptied base first. */
#define MAP_SLOTS 256
typedef struct map_slot {
    const unsigned char *volatile base;
    volatile size_t len;
    char *volatile path;
} map_slot;
static map_slot g_maps[MAP_SLOTS];

/* Set once by kvg_map_guard_install, before the handler can run. */
static volatile kvg_map_shrunk_fn g_on_shrunk;

void kvg_map_remember(const void *base, size_t len, const char *path)
{
    size_t n = strlen(path);
    char *copy;
    int i;
    for (i = 0; i < MAP_SLOTS; i++)
        if (g_maps[i].base == NULL && g_maps[i].path == NULL)
            break;
    if (i == MAP_SLOTS || (copy = (char *)malloc(n + 1)) == NULL)
        return; /* unnamed: the handler still ends the command cleanly */
    memcpy(copy, path, n + 1);
    g_maps[i].path = copy;
    g_maps[i].len = len;
    g_maps[i].base = (const unsigned char *)base;
}

void kvg_map_forget(const void *base)
{
    int i;
    for (i = 0; i < MAP_SLOTS; i++)
        if (base != NULL && g_maps[i].base == base) {
            char *p = g_maps[i].path;
            g_maps[i].base = NULL;
            g_maps[i].path = NULL;
            free(p);
            return;
        }
}

const char *kvg_map_owner(const void *p)
{
    const unsigned char *q = (const unsigned char *)p;
    int i;
    for (i = 0; i < MAP_SLOTS; i++) {
        const unsigned char *b = g_maps[i].base;
        if (b != NULL && q >= b && q < b + g_maps[i].len)
            return g_maps[i].path;
    }
    return NULL;
}

static void on_sigbus(int sig, siginfo_t *info, void *ctx)
{
    const char *path = info != NULL ? kvg_map_owner(info->si_addr) : NULL;
    const kvg_map_shrunk_fn fn = g_on_shrunk;
    (void)ctx;
    if (path != NULL && fn != NULL)
        fn(path);
    /* not a mapped tensor file (a real fault, a kill -BUS), or the
     * program's answer returned: die of it once the handler returns */
    (void)signal(sig, SIG_DFL);
    (void)raise(sig);
}

int kvg_map_guard_install(kvg_map_shrunk_fn on_shrunk)
{
    struct sigaction sa;
    g_on_shrunk = on_shrunk;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL) == 0;
}
