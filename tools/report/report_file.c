/*
 * tools/report/report_file.c - write a report file whole or not at all:
 * a temporary file next to the target, renamed over it once complete.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

int kvg_report_write_file(const char *path, kvg_report_renderer render,
                          const kvg_report_set *set, char *err, size_t cap)
{
    size_t n = strlen(path);
    char *tmp = (char *)malloc(n + 16);
    FILE *f;
    int fd, rc, saved;

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
        goto cleanup;
    }
    rc = render(f, set, err, cap);
    errno = 0;
    if (rc != 0) {
        (void)fclose(f);
        (void)unlink(tmp);
        free(tmp);
        return -1; /* err already names the reason */
    }
    if (fflush(f) != 0 || ferror(f)) {
        saved = errno ? errno : EIO;
        (void)fclose(f);
        goto cleanup;
    }
    if (fclose(f) != 0) {
        saved = errno;
        goto cleanup;
    }
    if (rename(tmp, path) != 0) {
        saved = errno;
        (void)unlink(tmp);
        free(tmp);
        return fail(err, cap, path, "renaming the finished file", saved);
    }
    free(tmp);
    return 0;
cleanup:
    (void)unlink(tmp);
    free(tmp);
    return fail(err, cap, path, "writing", saved);
}
