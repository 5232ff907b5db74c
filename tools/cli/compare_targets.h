/*
 * tools/cli/compare_targets.h - the report files of `kvgold compare`
 * (--html, --junit, --csv): checked before anything is computed, written
 * all or nothing as one output set (tools/lib/fsio/outset.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_COMPARE_TARGETS_H
#define KVGOLD_TOOLS_COMPARE_TARGETS_H

#include "case.h"
#include "report.h"

typedef struct kvg_cli_target {
    const char *flag;              /* "--html" */
    const char *path;              /* as given */
    kvg_report_renderer render;
} kvg_cli_target;

/*
 * Refuse (message naming the flag and the path printed; returns 0) a
 * target that is not a plain new or regular file the user may replace:
 * an empty path or one naming a directory; a directory that does not
 * exist; something other than a regular file (a device such as /dev/null,
 * a FIFO, a directory, a symbolic link to one of those); a read-only file;
 * one of the case's files (case.json, an input, an expected file: same
 * device and inode, so a hard link or a symlink to one counts); a path in
 * one of `dirs` (the NPU_DIRs and the third party's directory, named
 * `roles[j]`) or the same file as any file in them; the same file as
 * another target. 1 when every target is fine.
 */
int kvg_cli_targets_check(const kvg_cli_target *t, int n, const kvg_case *c,
                          const char *const *dirs, const char *const *roles,
                          int n_dirs);

/* Render every target into a temporary file beside it, then rename them
 * all into place, or none (kvg_outset_commit_many). 1 on success; else the
 * file and the reason are printed and no target was replaced. */
int kvg_cli_targets_write(const kvg_cli_target *t, int n,
                          const kvg_report_set *set);

#endif /* KVGOLD_TOOLS_COMPARE_TARGETS_H */
