/*
 * tools/lib/fsio/map_guard.h - which file a mapped address belongs to, and
 * the guard against a mapped file that shrinks. POSIX.
 *
 * A mapped file that another process truncates turns each access past its
 * new end into SIGBUS. The mappings of npy_map.h are registered here while
 * they live, so that the SIGBUS handler, and a writer that gets EFAULT
 * reading such a mapping, can name the file instead of dying unexplained.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_MAP_GUARD_H
#define KVGOLD_TOOLS_MAP_GUARD_H

#include <stddef.h>

/* Register / unregister the live mapping [base, base + len) of `path`
 * (npy_map.c does, for every mapping it makes). Registration is best
 * effort: without room (256 live mappings) or memory the mapping is
 * simply not named. */
void kvg_map_remember(const void *base, size_t len, const char *path);
void kvg_map_forget(const void *base);

/* The path of the live mapping holding address p, or NULL.
 * Async-signal-safe. */
const char *kvg_map_owner(const void *p);

/* What the program does when a mapped file shrank under it: called from
 * the SIGBUS handler with the file's path, so async-signal-safe only
 * (unlink, write, _exit); it should end the process (kvgold's command
 * removes its temporary outputs, says which file shrank and exits 2). If
 * it returns, the process dies of the SIGBUS. */
typedef void (*kvg_map_shrunk_fn)(const char *path);

/* Install (once, in a program's main) the SIGBUS handler that calls
 * `on_shrunk` for a fault inside a live mapping; any other SIGBUS kills
 * the process as before. The library itself never prints or exits: what
 * the user is told is the program's. 1 on success. */
int kvg_map_guard_install(kvg_map_shrunk_fn on_shrunk);

#endif /* KVGOLD_TOOLS_MAP_GUARD_H */
