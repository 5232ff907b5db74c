/*
 * tools/report/report_file.c - write report files whole or not at all:
 * each is rendered into a temporary file next to its target, and only
 * when every one of them is complete are they renamed over the targets.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "kvgold/compare.h"
#include "report.h"

/* Give the file the mode a plain fopen would (0666 minus the umask);
 * mkstemp makes it 0600, which a CI artifact uploader may not read. */
static void set_default_mode(int fd)
{
    mode_t mask = umask(0);
    (void)umask(mask);
    (void)fchmod(fd, (mode_t)(0666 & ~mask));
}

static int fail(char *err, size_t cap, const char *path, const char *what,
                int errnum)
{
    (void)snprintf(err, cap, "cannot write report %s: %s: %s", path, what,
                   strerror(errnum));
    return -1;
}

/* Render into a new temporary file beside `path`; its malloc'd name goes
 * to *tmp_out. On failure nothing is left behind and err says why. */
static int render_to_temp(const char *path, kvg_report_renderer render,
                          const kvg_report_set *set, char **tmp_out,
                          char *err, size_t cap)
{
    size_t n = strlen(path);
    char *tmp = (char *)malloc(n + 16);
    FILE *f;
    int fd, saved;

    if (tmp == NULL)
        return fail(err, cap, path, "temporary name", ENOMEM);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp-XXXXXX", 12);
    if ((fd = mkstemp(tmp)) < 0) {
        saved = errno;
        free(tmp);
        return fail(err, cap, path, "creating a temporary file", saved);
    }
    set_default_mode(fd);
    if ((f = fdopen(fd, "w")) == NULL) {
        saved = errno;
        (void)close(fd);
        (void)unlink(tmp);
        free(tmp);
        return fail(err, cap, path, "writing", saved);
    }
    if (render(f, set, err, cap) != 0) {
        (void)fclose(f);
        (void)unlink(tmp);
        free(tmp);
        return -1; /* err already names the reason */
    }
    errno = 0;
    saved = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && saved == 0)
        saved = errno ? errno : EIO;
    if (saved != 0) {
        (void)unlink(tmp);
        free(tmp);
        return fail(err, cap, path, "writing", saved);
    }
    *tmp_out = tmp;
    return 0;
}

static void discard(char **tmp, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        if (tmp[i] != NULL)
            (void)unlink(tmp[i]);
        free(tmp[i]);
        tmp[i] = NULL;
    }
}

int kvg_report_write_files(const kvg_report_job *jobs, int n,
                           const kvg_report_set *set, char *err, size_t cap)
{
    char *tmp[KVG_REPORT_MAX_JOBS] = {NULL};
    int i;

    if (n < 0 || n > KVG_REPORT_MAX_JOBS) {
        (void)snprintf(err, cap, "at most %d report files",
                       KVG_REPORT_MAX_JOBS);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (render_to_temp(jobs[i].path, jobs[i].render, set, &tmp[i], err,
                           cap) != 0) {
            discard(tmp, n);
            return -1;
        }
    }
    for (i = 0; i < n; i++) {
        if (rename(tmp[i], jobs[i].path) != 0) {
            int saved = errno;
            discard(tmp, n);
            return fail(err, cap, jobs[i].path, "renaming the finished file",
                        saved);
        }
        free(tmp[i]);
        tmp[i] = NULL;
    }
    return 0;
}

int kvg_report_write_file(const char *path, kvg_report_renderer render,
                          const kvg_report_set *set, char *err, size_t cap)
{
    kvg_report_job job;
    job.path = path;
    job.render = render;
    return kvg_report_write_files(&job, 1, set, err, cap);
}

int kvg_report_run_count(const kvg_report_set *set)
{
    return set->runs != NULL ? set->n_runs : 1;
}

kvg_report_run kvg_report_get_run(const kvg_report_set *set, int k)
{
    kvg_report_run r;
    if (set->runs != NULL)
        return set->runs[k];
    r.npu_dir = NULL;
    r.tensors = set->tensors;
    r.count = set->count;
    r.skipped = set->skipped;
    r.n_skipped = set->n_skipped;
    return r;
}

const char *kvg_report_run_verdict(const kvg_report_run *run)
{
    int i, incomplete = run->n_skipped != 0;
    for (i = 0; i < run->count; i++) {
        kvg_verdict v = run->tensors[i].result->verdict;
        if (v == KVG_VERDICT_FAIL)
            return "FAIL";
        incomplete |= v != KVG_VERDICT_PASS;
    }
    return incomplete ? "INCOMPLETE" : "PASS";
}

const char *kvg_report_set_verdict(const kvg_report_set *set)
{
    int k, n = kvg_report_run_count(set), incomplete = 0;
    for (k = 0; k < n; k++) {
        kvg_report_run r = kvg_report_get_run(set, k);
        const char *v = kvg_report_run_verdict(&r);
        if (strcmp(v, "FAIL") == 0)
            return "FAIL";
        incomplete |= strcmp(v, "PASS") != 0;
    }
    if (set->determinism != NULL) {
        if (strcmp(set->determinism, "FAIL") == 0)
            return "FAIL";
        incomplete |= strcmp(set->determinism, "PASS") != 0;
    }
    return incomplete ? "INCOMPLETE" : "PASS";
}
