/*
 * tools/cli/kvgold.c - the kvgold command (spec section 6).
 *
 *   kvgold run CASE [--out DIR]      compute a case's outputs, write .npy files
 *   kvgold check CASE                recompute and compare bit for bit with the
 *                                    case's expected tensors
 *   kvgold compare CASE NPU_DIR      judge NPU outputs against the golden with
 *                                    the CANN precision criteria
 *
 * Exit codes: 0 pass, 1 mismatch, 2 invalid case or usage (with a message).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "cli.h"
#include "kvgold/api.h"
#include "kvgold/npy.h"

static const char *const k_usage =
    "usage: kvgold <command> [options]\n"
    "\n"
    "kvgold is the golden model of Ascend's fused KV-cache operators. A CASE is\n"
    "a directory holding case.json and one .npy file per tensor.\n"
    "\n"
    "commands:\n"
    "  run CASE [--out DIR]        compute the outputs, write DIR/<name>.npy\n"
    "  check CASE                  recompute; compare bit for bit with expected\n"
    "  compare CASE NPU_DIR [--json]\n"
    "                              judge NPU outputs (NPU_DIR/<name>.npy)\n"
    "                              against the golden (CANN criteria)\n"
    "  help [COMMAND]              show help for a command\n"
    "\n"
    "options: --help, --version\n"
    "exit status: 0 pass, 1 mismatch, 2 invalid case or usage\n";

static const char *const k_run_help =
    "usage: kvgold run CASE [--out DIR]\n"
    "\n"
    "Compute every output of the case's operator from its inputs and write each\n"
    "as DIR/<name>.npy (default DIR: the current directory). In-place caches are\n"
    "written with their final contents. Names are the operator's parameter\n"
    "names (spec section 5), e.g. k_cache.npy, q_out.npy.\n"
    "exit status: 0 written, 2 invalid case, operator error or I/O error\n";

static const char *const k_check_help =
    "usage: kvgold check CASE\n"
    "\n"
    "Recompute the case and compare every tensor under \"expected\" with the\n"
    "computed output, byte for byte. For a case with \"expect_error\", check that\n"
    "the operator refuses it with that status (and tensor, if given).\n"
    "exit status: 0 all equal, 1 some tensor differs, 2 invalid case\n";

int kvg_cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "kvgold: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run 'kvgold --help' for usage)\n");
    return KVG_EXIT_INVALID;
}

static int is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

int kvg_cli_load(const char *dir, kvg_case *c)
{
    kvg_diag diag;
    kvg_diag_clear(&diag);
    if (kvg_case_load(dir, c, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: invalid case %s: %s\n", dir, diag.message);
        return 0;
    }
    return 1;
}

static int cmd_run(int argc, char **argv)
{
    const char *case_dir = NULL, *out_dir = ".";
    kvg_case c;
    kvg_case_set out;
    kvg_diag diag;
    int i, rc = KVG_EXIT_PASS;

    for (i = 0; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(k_run_help, stdout);
            return KVG_EXIT_PASS;
        } else if (strcmp(argv[i], "--out") == 0) {
            if (++i == argc)
                return kvg_cli_usage_error("run: --out needs a directory%s",
                                           "");
            out_dir = argv[i];
        } else if (argv[i][0] == '-') {
            return kvg_cli_usage_error("run: unknown option %s", argv[i]);
        } else if (case_dir == NULL) {
            case_dir = argv[i];
        } else {
            return kvg_cli_usage_error("run: unexpected argument %s", argv[i]);
        }
    }
    if (case_dir == NULL)
        return kvg_cli_usage_error("run: missing CASE directory%s", "");
    if (!kvg_cli_load(case_dir, &c))
        return KVG_EXIT_INVALID;
    memset(&out, 0, sizeof out);
    kvg_diag_clear(&diag);
    if (kvg_case_run(&c, &out, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: %s: the operator refused the case: %s\n",
                case_dir, diag.message);
        rc = KVG_EXIT_INVALID;
    }
    for (i = 0; rc == KVG_EXIT_PASS && i < out.count; i++) {
        char path[2 * KVG_CASE_PATH_MAX];
        (void)snprintf(path, sizeof path, "%s/%s.npy", out_dir,
                       out.items[i].name);
        if (kvg_npy_save(path, &out.items[i].t, &diag) != KVG_OK) {
            fprintf(stderr, "kvgold: %s\n", diag.message);
            rc = KVG_EXIT_INVALID;
        } else {
            printf("wrote %s\n", path);
        }
    }
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    const char *case_dir = NULL;
    kvg_case c;
    int i, rc;

    for (i = 0; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(k_check_help, stdout);
            return KVG_EXIT_PASS;
        } else if (argv[i][0] == '-') {
            return kvg_cli_usage_error("check: unknown option %s", argv[i]);
        } else if (case_dir == NULL) {
            case_dir = argv[i];
        } else {
            return kvg_cli_usage_error("check: unexpected argument %s",
                                       argv[i]);
        }
    }
    if (case_dir == NULL)
        return kvg_cli_usage_error("check: missing CASE directory%s", "");
    if (!kvg_cli_load(case_dir, &c))
        return KVG_EXIT_INVALID;
    rc = kvg_cli_check(&c, stdout);
    kvg_case_free(&c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(k_usage, stderr);
        return KVG_EXIT_INVALID;
    }
    if (is_help(argv[1])) {
        fputs(k_usage, stdout);
        return KVG_EXIT_PASS;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("kvgold %s\n", kvg_version_string());
        return KVG_EXIT_PASS;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (argc == 2 || strcmp(argv[2], "help") == 0) {
            fputs(k_usage, stdout);
            return KVG_EXIT_PASS;
        }
        if (strcmp(argv[2], "run") == 0)
            fputs(k_run_help, stdout);
        else if (strcmp(argv[2], "check") == 0)
            fputs(k_check_help, stdout);
        else if (strcmp(argv[2], "compare") == 0)
            fputs(kvg_cli_compare_help, stdout);
        else
            return kvg_cli_usage_error("help: unknown command %s", argv[2]);
        return KVG_EXIT_PASS;
    }
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "compare") == 0)
        return kvg_cli_compare(argc - 2, argv + 2);
    return kvg_cli_usage_error("unknown command %s", argv[1]);
}
