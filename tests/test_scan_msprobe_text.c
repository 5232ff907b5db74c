/*
 * tests/test_scan_msprobe_text.c - kvg_scan_msprobe_text, msprobe's
 * dump.json scanner: each way the text around "data" can be malformed is
 * refused with its own sentence (written out here from the reader's
 * contract, docs/scan.md), and a well-formed "data" lists the forward
 * calls of kvgold's APIs, counts another API's and skips a backward one.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "json.h"
#include "scan.h"

/* The text scanned from an exact-size heap copy (ASan sees a read past
 * it); refused with KVG_ERR_FILE_FORMAT, diag tensor "data", `message`. */
static void expect_refused(const char *text, const char *message)
{
    size_t len = strlen(text);
    char *copy = (char *)malloc(len ? len : 1);
    kvg_scan_list l;
    kvg_diag diag;

    assert_non_null(copy);
    memcpy(copy, text, len);
    memset(&l, 0, sizeof l);
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_scan_msprobe_text(copy, len, "d", "", 0, &l, &diag),
                     KVG_ERR_FILE_FORMAT);
    assert_int_equal(diag.status, KVG_ERR_FILE_FORMAT);
    assert_string_equal(diag.tensor, "data");
    assert_string_equal(diag.message, message);
    kvg_scan_list_free(&l);
    free(copy);
}

static void test_refusals(void **state)
{
    char deep[3 * KVG_JSON_MAX_DEPTH], msg[128];
    (void)state;
    expect_refused("[]", "dump.json: not a JSON object");
    expect_refused("{\"task\": \"x\"}", "dump.json: no \"data\" object");
    expect_refused("{\"data", "dump.json: an unterminated string");
    /* a backslash last in the text is unterminated too (the step past
     * its end this once took is pointer arithmetic no sanitizer sees) */
    expect_refused("{\"da\\", "dump.json: an unterminated string");
    expect_refused("{\"data\" {}}", "dump.json: a key without ':'");
    expect_refused("{\"a\": ]}", "dump.json: malformed JSON");
    expect_refused("{\"data\": 1}", "dump.json: \"data\" is not an object");
    /* {"data": {1}}: the member's key should start at byte 10 */
    expect_refused("{\"data\": {1}}",
                   "dump.json: malformed \"data\" member at byte 10");
    expect_refused("{\"data\": {\"k\" 1}}", "dump.json: data.k: no ':'");
    expect_refused("{\"data\": {\"k\": ]}}",
                   "dump.json: data.k: malformed JSON");
    /* one '[' more than the reader's depth limit, before and in "data" */
    memset(deep, '[', KVG_JSON_MAX_DEPTH + 1);
    deep[KVG_JSON_MAX_DEPTH + 1] = '\0';
    {
        char text[sizeof deep + 32];
        (void)snprintf(text, sizeof text, "{\"a\": %s", deep);
        (void)snprintf(msg, sizeof msg,
                       "dump.json: a member nested deeper than %d levels",
                       KVG_JSON_MAX_DEPTH);
        expect_refused(text, msg);
        (void)snprintf(text, sizeof text, "{\"data\": {\"k\": %s", deep);
        (void)snprintf(msg, sizeof msg,
                       "dump.json: data.k: nested deeper than %d levels",
                       KVG_JSON_MAX_DEPTH);
        expect_refused(text, msg);
    }
}

/* The bare name (after "torch_npu.") of the first torch_npu form of the
 * first operator's binding that scan reads in msprobe dumps: the call of
 * the listing tests, taken from the bindings rather than named here. */
static const char *some_api(void)
{
    const kvg_binding *const *b;
    size_t i;
    for (b = kvg_bindings; *b != NULL; b++)
        for (i = 0; i < (*b)->n_calls; i++) {
            const char *api = (*b)->calls[i].api, *dot;
            if ((*b)->calls[i].kind != KVG_BINDING_TORCH_NPU)
                continue;
            dot = strrchr(api, '.');
            api = dot != NULL ? dot + 1 : api;
            if (kvg_scan_find(api, KVG_SCAN_MSPROBE, NULL) != NULL)
                return api;
        }
    fail_msg("no binding has a torch_npu form scan reads in msprobe dumps");
    return NULL;
}

static void test_calls_listed(void **state)
{
    const char *api = some_api();
    char text[1024], want[256];
    kvg_scan_list l;
    kvg_diag diag;
    (void)state;
    (void)snprintf(text, sizeof text,
                   "{\"task\": \"statistics\", \"level\": \"L1\",\n"
                   " \"data\": {\n"
                   "  \"Functional.linear.0.forward\": {\"input_args\": []},\n"
                   "  \"NPU.%s.0.backward\": {},\n"
                   "  \"NPU.%s.0.forward\": {\"input_args\": []},\n"
                   "  \"NPU.%s.1.forward\": {\"input_args\": 1}\n"
                   " }\n}\n", api, api, api);
    memset(&l, 0, sizeof l);
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_scan_msprobe_text(text, strlen(text), "d", "r",
                                           0, &l, &diag),
                     KVG_OK);
    assert_int_equal(l.others, 1); /* Functional.linear */
    assert_int_equal(l.count, 2);  /* the backward is not read */
    assert_string_equal(l.calls[0].api, api);
    (void)snprintf(want, sizeof want, "r:NPU.%s.0.forward", api);
    assert_string_equal(l.calls[0].id, want);
    assert_string_equal(l.calls[0].dir, "d");
    assert_string_equal(l.calls[0].unreadable, "");
    assert_int_equal(l.calls[0].n_in, 0);
    /* a call kvgold cannot read is listed NOT JUDGED, the rest goes on */
    (void)snprintf(want, sizeof want,
                   "unreadable: d/dump.json: data.NPU.%s.1.forward."
                   "input_args: missing", api);
    assert_string_equal(l.calls[1].unreadable, want);
    assert_int_equal(diag.status, KVG_OK);
    kvg_scan_list_free(&l);
}

/* The first torch API form of any binding in a "torch.ops." namespace
 * that an attribute's value selects ("attr=value": the forms a record's
 * namespace picks), or NULL. */
static const kvg_binding_call *some_namespaced_form(void)
{
    size_t i, k;
    for (i = 0; kvg_bindings[i] != NULL; i++)
        for (k = 0; k < kvg_bindings[i]->n_calls; k++) {
            const kvg_binding_call *c = &kvg_bindings[i]->calls[k];
            if (c->kind == KVG_BINDING_TORCH_NPU && c->api != NULL &&
                strncmp(c->api, "torch.ops.", 10) == 0 &&
                c->selector != NULL && strchr(c->selector, '=') != NULL)
                return c;
        }
    return NULL;
}

/* msprobe keys a registered API by its prefix, dots and all
 * ("torch.ops.<ns>.<name>.<n>.forward", register_custom_api's default,
 * docs/scan.md "Whose op a record of a shared name is"): a form's own
 * namespace lists it as that form's call, never as an API "ops"; another
 * namespace's API and an aten overload ("Aten.add.Tensor") are counted
 * as other APIs'. */
static void test_dotted_prefix(void **state)
{
    const kvg_binding_call *f = some_namespaced_form();
    char text[1024];
    kvg_scan_list l;
    kvg_diag diag;
    (void)state;
    if (f == NULL)
        skip();
    (void)snprintf(text, sizeof text,
                   "{\"data\": {\n"
                   "  \"torch.ops.zz_none.zz_none.0.forward\": "
                   "{\"input_args\": []},\n"
                   "  \"Aten.add.Tensor.0.forward\": {\"input_args\": []},\n"
                   "  \"%s.0.forward\": {\"input_args\": []}\n"
                   " }\n}\n", f->api);
    memset(&l, 0, sizeof l);
    kvg_diag_clear(&diag);
    assert_int_equal(kvg_scan_msprobe_text(text, strlen(text), "d", "",
                                           0, &l, &diag),
                     KVG_OK);
    assert_int_equal(l.others, 2);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.calls[0].unreadable, "");
    /* that form, or one of the same API outside torch.ops. */
    assert_string_equal(strncmp(l.calls[0].api, "torch.ops.", 10) == 0
                            ? l.calls[0].api + 10
                            : l.calls[0].api,
                        f->api + 10);
    assert_non_null(kvg_scan_find(l.calls[0].api, KVG_SCAN_MSPROBE, NULL));
    kvg_scan_list_free(&l);
}

/* A NULL diag is allowed (kvgold/status.h): the same listing, the same
 * reasons on the calls, a refusal still returned by status. */
static void test_null_diag(void **state)
{
    const char *api = some_api();
    char text[256], want[256];
    kvg_scan_list l;
    (void)state;
    (void)snprintf(text, sizeof text,
                   "{\"data\": {\"NPU.%s.1.forward\": "
                   "{\"input_args\": 1}}}", api);
    memset(&l, 0, sizeof l);
    assert_int_equal(kvg_scan_msprobe_text(text, strlen(text), "d", "",
                                           0, &l, NULL),
                     KVG_OK);
    assert_int_equal(l.count, 1);
    (void)snprintf(want, sizeof want,
                   "unreadable: d/dump.json: data.NPU.%s.1.forward."
                   "input_args: missing", api);
    assert_string_equal(l.calls[0].unreadable, want);
    kvg_scan_list_free(&l);
    memset(&l, 0, sizeof l);
    assert_int_equal(kvg_scan_msprobe_text("[]", 2, "d", "", 0, &l, NULL),
                     KVG_ERR_FILE_FORMAT);
    assert_int_equal(l.count, 0);
    kvg_scan_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_calls_listed),
        cmocka_unit_test(test_null_diag),
        cmocka_unit_test(test_dotted_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
