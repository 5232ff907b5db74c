/*
 * tests/ops/reshape_and_cache/test_rac_case.c - the case adapter is strict
 * for reshape_and_cache: unknown attributes, unknown compress types and
 * layouts are malformed cases; a tensor the mode does not take, or one it
 * needs, is the operator's refusal (tests/case_edit.h).
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

static void drop_wins(char *text, size_t cap)
{
    (void)cap;
    kvgt_remove_member(text, "wins");
}

static void bad_compress(char *text, size_t cap)
{
    kvgt_set_string_member(text, cap, "compress_type", "ROPE");
}

static void bad_layout(char *text, size_t cap)
{
    kvgt_set_string_member(text, cap, "cache_layout", "BNSD");
}

static void rope_to_kvhead(char *text, size_t cap)
{
    /* offset_index stays in the inputs: KVHEAD must refuse it */
    kvgt_set_string_member(text, cap, "compress_type", "KVHEAD");
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
