/*
 * tools/lib/fsio/outset.h - write a set of output files all or nothing.
 *
 * `kvgold run` writes every output of a case into one directory. Each file
 * is first written to a temporary file in that directory (".<name>.kvgold-
 * <pid>-<16 random hex digits>.tmp", created exclusively, never through a
 * symlink; a name that exists is never reused or removed, another random
 * name is tried), flushed with fsync; only when every file of the set is
 * complete are they renamed into place, under an exclusive flock of the
 * directory held for the whole commit, then the directory is fsynced. So:
 *   - two commits into one directory at once (two kvgold processes) never
 *     interleave: the directory ends with one whole set, the last one
 *     committed (files of names the last set does not have are left);
 *   - on any error before the commit, no new file is left and no existing
 *     file is touched;
 *   - if a rename fails during the commit, the files already renamed are
 *     put back (each existing target is hard-linked to a backup name first)
 *     and the new ones removed;
 *   - a target that is a symbolic link or has other hard links is replaced
 *     by the rename, never written through: the file it pointed to keeps
 *     its bytes;
 *   - a kill leaves at worst a temporary file, never a truncated target,
 *     and such a leftover never blocks a later run.
 * Targets are checked before anything is written: a directory or special
 * file in the way, or a read-only file (the user protected it), is refused.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_OUTSET_H
#define KVGOLD_TOOLS_OUTSET_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

typedef struct kvg_outset kvg_outset;

/*
 * Start a set of files in directory `dir`, which is created (with its
 * missing parents) when it does not exist. An empty `dir` is refused, as is
 * a path that exists but is not a directory. *set is NULL on failure.
 */
kvg_status kvg_outset_begin(kvg_outset **set, const char *dir,
                            kvg_diag *diag);

/* Refuse (KVG_ERR_PARAM_INVALID) if the output directory is the directory
 * `other` (same device and inode), naming it as `role` ("the case
 * directory"). A missing `other` is not an error. */
kvg_status kvg_outset_forbid_dir(const kvg_outset *set, const char *other,
                                 const char *role, kvg_diag *diag);

/*
 * Check target `name` (a file name, no '/') before anything is written:
 * refused if something other than a regular file or a symlink is in the
 * way, if it is a read-only file, or if it is (same device and inode) one
 * of the `n_protected` files in `protected_paths` (the case's own files).
 */
kvg_status kvg_outset_check(const kvg_outset *set, const char *name,
                            const char *const *protected_paths,
                            int n_protected, kvg_diag *diag);

/* Write `t` as .npy to a temporary file that will become `name`. */
kvg_status kvg_outset_add_npy(kvg_outset *set, const char *name,
                              const kvg_tensor *t, kvg_diag *diag);

/* Write `size` bytes of `data` (a text such as case.json) to a temporary
 * file that will become `name`; the same rules as kvg_outset_add_npy. */
kvg_status kvg_outset_add_bytes(kvg_outset *set, const char *name,
                                const void *data, size_t size,
                                kvg_diag *diag);

/* Rename every temporary file into place (see above); all or nothing. */
kvg_status kvg_outset_commit(kvg_outset *set, kvg_diag *diag);

/* Number of files added, and the final path of file i (for messages). */
int kvg_outset_count(const kvg_outset *set);
const char *kvg_outset_path(const kvg_outset *set, int i);

/* Remove every temporary file that was not committed and free the set
 * (NULL-safe). */
void kvg_outset_end(kvg_outset *set);

/*
 * A file of the set rendered through a stdio stream: `render` writes the
 * whole content to `out` and returns KVG_OK, or a status with the reason
 * in diag (the tools' idiom). Written to a temporary file like the .npy
 * ones; a write error (a full disk) is found at the flush and fails the
 * add.
 */
typedef kvg_status (*kvg_outset_writer)(FILE *out, void *user,
                                        kvg_diag *diag);
kvg_status kvg_outset_add_stream(kvg_outset *set, const char *name,
                                 kvg_outset_writer render, void *user,
                                 kvg_diag *diag);

/* Commit `n` sets (in different directories) as one: every old target is
 * kept aside, then every file renamed into place; if one rename fails,
 * every set is rolled back. Then each directory is synced. */
kvg_status kvg_outset_commit_many(kvg_outset *const *sets, int n,
                                  kvg_diag *diag);
/* Remove every temporary file this process has created and not yet
 * renamed or removed. Async-signal-safe (unlink only): for a handler
 * about to _exit on a fatal signal, so that no partial output stays. */
void kvg_outset_discard_temps(void);

/* For other writers of temporary files (reports): add `path` (kept by the
 * caller, unchanged, until untracked) to what kvg_outset_discard_temps
 * removes, and take it out again once renamed or removed. */
void kvg_outset_track_temp(const char *path);
void kvg_outset_untrack_temp(const char *path);

/* For tests only (NULL otherwise): the source of the random part of side
 * names, and a call after each rename of the commit (with the lock held),
 * to widen a race on purpose. */
extern uint64_t (*kvg_outset_random_hook)(void);
extern void (*kvg_outset_commit_hook)(const char *final_path);

#endif /* KVGOLD_TOOLS_OUTSET_H */
