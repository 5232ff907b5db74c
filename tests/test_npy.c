/*
 * tests/test_npy.c - the .npy reader and writer (kvgold/npy.h).
 *
 *  - round trips for every dtype and every rank 0..8, through memory and
 *    through files;
 *  - the writer's bytes equal NumPy 1.24's np.save bytes, byte for byte, for
 *    the reference files tools/gen/kvgen/cases_npy.py writes with np.save;
 *  - the reader accepts NumPy's version 2.0 files and refuses, each with its
 *    status and a message fragment, every malformed input we know of;
 *  - every truncation prefix and every single-byte corruption of a valid
 *    file is parsed from an exactly-sized heap buffer, so ASan proves the
 *    parser never reads out of bounds.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvgold/npy.h"
#include "npy_file.h"

static const kvg_dtype k_all_dtypes[] = {
    KVG_FP16, KVG_BF16,       KVG_FP32,     KVG_INT8, KVG_INT32,
    KVG_INT64, KVG_FP8_E4M3FN, KVG_FP8_E5M2, KVG_HIF8,
};
#define N_DTYPES (sizeof k_all_dtypes / sizeof k_all_dtypes[0])

static char g_tmpdir[256];

/* ---- helpers ----------------------------------------------------------- */

typedef struct image {
    unsigned char *p;
    size_t n;
} image;

static void image_free(image *im)
{
    free(im->p);
    im->p = NULL;
    im->n = 0;
}

/*
 * A raw .npy image: magic, version major.minor, a header length field of
 * `hlen_field` (2 bytes for major 1, 4 otherwise), then `text` verbatim
 * (`tlen` bytes), then `ndata` data bytes from the seeded pattern.
 */
static image raw_image(int major, int minor, size_t hlen_field,
                       const char *text, size_t tlen, size_t ndata)
{
    size_t pre = major == 1 ? 10 : 12;
    image im;

    im.n = pre + tlen + ndata;
    im.p = (unsigned char *)kvgt_alloc_poisoned(im.n, 77);
    memcpy(im.p, "\x93NUMPY", 6);
    im.p[6] = (unsigned char)major;
    im.p[7] = (unsigned char)minor;
    im.p[8] = (unsigned char)(hlen_field & 0xFF);
    im.p[9] = (unsigned char)((hlen_field >> 8) & 0xFF);
    if (major != 1) {
        im.p[10] = (unsigned char)((hlen_field >> 16) & 0xFF);
        im.p[11] = (unsigned char)((hlen_field >> 24) & 0xFF);
    }
    memcpy(im.p + pre, text, tlen);
    return im;
}

/* A well-formed image around a dict text: spaces and a newline pad the
 * header to a multiple of 64, as NumPy does. */
static image dict_image(int major, const char *dict, size_t ndata)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t len = strlen(dict);
    size_t pad = 64 - (pre + len + 1) % 64;
    char *text = (char *)malloc(len + pad + 1);
    image im;

    assert_non_null(text);
    memcpy(text, dict, len);
    memset(text + len, ' ', pad);
    text[len + pad] = '\n';
    im = raw_image(major, 0, len + pad + 1, text, len + pad + 1, ndata);
    free(text);
    return im;
}

static void assert_contains(const char *msg, const char *fragment)
{
    if (strstr(msg, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", msg, fragment);
}

/* Parse `im` and require status `want` with `fragment` in the message. */
static void expect_parse(const image *im, kvg_status want,
                         const char *fragment)
{
    kvg_npy_info info;
    kvg_diag diag;
    kvg_status st;

    kvg_diag_clear(&diag);
    st = kvg_npy_parse(im->p, im->n, &info, &diag);
    if (st != want)
        fail_msg("parse: status %s, want %s (%s); expecting \"%s\"",
                 kvg_status_name(st), kvg_status_name(want), diag.message,
                 fragment);
    if (want == KVG_OK)
        return;
    assert_int_equal(diag.status, want);
    assert_string_equal(diag.tensor, "npy");
    assert_contains(diag.message, fragment);
}

static void expect_dict(const char *dict, size_t ndata, kvg_status want,
                        const char *fragment)
{
    image im = dict_image(1, dict, ndata);
    expect_parse(&im, want, fragment);
    image_free(&im);
}

static void pattern_fill(unsigned char *p, size_t n, unsigned seed)
{
    size_t j;
    for (j = 0; j < n; j++)
        p[j] = (unsigned char)((seed + 151u * (unsigned)(j % 255u)) % 255u +
                               1u);
}

static void tmp_path(char *out, size_t cap, const char *name)
{
    (void)snprintf(out, cap, "%s/%s", g_tmpdir, name);
}

static int setup_tmpdir(void **state)
{
    (void)state;
    (void)snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/kvg_npy_XXXXXX");
    if (mkdtemp(g_tmpdir) == NULL)
        return -1;
    return 0;
}

static int remove_tmpdir(void **state)
{
    DIR *d = opendir(g_tmpdir);
    struct dirent *e;
    char path[512];

    (void)state;
    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            (void)snprintf(path, sizeof path, "%s/%s", g_tmpdir, e->d_name);
            (void)remove(path);
        }
        closedir(d);
    }
    (void)rmdir(g_tmpdir);
    return 0;
}

/* ---- round trips -------------------------------------------------------- */

static const int64_t k_dims[KVG_MAX_RANK] = {2, 3, 1, 2, 1, 3, 1, 2};

static const char *expected_descr(kvg_dtype dt)
{
    switch (dt) {
    case KVG_FP16: return "<f2";
    case KVG_BF16: return "<u2";
    case KVG_FP32: return "<f4";
    case KVG_INT8: return "|i1";
    case KVG_INT32: return "<i4";
    case KVG_INT64: return "<i8";
    default: return "|u1";
    }
}

static void test_descr_table(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N_DTYPES; i++)
        assert_string_equal(kvg_npy_descr_of(k_all_dtypes[i]),
                            expected_descr(k_all_dtypes[i]));
    assert_null(kvg_npy_descr_of(KVG_DTYPE_INVALID));
    assert_null(kvg_npy_descr_of((kvg_dtype)99));
}

static void roundtrip_one(kvg_dtype dt, int rank)
{
    kvg_tensor t = kvgt_tensor_new(dt, rank, k_dims, 1000u + (unsigned)rank);
    size_t need = 0, wrote = 0, i;
    unsigned char *buf;
    kvg_npy_info info;
    kvg_tensor back;
    kvg_diag diag;
    char path[512], name[64];
    int d;

    assert_int_equal(kvg_npy_encode(&t, NULL, 0, &need, &diag), KVG_OK);
    /* every header of rank <= 8 fits the first 128 bytes, as in np.save */
    assert_int_equal(need, 128 + t.nbytes);
    buf = (unsigned char *)kvgt_alloc_poisoned(need, 5);
    assert_int_equal(kvg_npy_encode(&t, buf, need, &wrote, &diag), KVG_OK);
    assert_int_equal(wrote, need);
    assert_int_equal(kvg_npy_parse(buf, need, &info, &diag), KVG_OK);
    assert_string_equal(info.descr, expected_descr(dt));
    assert_int_equal(info.major, 1);
    assert_int_equal(info.minor, 0);
    assert_int_equal(info.rank, rank);
    for (d = 0; d < rank; d++)
        assert_int_equal(info.shape[d], k_dims[d]);
    assert_int_equal(info.data_offset, 128);
    assert_int_equal(info.data_bytes, t.nbytes);
    kvgt_assert_bytes_equal(buf + 128, t.data, t.nbytes, "encoded data");
    assert_int_equal(buf[127], '\n');
    for (i = 10; i < 127; i++)
        assert_true(buf[i] >= 0x20 && buf[i] < 0x7F);

    (void)snprintf(name, sizeof name, "rt_%s_%d.npy", kvg_dtype_name(dt),
                   rank);
    tmp_path(path, sizeof path, name);
    assert_int_equal(kvg_npy_save(path, &t, &diag), KVG_OK);
    memset(&back, 0x5A, sizeof back);
    if (kvg_npy_load(path, dt, &back, &diag) != KVG_OK)
        fail_msg("load %s: %s", path, diag.message);
    assert_int_equal(back.dtype, dt);
    assert_int_equal(back.rank, rank);
    for (d = 0; d < rank; d++)
        assert_int_equal(back.shape[d], k_dims[d]);
    for (d = rank; d < KVG_MAX_RANK; d++)
        assert_int_equal(back.shape[d], 0);
    assert_int_equal(back.nbytes, t.nbytes);
    assert_non_null(back.data);
    kvgt_assert_bytes_equal(back.data, t.data, t.nbytes, "loaded data");
    kvg_npy_free(&back);
    assert_null(back.data);
    free(buf);
    kvgt_tensor_free(&t);
}

static void test_roundtrip_every_dtype_and_rank(void **state)
{
    size_t i;
    int rank;
    (void)state;
    for (i = 0; i < N_DTYPES; i++)
        for (rank = 0; rank <= KVG_MAX_RANK; rank++)
            roundtrip_one(k_all_dtypes[i], rank);
}

static void test_roundtrip_empty(void **state)
{
    int64_t shape[3] = {4, 0, 7};
    kvg_tensor t = kvg_tensor_make(NULL, 0, KVG_FP32, 3, shape);
    unsigned char buf[128];
    size_t wrote = 0;
    kvg_npy_info info;
    kvg_tensor back;
    kvg_diag diag;
    char path[512];

    (void)state;
    assert_int_equal(kvg_npy_encode(&t, buf, sizeof buf, &wrote, &diag),
                     KVG_OK);
    assert_int_equal(wrote, 128);
    assert_int_equal(kvg_npy_parse(buf, wrote, &info, &diag), KVG_OK);
    assert_int_equal(info.rank, 3);
    assert_int_equal(info.shape[1], 0);
    assert_int_equal(info.data_bytes, 0);
    tmp_path(path, sizeof path, "empty.npy");
    assert_int_equal(kvg_npy_save(path, &t, &diag), KVG_OK);
    assert_int_equal(kvg_npy_load(path, KVG_FP32, &back, &diag), KVG_OK);
    assert_non_null(back.data); /* documented: non-NULL even when empty */
    assert_int_equal(back.nbytes, 0);
    assert_int_equal(back.shape[2], 7);
    kvg_npy_free(&back);
    kvg_npy_free(NULL);
}

static void test_encode_buffer_sizes(void **state)
{
    int64_t shape[2] = {3, 5};
    kvg_tensor t = kvgt_tensor_new(KVG_BF16, 2, shape, 9);
    unsigned char *buf, *ref;
    size_t need = 0, wrote = 0;
    kvg_diag diag;

    (void)state;
    assert_int_equal(kvg_npy_encode(&t, NULL, 0, &need, &diag), KVG_OK);
    assert_int_equal(need, 128 + 30);
    buf = (unsigned char *)kvgt_alloc_poisoned(need, 3);
    ref = (unsigned char *)kvgt_alloc_poisoned(need, 3);
    /* one byte short: refused, nothing written, size still reported */
    wrote = 0;
    assert_int_equal(kvg_npy_encode(&t, buf, need - 1, &wrote, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(wrote, need);
    assert_contains(diag.message, "needed");
    kvgt_assert_bytes_equal(buf, ref, need, "buffer after a refused encode");
    /* exactly enough */
    assert_int_equal(kvg_npy_encode(&t, buf, need, &wrote, &diag), KVG_OK);
    assert_int_equal(wrote, need);
    free(buf);
    free(ref);
    kvgt_tensor_free(&t);
}

static void test_encode_errors(void **state)
{
    int64_t shape[2] = {2, 2};
    unsigned char data[16], out[256];
    kvg_tensor t = kvg_tensor_make(data, sizeof data, KVG_FP32, 2, shape);
    kvg_tensor bad;
    size_t wrote;
    kvg_diag diag;

    (void)state;
    assert_int_equal(kvg_npy_encode(NULL, out, sizeof out, &wrote, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_npy_encode(&t, out, sizeof out, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    bad = t;
    bad.dtype = KVG_DTYPE_INVALID;
    assert_int_equal(kvg_npy_encode(&bad, out, sizeof out, &wrote, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "invalid dtype");
    bad = t;
    bad.nbytes = 15;
    assert_int_equal(kvg_npy_encode(&bad, out, sizeof out, &wrote, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "buffer is 15 bytes, shape needs 16");
    bad = t;
    bad.data = NULL;
    assert_int_equal(kvg_npy_encode(&bad, out, sizeof out, &wrote, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_contains(diag.message, "data pointer is NULL");
    bad = t;
    bad.rank = 9;
    assert_int_equal(kvg_npy_encode(&bad, out, sizeof out, &wrote, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "rank 9");
    bad = t;
    bad.shape[1] = -2;
    assert_int_equal(kvg_npy_encode(&bad, out, sizeof out, &wrote, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "negative");
}

/* ---- version 2.0 -------------------------------------------------------- */

static void test_v2_headers(void **state)
{
    static const char dict[] =
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
    image im = dict_image(2, dict, 24);
    kvg_npy_info info;
    kvg_diag diag;
    char *big;
    size_t blen = 70000 - 12, i;

    (void)state;
    assert_int_equal(kvg_npy_parse(im.p, im.n, &info, &diag), KVG_OK);
    assert_int_equal(info.major, 2);
    assert_int_equal(info.data_offset, 128);
    assert_int_equal(info.data_bytes, 24);
    assert_int_equal(info.shape[1], 3);
    image_free(&im);

    /* a v2.0 header may be longer than 64 KiB - 1, up to the reader's cap */
    big = (char *)malloc(blen);
    assert_non_null(big);
    memcpy(big, dict, sizeof dict - 1);
    for (i = sizeof dict - 1; i < blen - 1; i++)
        big[i] = ' ';
    big[blen - 1] = '\n';
    im = raw_image(2, 0, KVG_NPY_MAX_HEADER, big, KVG_NPY_MAX_HEADER, 24);
    im.p[12 + KVG_NPY_MAX_HEADER - 1] = '\n';
    assert_int_equal(kvg_npy_parse(im.p, im.n, &info, &diag), KVG_OK);
    assert_int_equal(info.data_offset, 12 + KVG_NPY_MAX_HEADER);
    image_free(&im);
    /* one byte over the cap is refused before anything is read */
    im = raw_image(2, 0, KVG_NPY_MAX_HEADER + 1, big, blen, 0);
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "exceeds the 65536-byte limit");
    image_free(&im);
    free(big);
}

/* ---- malformed input ---------------------------------------------------- */

static const char k_good[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";

static void test_bad_magic_and_preamble(void **state)
{
    image im = dict_image(1, k_good, 48);
    unsigned char *p;
    kvg_npy_info info;
    kvg_diag diag;

    (void)state;
    im.p[5] = 'Z';
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "bad magic");
    im.p[5] = 'Y';
    im.p[0] = 0x92;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "bad magic");
    im.p[0] = 0x93;
    expect_parse(&im, KVG_OK, "");

    /* a short buffer that is a prefix of the magic is truncated, not bad */
    im.n = 8;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "truncated preamble");
    im.n = 3;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "truncated preamble");
    im.p[2] = 'X';
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "bad magic");
    image_free(&im);

    p = (unsigned char *)malloc(1);
    assert_non_null(p);
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_npy_parse(p, 0, &info, &diag), KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "bad magic (empty file)");
    free(p);
    assert_int_equal(kvg_npy_parse(NULL, 0, &info, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_int_equal(kvg_npy_parse(NULL, 10, &info, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_npy_parse("x", 1, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    /* diag is optional */
    assert_int_equal(kvg_npy_parse("x", 1, &info, NULL), KVG_ERR_FILE_FORMAT);

    im = dict_image(2, k_good, 48);
    im.n = 11;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "truncated version 2.0 preamble");
    image_free(&im);
}

static void test_bad_versions(void **state)
{
    image im = dict_image(1, k_good, 48);
    (void)state;
    im.p[6] = 3;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "version 3.0 is not supported");
    im.p[6] = 1;
    im.p[7] = 1;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "version 1.1 is not supported");
    im.p[6] = 0;
    im.p[7] = 0;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "version 0.0 is not supported");
    image_free(&im);
}

static void test_header_length(void **state)
{
    image im = dict_image(1, k_good, 48);
    (void)state;
    /* header length field 1 past the end of the file */
    im.p[8] = (unsigned char)((118 + 48 + 1) & 0xFF);
    im.p[9] = 0;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "runs past the end");
    im.p[8] = 0xFF;
    im.p[9] = 0xFF;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "truncated header");
    /* file cut inside the header */
    im.p[8] = 118;
    im.p[9] = 0;
    im.n = 60;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "runs past the end");
    /* header length 0 */
    im.n = 10 + 118 + 48;
    im.p[8] = 0;
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "does not end with a newline");
    image_free(&im);
}

static void test_missing_newline(void **state)
{
    image im = dict_image(1, k_good, 48);
    (void)state;
    im.p[127] = ' ';
    expect_parse(&im, KVG_ERR_FILE_FORMAT, "does not end with a newline");
    image_free(&im);
    /* a newline inside the header is whitespace, only the last byte counts */
    expect_dict("{'descr': '<f4',\n 'fortran_order': False,\n"
                " 'shape': (3, 4)}",
                48, KVG_OK, "");
}

static void test_keys(void **state)
{
    (void)state;
    expect_dict("{'descr': '<f4', 'fortran_order': False, }", 4,
                KVG_ERR_FILE_FORMAT, "missing key 'shape'");
    expect_dict("{'fortran_order': False, 'shape': (1,), }", 4,
                KVG_ERR_FILE_FORMAT, "missing key 'descr'");
    expect_dict("{'descr': '<f4', 'shape': (1,), }", 4, KVG_ERR_FILE_FORMAT,
                "missing key 'fortran_order'");
    expect_dict("{}", 4, KVG_ERR_FILE_FORMAT, "missing key");
    expect_dict("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                "'shape': (1,), }",
                4, KVG_ERR_FILE_FORMAT, "key 'descr' appears twice");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                "'shape': (1,)}",
                4, KVG_ERR_FILE_FORMAT, "key 'shape' appears twice");
    expect_dict("{'fortran_order': False, 'descr': '<f4', 'fortran_order': "
                "False, 'shape': (1,)}",
                4, KVG_ERR_FILE_FORMAT, "key 'fortran_order' appears twice");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                "'extra': 1}",
                4, KVG_ERR_FILE_FORMAT, "unknown key 'extra'");
    /* keys in any order, double quotes, no trailing comma: all accepted */
    expect_dict("{\"shape\": (1,), \"fortran_order\": False, \"descr\": "
                "\"<f4\"}",
                4, KVG_OK, "");
}

static void test_unknown_key_position(void **state)
{
    image im = dict_image(1, "{'descr': '<f4', 'bogus': 1}", 0);
    kvg_npy_info info;
    kvg_diag diag;
    (void)state;
    assert_int_equal(kvg_npy_parse(im.p, im.n, &info, &diag),
                     KVG_ERR_FILE_FORMAT);
    /* the key starts at byte 17 of the header text */
    assert_int_equal(diag.position, 17);
    assert_contains(diag.message, "header byte 17");
    image_free(&im);
}

static void test_bad_literals(void **state)
{
    (void)state;
    expect_dict("{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "fortran_order must be True or False");
    expect_dict("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}",
                4, KVG_ERR_FILE_FORMAT, "fortran_order must be True or False");
    expect_dict("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "fortran_order must be True or False");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1)}",
                4, KVG_ERR_FILE_FORMAT, "non-negative integer");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", 4,
                KVG_ERR_FILE_FORMAT, "trailing comma");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (01,)}",
                4, KVG_ERR_FILE_FORMAT, "leading zero");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", 4,
                KVG_ERR_FILE_FORMAT, "shape must be a tuple");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}", 4,
                KVG_ERR_FILE_FORMAT, "expected ',' or ')'");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", 4,
                KVG_ERR_FILE_FORMAT, "non-negative integer");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1.0,)}",
                4, KVG_ERR_FILE_FORMAT, "expected ',' or ')'");
    expect_dict("{'descr': <f4, 'fortran_order': False, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "expected a quoted descr");
    expect_dict("{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "expected ':' after key 'descr'");
    /* an unbalanced quote swallows the comma: the descr is then wrong */
    expect_dict("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "descr '<f4, ' is not supported");
    expect_dict("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}",
                4, KVG_ERR_FILE_FORMAT, "escapes");
    expect_dict("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "expected ',' or '}'");
    expect_dict("{descr: '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
                KVG_ERR_FILE_FORMAT, "expected a quoted key");
    expect_dict("['descr', '<f4']", 4, KVG_ERR_FILE_FORMAT,
                "header must start with '{'");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
                4, KVG_ERR_FILE_FORMAT, "text after the closing '}'");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)",
                4, KVG_ERR_FILE_FORMAT, "expected ',' or '}'");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                "'a_very_long_key_name_past_31_chars': 1}",
                4, KVG_ERR_FILE_FORMAT, "key longer than 31 characters");
    expect_dict("{'descr': '<f\x01', 'fortran_order': False, 'shape': (1,)}",
                4, KVG_ERR_FILE_FORMAT, "byte 0x01");
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(1, 1, 1, 1, 1, 1, 1, 1, 1)}",
                4, KVG_ERR_FILE_FORMAT, "more than 8 dimensions");
    /* 8 dimensions, whitespace everywhere NumPy allows it: fine */
    expect_dict("{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : "
                "( 1 , 1 , 1 , 1 , 1 , 1 , 1 , 1 , ) , }",
                4, KVG_OK, "");
}

/* The header-first pieces a file reader uses: the header size from the
 * first 12 bytes, the header parsed without its data, and the data size
 * judged against a file size that is only a number. */
static void test_header_first(void **state)
{
    static const char dict[] =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }";
    image v1 = dict_image(1, dict, 60), v2 = dict_image(2, dict, 60);
    kvg_npy_info info;
    kvg_diag diag;
    size_t head = 0;

    (void)state;
    assert_int_equal(kvg_npy_header_size(v1.p, 12, &head, &diag), KVG_OK);
    assert_true(head == 128 && head == v1.n - 60); /* 10 + 60 + pad + 1 */
    assert_int_equal(kvg_npy_header_size(v2.p, 12, &head, &diag), KVG_OK);
    assert_true(head == 128 && head == v2.n - 60);
    assert_int_equal(kvg_npy_header_size(v1.p, 10, &head, &diag), KVG_OK);
    assert_int_equal(kvg_npy_header_size(v2.p, 11, &head, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "truncated version 2.0 preamble");
    assert_int_equal(kvg_npy_header_size(v1.p, 9, &head, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_int_equal(kvg_npy_header_size("PK\x03\x04junkjunk", 12, &head,
                                         &diag), KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "bad magic");

    /* only the header in the buffer: parsed, the data not required */
    assert_int_equal(kvg_npy_parse_header(v1.p, 128, &info, &diag), KVG_OK);
    assert_true(info.data_offset == 128 && info.data_bytes == 60);
    assert_true(info.rank == 2 && info.shape[0] == 3 && info.shape[1] == 5);
    assert_int_equal(kvg_npy_parse_header(v1.p, 127, &info, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "truncated header");

    assert_int_equal(kvg_npy_parse_header(v1.p, 128, &info, &diag), KVG_OK);
    assert_int_equal(kvg_npy_check_data_size(&info, 188, &diag), KVG_OK);
    assert_int_equal(kvg_npy_check_data_size(&info, 187, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "short data: 59 bytes");
    assert_int_equal(kvg_npy_check_data_size(&info, (uint64_t)1 << 40,
                                             &diag), KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "trailing data: 1099511627588 bytes");
    image_free(&v1);
    image_free(&v2);
}

/* encode_header + the data bytes == encode, and its size is the data
 * offset a parser finds. */
static void test_encode_header(void **state)
{
    static const int64_t shape[3] = {2, 3, 7};
    kvg_tensor t = kvgt_tensor_new(KVG_BF16, 3, shape, 5);
    unsigned char head[640], *whole;
    size_t hn = 0, wn = 0;
    kvg_npy_info info;
    kvg_diag diag;

    (void)state;
    assert_int_equal(kvg_npy_encode_header(&t, NULL, 0, &hn, &diag), KVG_OK);
    assert_int_equal(kvg_npy_encode_header(&t, head, hn - 1, &hn, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(kvg_npy_encode_header(&t, head, sizeof head, &hn, &diag),
                     KVG_OK);
    assert_int_equal(hn % 64, 0);
    assert_int_equal(kvg_npy_encode(&t, NULL, 0, &wn, &diag), KVG_OK);
    assert_true(wn == hn + t.nbytes);
    whole = (unsigned char *)kvgt_alloc_poisoned(wn, 6);
    assert_int_equal(kvg_npy_encode(&t, whole, wn, &wn, &diag), KVG_OK);
    kvgt_assert_bytes_equal(whole, head, hn, "header");
    kvgt_assert_bytes_equal(whole + hn, t.data, t.nbytes, "data");
    assert_int_equal(kvg_npy_parse(whole, wn, &info, &diag), KVG_OK);
    assert_true(info.data_offset == hn);
    free(whole);
    kvgt_tensor_free(&t);
}

/* The descrs dumps carry for bf16 and fp8 (NumPy's void, ml_dtypes' names)
 * parse with their item size, and are accepted for their dtype only. */
static void test_descr_aliases(void **state)
{
    (void)state;
    expect_dict("{'descr': '|V2', 'fortran_order': False, 'shape': (2,)}", 4,
                KVG_OK, "");
    expect_dict("{'descr': '<V2', 'fortran_order': False, 'shape': (3,)}", 6,
                KVG_OK, "");
    expect_dict("{'descr': 'bfloat16', 'fortran_order': False, "
                "'shape': (2,)}", 4, KVG_OK, "");
    expect_dict("{'descr': 'bfloat16', 'fortran_order': False, "
                "'shape': (2,)}", 2, KVG_ERR_FILE_FORMAT, "short data");
    expect_dict("{'descr': 'float8_e4m3fn', 'fortran_order': False, "
                "'shape': (2,)}", 2, KVG_OK, "");
    expect_dict("{'descr': 'float8_e5m2', 'fortran_order': False, "
                "'shape': (2,)}", 3, KVG_ERR_FILE_FORMAT, "trailing data");
    /* ml_dtypes' unpacked fp4 is refused with the reason, not read as
     * packed pairs */
    expect_dict("{'descr': 'float4_e2m1fn', 'fortran_order': False, "
                "'shape': (2,)}", 2, KVG_ERR_FILE_FORMAT,
                "descr 'float4_e2m1fn' is ml_dtypes' unpacked fp4, one code "
                "per byte");
    assert_true(kvg_npy_descr_accepts(KVG_BF16, "<u2"));
    assert_true(kvg_npy_descr_accepts(KVG_BF16, "|V2"));
    assert_true(kvg_npy_descr_accepts(KVG_BF16, "<V2"));
    assert_true(kvg_npy_descr_accepts(KVG_BF16, "bfloat16"));
    assert_false(kvg_npy_descr_accepts(KVG_FP16, "|V2"));
    assert_false(kvg_npy_descr_accepts(KVG_FP16, "bfloat16"));
    assert_false(kvg_npy_descr_accepts(KVG_BF16, "<f2"));
    assert_true(kvg_npy_descr_accepts(KVG_FP8_E4M3FN, "float8_e4m3fn"));
    assert_false(kvg_npy_descr_accepts(KVG_FP8_E4M3FN, "float8_e5m2"));
    assert_true(kvg_npy_descr_accepts(KVG_FP8_E5M2, "float8_e5m2"));
    assert_true(kvg_npy_descr_accepts(KVG_FP8_E5M2, "<f1"));
    assert_true(kvg_npy_descr_accepts(KVG_FP8_E5M2, "|V1"));
    assert_false(kvg_npy_descr_accepts(KVG_INT8, "|V1"));
    /* e8m0: its ml_dtypes name and the void ml_dtypes' np.save writes */
    assert_true(kvg_npy_descr_accepts(KVG_E8M0, "float8_e8m0fnu"));
    assert_true(kvg_npy_descr_accepts(KVG_E8M0, "<V1"));
    assert_true(kvg_npy_descr_accepts(KVG_E8M0, "|u1"));
    assert_false(kvg_npy_descr_accepts(KVG_E8M0, "float8_e4m3fn"));
    assert_false(kvg_npy_descr_accepts(KVG_FP8_E4M3FN, "float8_e8m0fnu"));
    assert_true(kvg_npy_descr_accepts(KVG_FP4_E2M1, "|u1"));
    assert_false(kvg_npy_descr_accepts(KVG_FP4_E2M1, "<V1"));
    assert_false(kvg_npy_descr_accepts(KVG_BF16, NULL));
    /* the writer keeps NumPy's plain storage */
    assert_string_equal(kvg_npy_descr_of(KVG_BF16), "<u2");
}

static void test_fortran_and_descr(void **state)
{
    (void)state;
    expect_dict("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2)}",
                16, KVG_ERR_FILE_FORMAT, "fortran_order True is not supported");
    expect_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", 16,
                KVG_ERR_FILE_FORMAT, "descr '<f8' is not supported");
    expect_dict("{'descr': '<u1', 'fortran_order': False, 'shape': (2,)}", 2,
                KVG_ERR_FILE_FORMAT, "descr '<u1' is not supported");
    expect_dict("{'descr': '|V4', 'fortran_order': False, 'shape': (2,)}", 8,
                KVG_ERR_FILE_FORMAT, "descr '|V4' is not supported");
    expect_dict("{'descr': 'float16', 'fortran_order': False, 'shape': (2,)}",
                4, KVG_ERR_FILE_FORMAT, "descr 'float16' is not supported");
    expect_dict("{'descr': '', 'fortran_order': False, 'shape': (2,)}", 4,
                KVG_ERR_FILE_FORMAT, "descr '' is not supported");
    expect_dict("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}", 8,
                KVG_ERR_FILE_FORMAT, "descr '>f4' is big-endian");
    expect_dict("{'descr': '>u2', 'fortran_order': False, 'shape': (2,)}", 4,
                KVG_ERR_FILE_FORMAT, "big-endian");
    expect_dict("{'descr': '>i8', 'fortran_order': False, 'shape': (2,)}", 16,
                KVG_ERR_FILE_FORMAT, "big-endian");
    expect_dict("{'descr': '<U123456789012345678901234567890', "
                "'fortran_order': False, 'shape': (2,)}",
                4, KVG_ERR_FILE_FORMAT, "descr longer than 31");
}

static void test_shape_overflow(void **state)
{
    (void)state;
    /* one dimension beyond int64 */
    expect_dict("{'descr': '|u1', 'fortran_order': False, 'shape': "
                "(9223372036854775808,)}",
                0, KVG_ERR_FILE_FORMAT, "shape dimension overflows int64");
    /* INT64_MAX itself parses; its byte size does not fit (4 bytes each) */
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(9223372036854775807,)}",
                0, KVG_ERR_FILE_FORMAT, "shape byte size overflows");
    /* product overflow: 2^32 * 2^32 */
    expect_dict("{'descr': '|u1', 'fortran_order': False, 'shape': "
                "(4294967296, 4294967296)}",
                0, KVG_ERR_FILE_FORMAT, "element count overflows int64 at "
                                        "dim 1");
    /* element count fits (2^62), bytes (2^64) do not: the size_t case */
    expect_dict("{'descr': '<f4', 'fortran_order': False, 'shape': "
                "(4611686018427387904,)}",
                0, KVG_ERR_FILE_FORMAT, "shape byte size overflows");
    expect_dict("{'descr': '<i8', 'fortran_order': False, 'shape': "
                "(2, 576460752303423488)}",
                0, KVG_ERR_FILE_FORMAT, "shape byte size overflows");
    /* a zero dimension makes the huge ones harmless: 0 bytes, accepted */
    expect_dict("{'descr': '<i8', 'fortran_order': False, 'shape': "
                "(0, 9223372036854775807, 9223372036854775807)}",
                0, KVG_OK, "");
}

static void test_data_size(void **state)
{
    (void)state;
    expect_dict(k_good, 47, KVG_ERR_FILE_FORMAT,
                "short data: 47 bytes, but shape and descr '<f4' need 48");
    expect_dict(k_good, 0, KVG_ERR_FILE_FORMAT, "short data");
    expect_dict(k_good, 49, KVG_ERR_FILE_FORMAT,
                "trailing data: 1 bytes after the 48");
    expect_dict(k_good, 48, KVG_OK, "");
    expect_dict("{'descr': '|i1', 'fortran_order': False, 'shape': ()}", 1,
                KVG_OK, "");
    expect_dict("{'descr': '|i1', 'fortran_order': False, 'shape': ()}", 0,
                KVG_ERR_FILE_FORMAT, "short data");
}

/* Every prefix of a valid file, each in its own exactly-sized allocation:
 * all are refused, none is read past its end (ASan). */
static void test_every_truncation_prefix(void **state)
{
    image im = dict_image(1, k_good, 48);
    size_t len;
    (void)state;
    for (len = 0; len < im.n; len++) {
        unsigned char *p = (unsigned char *)malloc(len ? len : 1);
        kvg_npy_info info;
        kvg_diag diag;
        assert_non_null(p);
        memcpy(p, im.p, len);
        kvg_diag_clear(&diag);
        if (kvg_npy_parse(p, len, &info, &diag) != KVG_ERR_FILE_FORMAT)
            fail_msg("prefix of %lu bytes was not refused",
                     (unsigned long)len);
        assert_true(diag.message[0] != '\0');
        free(p);
    }
    expect_parse(&im, KVG_OK, "");
    image_free(&im);
}

/* Every header byte replaced by each of a set of interesting bytes: the
 * parser may accept or refuse, but must stay in bounds and, when it accepts,
 * describe data that lie inside the buffer. */
static void test_single_byte_corruptions(void **state)
{
    static const unsigned char subst[] = {
        0x00, ' ', '\n', '\'', '"', '{', '}', '(', ')', ',', ':', '0', '9',
        '-', 'T', 'F', '<', '>', '|', 'f', 'u', 'i', '\\', 0x7F, 0xFF};
    image im = dict_image(1, k_good, 48);
    size_t at, k, accepted = 0;
    (void)state;
    for (at = 0; at < 128; at++) {
        for (k = 0; k < sizeof subst; k++) {
            unsigned char *p = (unsigned char *)malloc(im.n);
            kvg_npy_info info;
            kvg_status st;
            assert_non_null(p);
            memcpy(p, im.p, im.n);
            p[at] = subst[k];
            st = kvg_npy_parse(p, im.n, &info, NULL);
            if (st == KVG_OK) {
                accepted++;
                assert_true(info.data_offset <= im.n);
                assert_int_equal(info.data_offset + info.data_bytes, im.n);
            } else {
                assert_int_equal(st, KVG_ERR_FILE_FORMAT);
            }
            free(p);
        }
    }
    /* padding spaces replaced by spaces or newlines still parse */
    assert_true(accepted > 0);
    image_free(&im);
}

/* ---- files --------------------------------------------------------------- */

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void test_load_errors(void **state)
{
    int64_t shape[1] = {4};
    kvg_tensor t = kvgt_tensor_new(KVG_FP32, 1, shape, 31);
    kvg_tensor out;
    kvg_diag diag;
    char path[512], bad[512];
    image im;

    (void)state;
    tmp_path(path, sizeof path, "f32.npy");
    assert_int_equal(kvg_npy_save(path, &t, &diag), KVG_OK);

    memset(&out, 0x5A, sizeof out);
    assert_int_equal(kvg_npy_load(path, KVG_FP16, &out, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "descr is '<f4' but dtype fp16 is stored "
                                  "as '<f2'");
    assert_true(strncmp(diag.message, path, strlen(path)) == 0);
    assert_null(out.data);
    assert_int_equal(kvg_npy_load(path, KVG_HIF8, &out, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_contains(diag.message, "dtype hif8 is stored as '|u1'");
    assert_int_equal(kvg_npy_load(path, KVG_DTYPE_INVALID, &out, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_contains(diag.message, "no .npy storage for dtype invalid");
    assert_null(out.data);

    tmp_path(bad, sizeof bad, "does_not_exist.npy");
    assert_int_equal(kvg_npy_load(bad, KVG_FP32, &out, &diag), KVG_ERR_IO);
    assert_contains(diag.message, "cannot open");
    assert_null(out.data);

    /* a parser error gets the path in front */
    im = dict_image(1, k_good, 47);
    tmp_path(bad, sizeof bad, "short.npy");
    write_bytes(bad, im.p, im.n);
    assert_int_equal(kvg_npy_load(bad, KVG_FP32, &out, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_true(strncmp(diag.message, bad, strlen(bad)) == 0);
    assert_contains(diag.message, ": npy: short data");
    image_free(&im);

    assert_int_equal(kvg_npy_load(NULL, KVG_FP32, &out, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_npy_load(path, KVG_FP32, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);

    /* saving into a missing directory: an I/O error, no file left behind */
    tmp_path(bad, sizeof bad, "no_such_dir/x.npy");
    assert_int_equal(kvg_npy_save(bad, &t, &diag), KVG_ERR_IO);
    assert_contains(diag.message, "cannot create");
    assert_int_equal(kvg_npy_save(NULL, &t, &diag), KVG_ERR_PARAM_NULLPTR);
    kvgt_tensor_free(&t);
}

/* ---- NumPy's own bytes ------------------------------------------------------ */

typedef struct ref_file {
    const char *stem;
    kvg_dtype dtype; /* the logical dtype to encode/load it as */
    int rank;
    int64_t shape[KVG_MAX_RANK];
    unsigned seed;
} ref_file;

/* Mirrors WRITER in tools/gen/kvgen/cases_npy.py. The '|u1' files use the
 * three 1-byte float dtypes in turn, which all store as '|u1'. */
static const ref_file k_writer_files[] = {
    {"f2_r0", KVG_FP16, 0, {0}, 1},
    {"u2_r1", KVG_BF16, 1, {5}, 2},
    {"f4_r2", KVG_FP32, 2, {3, 4}, 3},
    {"i1_r3", KVG_INT8, 3, {2, 3, 4}, 4},
    {"u1_r4", KVG_HIF8, 4, {2, 1, 3, 2}, 5},
    {"i4_r5", KVG_INT32, 5, {1, 2, 1, 3, 2}, 6},
    {"i8_r6", KVG_INT64, 6, {2, 1, 1, 2, 1, 2}, 7},
    {"f4_r7", KVG_FP32, 7, {2, 1, 2, 1, 2, 1, 2}, 8},
    {"u2_r8", KVG_BF16, 8, {1, 2, 1, 2, 1, 2, 1, 3}, 9},
    {"f2_empty", KVG_FP16, 1, {0}, 10},
    {"f4_dim13", KVG_FP32, 2, {1234567890123LL, 0}, 11},
    {"u1_r1_300", KVG_FP8_E4M3FN, 1, {300}, 12},
    {"i4_zero_mid", KVG_INT32, 4, {1000000, 0, 1000000, 1000}, 13},
};
#define N_WRITER (sizeof k_writer_files / sizeof k_writer_files[0])
#define N_READER_ONLY 6 /* v2_f4 v3_f4 fortran_f4 bigendian_f4 descr_f8/b1 */

static const char *vectors_dir(void)
{
    const char *d = getenv("KVG_VECTORS_DIR");
    if (d == NULL)
        fail_msg("KVG_VECTORS_DIR is not set (run through ctest)");
    return d;
}

static image read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    image im;
    long n;

    if (f == NULL)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    im.n = (size_t)n;
    im.p = (unsigned char *)malloc(im.n ? im.n : 1);
    assert_non_null(im.p);
    assert_int_equal(fread(im.p, 1, im.n, f), im.n);
    fclose(f);
    return im;
}

static size_t ref_bytes(const ref_file *r)
{
    size_t n = kvg_dtype_size(r->dtype);
    int d;
    for (d = 0; d < r->rank; d++)
        n *= (size_t)r->shape[d];
    return n;
}

static void test_writer_matches_np_save(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N_WRITER; i++) {
        const ref_file *r = &k_writer_files[i];
        char path[1024], what[128];
        size_t nb = ref_bytes(r), need = 0, wrote = 0;
        unsigned char *data = (unsigned char *)malloc(nb ? nb : 1), *enc;
        kvg_tensor t;
        kvg_diag diag;
        image ref;

        assert_non_null(data);
        pattern_fill(data, nb, r->seed);
        t = kvg_tensor_make(data, nb, r->dtype, r->rank, r->shape);
        (void)snprintf(path, sizeof path, "%s/npy/%s.npy", vectors_dir(),
                       r->stem);
        ref = read_whole(path);
        assert_int_equal(kvg_npy_encode(&t, NULL, 0, &need, &diag), KVG_OK);
        if (need != ref.n)
            fail_msg("%s: kvg_npy_encode makes %lu bytes, np.save %lu",
                     r->stem, (unsigned long)need, (unsigned long)ref.n);
        enc = (unsigned char *)kvgt_alloc_poisoned(need, 8);
        assert_int_equal(kvg_npy_encode(&t, enc, need, &wrote, &diag), KVG_OK);
        (void)snprintf(what, sizeof what, "%s: kvg_npy_encode vs np.save",
                       r->stem);
        kvgt_assert_bytes_equal(enc, ref.p, ref.n, what);
        free(enc);
        image_free(&ref);
        free(data);
    }
}

static void test_reader_on_np_save_files(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N_WRITER; i++) {
        const ref_file *r = &k_writer_files[i];
        char path[1024];
        size_t nb = ref_bytes(r);
        unsigned char *want = (unsigned char *)malloc(nb ? nb : 1);
        kvg_tensor t;
        kvg_diag diag;
        int d;

        assert_non_null(want);
        pattern_fill(want, nb, r->seed);
        (void)snprintf(path, sizeof path, "%s/npy/%s.npy", vectors_dir(),
                       r->stem);
        if (kvg_npy_load(path, r->dtype, &t, &diag) != KVG_OK)
            fail_msg("%s: %s", r->stem, diag.message);
        assert_int_equal(t.rank, r->rank);
        for (d = 0; d < r->rank; d++)
            assert_int_equal(t.shape[d], r->shape[d]);
        assert_int_equal(t.nbytes, nb);
        kvgt_assert_bytes_equal(t.data, want, nb, r->stem);
        kvg_npy_free(&t);
        free(want);
    }
}

static void expect_load(const char *stem, kvg_dtype dt, kvg_status want,
                        const char *fragment)
{
    char path[1024];
    kvg_tensor t;
    kvg_diag diag;
    kvg_status st;

    (void)snprintf(path, sizeof path, "%s/npy/%s.npy", vectors_dir(), stem);
    kvg_diag_clear(&diag);
    st = kvg_npy_load(path, dt, &t, &diag);
    if (st != want)
        fail_msg("%s: status %s, want %s (%s)", stem, kvg_status_name(st),
                 kvg_status_name(want), diag.message);
    if (st == KVG_OK)
        kvg_npy_free(&t);
    else
        assert_contains(diag.message, fragment);
}

static void test_numpy_reader_files(void **state)
{
    char path[1024];
    unsigned char want[24];
    kvg_tensor t;
    kvg_diag diag;

    (void)state;
    (void)snprintf(path, sizeof path, "%s/npy/v2_f4.npy", vectors_dir());
    if (kvg_npy_load(path, KVG_FP32, &t, &diag) != KVG_OK)
        fail_msg("v2_f4: %s", diag.message);
    assert_int_equal(t.rank, 2);
    assert_int_equal(t.shape[0], 2);
    assert_int_equal(t.shape[1], 3);
    pattern_fill(want, sizeof want, 20);
    assert_int_equal(t.nbytes, sizeof want);
    kvgt_assert_bytes_equal(t.data, want, sizeof want, "v2_f4 data");
    kvg_npy_free(&t);

    expect_load("v3_f4", KVG_FP32, KVG_ERR_FILE_FORMAT,
                "version 3.0 is not supported");
    expect_load("fortran_f4", KVG_FP32, KVG_ERR_FILE_FORMAT,
                "fortran_order True is not supported");
    expect_load("bigendian_f4", KVG_FP32, KVG_ERR_FILE_FORMAT,
                "descr '>f4' is big-endian");
    expect_load("descr_f8", KVG_FP32, KVG_ERR_FILE_FORMAT,
                "descr '<f8' is not supported");
    expect_load("descr_b1", KVG_INT8, KVG_ERR_FILE_FORMAT,
                "descr '|b1' is not supported");
}

/* The C tables above must cover the generator's whole directory. */
static void test_reference_dir_complete(void **state)
{
    char path[1024];
    DIR *d;
    struct dirent *e;
    size_t n = 0;

    (void)state;
    (void)snprintf(path, sizeof path, "%s/npy", vectors_dir());
    d = opendir(path);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".npy") == 0)
            n++;
    }
    closedir(d);
    assert_int_equal(n, N_WRITER + N_READER_ONLY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descr_table),
        cmocka_unit_test(test_roundtrip_every_dtype_and_rank),
        cmocka_unit_test(test_roundtrip_empty),
        cmocka_unit_test(test_encode_buffer_sizes),
        cmocka_unit_test(test_encode_errors),
        cmocka_unit_test(test_v2_headers),
        cmocka_unit_test(test_bad_magic_and_preamble),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_header_length),
        cmocka_unit_test(test_missing_newline),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_unknown_key_position),
        cmocka_unit_test(test_bad_literals),
        cmocka_unit_test(test_fortran_and_descr),
        cmocka_unit_test(test_descr_aliases),
        cmocka_unit_test(test_header_first),
        cmocka_unit_test(test_encode_header),
        cmocka_unit_test(test_shape_overflow),
        cmocka_unit_test(test_data_size),
        cmocka_unit_test(test_every_truncation_prefix),
        cmocka_unit_test(test_single_byte_corruptions),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_writer_matches_np_save),
        cmocka_unit_test(test_reader_on_np_save_files),
        cmocka_unit_test(test_numpy_reader_files),
        cmocka_unit_test(test_reference_dir_complete),
    };
    return cmocka_run_group_tests_name("npy", tests, setup_tmpdir,
                                       remove_tmpdir);
}
