/*
 * tests/case_edit.c - break one thing in a copy of a committed vector case
 * and run it (tests/case_edit.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case_edit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

void kvgt_copy_case(const char *op, const char *name, char *dir, size_t cap)
{
    const char *root = getenv("KVG_VECTORS_DIR");
    char src[1024], a[2048], b[2048];
    struct dirent *e;
    DIR *d;

    assert_non_null(root);
    (void)snprintf(src, sizeof src, "%s/%s/%s", root, op, name);
    (void)snprintf(dir, cap, "/tmp/kvg_case_edit_XXXXXX");
    assert_non_null(mkdtemp(dir));
    d = opendir(src);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        (void)snprintf(a, sizeof a, "%s/%s", src, e->d_name);
        (void)snprintf(b, sizeof b, "%s/%s", dir, e->d_name);
        copy_file(a, b);
    }
    closedir(d);
}

void kvgt_remove_case(const char *dir)
{
    char p[2048];
    struct dirent *e;
    DIR *d = opendir(dir);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        (void)snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        (void)unlink(p);
    }
    closedir(d);
    (void)rmdir(dir);
}

/* Replace the first `from` in text (which must hold it) by `to`. */
void kvgt_replace_first(char *text, size_t cap, const char *from,
                          const char *to)
{
    char *at = strstr(text, from);
    const size_t nf = strlen(from), nt = strlen(to), len = strlen(text);
    if (at == NULL)
        fail_msg("case.json lacks %s", from);
    assert_true(len - nf + nt < cap);
    memmove(at + nt, at + nf, len - (size_t)(at - text) - nf + 1);
    memcpy(at, to, nt);
}

/* Set the string value of the first member `key` to `value`. */
void kvgt_set_string_member(char *text, size_t cap, const char *key,
                              const char *value)
{
    char anchor[64], *start, *end;
    const size_t nv = strlen(value);
    size_t tail;
    (void)snprintf(anchor, sizeof anchor, "\"%s\": \"", key);
    start = strstr(text, anchor);
    if (start == NULL)
        fail_msg("case.json lacks %s", anchor);
    start += strlen(anchor);
    end = strchr(start, '"');
    assert_non_null(end);
    tail = strlen(end) + 1;
    assert_true((size_t)(start - text) + nv + tail <= cap);
    memmove(start + nv, end, tail);
    memcpy(start, value, nv);
}

/* Remove the member `key` whose value is an object without nested objects
 * (a tensor entry), and the comma after it. */
void kvgt_remove_member(char *text, const char *key)
{
    char anchor[64], *start, *end;
    (void)snprintf(anchor, sizeof anchor, "\"%s\": {", key);
    start = strstr(text, anchor);
    if (start == NULL)
        fail_msg("case.json lacks %s", anchor);
    end = strchr(start, '}');
    assert_non_null(end);
    assert_int_equal(end[1], ','); /* not the last member */
    memmove(start, end + 2, strlen(end + 2) + 1);
}

void kvgt_edit_case(const char *dir, kvgt_edit_fn edit)
{
    char path[2048], text[65536];
    FILE *f;
    size_t n;

    (void)snprintf(path, sizeof path, "%s/case.json", dir);
    f = fopen(path, "rb");
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(n < sizeof text - 4096); /* room for the edit */
    text[n] = '\0';
    edit(text, sizeof text);
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

kvg_status kvgt_run_case_dir(const char *dir, kvg_diag *d)
{
    kvg_case c;
    kvg_case_set out;
    kvg_status st = kvg_case_load(dir, &c, d);
    if (st != KVG_OK)
        fail_msg("load failed: %s", d->message);
    memset(&out, 0, sizeof out);
    st = kvg_case_run(&c, &out, d);
    kvg_case_set_free(&out);
    kvg_case_free(&c);
    return st;
}

void kvgt_expect_broken(const char *op, const char *name, kvgt_edit_fn edit,
                        kvg_status want, const char *tensor)
{
    char dir[256];
    kvg_diag d;
    kvg_status st;

    kvgt_copy_case(op, name, dir, sizeof dir);
    st = kvgt_run_case_dir(dir, &d);
    if (st != KVG_OK) {
        kvgt_remove_case(dir);
        fail_msg("unbroken copy fails: %s", d.message);
    }
    kvgt_edit_case(dir, edit);
    st = kvgt_run_case_dir(dir, &d);
    kvgt_remove_case(dir);
    if (st != want)
        fail_msg("status %d, want %d (%s)", (int)st, (int)want, d.message);
    if (strcmp(d.tensor, tensor) != 0)
        fail_msg("names \"%s\", want \"%s\" (%s)", d.tensor, tensor,
                 d.message);
}

