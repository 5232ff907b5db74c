/*
 * tools/cli/report_targets.h - the report files of every kvgold command
 * that writes one (compare --html/--junit/--csv, scan --junit/--html,
 * check and compare --cases --junit, prepare --csv): checked before
 * anything is computed, written all or nothing as one output set
 * (tools/lib/fsio/outset.h). One set of rules for every command:
 *
 *   - a report replaces only a regular file (or a new name, or a dangling
 *     symbolic link): a device, a FIFO, a directory, a symbolic link to
 *     one of those, a read-only file, an empty path or one naming a
 *     directory ("out/") are refused, and so is a path whose directory
 *     does not exist;
 *   - a report is never a file the command reads: a protected file (the
 *     case's files, the scanned dump file, a list file) is refused when it
 *     is the same file as the target (same device and inode, so through a
 *     hard or symbolic link too);
 *   - a report is never written among what the command reads: a target
 *     whose directory is at or below a protected directory (NPU_DIR, the
 *     scanned dump directory, a case directory; compared as realpath), or
 *     that is the same file as any file in that directory tree (a hard
 *     link, or a symbolic link in the tree that leads to the target) is
 *     refused;
 *   - two targets are never one file (the same name in the same
 *     directory, or the same device and inode).
 *
 * A target may also be a directory the command fills (scan's FILE_calls
 * pages): absent or a directory, not among what the command reads, not
 * holding a protected file, and created only by kvg_cli_targets_make_dirs
 * once every check has passed.
 *
 * POSIX (lstat, realpath, readdir).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_REPORT_TARGETS_H
#define KVGOLD_TOOLS_REPORT_TARGETS_H

#include "outset.h"

/* At most this many targets (files and directories) per command. */
#define KVG_CLI_MAX_TARGETS 8

typedef struct kvg_cli_target {
    const char *flag;          /* "--html"; messages say "FLAG PATH: ..." */
    const char *path;          /* as given */
    kvg_outset_writer render;  /* writes the whole file; NULL for a dir */
    void *user;                /* passed to render */
    int dir;                   /* 1: a directory the command fills */
} kvg_cli_target;

/* Something a report must never replace nor be written among. */
typedef struct kvg_cli_protect {
    const char *path;  /* as given (messages name it so) */
    const char *role;  /* "the case's file", "NPU_DIR", "the scanned dump" */
    const char *what;  /* plural, for the reason: "a case's files",
                          "the dumps" */
    const char *note;  /* NULL, or said after the path: "the directory
                          being judged" */
    int tree;          /* 0: a file; 1: a directory and all below it */
} kvg_cli_protect;

/*
 * Check every target against the rules above, in order, before anything
 * is computed. `cmd` names the command in messages ("kvgold: scan: --junit
 * X: is a character device; ...; <stopped>"), `stopped` says what did not
 * happen ("nothing was judged or written"). A protected path that does
 * not exist is passed over (the command says what is wrong with it).
 * 1 when every target is fine; else 0 with the message printed.
 */
int kvg_cli_targets_check(const char *cmd, const char *stopped,
                          const kvg_cli_target *t, int n,
                          const kvg_cli_protect *p, int n_p);

/* Create the directory targets (t[i].dir) that do not exist; 1, or 0 with
 * "kvgold: CMD: FLAG PATH: <OS reason>" printed. Call after the check. */
int kvg_cli_targets_make_dirs(const char *cmd, const kvg_cli_target *t,
                              int n);

/* The file targets rendered into temporary files beside them, not yet in
 * place (one output set per directory). */
typedef struct kvg_cli_staged kvg_cli_staged;

/* Render every file target (directory targets are skipped) into a
 * temporary file beside it. 1 with *staged set (NULL when there is no
 * file target); else 0 with the file and the reason printed and nothing
 * left behind. */
int kvg_cli_targets_stage(const char *cmd, const kvg_cli_target *t, int n,
                          kvg_cli_staged **staged);

/* Rename every staged file into place, or none (kvg_outset_commit_many);
 * 1, or 0 with the reason printed and no target replaced. NULL: 1. */
int kvg_cli_targets_commit(const char *cmd, kvg_cli_staged *staged);

/* Remove what was staged and not committed, and free (NULL-safe). */
void kvg_cli_targets_discard(kvg_cli_staged *staged);

/* Stage, commit and discard: every file target or none. */
int kvg_cli_targets_write(const char *cmd, const kvg_cli_target *t, int n);

#endif /* KVGOLD_TOOLS_REPORT_TARGETS_H */
