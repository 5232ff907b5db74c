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
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "fileio.h"
#include "cli.h"
#include "kvgold/api.h"
#include "membudget.h"
#include "map_guard.h"
#include "outset.h"

static const char *const k_usage =
    "usage: kvgold <command> [options]\n"
    "\n"
    "kvgold is the golden model of Ascend's fused KV-cache operators. A CASE is\n"
    "a directory holding case.json and one .npy file per tensor.\n"
    "\n"
    "commands:\n"
    "  run CASE [--out DIR]        compute the outputs, write DIR/<name>.npy\n"
    "  check CASE                  recompute; compare bit for bit with expected\n"
    "  check CASE|DIR... [--jobs N]\n"
    "                              many cases, N at a time (DIR: the cases\n"
    "                              below it)\n"
    "  compare CASE NPU_DIR [--json]\n"
    "                              judge NPU outputs (NPU_DIR/<name>.npy)\n"
    "                              against the golden (CANN criteria)\n"
    "  compare --cases LIST [--jobs N]\n"
    "                              many cases (LIST: \"CASE NPU_DIR\" lines)\n"
    "  prepare CASE... --out DIR   write ops-test-kit replay directories\n"
    "                              with kvgold's golden (docs/ttk.md)\n"
    "  scan PATH                   judge every kvgold operator call in a\n"
    "                              model step's dump (msprobe, ATB, CANN,\n"
    "                              ops-test-kit)\n"
    "  explain-layout CASE [OUTPUT]\n"
    "                              the byte map of a packed cache row\n"
    "                              (payload, scales, rope, pad) the call writes\n"
    "  help [COMMAND]              show help for a command\n"
    "\n"
    "options: --help, --version\n"
    "  --max-memory BYTES          refuse a case that needs more memory (K, M,\n"
    "                              G suffixes; default: MemAvailable, or\n"
    "                              the memory cgroup's room if less)\n"
    "exit status: 0 pass, 1 mismatch, 2 invalid case or usage\n";

static const char *const k_run_help =
    "usage: kvgold run CASE [--out DIR]\n"
    "\n"
    "Compute every output of the case's operator from its inputs and write each\n"
    "as DIR/<name>.npy (default DIR: the current directory; created if missing).\n"
    "In-place caches are written with their final contents. Names are the\n"
    "operator's parameter names (spec section 5), e.g. k_cache.npy, q_out.npy.\n"
    "All or nothing: the files appear only when every one is complete; on an\n"
    "error none is left and no existing file is changed. DIR may not be the\n"
    "case directory, nor hold one of the case's files under an output's name.\n"
    "exit status: 0 written, 2 invalid case, operator error or I/O error\n";

static const char *const k_check_help =
    "usage: kvgold check CASE\n"
    "       kvgold check CASE|DIR... [--jobs N] [--json] [--junit FILE]\n"
    "\n"
    "Recompute the case and compare every tensor under \"expected\" with the\n"
    "computed output, byte for byte. For a case with \"expect_error\", check that\n"
    "the operator refuses it with that status (and tensor, if given).\n"
    "Many cases: several CASEs, or a DIR without case.json, whose case\n"
    "directories (any depth, by name; links not followed) are checked.\n"
    "N worker processes (default: the cores this process may use,\n"
    "cgroup-aware) check one case each, with 1/N of --max-memory; reports\n"
    "come in input order, then one verdict line per case and the totals.\n"
    "--json: one document; --junit FILE: one testcase per case.\n"
    "exit status: 0 all equal, 1 some tensor differs, 2 invalid case\n"
    "(many cases: the worst case's; a worker that dies is an ERROR: 2)\n";

static int is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* Check every target, then write every file, then commit. */
static kvg_status write_outputs(const kvg_case *c, const kvg_case_set *out,
                                kvg_outset *o, kvg_diag *diag)
{
    char **protect;
    int n = 0, i;
    kvg_status st;
    char *names[KVG_CASE_MAX_TENSORS] = {0};

    if ((st = kvg_outset_forbid_dir(o, c->dir, "the case directory",
                                    diag)) != KVG_OK)
        return st;
    if ((protect = kvg_cli_case_files(c, &n)) == NULL)
        return kvg_diag_set(diag, KVG_ERR_NOMEM, "--out", -1, -1,
                            "out of memory");
    for (i = 0; st == KVG_OK && i < out->count; i++) {
        names[i] = kvg_path_join("", out->items[i].name, ".npy", diag);
        st = names[i] == NULL
                 ? KVG_ERR_NOMEM
                 : kvg_outset_check(o, names[i], (const char *const *)protect,
                                    n, diag);
    }
    for (i = 0; st == KVG_OK && i < out->count; i++)
        st = kvg_outset_add_npy(o, names[i], &out->items[i].t, diag);
    if (st == KVG_OK)
        st = kvg_outset_commit(o, diag);
    for (i = 0; i < n; i++)
        free(protect[i]);
    free(protect);
    for (i = 0; i < KVG_CASE_MAX_TENSORS; i++)
        free(names[i]);
    return st;
}

static int cmd_run(int argc, char **argv)
{
    const char *case_dir = NULL, *out_dir = ".";
    kvg_case c;
    kvg_case_set out;
    kvg_outset *o = NULL;
    kvg_diag diag;
    kvg_status st;
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
    if (out_dir[0] == '\0')
        return kvg_cli_usage_error("run: --out is an empty path; give a "
                                   "directory%s", "");
    if (!kvg_cli_load_with(case_dir, &c,
                           KVG_CASE_NO_EXPECTED_DATA | KVG_CASE_MAP_BIG))
        return KVG_EXIT_INVALID;
    memset(&out, 0, sizeof out);
    kvg_diag_clear(&diag);
    if ((st = kvg_case_run(&c, &out, &diag)) != KVG_OK) {
        kvg_cli_run_error(case_dir, st, &diag);
        rc = KVG_EXIT_INVALID;
    } else if (kvg_outset_begin(&o, out_dir, &diag) != KVG_OK ||
               write_outputs(&c, &out, o, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: run %s: nothing written: %s\n", case_dir,
                diag.message);
        rc = KVG_EXIT_INVALID;
    } else {
        for (i = 0; i < kvg_outset_count(o); i++)
            printf("wrote %s\n", kvg_outset_path(o, i));
    }
    kvg_outset_end(o);
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    const char *case_dir = NULL;
    kvg_case c;
    int i, rc;

    for (i = 0; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(k_check_help, stdout);
            return KVG_EXIT_PASS;
        }
    if (kvg_cli_check_is_batch(argc, argv))
        return kvg_cli_check_batch(argc, argv);
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
    if (!kvg_cli_load_with(case_dir, &c, KVG_CASE_MAP_BIG))
        return KVG_EXIT_INVALID;
    rc = kvg_cli_check(&c, stdout);
    kvg_case_free(&c);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    /* a mapped file another process truncates: exit 2 naming it, not a
     * bare SIGBUS */
    (void)kvg_map_guard_install(kvg_cli_file_shrank);
    if (!kvg_cli_global_options(&argc, argv))
        return KVG_EXIT_INVALID;
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
        else if (strcmp(argv[2], "prepare") == 0)
            kvg_cli_prepare_print_help(stdout);
        else if (strcmp(argv[2], "scan") == 0)
            fputs(kvg_cli_scan_help, stdout);
        else if (strcmp(argv[2], "explain-layout") == 0)
            fputs(kvg_cli_explain_layout_help, stdout);
        else
            return kvg_cli_usage_error("help: unknown command %s", argv[2]);
        return KVG_EXIT_PASS;
    }
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "compare") == 0) /* --cases: many, by batch.c */
        return kvg_cli_compare_is_batch(argc - 2, argv + 2)
                   ? kvg_cli_compare_batch(argc - 2, argv + 2)
                   : kvg_cli_compare(argc - 2, argv + 2);
    if (strcmp(argv[1], "prepare") == 0)
        return kvg_cli_prepare(argc - 2, argv + 2);
    if (strcmp(argv[1], "scan") == 0)
        return kvg_cli_scan(argc - 2, argv + 2);
    if (strcmp(argv[1], "explain-layout") == 0)
        return argc == 3 && is_help(argv[2])
                   ? (fputs(kvg_cli_explain_layout_help, stdout),
                      KVG_EXIT_PASS)
                   : kvg_cli_explain_layout(argc - 2, argv + 2);
    return kvg_cli_usage_error("unknown command %s", argv[1]);
}

/* Every command's report goes to stdout; a report that could not be
 * written (a full disk, a closed pipe, /dev/full) is not a verdict the
 * caller has seen, so it is an error (exit 2) whatever the command found.
 * stdout is fully buffered when it is not a terminal: the failure shows at
 * the flush at the latest. */
int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);

    errno = 0;
    if (fflush(stdout) != 0) {
        fprintf(stderr, "kvgold: cannot write the report to standard "
                        "output: %s\n", strerror(errno ? errno : EIO));
        return KVG_EXIT_INVALID;
    }
    if (ferror(stdout)) { /* an earlier write failed; its errno is gone */
        fprintf(stderr, "kvgold: cannot write the report to standard "
                        "output: a write to it failed\n");
        return KVG_EXIT_INVALID;
    }
    return rc;
}
