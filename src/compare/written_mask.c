/*
 * src/compare/written_mask.c - kvg_compare_written_mask: which elements an
 * op writes, from two golden runs whose initial contents differ in every
 * element. Runs where both outputs agree are found in bulk; only elements
 * that differ are examined one by one.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/common/internal.h"
#include "src/compare/compare_internal.h"

/* The first element of [0, n) where init_a equals init_b, or n. An inline
 * load per element instead of a memcmp call. */
static int64_t first_equal(const unsigned char *a, const unsigned char *b,
                           size_t es, int64_t n)
{
    int64_t i;
    size_t off = 0;
    for (i = 0; i < n; i++, off += es)
        if (kvg_i_cmp_raw_bits(a + off, es) == kvg_i_cmp_raw_bits(b + off, es))
            return i;
    return n;
}

/* Validate: every element that differs between the outputs must be its
 * initial value in both runs. Returns the first offender, or n. */
static int64_t first_dependent(const unsigned char *oa,
                               const unsigned char *ia,
                               const unsigned char *ob,
                               const unsigned char *ib, size_t es, int64_t n)
{
    int64_t i = 0;
    while ((i = kvg_i_cmp_first_diff(oa, ob, es, i, n)) < n) {
        size_t off = (size_t)i * es;
        if (memcmp(oa + off, ia + off, es) != 0 ||
            memcmp(ob + off, ib + off, es) != 0)
            return i;
        i++;
    }
    return n;
}

static void fill_mask(const unsigned char *oa, const unsigned char *ob,
                      size_t es, int64_t n, unsigned char *mask)
{
    int64_t i = 0, d;
    while (i < n) {
        d = kvg_i_cmp_first_diff(oa, ob, es, i, n);
        memset(mask + i, 1, (size_t)(d - i));
        if (d < n)
            mask[d] = 0;
        i = d + 1;
    }
}

kvg_status kvg_compare_written_mask(const kvg_tensor *out_a,
                                    const kvg_tensor *init_a,
                                    const kvg_tensor *out_b,
                                    const kvg_tensor *init_b,
                                    unsigned char *mask, size_t count,
                                    kvg_diag *diag)
{
    const unsigned char *oa, *ia, *ob, *ib;
    int64_t numel, bad;
    size_t es;

    if (mask == NULL && count != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, "mask", -1, -1,
                            "mask: NULL output buffer");
    KVG_TRY(kvg_i_cmp_check_view(out_a, "out_a", &numel, diag));
    KVG_TRY(kvg_i_cmp_check_like(init_a, "init_a", out_a, diag));
    KVG_TRY(kvg_i_cmp_check_like(out_b, "out_b", out_a, diag));
    KVG_TRY(kvg_i_cmp_check_like(init_b, "init_b", out_a, diag));
    if ((uint64_t)count != (uint64_t)numel)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "mask", -1, -1,
                            "mask: room for %llu elements, the tensors have "
                            "%lld", (unsigned long long)count,
                            (long long)numel);
    es = kvg_dtype_size(out_a->dtype);
    oa = (const unsigned char *)out_a->data;
    ia = (const unsigned char *)init_a->data;
    ob = (const unsigned char *)out_b->data;
    ib = (const unsigned char *)init_b->data;
    if ((bad = first_equal(ia, ib, es, numel)) < numel)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "init_b", -1, bad,
                            "init_b: element %lld equals init_a; every "
                            "element must differ (e.g. init_b = ~init_a)",
                            (long long)bad);
    if ((bad = first_dependent(oa, ia, ob, ib, es, numel)) < numel)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "out_b", -1, bad,
                            "out_b: element %lld depends on the initial "
                            "contents but was not left untouched; the op "
                            "reads its output, no written mask exists",
                            (long long)bad);
    fill_mask(oa, ob, es, numel, mask);
    return KVG_OK;
}
