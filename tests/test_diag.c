/*
 * tests/test_diag.c - the public error idiom of kvgold/status.h:
 * kvg_diag_set fills every field (or only returns with a NULL diag) and
 * KVG_TRY passes a failure up unchanged and goes on after KVG_OK. The
 * expected values are the arguments themselves and the contract's sizes.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "kvgold/status.h"

static void test_set_fills_every_field(void **state)
{
    kvg_diag d;
    (void)state;
    kvg_diag_clear(&d);
    assert_int_equal(kvg_diag_set(&d, KVG_ERR_PARAM_INVALID, "index", 2, 7,
                                  "token %d: slot %lld", 7, 99LL),
                     KVG_ERR_PARAM_INVALID);
    assert_int_equal(d.status, KVG_ERR_PARAM_INVALID);
    assert_string_equal(d.tensor, "index");
    assert_int_equal(d.dim, 2);
    assert_int_equal(d.position, 7);
    assert_string_equal(d.message, "token 7: slot 99");
    /* A second failure replaces the first entirely: NULL tensor is "". */
    assert_int_equal(kvg_diag_set(&d, KVG_ERR_IO, NULL, -1, -1, "%s", "x"),
                     KVG_ERR_IO);
    assert_string_equal(d.tensor, "");
    assert_int_equal(d.dim, -1);
    assert_int_equal(d.position, -1);
    assert_string_equal(d.message, "x");
}

static void test_set_null_diag_and_cuts(void **state)
{
    kvg_diag d;
    char name[2 * KVG_DIAG_NAME_MAX], text[2 * KVG_DIAG_MESSAGE_MAX];
    (void)state;
    assert_int_equal(kvg_diag_set(NULL, KVG_ERR_NOMEM, "t", 0, 0, "m"),
                     KVG_ERR_NOMEM);
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    memset(text, 'm', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    (void)kvg_diag_set(&d, KVG_ERR_IO, name, -1, -1, "%s", text);
    /* Cut to the field, always terminated. */
    assert_int_equal(strlen(d.tensor), KVG_DIAG_NAME_MAX - 1);
    assert_int_equal(strlen(d.message), KVG_DIAG_MESSAGE_MAX - 1);
}

static int steps_run;

static kvg_status step(kvg_status st, kvg_diag *diag)
{
    steps_run++;
    if (st == KVG_OK)
        return KVG_OK;
    return kvg_diag_set(diag, st, "step", -1, steps_run, "step %d failed",
                        steps_run);
}

static kvg_status three_steps(kvg_status second, kvg_diag *diag)
{
    KVG_TRY(step(KVG_OK, diag));
    KVG_TRY(step(second, diag));
    KVG_TRY(step(KVG_ERR_MISMATCH, diag));
    return KVG_OK;
}

static void test_try_forwards(void **state)
{
    kvg_diag d;
    (void)state;
    steps_run = 0;
    kvg_diag_clear(&d);
    assert_int_equal(three_steps(KVG_ERR_WORKSPACE, &d), KVG_ERR_WORKSPACE);
    assert_int_equal(steps_run, 2); /* the third never ran */
    assert_string_equal(d.message, "step 2 failed");
    steps_run = 0;
    assert_int_equal(three_steps(KVG_OK, &d), KVG_ERR_MISMATCH);
    assert_int_equal(steps_run, 3);
    assert_int_equal(d.position, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_fills_every_field),
        cmocka_unit_test(test_set_null_diag_and_cuts),
        cmocka_unit_test(test_try_forwards),
    };
    return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
