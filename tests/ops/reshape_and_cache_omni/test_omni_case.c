/*
 * tests/ops/reshape_and_cache_omni/test_omni_case.c - the case adapter is
 * strict for reshape_and_cache_omni, which has no attributes and no
 * options and needs all eight tensors (tests/case_edit.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "case_edit.h"

#include <string.h>

static void add_attr_foo(char *text, size_t cap)
{
    if (strstr(text, "\"attrs\": {}") != NULL)
        kvgt_replace_first(text, cap, "\"attrs\": {}",
                           "\"attrs\": {\"foo\": 1}");
    else
        kvgt_replace_first(text, cap, "\"attrs\": {",
                           "\"attrs\": {\"foo\": 1,");
}

static void add_option(char *text, size_t cap)
{
    kvgt_replace_first(text, cap, "\"op\":",
                       "\"options\": {\"reduce_order\": \"pairwise\"}, "
                       "\"op\":");
}

static void drop_wins(char *text, size_t cap)
{
    (void)cap;
    kvgt_remove_member(text, "wins");
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
