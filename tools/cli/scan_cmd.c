/*
 * tools/cli/scan_cmd.c - `kvgold scan PATH`: judge every call of a kvgold
 * operator in a framework's dump (tools/lib/scan). Calls are judged by worker
 * processes (--jobs), each writing its verdicts to its own temporary
 * file; the report lists them in the dump's order whatever finished first.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"

#include "cli.h"
#include "fileio.h"
#include "html_common.h"
#include "membudget.h"
#include "scan.h"
#include "read_common.h"
#include "report_targets.h"
#include "scan_jobs.h"

const char *const kvg_cli_scan_help =
    "usage: kvgold scan PATH [--format auto|msprobe|atb|cann|ttk] [--op NAME]\n"
    "                   [--json] [--junit FILE] [--html FILE] [--jobs N]\n"
    "                   [--shard I/N] [--standard NAME] [--attr NAME=VALUE]\n"
    "                   [--csv FILE]\n"
    "\n"
    "Find every call of a kvgold operator in a dump of a model step, map its\n"
    "dumped tensors and arguments onto the operator (the pre-call caches from\n"
    "its inputs, the NPU's post-call caches from its outputs), run the golden\n"
    "and judge each output as `kvgold compare` does: one verdict per call.\n"
    "Every entry that might be such a call ends PASS, FAIL or NOT JUDGED with\n"
    "the reason (one that cannot be read too; the `entries:` line adds them\n"
    "up); no symbolic link below PATH is followed.\n"
    "  msprobe  step*/rank*/dump.json + dump_tensor_data/*.npy (.pt: use the\n"
    "           Python kvgold.scan, which converts them)\n"
    "  atb      operation directories with before/intensorN.bin and\n"
    "           after/outtensorN.bin\n"
    "  cann     operator dump files (8-byte length, DumpData header, data)\n"
    "  ttk      ops-test-kit directories (input_<i>_<dtype>.bin, golden_...)\n"
    "docs/scan.md has the details and a worked example per format.\n"
    "\n"
    "  --format F       the dump's format (default auto: detected)\n"
    "  --op NAME        judge only calls of this kvgold operator\n"
    "  --json           one JSON object instead of text\n"
    "  --junit FILE     also write JUnit XML, a testcase per call\n"
    "  --html FILE      also write an index of calls linking each call's page\n"
    "                   (cache maps, histograms) in FILE's directory\n"
    "  --jobs N         worker processes (default: the CPUs available)\n"
    "  --shard I/N      judge only the I-th of N deterministic parts (1..N)\n"
    "  --standard NAME  single, mixed, mixed_ttk or commercial (default: as\n"
    "                   kvgold compare)\n"
    "  --attr NAME=VALUE  an attribute or option the dump does not record\n"
    "                   (ops-test-kit, CANN dumps), VALUE as case.json writes\n"
    "                   it (--attr epsilon=1e-06 --attr 'cache_mode=\"PA\"');\n"
    "                   for every call whose operator has NAME; repeatable;\n"
    "                   a NAME no operator (of --op) has, or a VALUE that is\n"
    "                   not JSON, is a usage error\n"
    "  --csv FILE       ops-test-kit's testcase CSV (-i of python3 -m ttk):\n"
    "                   the row named as a case directory gives its API,\n"
    "                   input shapes, dtypes and attributes (ttk only)\n"
    "exit status: 0 every call was judged and passed;\n"
    "             1 a call failed or could not be judged (the reason said),\n"
    "               or the dump has no call of a kvgold operator (--op);\n"
    "             2 usage, or PATH unreadable / of no known format\n";

typedef struct scan_opts {
    const char *path;
    kvg_scan_format format;
    const char *junit, *html, *csv;
    int json, jobs, shard_i, shard_n;
    kvg_scan_opts e;
    /* the reconciliation: entries the reader saw = calls judged here +
     * calls of other shards + entries of other operators */
    size_t entries, other_shards;
} scan_opts;

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int parse_args(int argc, char **argv, scan_opts *o)
{
    int i;

    kvg_compare_args dflt;

    memset(o, 0, sizeof *o);
    kvg_compare_args_init(&dflt); /* compare's default standard */
    o->e.standard = dflt.standard;
    o->shard_i = o->shard_n = 1;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--format") == 0 || strcmp(a, "--op") == 0 ||
                    strcmp(a, "--junit") == 0 || strcmp(a, "--html") == 0 ||
                    strcmp(a, "--jobs") == 0 || strcmp(a, "--shard") == 0 ||
                    strcmp(a, "--standard") == 0 || strcmp(a, "--attr") == 0 ||
                    strcmp(a, "--csv") == 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(kvg_cli_scan_help, stdout);
            return KVG_EXIT_PASS;
        }
        if (takes && v == NULL)
            return kvg_cli_usage_error("scan: %s needs a value", a);
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--format") == 0) {
            if (!kvg_scan_format_from_name(v, &o->format))
                return kvg_cli_usage_error("scan: --format needs auto, "
                                           "msprobe, atb, cann or ttk, got "
                                           "%s", v);
        } else if (strcmp(a, "--op") == 0) {
            if (kvg_op_find(v) == NULL)
                return kvg_cli_usage_error("scan: --op %s is no kvgold "
                                           "operator", v);
            o->e.op = v;
        } else if (strcmp(a, "--attr") == 0) {
            if (o->e.n_attrs == KVG_SCAN_MAX_ARGS)
                return kvg_cli_usage_error("scan: more than 24 --attr "
                                           "(the last: %s)", v);
            o->e.attrs[o->e.n_attrs++] = v;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = v;
        } else if (strcmp(a, "--junit") == 0) {
            o->junit = v;
        } else if (strcmp(a, "--html") == 0) {
            o->html = v;
        } else if (strcmp(a, "--jobs") == 0) {
            if (!parse_int(v, 1, 1024, &o->jobs))
                return kvg_cli_usage_error("scan: --jobs needs 1..1024, got "
                                           "%s", v);
        } else if (strcmp(a, "--shard") == 0) {
            const char *slash = strchr(v, '/');
            char first[16];
            if (slash == NULL || (size_t)(slash - v) >= sizeof first)
                return kvg_cli_usage_error("scan: --shard needs I/N, got %s",
                                           v);
            memcpy(first, v, (size_t)(slash - v));
            first[slash - v] = '\0';
            if (!parse_int(slash + 1, 1, 1000000, &o->shard_n) ||
                !parse_int(first, 1, o->shard_n, &o->shard_i))
                return kvg_cli_usage_error("scan: --shard needs I/N with "
                                           "1 <= I <= N, got %s", v);
        } else if (strcmp(a, "--standard") == 0) {
            if (!kvg_compare_standard_from_name(v, &o->e.standard))
                return kvg_cli_usage_error("scan: --standard needs single, "
                                           "mixed, mixed_ttk or commercial, "
                                           "got %s", v);
        } else if (a[0] == '-') {
            return kvg_cli_usage_error("scan: unknown option %s", a);
        } else if (o->path == NULL) {
            o->path = a;
        } else {
            return kvg_cli_usage_error("scan: one PATH only, got %s too", a);
        }
        if (takes)
            i++;
    }
    if (o->path == NULL)
        return kvg_cli_usage_error("scan: needs PATH%s", "");
    /* after --op, which narrows the names an --attr may have */
    for (i = 0; i < o->e.n_attrs; i++) {
        kvg_diag d;
        kvg_diag_clear(&d);
        if (kvg_scan_attr_check(o->e.attrs[i], o->e.op, &d) != KVG_OK)
            return kvg_cli_usage_error("scan: %s", d.message);
    }
    if (o->jobs == 0)
        o->jobs = kvg_scan_default_jobs();
    return -1;
}

/* ---- workers ----------------------------------------------------------- */

static int put_blob(FILE *f, const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;
    return fwrite(&n, sizeof n, 1, f) == 1 &&
           (n == 0 || fwrite(s, 1, n, f) == n);
}

static int get_blob(FILE *f, char **s)
{
    size_t n;
    *s = NULL;
    if (fread(&n, sizeof n, 1, f) != 1 || n > ((size_t)1 << 34))
        return 0;
    if (n == 0)
        return 1;
    if ((*s = (char *)malloc(n + 1)) == NULL || fread(*s, 1, n, f) != n) {
        free(*s);
        *s = NULL;
        return 0;
    }
    (*s)[n] = '\0';
    return 1;
}

/* One record: the index, the result without its pointers, the texts. */
static int put_result(FILE *f, size_t k, const kvg_scan_result *r)
{
    kvg_scan_result flat = *r;
    flat.text = flat.json = NULL;
    return fwrite(&k, sizeof k, 1, f) == 1 &&
           fwrite(&flat, sizeof flat, 1, f) == 1 && put_blob(f, r->text) &&
           put_blob(f, r->json);
}

static void judge_range(const kvg_scan_list *l, const size_t *pick,
                        size_t n, size_t first, size_t step,
                        const kvg_scan_opts *e, FILE *f,
                        kvg_scan_result *res)
{
    size_t k;
    for (k = first; k < n; k += step) {
        kvg_scan_result r;
        kvg_scan_judge(&l->calls[pick[k]], pick[k], e, &r);
        if (f != NULL) {
            if (!put_result(f, k, &r))
                _exit(3);
            kvg_scan_result_free(&r);
        } else {
            res[k] = r;
        }
    }
}

/* 0 when a worker stopped with exit 2 (a file it mapped shrank: the
 * mapping guard named it), else 1. */
static int run_workers(const kvg_scan_list *l, const size_t *pick, size_t n,
                       int jobs, const kvg_scan_opts *e,
                       kvg_scan_result *res)
{
    FILE *tmp[1024];
    pid_t pid[1024];
    int w, status, unreadable = 0;
    uint64_t limit = kvg_mem_limit();

    if ((size_t)jobs > n)
        jobs = (int)(n ? n : 1);
    if (jobs <= 1) {
        judge_range(l, pick, n, 0, 1, e, NULL, res);
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    for (w = 0; w < jobs; w++) {
        if ((tmp[w] = tmpfile()) == NULL) {
            fprintf(stderr, "kvgold: scan: cannot make a temporary file: "
                            "%s\n", strerror(errno));
            jobs = w;
            break;
        }
        pid[w] = fork();
        if (pid[w] == 0) {
            /* each worker gets its share of the memory limit */
            if (limit != 0)
                kvg_mem_set_limit(limit / (uint64_t)jobs,
                                  "the --max-memory share of one worker");
            judge_range(l, pick, n, (size_t)w, (size_t)jobs, e, tmp[w],
                        NULL);
            _exit(fflush(tmp[w]) == 0 ? 0 : 3);
        }
        if (pid[w] < 0) {
            fprintf(stderr, "kvgold: scan: fork: %s\n", strerror(errno));
            fclose(tmp[w]);
            jobs = w;
            break;
        }
    }
    for (w = 0; w < jobs; w++) {
        size_t k;
        kvg_scan_result r;
        while (waitpid(pid[w], &status, 0) < 0 && errno == EINTR)
            ;
        rewind(tmp[w]);
        while (fread(&k, sizeof k, 1, tmp[w]) == 1 &&
               fread(&r, sizeof r, 1, tmp[w]) == 1 && k < n) {
            if (!get_blob(tmp[w], &r.text) || !get_blob(tmp[w], &r.json))
                break;
            res[k] = r;
            res[k].op[sizeof r.op - 1] = '\0';
            res[k].reason[sizeof r.reason - 1] = '\0';
            res[k].page[sizeof r.page - 1] = '\0';
        }
        fclose(tmp[w]);
        if (WIFEXITED(status) && WEXITSTATUS(status) == KVG_EXIT_INVALID)
            unreadable = 1; /* it said which file (the mapping guard) */
        else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(stderr, "kvgold: scan: worker %d %s %d\n", w,
                    WIFSIGNALED(status) ? "died of signal" : "exited",
                    WIFSIGNALED(status) ? WTERMSIG(status)
                                        : WEXITSTATUS(status));
    }
    return !unreadable;
}

/* ---- reports ----------------------------------------------------------- */

static const char *verdict_name(kvg_verdict v)
{
    return v == KVG_VERDICT_PASS   ? "PASS"
           : v == KVG_VERDICT_FAIL ? "FAIL"
                                   : "NOT JUDGED";
}

static void print_text(const scan_opts *o, const kvg_scan_list *l,
                       const size_t *pick, const kvg_scan_result *res,
                       size_t n, size_t others, FILE *out)
{
    size_t k, pass = 0, fail = 0, nj = 0;
    fprintf(out, "kvgold scan: %s (%s), %lu calls of kvgold operators",
            o->path, kvg_scan_format_name(o->format), (unsigned long)n);
    if (o->shard_n > 1)
        fprintf(out, " in shard %d/%d", o->shard_i, o->shard_n);
    fprintf(out, ", %lu of other operators\n", (unsigned long)others);
    for (k = 0; k < n; k++) {
        const kvg_scan_call *c = &l->calls[pick[k]];
        const kvg_scan_result *r = &res[k];
        fprintf(out, "\n[%lu] %s  %s  %s -> %s\n    %s\n",
                (unsigned long)pick[k], verdict_name(r->verdict), c->id,
                c->api, r->op[0] ? r->op : "?", c->dir);
        if (c->read_back[0] != '\0')
            fprintf(out, "    read back: %s\n", c->read_back);
        if (r->verdict != KVG_VERDICT_PASS)
            fprintf(out, "    reason: %s\n", r->reason);
        if (r->text != NULL)
            fputs(r->text, out);
        pass += r->verdict == KVG_VERDICT_PASS;
        fail += r->verdict == KVG_VERDICT_FAIL;
        nj += r->verdict == KVG_VERDICT_NOT_JUDGED;
    }
    /* every entry seen is accounted for: no reader drops one */
    fprintf(out, "\nentries: %lu seen = %lu calls of kvgold operators",
            (unsigned long)o->entries, (unsigned long)n);
    if (o->other_shards > 0)
        fprintf(out, " + %lu in other shards",
                (unsigned long)o->other_shards);
    fprintf(out, " + %lu of other operators\n", (unsigned long)others);
    fprintf(out, "scan: %lu calls: %lu passed, %lu failed, %lu not judged"
                 " -> %s\n",
            (unsigned long)n, (unsigned long)pass, (unsigned long)fail,
            (unsigned long)nj,
            fail ? "FAIL" : nj ? "INCOMPLETE" : n ? "PASS" : "NO CALLS");
}

static void print_json(const scan_opts *o, const kvg_scan_list *l,
                       const size_t *pick, const kvg_scan_result *res,
                       size_t n, size_t others, FILE *out)
{
    size_t k, pass = 0, fail = 0, nj = 0;
    fputs("{\"tool\":\"kvgold scan\",\"path\":", out);
    kvg_json_write_string(out, o->path);
    fprintf(out, ",\"format\":\"%s\",\"shard\":[%d,%d],\"other_calls\":%lu,"
                 "\"calls\":[",
            kvg_scan_format_name(o->format), o->shard_i, o->shard_n,
            (unsigned long)others);
    for (k = 0; k < n; k++) {
        const kvg_scan_call *c = &l->calls[pick[k]];
        const kvg_scan_result *r = &res[k];
        fprintf(out, "%s{\"index\":%lu,\"id\":", k ? "," : "",
                (unsigned long)pick[k]);
        kvg_json_write_string(out, c->id);
        fputs(",\"api\":", out);
        kvg_json_write_string(out, c->api);
        fputs(",\"op\":", out);
        kvg_json_write_string(out, r->op);
        fputs(",\"where\":", out);
        kvg_json_write_string(out, c->dir);
        fprintf(out, ",\"verdict\":\"%s\",\"reason\":",
                r->verdict == KVG_VERDICT_PASS   ? "PASS"
                : r->verdict == KVG_VERDICT_FAIL ? "FAIL"
                                                 : "NOT_JUDGED");
        kvg_json_write_string(out, r->reason);
        /* where an in-place cache's post-call state was read back from */
        fputs(",\"read_back\":", out);
        if (c->read_back[0] != '\0')
            kvg_json_write_string(out, c->read_back);
        else
            fputs("null", out);
        fprintf(out, ",\"report\":%s}", r->json != NULL ? r->json : "null");
        pass += r->verdict == KVG_VERDICT_PASS;
        fail += r->verdict == KVG_VERDICT_FAIL;
        nj += r->verdict == KVG_VERDICT_NOT_JUDGED;
    }
    fprintf(out, "],\"summary\":{\"calls\":%lu,\"passed\":%lu,\"failed\":%lu,"
                 "\"not_judged\":%lu,\"entries\":%lu,\"other_calls\":%lu,"
                 "\"other_shards\":%lu},\"verdict\":\"%s\"}\n",
            (unsigned long)n, (unsigned long)pass, (unsigned long)fail,
            (unsigned long)nj, (unsigned long)o->entries,
            (unsigned long)others, (unsigned long)o->other_shards,
            fail ? "FAIL" : nj ? "INCOMPLETE" : n ? "PASS" : "NO_CALLS");
}

static void put_xml(FILE *out, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '<')
            fputs("&lt;", out);
        else if (ch == '>')
            fputs("&gt;", out);
        else if (ch == '&')
            fputs("&amp;", out);
        else if (ch == '"')
            fputs("&quot;", out);
        else if (ch < 0x20 && ch != '\n' && ch != '\t')
            fputc('?', out); /* not allowed in XML 1.0 */
        else
            fputc(ch, out);
    }
}

/* What the report files are made of; `pages` is the index's link to the
 * pages directory (FILE_calls relative to the index). */
typedef struct scan_report {
    const scan_opts *o;
    const kvg_scan_list *l;
    const size_t *pick;
    const kvg_scan_result *res;
    size_t n;
    const char *pages;
} scan_report;

/* --junit, as an outset writer (tools/lib/fsio/outset.h). */
static kvg_status write_junit(FILE *out, void *user, kvg_diag *diag)
{
    const scan_report *rep = (const scan_report *)user;
    const scan_opts *o = rep->o;
    const kvg_scan_list *l = rep->l;
    const size_t *pick = rep->pick;
    const kvg_scan_result *res = rep->res;
    size_t k, fail = 0, err = 0, n = rep->n;
    (void)diag;
    for (k = 0; k < n; k++) {
        fail += res[k].verdict == KVG_VERDICT_FAIL;
        err += res[k].verdict == KVG_VERDICT_NOT_JUDGED;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites><testsuite name=\"kvgold scan ");
    put_xml(out, o->path);
    fprintf(out, "\" tests=\"%lu\" failures=\"%lu\" errors=\"%lu\">\n",
            (unsigned long)n, (unsigned long)fail, (unsigned long)err);
    for (k = 0; k < n; k++) {
        const kvg_scan_call *c = &l->calls[pick[k]];
        const kvg_scan_result *r = &res[k];
        fputs("  <testcase classname=\"kvgold.scan.", out);
        put_xml(out, r->op[0] ? r->op : "unknown");
        fputs("\" name=\"", out);
        put_xml(out, c->id);
        fputs("\">", out);
        if (r->verdict != KVG_VERDICT_PASS) {
            fputs(r->verdict == KVG_VERDICT_FAIL ? "<failure message=\""
                                                 : "<error message=\"",
                  out);
            put_xml(out, r->reason);
            fputs("\">", out);
            if (r->text != NULL)
                put_xml(out, r->text);
            fputs(r->verdict == KVG_VERDICT_FAIL ? "</failure>" : "</error>",
                  out);
        }
        fputs("<system-out>", out);
        put_xml(out, c->dir);
        fputs("</system-out></testcase>\n", out);
    }
    fputs("</testsuite></testsuites>\n", out);
    return KVG_OK; /* a write error is found at the flush */
}

/* --html's index of the calls, as an outset writer. */
static kvg_status write_index(FILE *out, void *user, kvg_diag *diag)
{
    const scan_report *rep = (const scan_report *)user;
    const scan_opts *o = rep->o;
    const kvg_scan_list *l = rep->l;
    const size_t *pick = rep->pick;
    const kvg_scan_result *res = rep->res;
    const char *pages = rep->pages;
    size_t k, n = rep->n;
    (void)diag;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
          "<title>kvgold scan</title><style>body{font-family:sans-serif}"
          "td,th{padding:2px 8px;text-align:left}.PASS{color:#1a7f37}"
          ".FAIL{color:#cf222e}.NJ{color:#9a6700}</style></head><body>\n"
          "<h1>kvgold scan: ", out);
    kvg_html_put(out, o->path);
    fprintf(out, "</h1><p>format %s, %lu calls</p>\n<table><tr><th>#</th>"
                 "<th>verdict</th><th>call</th><th>operator</th>"
                 "<th>reason</th></tr>\n",
            kvg_scan_format_name(o->format), (unsigned long)n);
    for (k = 0; k < n; k++) {
        const kvg_scan_result *r = &res[k];
        fprintf(out, "<tr><td>%lu</td><td class=\"%s\">%s</td><td>",
                (unsigned long)pick[k],
                r->verdict == KVG_VERDICT_PASS   ? "PASS"
                : r->verdict == KVG_VERDICT_FAIL ? "FAIL"
                                                 : "NJ",
                verdict_name(r->verdict));
        if (r->page[0] != '\0') {
            fputs("<a href=\"", out);
            kvg_html_put(out, pages);
            fputs("/", out);
            kvg_html_put(out, r->page);
            fputs("\">", out);
        }
        kvg_html_put(out, l->calls[pick[k]].id);
        fputs(r->page[0] != '\0' ? "</a></td><td>" : "</td><td>", out);
        kvg_html_put(out, r->op);
        fputs("</td><td>", out);
        kvg_html_put(out, r->reason);
        fputs("</td></tr>\n", out);
    }
    fputs("</table></body></html>\n", out);
    return KVG_OK;
}

/* FILE.html -> "FILE_calls" (relative to FILE's directory: the link) and
 * its full path; 0 when a buffer is too small. */
static int pages_names(const char *html, char *rel, size_t rcap, char *full,
                       size_t fcap)
{
    const char *base = strrchr(html, '/');
    size_t n = strlen(html), dot;
    base = base ? base + 1 : html;
    dot = n;
    if (n > 5 && strcmp(html + n - 5, ".html") == 0)
        dot = n - 5;
    if ((size_t)snprintf(full, fcap, "%.*s_calls", (int)dot, html) >= fcap)
        return 0;
    return (size_t)snprintf(rel, rcap, "%.*s_calls",
                            (int)(dot - (size_t)(base - html)), base) < rcap;
}

/* The report targets: --junit, --html and the pages directory beside it
 * (a directory target), in that order; `rep` is what they render. */
static int report_targets(const scan_opts *o, scan_report *rep,
                          kvg_cli_target *t, const char *pages_full)
{
    int n = 0;
    memset(t, 0, 3 * sizeof *t);
    if (o->junit != NULL) {
        t[n].flag = "--junit";
        t[n].path = o->junit;
        t[n].render = write_junit;
        t[n++].user = rep;
    }
    if (o->html != NULL) {
        t[n].flag = "--html";
        t[n].path = o->html;
        t[n].render = write_index;
        t[n++].user = rep;
        t[n].flag = "--html's pages directory";
        t[n].path = pages_full;
        t[n++].dir = 1;
    }
    return n;
}

/* Before judging: every report target must be one kvgold may replace
 * (report_targets.h); never the dump being scanned (a dump file: that
 * file; a dump directory: anywhere at or below it, "a report is never
 * written among the dumps") nor the --csv it reads; no two targets one
 * file. 0 (message printed) if one is not. */
static int check_reports(const scan_opts *o)
{
    kvg_cli_target t[3];
    kvg_cli_protect p[2];
    char rel[KVG_SCAN_DIR_MAX], full[KVG_SCAN_DIR_MAX];
    struct stat sb;
    int n_p = 0;

    if (o->html != NULL &&
        !pages_names(o->html, rel, sizeof rel, full, sizeof full)) {
        fprintf(stderr, "kvgold: scan: --html %s: the path is too long; "
                        "nothing was judged or written\n", o->html);
        return 0;
    }
    memset(p, 0, sizeof p);
    p[n_p].path = o->path;
    p[n_p].tree = stat(o->path, &sb) == 0 && S_ISDIR(sb.st_mode);
    p[n_p].role = p[n_p].tree ? "the dump being scanned"
                              : "the dump file being scanned";
    p[n_p++].what = "the dumps";
    if (o->csv != NULL) {
        p[n_p].path = o->csv;
        p[n_p].role = "the testcase CSV (--csv)";
        p[n_p++].what = "the files scan reads";
    }
    return kvg_cli_targets_check("scan", "nothing was judged or written", t,
                                 report_targets(o, NULL, t, full), p, n_p);
}

/* After judging: --junit and --html's index, together or not at all
 * (one output set, report_targets.h); 0 (message printed) on failure. */
static int write_reports(const scan_opts *o, const kvg_scan_list *l,
                         const size_t *pick, const kvg_scan_result *res,
                         size_t n, const char *pages)
{
    kvg_cli_target t[3];
    scan_report rep;

    rep.o = o;
    rep.l = l;
    rep.pick = pick;
    rep.res = res;
    rep.n = n;
    rep.pages = pages;
    return kvg_cli_targets_write("scan", t, report_targets(o, &rep, t, ""));
}

/* FILE.html -> "FILE_calls" (relative to FILE's directory: the link) and
 * its full path, created (report_targets.h) when it does not exist; the
 * targets were checked before judging. */
static int pages_dir(const char *html, char *rel, size_t rcap, char *full,
                     size_t fcap)
{
    kvg_cli_target t;

    if (!pages_names(html, rel, rcap, full, fcap)) {
        fprintf(stderr, "kvgold: scan: --html %s: the path is too long\n",
                html);
        return 0;
    }
    memset(&t, 0, sizeof t);
    t.flag = "--html's pages directory";
    t.path = full;
    t.dir = 1;
    return kvg_cli_targets_make_dirs("scan", &t, 1);
}

/* PATH must be a directory or a regular file (a link to one); else the
 * message says what it is. */
static int path_readable(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "kvgold: scan %s: %s\n", path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
        fprintf(stderr, "kvgold: scan %s: is %s; a dump is a directory or "
                        "a CANN dump file\n",
                path, kvg_file_kind((unsigned long)sb.st_mode));
        return 0;
    }
    return 1;
}

int kvg_cli_scan(int argc, char **argv)
{
    scan_opts o;
    kvg_scan_list l;
    kvg_scan_result *res;
    size_t *pick, i, n = 0, selected = 0, others;
    char rel[KVG_SCAN_DIR_MAX], full[KVG_SCAN_DIR_MAX];
    kvg_diag diag;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0)
        return rc;
    memset(&l, 0, sizeof l);
    /* a reader may pick a call form by one (kvg_scan_pick_form) */
    l.n_attrs = o.e.n_attrs;
    l.attrs = o.e.attrs;
    kvg_diag_clear(&diag);
    if (!path_readable(o.path))
        return KVG_EXIT_INVALID;
    if (o.format == KVG_SCAN_AUTO &&
        (o.format = kvg_scan_detect(o.path)) == KVG_SCAN_AUTO) {
        fprintf(stderr, "kvgold: scan %s: not a dump kvgold reads (no "
                        "dump.json, before/ and after/, "
                        "input_<i>_<dtype>.bin or CANN dump file found); say "
                        "--format\n", o.path);
        return KVG_EXIT_INVALID;
    }
    if (o.csv != NULL && o.format != KVG_SCAN_TTK) {
        fprintf(stderr, "kvgold: scan %s: --csv is ops-test-kit's testcase "
                "CSV, and this dump is %s\n", o.path,
                kvg_scan_format_name(o.format));
        return KVG_EXIT_INVALID;
    }
    if ((o.csv != NULL
             ? kvg_scan_read_ttk_csv(o.path, o.csv, &l, &diag)
             : kvg_scan_read(o.path, o.format, &l, &diag)) != KVG_OK) {
        fprintf(stderr, "kvgold: scan: %s\n", diag.message);
        kvg_scan_list_free(&l);
        return KVG_EXIT_INVALID;
    }
    if (!check_reports(&o)) { /* before judging: refused, nothing made */
        kvg_scan_list_free(&l);
        return KVG_EXIT_INVALID;
    }
    /* ops-test-kit cases whose names say no operator are --op's */
    for (i = 0; o.e.op != NULL && i < l.count; i++)
        if (l.calls[i].format == KVG_SCAN_TTK &&
            kvg_scan_find(l.calls[i].api, KVG_SCAN_TTK, NULL) == NULL)
            (void)snprintf(l.calls[i].api, sizeof l.calls[i].api, "%s",
                           o.e.op);
    pick = (size_t *)calloc(l.count + 1, sizeof *pick);
    res = (kvg_scan_result *)calloc(l.count + 1, sizeof *res);
    if (pick == NULL || res == NULL) {
        fprintf(stderr, "kvgold: scan: out of memory\n");
        free(pick);
        free(res);
        kvg_scan_list_free(&l);
        return KVG_EXIT_INVALID;
    }
    others = l.others;
    for (i = 0; i < l.count; i++) {
        if (!kvg_scan_selected(&l.calls[i], &o.e)) {
            others++;
            continue;
        }
        if (selected++ % (size_t)o.shard_n == (size_t)(o.shard_i - 1))
            pick[n++] = i;
    }
    o.entries = l.count + l.others;
    o.other_shards = selected - n;
    o.e.want_text = !o.json || o.junit != NULL;
    o.e.want_json = o.json;
    if (o.html != NULL) {
        if (!pages_dir(o.html, rel, sizeof rel, full, sizeof full)) {
            free(pick);
            free(res);
            kvg_scan_list_free(&l);
            return KVG_EXIT_INVALID;
        }
        o.e.html_dir = full;
    }
    for (i = 0; i < n; i++) {
        res[i].verdict = KVG_VERDICT_NOT_JUDGED;
        (void)snprintf(res[i].reason, sizeof res[i].reason,
                       "not judged: the worker judging it stopped early");
    }
    if (!run_workers(&l, pick, n, o.jobs, &o.e, res)) {
        /* a worker ended on a dumped file that shrank while mapped, as
         * one process would have: exit 2, no report */
        for (i = 0; i < n; i++)
            kvg_scan_result_free(&res[i]);
        free(pick);
        free(res);
        kvg_scan_list_free(&l);
        return KVG_EXIT_INVALID;
    }
    if (o.json)
        print_json(&o, &l, pick, res, n, others, stdout);
    else
        print_text(&o, &l, pick, res, n, others, stdout);
    rc = KVG_EXIT_PASS;
    for (i = 0; i < n; i++)
        if (res[i].verdict != KVG_VERDICT_PASS)
            rc = KVG_EXIT_MISMATCH;
    /* a dump with no call to judge passes nothing (a wrong --op or
     * --format is the likelier cause); an empty shard of a dump that has
     * calls is fine */
    if (selected == 0) {
        fprintf(stderr, "kvgold: scan %s: no call of %s in the dump\n",
                o.path, o.e.op != NULL ? o.e.op : "a kvgold operator");
        rc = KVG_EXIT_MISMATCH;
    }
    if (!write_reports(&o, &l, pick, res, n, rel))
        rc = KVG_EXIT_INVALID;
    for (i = 0; i < n; i++)
        kvg_scan_result_free(&res[i]);
    free(pick);
    free(res);
    kvg_scan_list_free(&l);
    return rc;
}
