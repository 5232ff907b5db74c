/*
 * tests/ops/reshape_and_cache_omni/test_omni_case.c - the case adapter is
 * strict for reshape_and_cache_omni, which has no attributes and no
 * options and needs all eight tensors (tests/case_edit.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case_edit.h"

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

static void test_omni_strict(void **state)
{
    (void)state;
    kvgt_expect_broken("reshape_and_cache_omni", "worked_example_fp16",
                       add_attr_foo, KVG_ERR_FILE_FORMAT, "foo");
    kvgt_expect_broken("reshape_and_cache_omni", "worked_example_fp16",
                       add_option, KVG_ERR_FILE_FORMAT, "reduce_order");
    kvgt_expect_broken("reshape_and_cache_omni", "worked_example_fp16",
                       drop_wins, KVG_ERR_FILE_FORMAT, "wins");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_omni_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
