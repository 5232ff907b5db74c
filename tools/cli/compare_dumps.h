/*
 * tools/cli/compare_dumps.h - finding and loading a directory of dumps
 * (the NPU's, or a third party's) for the outputs of a case. A dump that is
 * missing, a dangling link, unreadable or a directory is not judged, with
 * the reason; a file that matches no output (kcache.npy for k_cache) is
 * named in the reason of every missing output, since it is the likeliest
 * culprit; a file named after the missing output with another suffix
 * (k_cache.bin.bin, k_cache.npy.npy) is named first, as a likely rename.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_COMPARE_DUMPS_H
#define KVGOLD_TOOLS_COMPARE_DUMPS_H

#include "case.h"

#define KVG_CLI_REASON_MAX 240

typedef struct kvg_cli_dumps {
    const char *dir;
    int loaded[KVG_CASE_MAX_TENSORS];    /* t[i] holds DIR/<name>.npy */
    kvg_tensor t[KVG_CASE_MAX_TENSORS];
    char reason[KVG_CASE_MAX_TENSORS][KVG_CLI_REASON_MAX]; /* if not */
    int found;                            /* how many were loaded */
    char stray[KVG_CLI_REASON_MAX];       /* .npy files matching no output */
    char near[KVG_CLI_REASON_MAX];        /* near misses of missing ones:
                                             k_cache.bin.bin for k_cache */
    kvg_file_map map[KVG_CASE_MAX_TENSORS]; /* big dumps are mapped */
    /* the file t[i] was read from (malloc'd) and its identity, to tell
     * two names of one file (a hard link, the same directory twice) */
    char *path[KVG_CASE_MAX_TENSORS];
    unsigned long long dev[KVG_CASE_MAX_TENSORS], ino[KVG_CASE_MAX_TENSORS];
} kvg_cli_dumps;

/* 1 if dump i of `a` and dump j of `b` are both loaded and are one file
 * (same device and inode). */
int kvg_cli_dumps_same_file(const kvg_cli_dumps *a, int i,
                            const kvg_cli_dumps *b, int j);

/* 1 if `path` exists and is the file (or directory) `dev`/`ino`. */
int kvg_cli_path_is(const char *path, unsigned long long dev,
                    unsigned long long ino);

/* 1 if `dir` is a directory; otherwise prints "kvgold: WHAT DIR: reason"
 * (the OS's, or "not a directory") and returns 0. */
int kvg_cli_dumps_dir_ok(const char *what, const char *dir);

/* Load DIR/<name>.npy for every golden output i with selected[i] != 0.
 * Returns 0 (message printed) when a file opens but is not a valid .npy of
 * the output's dtype; 1 otherwise, with the reason of each one not loaded
 * in d->reason[i]. */
int kvg_cli_dumps_load(kvg_cli_dumps *d, const char *dir,
                       const kvg_case_set *gold, const int *selected);

void kvg_cli_dumps_free(kvg_cli_dumps *d);

#endif /* KVGOLD_TOOLS_COMPARE_DUMPS_H */
