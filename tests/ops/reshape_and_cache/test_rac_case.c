/*
 * tests/ops/reshape_and_cache/test_rac_case.c - the case adapter is strict
 * for reshape_and_cache: unknown attributes, unknown compress types and
 * layouts are malformed cases; a tensor the mode does not take, or one it
 * needs, is the operator's refusal (tests/case_edit.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case_edit.h"

static void add_attr_foo(cJSON *doc)
{
    cJSON_AddNumberToObject(cJSON_GetObjectItem(doc, "attrs"), "foo", 1);
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

static void test_plain_strict(void **state)
{
    (void)state;
    kvgt_expect_broken("reshape_and_cache", "nd_fp16", add_attr_foo,
                       KVG_ERR_FILE_FORMAT, "foo");
    kvgt_expect_broken("reshape_and_cache", "nd_fp16", bad_compress,
                       KVG_ERR_FILE_FORMAT, "compress_type");
    kvgt_expect_broken("reshape_and_cache", "nz_fp16", bad_layout,
                       KVG_ERR_FILE_FORMAT, "cache_layout");
    kvgt_expect_broken("reshape_and_cache", "kvhead_rope_edges_fp16",
                       rope_to_kvhead, KVG_ERR_PARAM_INVALID, "offset_index");
    kvgt_expect_broken("reshape_and_cache", "kvhead_rope_edges_fp16",
                       drop_wins, KVG_ERR_PARAM_NULLPTR, "wins");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
