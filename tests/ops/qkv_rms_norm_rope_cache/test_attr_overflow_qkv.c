/*
 * tests/ops/qkv_rms_norm_rope_cache/test_attr_overflow_qkv.c - products of
 * QkvRmsNormRopeCache's size-list attributes (qkv_size, head_nums) that
 * wrap to the real sizes are refused (161002) naming the attribute, with
 * nothing written (docs/reliability.md). The calls are the reliability
 * fixture's (tests/op_fixture.h), whose lists[0] / lists[1] the args'
 * qkv_size / head_nums point into.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdint.h>
#include <string.h>

static void expect_attr(opf *f, const char *tensor, const char *fragment,
                        const char *label)
{
    kvg_diag d;
    kvg_status st;
    opf_snapshot(f);
    st = opf_call(f, &d);
    if (st != KVG_ERR_PARAM_INVALID || strcmp(d.tensor, tensor) != 0 ||
        strstr(d.message, fragment) == NULL)
        fail_msg("%s: got %d naming \"%s\": %s", label, (int)st, d.tensor,
                 d.message);
    opf_assert_unchanged(f, label);
}

/* This operator's kinds (its fixture.c). */
extern const opf_kind_desc *const opf_kinds_qkv_rms_norm_rope_cache[];

static void test_qkv_attr_products(void **state)
{
    const opf_kind_desc *kind = opf_kinds_qkv_rms_norm_rope_cache[0];
    int seed, wrapped = 0;
    (void)state;
    for (seed = 1; seed <= 8; seed++) {
        opf f;
        int64_t p = 0, q = 0, *qkv_size, *head_nums;
        opf_init(&f, kind, (uint64_t)seed);
        qkv_size = f.lists[0], head_nums = f.lists[1];
        /* B*S wraps to the real token count (where 2^64 + B*S has a
         * factor below 2^20: not every token count does) */
        if (opf_wrap_pair((uint64_t)(qkv_size[0] * qkv_size[1]), &p, &q)) {
            qkv_size[0] = p, qkv_size[1] = q;
            expect_attr(&f, "qkv_size", "overflow", "B*S wraps");
            opf_restore(&f);
            wrapped++;
        }
        /* N*D wraps: N + 2^57 heads of D = 128, head_nums summing to it */
        qkv_size[2] += (int64_t)1 << 57;
        head_nums[0] += (int64_t)1 << 57;
        expect_attr(&f, "qkv_size", "overflow", "N*D wraps");
        opf_restore(&f);
        /* Nq + Nk + Nv wraps to N */
        head_nums[0] = INT64_MAX;
        head_nums[1] = INT64_MAX;
        head_nums[2] = qkv_size[2] + 2; /* 2^64 - 2 + N + 2 = N */
        expect_attr(&f, "head_nums", "must equal N", "Nq+Nk+Nv wraps");
        opf_restore(&f);
        opf_free(&f);
    }
    if (wrapped < 3)
        fail_msg("B*S wrapped in %d of 8 seeds", wrapped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qkv_attr_products),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
