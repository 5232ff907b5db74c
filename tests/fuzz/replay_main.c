/*
 * tests/fuzz/replay_main.c - runs a fuzz target on files, without libFuzzer.
 *
 * Every fuzz target is also linked with this main and run by ctest over its
 * seed corpus and its regression directory (inputs that once crashed), in
 * every build: gcc, ASan+UBSan, valgrind. Arguments are files or
 * directories (whose regular files are run in name order).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f != NULL)
            fclose(f);
        return 1;
    }
    buf = (unsigned char *)malloc(n ? (size_t)n : 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        fclose(f);
        return 1;
    }
    fclose(f);
    (void)LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, int *count)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, i;
    int bad = 0;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return run_file(path);
    }
    if ((d = opendir(path)) == NULL)
        return 1;
    while ((e = readdir(d)) != NULL) {
        char **nn;
        if (e->d_name[0] == '.')
            continue;
        nn = (char **)realloc(names, (n + 1) * sizeof *names);
        if (nn == NULL)
            break;
        names = nn;
        names[n] = (char *)malloc(strlen(path) + strlen(e->d_name) + 2);
        if (names[n] == NULL)
            break;
        sprintf(names[n], "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 1) /* qsort's pointer must not be NULL, even for 0 items */
        qsort(names, n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
        bad |= run_path(names[i], count);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int i, bad = 0, count = 0;
    for (i = 1; i < argc; i++)
        bad |= run_path(argv[i], &count);
    printf("replayed %d inputs%s\n", count, bad ? " (with read errors)" : "");
    return bad;
}
