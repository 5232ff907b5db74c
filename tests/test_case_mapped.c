/*
 * tests/test_case_mapped.c - cases whose tensors are mapped, not read
 * - every vector case with a cache, loaded with
 * KVG_CASE_MAP_ALL, runs bit-exact against NumPy's expected tensors; its
 * caches are mapped (the inputs read-only, the golden's caches as private
 * copy-on-write mappings), the initial cache the case holds and the file
 * on disk are unchanged by the run; a mapped file is checked like a read
 * one; dropping a read-only mapping's pages keeps its contents.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_list.h"
#include "kvgold/op.h"
#include "npy_file.h"
#include "npy_map.h"
#include "tensor_file.h"

static const kvg_case_tensor *item_of(const kvg_case_set *set,
                                      const char *name)
{
    int i;
    for (i = 0; i < set->count; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return &set->items[i];
    return NULL;
}

/* The streamed verification (check) gives the plain one's verdict, on
 * the exact golden and on one with its first and last elements changed;
 * the pages it gives back lose nothing (the plain one agrees after it). */
static void check_streamed_verify(const kvg_case *c, kvg_case_set *gold)
{
    int i;

    for (i = 0; i < c->expected.count; i++) {
        kvg_case_verdict plain, streamed;
        kvg_case_tensor *g = NULL;
        unsigned char *p;
        size_t n;
        int k;
        for (k = 0; k < gold->count; k++)
            if (strcmp(gold->items[k].name, c->expected.items[i].name) == 0)
                g = &gold->items[k];
        if (g == NULL || g->t.nbytes == 0)
            continue;
        assert_int_equal(kvg_case_verify_tensor_streamed(c, gold, i,
                                                         &streamed), 1);
        assert_int_equal(streamed.differing, 0);
        p = (unsigned char *)g->t.data;
        n = g->t.nbytes;
        p[0] ^= 0x01;
        p[n - 1] ^= 0x80;
        assert_int_equal(kvg_case_verify_tensor_streamed(c, gold, i,
                                                         &streamed), 0);
        assert_int_equal(kvg_case_verify_tensor(c, gold, i, &plain), 0);
        assert_int_equal(streamed.differing, plain.differing);
        assert_int_equal(streamed.first, plain.first);
        assert_int_equal(streamed.first, 0);
        assert_true(streamed.differing == 1 + (n > kvg_dtype_size(g->t.dtype)));
        p[0] ^= 0x01;
        p[n - 1] ^= 0x80;
    }
}

/* One case: 1 when it has a mapped cache that was checked. */
static int check_case(const char *dir)
{
    static kvg_case mapped, read;
    static kvg_case_set gold;
    kvg_diag diag;
    int i, caches = 0;

    if (kvg_case_load_with(dir, &mapped, KVG_CASE_MAP_ALL, &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
    if (mapped.expect_error) {
        kvg_case_free(&mapped);
        return 0;
    }
    assert_int_equal(kvg_case_load(dir, &read, &diag), KVG_OK);
    memset(&gold, 0, sizeof gold);
    if (kvg_case_run(&mapped, &gold, &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
    if (kvg_case_verify(&mapped, &gold) != 0)
        fail_msg("%s: mapped case is not bit-exact", dir);
    for (i = 0; i < gold.count; i++) {
        const kvg_case_tensor *g = &gold.items[i];
        const kvg_case_tensor *in = item_of(&mapped.inputs, g->name);
        const kvg_case_tensor *orig = item_of(&read.inputs, g->name);
        kvg_tensor disk;
        if (in == NULL || in->t.nbytes == 0)
            continue;
        assert_non_null(in->map.base);
        assert_int_equal(in->map.mode, KVG_MAP_READ);
        assert_non_null(g->map.base);
        assert_int_equal(g->map.mode, KVG_MAP_PRIVATE);
        assert_true(g->t.data != in->t.data);
        /* the initial cache and its file are what they were */
        kvgt_assert_bytes_equal(in->t.data, orig->t.data, in->t.nbytes,
                                "initial cache after the run");
        assert_int_equal(kvg_tensor_file_load(dir, in->file, in->t.dtype, -1,
                                              NULL, &disk, &diag),
                         KVG_OK);
        kvgt_assert_bytes_equal(disk.data, orig->t.data, disk.nbytes,
                                "cache file after the run");
        kvg_npy_free(&disk);
        caches++;
    }
    check_streamed_verify(&mapped, &gold);
    kvg_case_set_free(&gold);
    kvg_case_free(&read);
    kvg_case_free(&mapped);
    return caches > 0;
}

static void test_vector_cases_mapped(void **state)
{
    (void)state;
    /* every registered operator's vectors, each contributing */
    assert_true(kvgt_check_every_op(check_case) >= 22);
}

static char g_dir[64];

static void write_file(const char *name, const void *data, size_t n)
{
    char path[128];
    FILE *f;
    (void)snprintf(path, sizeof path, "%s/%s", g_dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A mapped file is checked as a read one: the same refusals, and a
 * private mapping's writes never reach the file. Dropping the pages of a
 * read-only mapping keeps its contents (they are read again). */
static void test_map_checks_and_drop(void **state)
{
    int64_t shape[1] = {3000};
    static uint16_t data[3000];
    kvg_tensor t, back, m;
    kvg_file_map map, map2;
    char path[128], bad[128];
    kvg_diag d1, d2;
    (void)state;

    strcpy(g_dir, "/tmp/kvg_test_mapped_XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    kvgt_poison(data, sizeof data, 21);
    t = kvg_tensor_make(data, sizeof data, KVG_BF16, 1, shape);
    (void)snprintf(path, sizeof path, "%s/c.npy", g_dir);
    assert_int_equal(kvg_npy_save(path, &t, &d1), KVG_OK);

    assert_int_equal(kvg_npy_map(path, KVG_BF16, KVG_MAP_PRIVATE, &m, &map,
                                 &d1), KVG_OK);
    kvgt_assert_bytes_equal(m.data, data, sizeof data, "mapped data");
    assert_int_equal(m.rank, 1);
    assert_int_equal(m.shape[0], 3000);
    ((unsigned char *)m.data)[5] ^= 0xFF; /* copy-on-write */
    assert_int_equal(kvg_npy_load(path, KVG_BF16, &back, &d1), KVG_OK);
    kvgt_assert_bytes_equal(back.data, data, sizeof data, "file after write");
    kvg_npy_free(&back);
    kvg_file_map_drop(&map, m.data, m.nbytes); /* refused on PRIVATE */
    assert_int_equal(((unsigned char *)m.data)[5],
                     (unsigned char)(((unsigned char *)data)[5] ^ 0xFF));
    kvg_file_unmap(&map);

    assert_int_equal(kvg_npy_map(path, KVG_BF16, KVG_MAP_READ, &m, &map, &d1),
                     KVG_OK);
    kvg_file_map_drop(&map, m.data, m.nbytes);
    kvgt_assert_bytes_equal(m.data, data, sizeof data, "after a drop");
    kvg_file_unmap(&map);
    assert_null(map.base);

    /* refusals: the same status and message as the reader's */
    assert_int_equal(kvg_npy_map(path, KVG_FP16, KVG_MAP_READ, &m, &map, &d1),
                     KVG_ERR_FILE_FORMAT);
    assert_int_equal(kvg_npy_load(path, KVG_FP16, &back, &d2),
                     KVG_ERR_FILE_FORMAT);
    assert_string_equal(d1.message, d2.message);
    assert_null(map.base);
    write_file("short.npy", "\x93NUMPY\x01\x00", 8);
    (void)snprintf(bad, sizeof bad, "%s/short.npy", g_dir);
    assert_int_not_equal(kvg_npy_map(bad, KVG_BF16, KVG_MAP_READ, &m, &map,
                                     &d1), KVG_OK);
    assert_non_null(strstr(d1.message, "short.npy"));
    (void)snprintf(bad, sizeof bad, "%s/none.npy", g_dir);
    assert_int_equal(kvg_npy_map(bad, KVG_BF16, KVG_MAP_READ, &m, &map, &d1),
                     KVG_ERR_IO);
    assert_non_null(strstr(d1.message, "No such file"));
    /* a raw file: size must match the shape */
    write_file("r.bin", data, sizeof data);
    (void)snprintf(bad, sizeof bad, "%s/r.bin", g_dir);
    assert_int_equal(kvg_raw_map(bad, KVG_BF16, 1, shape, KVG_MAP_READ, &m,
                                 &map2, &d1), KVG_OK);
    kvgt_assert_bytes_equal(m.data, data, sizeof data, "raw mapped");
    kvg_file_unmap(&map2);
    shape[0] = 2999;
    assert_int_equal(kvg_raw_map(bad, KVG_BF16, 1, shape, KVG_MAP_READ, &m,
                                 &map2, &d1), KVG_ERR_FILE_FORMAT);
    assert_non_null(strstr(d1.message, "raw file is 6000 bytes"));
    (void)remove(path);
    (void)snprintf(bad, sizeof bad, "%s/short.npy", g_dir);
    (void)remove(bad);
    (void)snprintf(bad, sizeof bad, "%s/r.bin", g_dir);
    (void)remove(bad);
    (void)remove(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_cases_mapped),
        cmocka_unit_test(test_map_checks_and_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
