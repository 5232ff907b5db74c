/*
 * tools/cli/cli.h - pieces of the kvgold command shared between its files.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_CLI_H
#define KVGOLD_TOOLS_CLI_H

#include <stdio.h>

#include "case.h"

enum { KVG_EXIT_PASS = 0, KVG_EXIT_MISMATCH = 1, KVG_EXIT_INVALID = 2 };

/* Print "kvgold: <fmt with arg>" and the usage hint; returns 2. */
int kvg_cli_usage_error(const char *fmt, const char *arg);

/* Load a case, printing the reason on failure; returns 1 on success. */
int kvg_cli_load(const char *dir, kvg_case *c);
/* With kvg_case_load_with's flags (run and compare skip expected data). */
int kvg_cli_load_with(const char *dir, kvg_case *c, unsigned flags);

/* Print why running case `dir` failed with `st`: a case file or memory
 * problem is said as such, only an operator status (161001/161002...) as
 * "the operator refused the case". */
void kvg_cli_run_error(const char *dir, kvg_status st, const kvg_diag *diag);

/* Take the options every command accepts (--max-memory BYTES) out of
 * argv, set the memory limit (default: MemAvailable); 0 on a bad value
 * (message printed). */
int kvg_cli_global_options(int *argc, char **argv);

/* The command's answer to a mapped input file that shrank under it
 * (map_guard.h; install with kvg_map_guard_install(kvg_cli_file_shrank)):
 * removes this process's uncommitted temporary outputs (outset.h), prints
 * "kvgold: PATH: the file shrank while it was being read ..." and exits
 * with status 2. Async-signal-safe. */
void kvg_cli_file_shrank(const char *path);

/* The case's own files (case.json, every input and expected file) as
 * malloc'd paths, *n of them; NULL when out of memory. Free each and the
 * array with kvg_cli_free_paths. */
char **kvg_cli_case_files(const kvg_case *c, int *n);
void kvg_cli_free_paths(char **paths, int n);

/* `kvgold check` on a loaded case: prints a table to `out`, returns the
 * exit code. */
int kvg_cli_check(const kvg_case *c, FILE *out);

/* `kvgold compare CASE NPU_DIR` (argv after the command name; many cases,
 * --cases, go to kvg_cli_compare_batch: kvgold.c dispatches) and its help
 * text. */
int kvg_cli_compare(int argc, char **argv);
extern const char *const kvg_cli_compare_help;

/* 1 if a --only value names outputs: not empty, no empty name between,
 * before or after its commas. */
int kvg_cli_only_ok(const char *only);

/* The overall verdict of the last kvg_cli_compare that judged ("PASS",
 * "FAIL", "INCOMPLETE"; "" before): exit status 1 is FAIL or INCOMPLETE. */
extern const char *kvg_cli_compare_last_verdict;

/* check and compare over many cases with --jobs N (batch.c). *_is_batch:
 * whether argv (after the command name) asks for the many-case form:
 * check with several CASEs, a directory of cases, --jobs, --json or
 * --junit; compare with --cases or --jobs. */
int kvg_cli_check_is_batch(int argc, char **argv);
int kvg_cli_check_batch(int argc, char **argv);
int kvg_cli_compare_is_batch(int argc, char **argv);
int kvg_cli_compare_batch(int argc, char **argv);

/* `kvgold prepare` (argv after the command name) and its help text. */
int kvg_cli_prepare(int argc, char **argv);
/* `kvgold prepare --help`: the text with the operators of tools/lib/bindings. */
void kvg_cli_prepare_print_help(FILE *f);
/* `kvgold explain-layout CASE [OUTPUT]` (tools/cli/explain_layout.c): the
 * byte map of the packed cache rows the case's call writes, and its help. */
int kvg_cli_explain_layout(int argc, char **argv);
extern const char *const kvg_cli_explain_layout_help;

/* `kvgold scan` (tools/cli/scan_cmd.c) and its help text. */
int kvg_cli_scan(int argc, char **argv);
extern const char *const kvg_cli_scan_help;

#endif /* KVGOLD_TOOLS_CLI_H */
