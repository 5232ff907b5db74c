/*
 * tools/cli/batch.c - `kvgold check` and `kvgold compare` over many cases,
 * --jobs N at once (docs/usage.md, "Many cases").
 *
 * Each case runs in a worker process of its own (fork), exactly as the
 * single-case command runs it: the library and the tools keep their
 * single-threaded guarantees (one memory ledger, one SIGBUS guard, one
 * set of temporary files per process), and a worker that crashes or is
 * killed takes only its own case with it. A worker writes its report and
 * its messages to two unlinked scratch files; the parent prints them in
 * input order, whatever order the workers finish in, so the output does
 * not depend on --jobs. A worker's exit status is its case's verdict; a
 * worker that dies of a signal or exits with a status no kvgold command
 * returns is an ERROR for that case, never a pass.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
#include "membudget.h"
#include "report_targets.h"

#define MAX_NPU_DIRS 16
#define MAX_DEPTH 32

/* A case's verdict, worst last: the overall verdict is the worst. */
enum { V_PASS, V_INCOMPLETE, V_FAIL, V_INVALID, V_ERROR, V_COUNT };
static const char *const k_verdict[V_COUNT] = {"PASS", "INCOMPLETE", "FAIL",
                                               "INVALID", "ERROR"};

/* The worker's exit status for a compare that was INCOMPLETE (the single
 * command says 1 for FAIL and INCOMPLETE alike). */
#define WORKER_INCOMPLETE 3

typedef struct job {
    char *case_dir;
    char *npu[MAX_NPU_DIRS];
    int n_npu;
    int out_fd, err_fd;
    pid_t pid;
    int started, done;
    int verdict;
    char why[240];       /* ERROR: what happened to the worker;
                            INVALID: the first line of its message */
    char *out, *err;     /* what it printed */
} job;

typedef struct batch {
    int compare;         /* 0: check */
    job *jobs;
    int n, cap;
    int n_jobs;          /* --jobs */
    int json;
    const char *junit;
    const char *list;    /* compare --cases: the list file */
    const char *fwd[16]; /* compare options passed to every worker */
    int n_fwd;
    int *pool, n_pool;   /* emptied scratch files, for the next cases */
    int first_only;      /* find_cases: stop at the first case found */
} batch;

static int add_job(batch *b, const char *case_dir)
{
    job *j;
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        job *p = (job *)realloc(b->jobs, (size_t)cap * sizeof *p);
        if (p == NULL)
            return 0;
        b->jobs = p;
        b->cap = cap;
    }
    j = &b->jobs[b->n];
    memset(j, 0, sizeof *j);
    j->out_fd = j->err_fd = -1;
    if ((j->case_dir = (char *)malloc(strlen(case_dir) + 1)) == NULL)
        return 0;
    memcpy(j->case_dir, case_dir, strlen(case_dir) + 1);
    b->n++;
    return 1;
}

static void free_batch(batch *b)
{
    int i, k;
    for (i = 0; i < b->n; i++) {
        free(b->jobs[i].case_dir);
        for (k = 0; k < b->jobs[i].n_npu; k++)
            free(b->jobs[i].npu[k]);
        free(b->jobs[i].out);
        free(b->jobs[i].err);
        if (b->jobs[i].out_fd >= 0)
            close(b->jobs[i].out_fd);
        if (b->jobs[i].err_fd >= 0)
            close(b->jobs[i].err_fd);
    }
    free(b->jobs);
    for (i = 0; i < b->n_pool; i++)
        close(b->pool[i]);
    free(b->pool);
}

static int has_case_json(const char *dir)
{
    char *p = kvg_path_join(dir, "case.json", NULL, NULL);
    struct stat st;
    int yes = p != NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return yes;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The case directories below `dir` (not `dir` itself), depth first in
 * byte order of the names; a case directory is not searched further, and
 * symbolic links are not followed. -1 on an error (message printed),
 * else the number found. */
static int find_cases(batch *b, const char *dir, int depth)
{
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    int n = 0, cap = 0, i, found = 0;

    if (depth > MAX_DEPTH)
        return 0;
    if ((d = opendir(dir)) == NULL) {
        fprintf(stderr, "kvgold: cannot read directory %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ., .. and hidden directories */
        if (n == cap) {
            char **p;
            cap = cap ? 2 * cap : 32;
            if ((p = (char **)realloc(names, (size_t)cap * sizeof *p)) ==
                NULL)
                break;
            names = p;
        }
        if ((names[n] = kvg_path_join(dir, e->d_name, NULL, NULL)) == NULL)
            break;
        n++;
    }
    closedir(d);
    if (e != NULL) {
        fprintf(stderr, "kvgold: %s: out of memory\n", dir);
        found = -1;
    }
    if (n > 0)
        qsort(names, (size_t)n, sizeof *names, by_name);
    for (i = 0; found >= 0 && i < n && !(b->first_only && b->n > 0); i++) {
        struct stat st;
        int sub;
        if (lstat(names[i], &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (has_case_json(names[i])) {
            if (!add_job(b, names[i])) {
                fprintf(stderr, "kvgold: out of memory\n");
                found = -1;
            } else {
                found++;
            }
        } else if ((sub = find_cases(b, names[i], depth + 1)) < 0) {
            found = -1;
        } else {
            found += sub;
        }
    }
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return found;
}

/* A directory without case.json that holds case directories below it. */
static int is_case_tree(const char *path)
{
    struct stat st;
    batch probe;
    int n;

    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || has_case_json(path))
        return 0;
    memset(&probe, 0, sizeof probe);
    probe.first_only = 1;
    n = find_cases(&probe, path, 0);
    free_batch(&probe);
    return n > 0;
}

static int parse_jobs(const char *v, int *n)
{
    char *end;
    long x;
    if (v == NULL || *v < '0' || *v > '9')
        return 0;
    errno = 0;
    x = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < 1 || x > 4096)
        return 0;
    *n = (int)x;
    return 1;
}

/* ---- the workers --------------------------------------------------------- */

/* An unlinked scratch file in $TMPDIR (else /tmp); -1 with errno. */
static int scratch_file(void)
{
    const char *tmp = getenv("TMPDIR");
    char *path;
    int fd;

    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    if ((path = kvg_path_join(tmp, "kvgold-jobs-XXXXXX", NULL, NULL)) ==
        NULL) {
        errno = ENOMEM;
        return -1;
    }
    fd = mkstemp(path);
    if (fd >= 0)
        (void)unlink(path);
    free(path);
    return fd;
}

/* In the worker: run the one case as the single command would. */
static int run_case(const batch *b, const job *j)
{
    if (b->compare) {
        const char *argv[1 + MAX_NPU_DIRS + 16 + 1];
        int argc = 0, k;
        argv[argc++] = j->case_dir;
        for (k = 0; k < j->n_npu; k++)
            argv[argc++] = j->npu[k];
        for (k = 0; k < b->n_fwd; k++)
            argv[argc++] = b->fwd[k];
        if (b->json)
            argv[argc++] = "--json";
        argv[argc] = NULL;
        k = kvg_cli_compare(argc, (char **)argv);
        if (k == KVG_EXIT_MISMATCH &&
            strcmp(kvg_cli_compare_last_verdict, "INCOMPLETE") == 0)
            k = WORKER_INCOMPLETE;
        return k;
    } else {
        kvg_case c;
        int rc;
        if (!kvg_cli_load_with(j->case_dir, &c, KVG_CASE_MAP_BIG))
            return KVG_EXIT_INVALID;
        rc = kvg_cli_check(&c, stdout);
        kvg_case_free(&c);
        return rc;
    }
}

static void worker(const batch *b, const job *j, int workers)
{
    static char source[512];
    const char *kill_hook = getenv("KVGOLD_TEST_KILL_WORKER");
    uint64_t limit = kvg_mem_limit();
    int rc;

    if (dup2(j->out_fd, 1) < 0 || dup2(j->err_fd, 2) < 0)
        _exit(125);
    /* the workers share the command's memory limit evenly: together they
     * never hold more than one command would */
    if (limit != 0 && workers > 1) {
        (void)snprintf(source, sizeof source,
                       "1/%d of %llu bytes for each of %d workers; %s",
                       workers, (unsigned long long)limit, workers,
                       kvg_mem_limit_source());
        kvg_mem_set_limit(limit / (uint64_t)workers ? limit / (uint64_t)workers
                                                    : 1,
                          source);
    }
    /* for the tests only: a worker that dies of SIGKILL (the OOM killer,
     * a timeout) must make its case an ERROR, never a pass */
    if (kill_hook != NULL && strcmp(kill_hook, j->case_dir) == 0)
        (void)raise(SIGKILL);
    rc = run_case(b, j);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "kvgold: %s: cannot write the report: %s\n",
                j->case_dir, strerror(errno ? errno : EIO));
        rc = KVG_EXIT_INVALID;
    }
    (void)fflush(stderr);
    _exit(rc);
}

/* A scratch file from the pool, else a new one. Creating a file costs
 * the parent more than forking a worker does (ext4), and the parent is
 * the serial part of the command. */
static int take_scratch(batch *b)
{
    return b->n_pool > 0 ? b->pool[--b->n_pool] : scratch_file();
}

/* Back to the pool, its offset at 0 for the next worker (slurp); closed
 * if that fails. The pool never holds more than two files per worker. */
static void give_scratch(batch *b, int fd)
{
    if (b->pool == NULL)
        b->pool = (int *)malloc(2 * (size_t)b->n_jobs * sizeof *b->pool);
    if (b->pool == NULL || b->n_pool == 2 * b->n_jobs ||
        lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return;
    }
    b->pool[b->n_pool++] = fd;
}

/* Start job i; 0 when no worker can be started now (errno set). */
static int start(batch *b, int i, int workers)
{
    job *j = &b->jobs[i];
    pid_t pid;

    if (j->out_fd < 0 && (j->out_fd = take_scratch(b)) < 0)
        return 0;
    if (j->err_fd < 0 && (j->err_fd = take_scratch(b)) < 0)
        return 0;
    (void)fflush(stdout);
    (void)fflush(stderr);
    if ((pid = fork()) < 0)
        return 0;
    if (pid == 0)
        worker(b, j, workers);
    j->pid = pid;
    j->started = 1;
    return 1;
}

/* What the worker wrote to scratch file fd, NUL-terminated, malloc'd.
 * The worker shares the file's offset with the parent (one open file
 * description), and writes from offset 0 on: where the offset ends is how
 * much it wrote, so a reused file needs no truncating. NULL when out of
 * memory. */
static char *slurp(int fd)
{
    off_t end = lseek(fd, 0, SEEK_CUR);
    size_t len = 0, n = end > 0 ? (size_t)end : 0;
    char *buf = (char *)malloc(n + 1);

    if (buf == NULL)
        return NULL;
    while (len < n) {
        ssize_t got = pread(fd, buf + len, n - len, (off_t)len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    buf[len] = '\0';
    return buf;
}

static void finish(batch *b, job *j, int status)
{
    j->done = 1;
    j->out = slurp(j->out_fd);
    j->err = slurp(j->err_fd);
    give_scratch(b, j->out_fd);
    give_scratch(b, j->err_fd);
    j->out_fd = j->err_fd = -1;
    if (WIFSIGNALED(status)) {
        j->verdict = V_ERROR;
        (void)snprintf(j->why, sizeof j->why,
                       "the worker was killed by signal %d (%s); the case "
                       "was not judged", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
        return;
    }
    switch (WIFEXITED(status) ? WEXITSTATUS(status) : -1) {
    case KVG_EXIT_PASS: j->verdict = V_PASS; return;
    case KVG_EXIT_MISMATCH: j->verdict = V_FAIL; return;
    case WORKER_INCOMPLETE: j->verdict = V_INCOMPLETE; return;
    case KVG_EXIT_INVALID: j->verdict = V_INVALID; return;
    default:
        j->verdict = V_ERROR;
        (void)snprintf(j->why, sizeof j->why,
                       "the worker exited with status %d, which no kvgold "
                       "command returns; the case was not judged",
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

/* ---- the report ---------------------------------------------------------- */

/* The first line of a worker's messages, without "kvgold: ". */
static void first_line(const char *err, char *buf, size_t cap)
{
    size_t n;
    if (err == NULL)
        err = "";
    if (strncmp(err, "kvgold: ", 8) == 0)
        err += 8;
    n = strcspn(err, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, err, n);
    buf[n] = '\0';
}

static void put_case_name(FILE *out, const batch *b, const job *j)
{
    int k;
    fputs(j->case_dir, out);
    for (k = 0; b->compare && k < j->n_npu; k++)
        fprintf(out, " %s", j->npu[k]);
}

/* What a case said, in input order: its report to stdout, its messages to
 * stderr (text), or its entry of the JSON document. */
static int emit(const batch *b, int i)
{
    const job *j = &b->jobs[i];
    int k;

    if (!b->json) {
        if (j->out != NULL && j->out[0] != '\0')
            fprintf(stdout, "%s%s", i ? "\n" : "", j->out);
        if (j->err != NULL)
            fputs(j->err, stderr);
        if (j->verdict == V_ERROR) {
            fputs("kvgold: ", stderr);
            put_case_name(stderr, b, j);
            fprintf(stderr, ": %s\n", j->why);
        }
        return i;
    }
    fprintf(stdout, "%s\n{\"case\":", i ? "," : "");
    kvg_json_write_string(stdout, j->case_dir);
    if (b->compare) {
        fputs(",\"npu_dirs\":[", stdout);
        for (k = 0; k < j->n_npu; k++) {
            fputs(k ? "," : "", stdout);
            kvg_json_write_string(stdout, j->npu[k]);
        }
        fputs("]", stdout);
    }
    fprintf(stdout, ",\"verdict\":\"%s\"", k_verdict[j->verdict]);
    if (b->compare) {
        /* the single command's JSON object, whole: only a worker that
         * judged the case (PASS, FAIL, INCOMPLETE) printed one */
        fputs(",\"report\":", stdout);
        if (j->verdict <= V_FAIL && j->out != NULL && j->out[0] == '{') {
            size_t n = strlen(j->out);
            while (n > 0 && (j->out[n - 1] == '\n' || j->out[n - 1] == ' '))
                n--;
            fwrite(j->out, 1, n, stdout);
        } else {
            fputs("null", stdout);
        }
    } else {
        fputs(",\"report\":", stdout);
        kvg_json_write_string(stdout, j->out ? j->out : "");
    }
    fputs(",\"messages\":", stdout);
    kvg_json_write_string(stdout, j->err ? j->err : "");
    if (j->verdict == V_ERROR) {
        fputs(",\"error\":", stdout);
        kvg_json_write_string(stdout, j->why);
    }
    fputs("}", stdout);
    return i;
}

/* Once printed, a case's report is needed again only for a --junit
 * failure; the verdict line needs one line of it. So a suite of many
 * thousand cases does not pile up their reports in memory. */
static void release(batch *b, int i)
{
    job *j = &b->jobs[i];
    if (j->verdict == V_INVALID) {
        first_line(j->err, j->why, sizeof j->why);
        if (j->why[0] == '\0')
            (void)snprintf(j->why, sizeof j->why,
                           "exit status 2 without a message");
    }
    if (b->junit != NULL && j->verdict != V_PASS)
        return;
    free(j->out);
    free(j->err);
    j->out = j->err = NULL;
}

static int worst(const batch *b, int counts[V_COUNT])
{
    int i, w = V_PASS;
    memset(counts, 0, V_COUNT * sizeof counts[0]);
    for (i = 0; i < b->n; i++) {
        counts[b->jobs[i].verdict]++;
        if (b->jobs[i].verdict > w)
            w = b->jobs[i].verdict;
    }
    return w;
}

static int exit_of(int verdict)
{
    return verdict == V_PASS ? KVG_EXIT_PASS
           : verdict <= V_FAIL ? KVG_EXIT_MISMATCH
                               : KVG_EXIT_INVALID;
}

static void summary(const batch *b)
{
    int counts[V_COUNT], w = worst(b, counts), i, v;
    const char *cmd = b->compare ? "compare" : "check";

    if (b->json) {
        fprintf(stdout, "\n],\"totals\":{\"cases\":%d", b->n);
        for (v = 0; v < V_COUNT; v++)
            fprintf(stdout, ",\"%s\":%d", k_verdict[v], counts[v]);
        fprintf(stdout, "},\"verdict\":\"%s\",\"exit\":%d}\n", k_verdict[w],
                exit_of(w));
        return;
    }
    fprintf(stdout, "\nkvgold %s: %d case%s\n", cmd, b->n,
            b->n == 1 ? "" : "s");
    for (i = 0; i < b->n; i++) {
        const job *j = &b->jobs[i];
        fprintf(stdout, "  %-10s ", k_verdict[j->verdict]);
        put_case_name(stdout, b, j);
        if (j->verdict == V_ERROR || j->verdict == V_INVALID)
            fprintf(stdout, "  (%s)", j->why);
        fputc('\n', stdout);
    }
    fprintf(stdout, "totals: %d case%s:", b->n, b->n == 1 ? "" : "s");
    for (v = 0; v < V_COUNT; v++)
        fprintf(stdout, "%s %d %s", v ? "," : "", counts[v], k_verdict[v]);
    fprintf(stdout, "\n%s\n", k_verdict[w]);
}

/* XML text or attribute value; characters XML 1.0 forbids are dropped. */
static void put_xml(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (ch >= 0x20 || ch == '\n' || ch == '\t')
                fputc(ch, out);
        }
    }
}

/* --junit: one <testcase> per case. FAIL and INCOMPLETE are failures, an
 * invalid case or a worker that died an error: never a pass or a skip. */
static kvg_status write_junit(FILE *out, void *user, kvg_diag *diag)
{
    const batch *b = (const batch *)user;
    int counts[V_COUNT], i;
    const char *cmd = b->compare ? "compare" : "check";

    (void)diag;
    (void)worst(b, counts);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    for (i = 0; i < 2; i++)
        fprintf(out, "%s<testsuite%s name=\"kvgold %s\" tests=\"%d\" "
                     "failures=\"%d\" errors=\"%d\" skipped=\"0\" "
                     "time=\"0\">\n", i ? "  " : "", i ? "" : "s", cmd, b->n,
                counts[V_FAIL] + counts[V_INCOMPLETE],
                counts[V_INVALID] + counts[V_ERROR]);
    for (i = 0; i < b->n; i++) {
        const job *j = &b->jobs[i];
        char why[200];
        int k;
        fputs("    <testcase name=\"", out);
        put_xml(out, j->case_dir);
        for (k = 0; b->compare && k < j->n_npu; k++) {
            fputs(k ? ", " : " vs ", out);
            put_xml(out, j->npu[k]);
        }
        fprintf(out, "\" classname=\"kvgold.%s\" time=\"0\"", cmd);
        if (j->verdict == V_PASS) {
            fputs("/>\n", out);
            continue;
        }
        if (j->verdict == V_ERROR || j->verdict == V_INVALID)
            (void)snprintf(why, sizeof why, "%s", j->why);
        else
            (void)snprintf(why, sizeof why, "%s", k_verdict[j->verdict]);
        fprintf(out, ">\n      <%s type=\"%s\" message=\"",
                j->verdict >= V_INVALID ? "error" : "failure",
                k_verdict[j->verdict]);
        put_xml(out, why);
        fputs("\">", out);
        put_xml(out, j->out);
        put_xml(out, j->err);
        fprintf(out, "</%s>\n    </testcase>\n",
                j->verdict >= V_INVALID ? "error" : "failure");
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return KVG_OK;
}

/* Before any case runs: where --junit goes must be a file kvgold may
 * replace (report_targets.h), never one of the files the cases are made
 * of nor among them: each case directory (and for compare each NPU_DIR)
 * is protected as a tree, the --cases list as a file. The file is written
 * after the last case (write_junit, through the same module). */
static int check_junit(const batch *b, const kvg_cli_target *t)
{
    kvg_cli_protect *p;
    int i, k, n_p = 0, ok;

    for (i = 0; i < b->n; i++)
        n_p += 1 + b->jobs[i].n_npu;
    if ((p = (kvg_cli_protect *)calloc((size_t)n_p + 1, sizeof *p)) ==
        NULL) {
        fprintf(stderr, "kvgold: %s: out of memory; nothing was run\n",
                b->compare ? "compare" : "check");
        return 0;
    }
    n_p = 0;
    if (b->list != NULL) {
        p[n_p].path = b->list;
        p[n_p].role = "the --cases list";
        p[n_p].what = "the files kvgold reads";
        p[n_p++].tree = 0;
    }
    for (i = 0; i < b->n; i++) {
        const job *j = &b->jobs[i];
        p[n_p].path = j->case_dir;
        p[n_p].role = "the case directory";
        p[n_p].what = "a case's files";
        p[n_p++].tree = 1;
        for (k = 0; k < j->n_npu; k++) {
            p[n_p].path = j->npu[k];
            p[n_p].role = "NPU_DIR";
            p[n_p].what = "the dumps";
            p[n_p].note = "the directory being judged";
            p[n_p++].tree = 1;
        }
    }
    ok = kvg_cli_targets_check(b->compare ? "compare" : "check",
                               "nothing was run", t, 1, p, n_p);
    free(p);
    return ok;
}

/* Run every job, --jobs at a time, printing each case in input order as
 * soon as it and every case before it are done. */
static int run_all(batch *b)
{
    int workers = b->n_jobs < b->n ? b->n_jobs : b->n;
    int next = 0, running = 0, shown = 0, i, w;
    kvg_cli_target junit;

    memset(&junit, 0, sizeof junit);
    junit.flag = "--junit";
    junit.path = b->junit;
    junit.render = write_junit;
    junit.user = b;
    if (b->junit != NULL && !check_junit(b, &junit))
        return KVG_EXIT_INVALID;
    if (b->json)
        fprintf(stdout, "{\"tool\":\"kvgold %s\",\"cases\":[",
                b->compare ? "compare" : "check");
    while (shown < b->n) {
        int status;
        pid_t pid;
        while (running < workers && next < b->n) {
            if (start(b, next, workers)) {
                running++;
                next++;
                continue;
            }
            if (running > 0)
                break; /* out of processes or files: wait for one */
            b->jobs[next].done = 1;
            b->jobs[next].verdict = V_ERROR;
            (void)snprintf(b->jobs[next].why, sizeof b->jobs[next].why,
                           "cannot start a worker: %s; the case was not "
                           "judged", strerror(errno));
            next++;
        }
        while (shown < b->n && b->jobs[shown].done)
            release(b, emit(b, shown++));
        if (running == 0)
            continue;
        pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break; /* ECHILD: nothing left to wait for */
        }
        for (i = 0; i < b->n; i++)
            if (b->jobs[i].started && !b->jobs[i].done &&
                b->jobs[i].pid == pid) {
                finish(b, &b->jobs[i], status);
                running--;
                break;
            }
    }
    for (i = 0; i < b->n; i++)
        if (!b->jobs[i].done) { /* lost (cannot happen): never a pass */
            b->jobs[i].done = 1;
            b->jobs[i].verdict = V_ERROR;
            (void)snprintf(b->jobs[i].why, sizeof b->jobs[i].why,
                           "the worker was lost; the case was not judged");
        }
    while (shown < b->n)
        release(b, emit(b, shown++));
    summary(b);
    {
        int counts[V_COUNT];
        w = exit_of(worst(b, counts));
    }
    if (b->junit != NULL &&
        !kvg_cli_targets_write(b->compare ? "compare" : "check", &junit, 1))
        w = KVG_EXIT_INVALID;
    return w;
}

/* ---- the two commands ---------------------------------------------------- */

static int default_jobs(void)
{
    return kvg_available_cores(NULL);
}

int kvg_cli_check_is_batch(int argc, char **argv)
{
    int i, cases = 0, tree = 0;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--jobs") == 0 || strcmp(argv[i], "--json") == 0 ||
            strcmp(argv[i], "--junit") == 0)
            return 1;
        if (argv[i][0] != '-') {
            cases++;
            tree |= is_case_tree(argv[i]);
        }
    }
    return cases > 1 || tree;
}

int kvg_cli_check_batch(int argc, char **argv)
{
    batch b;
    int i, rc;

    memset(&b, 0, sizeof b);
    b.n_jobs = 0;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--jobs") == 0) {
            if (!parse_jobs(v, &b.n_jobs)) {
                free_batch(&b);
                return kvg_cli_usage_error("check: --jobs needs a count "
                                           "from 1 to 4096, got '%s'",
                                           v ? v : "");
            }
            i++;
        } else if (strcmp(a, "--json") == 0) {
            b.json = 1;
        } else if (strcmp(a, "--junit") == 0) {
            if (v == NULL) {
                free_batch(&b);
                return kvg_cli_usage_error("check: --junit needs a file%s",
                                           "");
            }
            b.junit = v;
            i++;
        } else if (a[0] == '-') {
            free_batch(&b);
            return kvg_cli_usage_error("check: unknown option %s", a);
        } else if (is_case_tree(a)) {
            if (find_cases(&b, a, 0) < 0) {
                free_batch(&b);
                return KVG_EXIT_INVALID;
            }
        } else if (!add_job(&b, a)) {
            free_batch(&b);
            fprintf(stderr, "kvgold: out of memory\n");
            return KVG_EXIT_INVALID;
        }
    }
    if (b.n == 0) {
        free_batch(&b);
        return kvg_cli_usage_error("check: missing CASE directory%s", "");
    }
    if (b.n_jobs == 0)
        b.n_jobs = default_jobs();
    rc = run_all(&b);
    free_batch(&b);
    return rc;
}

int kvg_cli_compare_is_batch(int argc, char **argv)
{
    int i;
    for (i = 0; i < argc; i++)
        if (strcmp(argv[i], "--cases") == 0 || strcmp(argv[i], "--jobs") == 0)
            return 1;
    return 0;
}

/* `base`'s directory joined with `path` unless path is absolute. */
static char *relative_to(const char *list, const char *path)
{
    const char *slash = strrchr(list, '/');
    char *dir, *p;
    if (path[0] == '/' || slash == NULL) {
        p = (char *)malloc(strlen(path) + 1);
        if (p != NULL)
            memcpy(p, path, strlen(path) + 1);
        return p;
    }
    if ((dir = (char *)malloc((size_t)(slash - list) + 2)) == NULL)
        return NULL;
    memcpy(dir, list, (size_t)(slash - list));
    dir[slash - list] = '\0';
    if (slash == list)
        memcpy(dir, "/", 2);
    p = kvg_path_join(dir, path, NULL, NULL);
    free(dir);
    return p;
}

/* The longest line of a --cases file, without its newline. */
#define LIST_LINE_MAX 8190

/* The --cases file: "CASE NPU_DIR [NPU_DIR...]" per line. 0 on an error
 * (message printed). */
static int read_list(batch *b, const char *list)
{
    FILE *f = fopen(list, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, ok = 1;

    if (f == NULL) {
        fprintf(stderr, "kvgold: compare --cases %s: %s\n", list,
                strerror(errno));
        return 0;
    }
    while (ok && (errno = 0, len = getline(&line, &cap, f)) >= 0) {
        char *tok[1 + MAX_NPU_DIRS + 1], *s = line;
        const char *nul;
        int n = 0, k;
        lineno++;
        /* said before the length: a NUL in a short line is no long line */
        if ((nul = (const char *)memchr(line, '\0', (size_t)len)) != NULL) {
            fprintf(stderr, "kvgold: compare --cases %s: line %d holds a "
                            "NUL byte (byte %lu of the line); a list file is "
                            "text\n",
                    list, lineno, (unsigned long)(nul - line) + 1);
            ok = 0;
            break;
        }
        if (len - (len > 0 && line[len - 1] == '\n') > LIST_LINE_MAX) {
            fprintf(stderr, "kvgold: %s:%d: line longer than %d bytes\n",
                    list, lineno, LIST_LINE_MAX);
            ok = 0;
            break;
        }
        while (n < (int)(sizeof tok / sizeof tok[0])) {
            s += strspn(s, " \t\r\n");
            if (*s == '\0' || (*s == '#' && n == 0))
                break;
            tok[n++] = s;
            s += strcspn(s, " \t\r\n");
            if (*s != '\0')
                *s++ = '\0';
        }
        if (n == 0)
            continue;
        s += strspn(s, " \t\r\n");
        if (n == 1 || *s != '\0' || n - 1 > MAX_NPU_DIRS) {
            fprintf(stderr, "kvgold: %s:%d: expected \"CASE NPU_DIR\" (up to "
                            "%d NPU_DIRs, paths without blanks), got %s\n",
                    list, lineno, MAX_NPU_DIRS,
                    n == 1 ? "a CASE alone" : "too many fields");
            ok = 0;
            break;
        }
        if ((tok[0] = relative_to(list, tok[0])) == NULL ||
            !add_job(b, tok[0])) {
            free(tok[0]);
            ok = 0;
            fprintf(stderr, "kvgold: out of memory\n");
            break;
        }
        free(tok[0]);
        for (k = 1; ok && k < n; k++) {
            job *j = &b->jobs[b->n - 1];
            if ((j->npu[j->n_npu] = relative_to(list, tok[k])) == NULL) {
                fprintf(stderr, "kvgold: out of memory\n");
                ok = 0;
            } else {
                j->n_npu++;
            }
        }
    }
    if (ok && (ferror(f) || !feof(f))) {
        fprintf(stderr, "kvgold: compare --cases %s: cannot read it: %s\n",
                list, strerror(errno ? errno : EIO));
        ok = 0;
    }
    free(line);
    fclose(f);
    if (ok && b->n == 0) {
        fprintf(stderr, "kvgold: compare --cases %s lists no case\n", list);
        ok = 0;
    }
    return ok;
}

int kvg_cli_compare_batch(int argc, char **argv)
{
    batch b;
    const char *list = NULL, *positional = NULL;
    int i, rc;

    memset(&b, 0, sizeof b);
    b.compare = 1;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--jobs") == 0) {
            if (!parse_jobs(v, &b.n_jobs))
                return kvg_cli_usage_error("compare: --jobs needs a count "
                                           "from 1 to 4096, got '%s'",
                                           v ? v : "");
            i++;
        } else if (strcmp(a, "--json") == 0) {
            b.json = 1;
        } else if (strcmp(a, "--cases") == 0 || strcmp(a, "--junit") == 0) {
            if (v == NULL)
                return kvg_cli_usage_error("compare: %s needs a file", a);
            *(a[2] == 'c' ? &list : &b.junit) = v;
            i++;
        } else if (strcmp(a, "--standard") == 0 ||
                   strcmp(a, "--level") == 0 || strcmp(a, "--only") == 0) {
            if (v == NULL)
                return kvg_cli_usage_error("compare: %s needs a value", a);
            if (strcmp(a, "--only") == 0 && !kvg_cli_only_ok(v))
                return kvg_cli_usage_error("compare: --only needs output "
                                           "names separated by commas "
                                           "(--only c_kv,k_cache), got "
                                           "'%s', which names an empty "
                                           "one", v);
            if (b.n_fwd + 2 > (int)(sizeof b.fwd / sizeof b.fwd[0]))
                return kvg_cli_usage_error("compare: %s given too often", a);
            b.fwd[b.n_fwd++] = a;
            b.fwd[b.n_fwd++] = v;
            i++;
        } else if (a[0] == '-') {
            return kvg_cli_usage_error(
                "compare: %s is not available with --cases (each case "
                "would need its own file or directory); run that case "
                "alone", a);
        } else if (positional == NULL) {
            positional = a;
        }
    }
    if (list == NULL)
        return kvg_cli_usage_error("compare: --jobs needs --cases LIST_FILE "
                                   "(lines \"CASE NPU_DIR\")%s", "");
    if (positional != NULL)
        return kvg_cli_usage_error("compare: with --cases, the cases and "
                                   "NPU_DIRs come from the list file, not "
                                   "the command line (got %s)", positional);
    b.list = list;
    if (!read_list(&b, list)) {
        free_batch(&b);
        return KVG_EXIT_INVALID;
    }
    if (b.n_jobs == 0)
        b.n_jobs = default_jobs();
    rc = run_all(&b);
    free_batch(&b);
    return rc;
}
