/*
 * tools/cli/prepare.c - `kvgold prepare CASE... --out DIR`: ops-test-kit
 * replay directories with kvgold as the golden (docs/ttk.md).
 *
 * ops-test-kit's two-stage run prepares, per CSV testcase, a directory
 * <manual-data-dir>/<testcase_name>/ of headerless files, then replays it on
 * the NPU machine: input_<i>_<dtype>.bin (the API's tensor arguments in
 * signature order, optional ones left out as an empty input_<i>_none.bin)
 * and golden_<i>_<dtype>__shape_<AxB>.bin (the golden outputs; an empty
 * golden_<i>_none.bin suppresses that output's comparison). Its reader
 * accepts nothing else in the directory. This writes that layout for the
 * e2e path (torch_npu API names), with kvgold's outputs as the goldens.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case.h"
#include "cli.h"
#include "fileio.h"
#include "json.h"
#include "outset.h"
#include "report_targets.h"
#include "binding.h"
#include "ttk_csv.h"

static const char k_help_head[] =
    "usage: kvgold prepare CASE... --out DIR [--csv FILE]\n"
    "\n"
    "Write one ops-test-kit replay directory DIR/<name> per case, <name>\n"
    "being the case directory's own name (it must be the CSV testcase_name:\n"
    "letters, digits, '_', '.', '-', at most 120 characters, not starting or\n"
    "ending with '.' or '_'). Each holds the case's inputs in the torch_npu\n"
    "API's argument order, input_<i>_<dtype>.bin, and kvgold's outputs as\n"
    "golden_<i>_<dtype>__shape_<AxB>.bin: first what the API returns (one\n"
    "None when it returns None), then the caches it updates in place; an\n"
    "optional tensor the case leaves out, or an output it does not produce,\n"
    "is an empty <role>_<i>_none.bin.\n"
    "Replay with: python3 -m ttk e2e -i CSV --manual-data-dirs DIR ...\n"
    "--csv FILE also writes that CSV: a testcase row per case (its\n"
    "testcase_name, api_name, the shapes and dtypes of the API's tensors,\n"
    "every attribute of the API with the case's value or kvgold's default,\n"
    "and inplace_input_indexes, the caches ops-test-kit must compare).\n";
static const char k_help_tail[] =
    "All or nothing per directory: every case is checked, computed and\n"
    "written to temporary files before any directory is committed; an\n"
    "existing DIR/<name> may only hold files of the names being written.\n"
    "exit status: 0 written, 2 invalid case, usage or I/O error\n";

/* The operators with a torch_npu call form, "a, b and c", in `buf`. */
static const char *prepare_ops(char *buf, size_t cap)
{
    const kvg_binding *const *b;
    size_t used = 0, i, n = 0, total = 0;

    for (b = kvg_bindings; *b != NULL; b++)
        for (i = 0; i < (*b)->n_calls; i++)
            if ((*b)->calls[i].kind == KVG_BINDING_TORCH_NPU) {
                total++;
                break;
            }
    buf[0] = '\0';
    for (b = kvg_bindings; *b != NULL; b++)
        for (i = 0; i < (*b)->n_calls; i++)
            if ((*b)->calls[i].kind == KVG_BINDING_TORCH_NPU) {
                n++;
                if (used < cap)
                    used += (size_t)snprintf(buf + used, cap - used, "%s%s",
                                             n == 1 ? ""
                                             : n == total ? " and " : ", ",
                                             (*b)->op);
                break;
            }
    return buf;
}

void kvg_cli_prepare_print_help(FILE *f)
{
    const kvg_binding *const *b;
    size_t i;

    fputs(k_help_head, f);
    fputs("Operators (each case goes to the first of its operator's APIs "
          "whose\nselecting input it has):\n", f);
    for (b = kvg_bindings; *b != NULL; b++)
        for (i = 0; i < (*b)->n_calls; i++) {
            const kvg_binding_call *call = &(*b)->calls[i];
            if (call->kind != KVG_BINDING_TORCH_NPU)
                continue;
            fprintf(f, "  %s: %s", (*b)->op, call->api);
            if (call->selector != NULL)
                fprintf(f, " (a case with %s)", call->selector);
            if (call->note != NULL)
                fprintf(f, ", %s", call->note);
            fputc('\n', f);
        }
    fputs("See docs/ttk.md.\n", f);
    fputs(k_help_tail, f);
}

/* ops-test-kit's directory name is the testcase_name itself only when the
 * name is made of [A-Za-z0-9_.-], has no leading or trailing '.' or '_'
 * and is at most 120 characters; otherwise it appends a hash of the name,
 * which this command does not guess at. */
static const char *name_problem(const char *name)
{
    size_t n = strlen(name), i;
    if (n == 0)
        return "is empty";
    if (n > 120)
        return "is longer than 120 characters";
    for (i = 0; i < n; i++) {
        char ch = name[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
              ch == '-'))
            return "has a character other than letters, digits, '_', '.' "
                   "and '-'";
    }
    if (name[0] == '.' || name[0] == '_' || name[n - 1] == '.' ||
        name[n - 1] == '_')
        return "starts or ends with '.' or '_'";
    return NULL;
}

/* The last component of a case path, trailing slashes ignored. */
static int base_name(const char *path, char *out, size_t cap)
{
    size_t end = strlen(path), start;
    while (end > 1 && path[end - 1] == '/')
        end--;
    start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    if (end - start + 1 > cap)
        return 0;
    memcpy(out, path + start, end - start);
    out[end - start] = '\0';
    return 1;
}

#define FILE_NAME_MAX 256

typedef struct ttk_file {
    char name[FILE_NAME_MAX];
    const kvg_tensor *t; /* NULL: a None marker */
} ttk_file;

typedef struct ttk_plan {
    int count;
    ttk_file files[2 * KVG_CASE_MAX_TENSORS];
} ttk_plan;

/* ops-test-kit's dtype name of a golden output: kvg_ttk_dtype_name's, or
 * "uint8" for the byte-stored packed fp4 pairs and E8M0 scales, which
 * ops-test-kit has no name for and torch_npu returns as uint8 tensors of
 * kvgold's shape (a byte per fp4 pair, a byte per scale); NULL if none. */
static const char *golden_dtype_name(kvg_dtype dt)
{
    if (dt == KVG_FP4_E2M1 || dt == KVG_FP4_E1M2 || dt == KVG_E8M0)
        return "uint8";
    return kvg_ttk_dtype_name(dt);
}

static int plan_add(ttk_plan *p, const char *role, int index,
                    const kvg_tensor *t)
{
    ttk_file *f = &p->files[p->count];
    size_t used;
    int i;

    if (p->count == (int)(sizeof p->files / sizeof p->files[0]))
        return 0;
    if (t == NULL) {
        (void)snprintf(f->name, sizeof f->name, "%s_%d_none.bin", role,
                       index);
    } else {
        used = (size_t)snprintf(f->name, sizeof f->name, "%s_%d_%s", role,
                                index,
                                strcmp(role, "golden") == 0
                                    ? golden_dtype_name(t->dtype)
                                    : kvg_ttk_dtype_name(t->dtype));
        if (strcmp(role, "golden") == 0) {
            /* the shape lets the replay refuse an output of the right
             * size but the wrong shape; rank 0 is "scalar" */
            used += (size_t)snprintf(f->name + used, sizeof f->name - used,
                                     "__shape_%s",
                                     t->rank == 0 ? "scalar" : "");
            for (i = 0; i < t->rank && used < sizeof f->name; i++)
                used += (size_t)snprintf(f->name + used,
                                         sizeof f->name - used, "%s%lld",
                                         i ? "x" : "",
                                         (long long)t->shape[i]);
        }
        if (used < sizeof f->name)
            used += (size_t)snprintf(f->name + used, sizeof f->name - used,
                                     ".bin");
        if (used >= sizeof f->name)
            return 0;
    }
    f->t = t;
    p->count++;
    return 1;
}

/* The selectors of operator `op`'s torch forms, "a or b", in `buf`: 1 if
 * every such form has one (a case matching none has no form), else 0 (no
 * torch form at all, or the case would have found one). */
static int torch_selectors(const char *op, char *buf, size_t cap)
{
    const kvg_binding *const *b;
    size_t used = 0, i, n = 0;

    buf[0] = '\0';
    for (b = kvg_bindings; *b != NULL; b++) {
        if (strcmp((*b)->op, op) != 0)
            continue;
        for (i = 0; i < (*b)->n_calls; i++) {
            const kvg_binding_call *f = &(*b)->calls[i];
            if (f->kind != KVG_BINDING_TORCH_NPU)
                continue;
            if (f->selector == NULL)
                return 0;
            if (used < cap)
                used += (size_t)snprintf(buf + used, cap - used, "%s%s",
                                         n++ ? " or " : "", f->selector);
        }
    }
    return n > 0;
}

/* The form's own condition on the case (binding.h): 1 if it holds, else 0
 * with the reason said. */
static int checked(const kvg_case *c, const kvg_binding_call *api)
{
    kvg_diag diag;
    kvg_status st;

    kvg_diag_clear(&diag);
    if ((st = api->check(c, api, &diag)) == KVG_OK)
        return 1;
    fprintf(stderr, "kvgold: %s %s: %s\n",
            st == KVG_ERR_PARAM_INVALID ? "prepare" : "invalid case", c->dir,
            diag.message);
    return 0;
}

/* Everything about case `c` that can be refused before it is run: the
 * generic checks here, the operator's own in its binding. */
static int check_case(const kvg_case *c, const kvg_binding_call *api)
{
    int i;

    for (i = 0; i < c->inputs.count; i++) {
        const kvg_case_tensor *ct = &c->inputs.items[i];
        /* an output the API returns (not an argument) that the case gives
         * anyway, e.g. poisoned: the operator overwrites it whole, so the
         * case means the same without it */
        if (!kvg_binding_has(api->tensors, ct->name) &&
            kvg_binding_has(api->outputs, ct->name))
            continue;
        if (!kvg_binding_has(api->tensors, ct->name)) {
            fprintf(stderr, "kvgold: prepare %s: input \"%s\" is not an "
                    "argument of %s; ops-test-kit could not pass it\n",
                    c->dir, ct->name, api->api);
            return 0;
        }
        if (kvg_ttk_dtype_name(ct->t.dtype) == NULL) {
            fprintf(stderr, "kvgold: prepare %s: input \"%s\": dtype %s "
                    "is not mapped to ops-test-kit's files (its 4-bit "
                    "shapes count codes, kvgold's count bytes of two)\n",
                    c->dir, ct->name, kvg_dtype_name(ct->t.dtype));
            return 0;
        }
    }
    return api->check == NULL || checked(c, api);
}

/* The files of case `c` with its golden outputs `out`. */
static int plan_case(const kvg_case *c, const kvg_binding_call *api,
                     const kvg_case_set *out, ttk_plan *p)
{
    int i, returned, lead, n_in, slot[KVG_SCAN_MAX_ARGS];
    kvg_diag diag;
    p->count = 0;
    /* the goldens in the order ops-test-kit lists the device's outputs:
     * what the API returns - [None] when it returns None - then the
     * tensors it writes in place (ttk_csv.h, kvg_ttk_form_inplace) */
    if (kvg_ttk_form_inplace(api, slot, KVG_SCAN_MAX_ARGS, &n_in, &returned,
                             &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: prepare %s: %s\n", c->dir, diag.message);
        return 0;
    }
    for (i = 0; i < n_in; i++)
        if (kvg_case_find(&c->inputs, api->tensors[slot[i]]) == NULL) {
            fprintf(stderr, "kvgold: prepare %s: input \"%s\" is written "
                    "in place by %s, which needs it; the case leaves it "
                    "out\n", c->dir, api->tensors[slot[i]], api->api);
            return 0;
        }
    lead = returned == 0;
    for (i = 0; i < out->count; i++)
        if (!kvg_binding_has(api->outputs, out->items[i].name) ||
            golden_dtype_name(out->items[i].t.dtype) == NULL) {
            fprintf(stderr, "kvgold: prepare %s: output \"%s\" has no "
                    "golden slot of %s\n", c->dir, out->items[i].name,
                    api->api);
            return 0;
        }
    for (i = 0; api->tensors[i] != NULL; i++)
        if (!plan_add(p, "input", i, kvg_case_find(&c->inputs,
                                                   api->tensors[i])))
            return 0;
    if (lead && !plan_add(p, "golden", 0, NULL))
        return 0;
    for (i = 0; api->outputs[i] != NULL; i++)
        if (!plan_add(p, "golden", i + lead,
                      kvg_case_find(out, api->outputs[i])))
            return 0;
    return 1;
}

/* An existing case directory may only hold files this run replaces: any
 * other entry would make ops-test-kit refuse the directory. */
static int check_target(const char *dir, const ttk_plan *p)
{
    struct stat sb;
    DIR *d;
    struct dirent *e;
    int i, ok = 1;

    if (lstat(dir, &sb) != 0) {
        if (errno == ENOENT)
            return 1;
        fprintf(stderr, "kvgold: prepare: %s: %s\n", dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "kvgold: prepare: %s: is %s, not a directory; "
                "nothing written\n", dir,
                kvg_file_kind((unsigned long)sb.st_mode));
        return 0;
    }
    if ((d = opendir(dir)) == NULL) {
        fprintf(stderr, "kvgold: prepare: %s: %s\n", dir, strerror(errno));
        return 0;
    }
    while (ok && (e = readdir(d)) != NULL) {
        int known = 0;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        for (i = 0; i < p->count && !known; i++)
            known = strcmp(e->d_name, p->files[i].name) == 0;
        if (!known) {
            fprintf(stderr, "kvgold: prepare: %s holds \"%s\", which this "
                    "run does not write; ops-test-kit refuses a case "
                    "directory with any other entry: remove it (or the "
                    "directory) first; nothing written\n", dir, e->d_name);
            ok = 0;
        }
    }
    closedir(d);
    return ok;
}

/* Remove the directories of `path` up to `top` (its first missing
 * ancestor when the run began), deepest first, each only if empty. */
static void take_back_dirs(char *path, size_t top_len)
{
    size_t len = strlen(path);
    while (len >= top_len && len > 0) {
        if (rmdir(path) != 0)
            return;
        while (len > 0 && path[len - 1] != '/')
            len--;
        while (len > 1 && path[len - 1] == '/')
            len--;
        if (len <= 1 || len < top_len)
            return;
        path[len] = '\0';
    }
}

/* The length of the prefix of `path` that is its first missing ancestor
 * (the whole path when only it is missing); 0 when it exists. */
static size_t missing_from(const char *path)
{
    char *p = strdup(path);
    size_t len, top = 0;
    struct stat sb;

    if (p == NULL)
        return 0;
    len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        p[--len] = '\0';
    while (len > 0 && lstat(p, &sb) != 0 && errno == ENOENT) {
        top = len;
        while (len > 0 && p[len - 1] != '/')
            len--;
        while (len > 1 && p[len - 1] == '/')
            len--;
        if (len == 0 || (len == 1 && p[0] == '/'))
            break;
        p[len] = '\0';
    }
    free(p);
    return top;
}

typedef struct prep_case {
    const char *path;
    char name[KVG_CASE_PATH_MAX];
    char *target;    /* DIR/name */
    int created;     /* target did not exist before */
    kvg_outset *set;
    int want_row;    /* --csv: its testcase row into `row` */
    char *row;
} prep_case;

/* Load, check, run and stage case `pc` into its output set. */
static int stage_case(prep_case *pc)
{
    kvg_case c;
    kvg_case_set out;
    kvg_diag diag;
    kvg_status st;
    const kvg_binding_call *api;
    ttk_plan *plan;
    char known[256];
    struct stat sb;
    int i, ok = 0;

    if (!kvg_cli_load_with(pc->path, &c,
                           KVG_CASE_NO_EXPECTED_DATA | KVG_CASE_MAP_BIG))
        return 0;
    memset(&out, 0, sizeof out);
    plan = (ttk_plan *)malloc(sizeof *plan);
    if (plan == NULL) {
        fprintf(stderr, "kvgold: prepare %s: out of memory\n", pc->path);
        kvg_case_free(&c);
        return 0;
    }
    if ((api = kvg_binding_find(&c, KVG_BINDING_TORCH_NPU)) == NULL) {
        if (torch_selectors(c.op, known, sizeof known))
            fprintf(stderr, "kvgold: prepare %s: no torch API of operator "
                    "%s takes this case; its forms take cases with %s\n",
                    pc->path, c.op, known);
        else
            fprintf(stderr, "kvgold: prepare %s: operator %s has no "
                    "torch_npu API that ops-test-kit's e2e path calls; "
                    "prepare knows %s\n", pc->path, c.op,
                    prepare_ops(known, sizeof known));
        goto done;
    }
    if (!check_case(&c, api))
        goto done;
    kvg_diag_clear(&diag);
    if ((st = kvg_case_run(&c, &out, &diag)) != KVG_OK) {
        kvg_cli_run_error(pc->path, st, &diag);
        goto done;
    }
    if (!plan_case(&c, api, &out, plan))
        goto done;
    if (!check_target(pc->target, plan))
        goto done;
    kvg_diag_clear(&diag);
    if (pc->want_row &&
        kvg_ttk_csv_format_row(&c, api, pc->name, &pc->row, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: prepare %s: --csv: %s; nothing written\n",
                pc->path, diag.message);
        goto done;
    }
    pc->created = lstat(pc->target, &sb) != 0;
    kvg_diag_clear(&diag);
    if (kvg_outset_begin(&pc->set, pc->target, &diag) != KVG_OK) {
        fprintf(stderr, "kvgold: prepare %s: nothing written: %s\n",
                pc->path, diag.message);
        goto done;
    }
    for (i = 0; i < plan->count; i++) {
        const kvg_tensor *t = plan->files[i].t;
        /* headerless C-order bytes; a None marker is an empty file */
        if (kvg_outset_add_bytes(pc->set, plan->files[i].name,
                                 t != NULL ? t->data : NULL,
                                 t != NULL ? t->nbytes : 0, &diag) !=
            KVG_OK) {
            fprintf(stderr, "kvgold: prepare %s: nothing written: %s\n",
                    pc->path, diag.message);
            goto done;
        }
    }
    ok = 1;
done:
    free(plan);
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    return ok;
}

/* --csv: its text, rendered into the output set. */
typedef struct csv_text {
    const prep_case *cases;
    int n;
} csv_text;

static kvg_status write_csv(FILE *out, void *user, kvg_diag *diag)
{
    const csv_text *c = (const csv_text *)user;
    int i;
    (void)diag;
    fputs(kvg_ttk_csv_header, out);
    for (i = 0; i < c->n; i++)
        fputs(c->cases[i].row, out);
    return KVG_OK;
}

/* Before any case is run: --csv must be a file kvgold may replace
 * (report_targets.h), never a file of a case it reads nor among them
 * (each case directory is protected as a tree), nor inside a replay
 * directory it writes. 1, or 0 said on stderr. */
static int check_csv(const kvg_cli_target *t, const prep_case *cases, int n)
{
    kvg_cli_protect *p = (kvg_cli_protect *)calloc(2 * (size_t)n + 1,
                                                   sizeof *p);
    int i, ok;

    if (p == NULL) {
        fprintf(stderr, "kvgold: prepare: out of memory\n");
        return 0;
    }
    for (i = 0; i < n; i++) {
        p[2 * i].path = cases[i].path;
        p[2 * i].role = "the case directory";
        p[2 * i].what = "a case's files";
        p[2 * i].tree = 1;
        p[2 * i + 1].path = cases[i].target;
        p[2 * i + 1].role = "the replay directory";
        p[2 * i + 1].what = "the replay files (ops-test-kit refuses any "
                            "other entry)";
        p[2 * i + 1].tree = 1;
    }
    ok = kvg_cli_targets_check("prepare", "nothing written", t, 1, p, 2 * n);
    free(p);
    return ok;
}

int kvg_cli_prepare(int argc, char **argv)
{
    const char *out_dir = NULL, *csv = NULL;
    kvg_cli_staged *csv_set = NULL;
    kvg_cli_target csv_target;
    csv_text text;
    prep_case *cases;
    struct stat sb;
    int i, j, n = 0, rc = KVG_EXIT_INVALID, committed = 0;
    size_t out_missing = 0;

    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            kvg_cli_prepare_print_help(stdout);
            return KVG_EXIT_PASS;
        }
        if (strcmp(argv[i], "--out") == 0) {
            if (++i == argc)
                return kvg_cli_usage_error("prepare: --out needs a "
                                           "directory%s", "");
            out_dir = argv[i];
        } else if (strcmp(argv[i], "--csv") == 0) {
            if (++i == argc || argv[i][0] == '\0')
                return kvg_cli_usage_error("prepare: --csv needs a "
                                           "file%s", "");
            csv = argv[i];
        } else if (argv[i][0] == '-') {
            return kvg_cli_usage_error("prepare: unknown option %s",
                                       argv[i]);
        }
    }
    if (out_dir == NULL || out_dir[0] == '\0')
        return kvg_cli_usage_error("prepare: give the output directory "
                                   "with --out DIR%s", "");
    cases = (prep_case *)calloc((size_t)argc + 1, sizeof *cases);
    if (cases == NULL) {
        fprintf(stderr, "kvgold: prepare: out of memory\n");
        return KVG_EXIT_INVALID;
    }
    for (i = 0; i < argc; i++) {
        const char *why;
        if (strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "--csv") == 0) {
            i++;
            continue;
        }
        cases[n].path = argv[i];
        cases[n].want_row = csv != NULL;
        if (!base_name(argv[i], cases[n].name, sizeof cases[n].name)) {
            kvg_cli_usage_error("prepare: case path too long: %s", argv[i]);
            goto end;
        }
        if ((why = name_problem(cases[n].name)) != NULL) {
            fprintf(stderr, "kvgold: prepare: case directory name \"%s\" "
                    "(of %s) %s: ops-test-kit would not use it as the "
                    "directory of testcase \"%s\"; rename the case "
                    "directory to the CSV's testcase_name\n",
                    cases[n].name, argv[i], why, cases[n].name);
            goto end;
        }
        for (j = 0; j < n; j++)
            if (strcmp(cases[j].name, cases[n].name) == 0) {
                fprintf(stderr, "kvgold: prepare: %s and %s would both "
                        "be testcase \"%s\"\n", cases[j].path, argv[i],
                        cases[n].name);
                goto end;
            }
        if ((cases[n].target = kvg_path_join(out_dir, cases[n].name, NULL,
                                             NULL)) == NULL) {
            fprintf(stderr, "kvgold: prepare: out of memory\n");
            goto end;
        }
        n++;
    }
    if (n == 0) {
        kvg_cli_usage_error("prepare: give at least one CASE directory%s",
                            "");
        goto end;
    }
    if (lstat(out_dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "kvgold: prepare: --out %s: is %s, not a directory; "
                "nothing written\n", out_dir,
                kvg_file_kind((unsigned long)sb.st_mode));
        goto end;
    }
    memset(&csv_target, 0, sizeof csv_target);
    csv_target.flag = "--csv";
    csv_target.path = csv;
    csv_target.render = write_csv;
    csv_target.user = &text;
    text.cases = cases;
    text.n = n;
    if (csv != NULL && !check_csv(&csv_target, cases, n))
        goto end;
    /* what this run creates it takes back on an error */
    out_missing = missing_from(out_dir);
    for (i = 0; i < n; i++)
        if (!stage_case(&cases[i]))
            goto end;
    /* staged before any directory is committed, committed after them */
    if (csv != NULL &&
        !kvg_cli_targets_stage("prepare", &csv_target, 1, &csv_set))
        goto end;
    for (i = 0; i < n; i++) {
        kvg_diag diag;
        kvg_diag_clear(&diag);
        if (kvg_outset_commit(cases[i].set, &diag) != KVG_OK) {
            fprintf(stderr, "kvgold: prepare %s: not written: %s\n",
                    cases[i].path, diag.message);
            for (j = 0; j < committed; j++)
                fprintf(stderr, "kvgold: prepare: %s was written before "
                        "the error\n", cases[j].target);
            goto end;
        }
        committed++;
        printf("prepared %s (%d files)\n", cases[i].target,
               kvg_outset_count(cases[i].set));
    }
    if (csv_set != NULL) {
        if (!kvg_cli_targets_commit("prepare", csv_set)) {
            fprintf(stderr, "kvgold: prepare: --csv %s: not written (the "
                    "case directories above were)\n", csv);
            goto end;
        }
        printf("wrote %s (%d testcases)\n", csv, n);
    }
    rc = KVG_EXIT_PASS;
end:
    kvg_cli_targets_discard(csv_set);
    for (i = 0; i < argc + 1 && (cases[i].path != NULL); i++) {
        free(cases[i].row);
        kvg_outset_end(cases[i].set);
        /* a directory this run made and did not fill is taken back */
        if (i >= committed && cases[i].created && cases[i].target != NULL)
            (void)rmdir(cases[i].target);
        free(cases[i].target);
    }
    if (rc != KVG_EXIT_PASS && committed == 0 && out_missing > 0) {
        char *p = strdup(out_dir);
        if (p != NULL) {
            size_t len = strlen(p);
            while (len > 1 && p[len - 1] == '/')
                p[--len] = '\0';
            take_back_dirs(p, out_missing);
        }
        free(p);
    }
    free(cases);
    return rc;
}
