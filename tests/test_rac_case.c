/*
 * tests/test_rac_case.c - the reshape_and_cache(_omni) case adapters are
 * strict: a committed vector case is copied to a temporary directory, one
 * thing in its case.json is broken, and the run must fail naming it (and
 * the unbroken copy must still pass, so the copy itself is sound).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "case.h"

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

/* Copy vectors/<op>/<name> into a fresh temporary directory. */
static void copy_case(const char *op, const char *name, char *dir, size_t cap)
{
    const char *root = getenv("KVG_VECTORS_DIR");
    char src[1024], a[2048], b[2048];
    struct dirent *e;
    DIR *d;

    assert_non_null(root);
    (void)snprintf(src, sizeof src, "%s/%s/%s", root, op, name);
    (void)snprintf(dir, cap, "/tmp/kvg_rac_case_XXXXXX");
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

static void remove_case(const char *dir)
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

typedef void (*edit_fn)(cJSON *doc);

static void edit_case(const char *dir, edit_fn edit)
{
    char path[2048], text[65536];
    FILE *f;
    size_t n;
    cJSON *doc;
    char *out;

    (void)snprintf(path, sizeof path, "%s/case.json", dir);
    f = fopen(path, "rb");
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    doc = cJSON_Parse(text);
    assert_non_null(doc);
    edit(doc);
    out = cJSON_Print(doc);
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs(out, f);
    fclose(f);
    free(out);
    cJSON_Delete(doc);
}

/* Load and run; returns the run's status (the load must succeed). */
static kvg_status run_dir(const char *dir, kvg_diag *d)
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

static void expect_broken(const char *op, const char *name, edit_fn edit,
                          kvg_status want, const char *tensor)
{
    char dir[256];
    kvg_diag d;
    kvg_status st;

    copy_case(op, name, dir, sizeof dir);
    st = run_dir(dir, &d);
    if (st != KVG_OK) {
        remove_case(dir);
        fail_msg("unbroken copy fails: %s", d.message);
    }
    edit_case(dir, edit);
    st = run_dir(dir, &d);
    remove_case(dir);
    if (st != want)
        fail_msg("status %d, want %d (%s)", (int)st, (int)want, d.message);
    if (strcmp(d.tensor, tensor) != 0)
        fail_msg("names \"%s\", want \"%s\" (%s)", d.tensor, tensor,
                 d.message);
}

static void add_attr_foo(cJSON *doc)
{
    cJSON_AddNumberToObject(cJSON_GetObjectItem(doc, "attrs"), "foo", 1);
}

static void add_option(cJSON *doc)
{
    cJSON *o = cJSON_AddObjectToObject(doc, "options");
    cJSON_AddStringToObject(o, "reduce_order", "pairwise");
}

static void drop_wins(cJSON *doc)
{
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(doc, "inputs"), "wins");
}

static void bad_compress(cJSON *doc)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "attrs"),
                              "compress_type", cJSON_CreateString("ROPE"));
}

static void bad_layout(cJSON *doc)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "attrs"),
                              "cache_layout", cJSON_CreateString("BNSD"));
}

static void rope_to_kvhead(cJSON *doc)
{
    /* offset_index stays in the inputs: KVHEAD must refuse it */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "attrs"),
                              "compress_type", cJSON_CreateString("KVHEAD"));
}

static void test_omni_strict(void **state)
{
    (void)state;
    expect_broken("reshape_and_cache_omni", "worked_example_fp16",
                  add_attr_foo, KVG_ERR_FILE_FORMAT, "foo");
    expect_broken("reshape_and_cache_omni", "worked_example_fp16",
                  add_option, KVG_ERR_FILE_FORMAT, "reduce_order");
    expect_broken("reshape_and_cache_omni", "worked_example_fp16", drop_wins,
                  KVG_ERR_FILE_FORMAT, "wins");
}

static void test_plain_strict(void **state)
{
    (void)state;
    expect_broken("reshape_and_cache", "nd_fp16", add_attr_foo,
                  KVG_ERR_FILE_FORMAT, "foo");
    expect_broken("reshape_and_cache", "nd_fp16", bad_compress,
                  KVG_ERR_FILE_FORMAT, "compress_type");
    expect_broken("reshape_and_cache", "nz_fp16", bad_layout,
                  KVG_ERR_FILE_FORMAT, "cache_layout");
    expect_broken("reshape_and_cache", "kvhead_rope_edges_fp16",
                  rope_to_kvhead, KVG_ERR_PARAM_INVALID, "offset_index");
    expect_broken("reshape_and_cache", "kvhead_rope_edges_fp16", drop_wins,
                  KVG_ERR_PARAM_NULLPTR, "wins");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_omni_strict),
        cmocka_unit_test(test_plain_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
