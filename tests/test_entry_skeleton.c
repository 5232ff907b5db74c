/*
 * tests/test_entry_skeleton.c - the entry skeleton (src/common/entry.c) and
 * the workspace carving (kvg_i_ws) that every operator shares.
 *
 *   messages   for every operator kind: a NULL argument struct, a NULL
 *              result pointer, a NULL and a one-byte-short workspace are
 *              refused with the same status, tensor and exact message
 *              (the wording documented in docs/architecture.md, with the
 *              size the query reported), and nothing is written;
 *   carving    a measuring kvg_i_ws adds kvg_i_ws_bytes per piece (16-byte
 *              rounding plus 16 of alignment slack); carving a buffer of
 *              exactly that size, at any alignment, gives 16-aligned,
 *              disjoint pieces inside it; one byte less or a size_t
 *              overflow fails.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "op_fixture.h"
#include "src/common/internal.h"

static void expect(const kvg_diag *d, kvg_status got, kvg_status want,
                   const char *tensor, const char *message, opf *f,
                   const char *what)
{
    if (got != want || strcmp(d->tensor, tensor) != 0 ||
        strcmp(d->message, message) != 0)
        fail_msg("%s, %s: status %d tensor \"%s\" \"%s\"; expected %d \"%s\" "
                 "\"%s\"", f->desc->label, what, (int)got, d->tensor,
                 d->message, (int)want, tensor, message);
}

static void one_kind(const opf_kind_desc *kind)
{
    opf f;
    kvg_diag d;
    size_t need = 0;
    char want[160];

    opf_init(&f, kind, 7u + opf_kind_salt(kind));
    assert_int_equal(opf_query(&f, &need, &d), KVG_OK);
    assert_true(need > 0);
    opf_snapshot(&f);

    expect(&d, opf_call_null_args(&f, &d), KVG_ERR_PARAM_NULLPTR, "args",
           "args: NULL argument struct", &f, "NULL args");
    expect(&d, f.op->workspace_size(NULL, &need, &d), KVG_ERR_PARAM_NULLPTR,
           "args", "args: NULL argument struct", &f, "query, NULL args");
    expect(&d, opf_query(&f, NULL, &d), KVG_ERR_PARAM_NULLPTR, "bytes",
           "bytes: NULL result pointer", &f, "query, NULL bytes");

    opf_set_workspace(&f, NULL, need);
    (void)snprintf(want, sizeof want,
                   "workspace: %llu bytes given (NULL), %llu needed",
                   (unsigned long long)need, (unsigned long long)need);
    expect(&d, opf_call(&f, &d), KVG_ERR_WORKSPACE, "workspace", want, &f,
           "NULL workspace");

    opf_set_workspace(&f, opf_workspace(&f), need - 1);
    (void)snprintf(want, sizeof want,
                   "workspace: %llu bytes given (non-NULL), %llu needed",
                   (unsigned long long)(need - 1), (unsigned long long)need);
    expect(&d, opf_call(&f, &d), KVG_ERR_WORKSPACE, "workspace", want, &f,
           "short workspace");
    opf_assert_unchanged(&f, "refused calls");

    /* and the exact size is enough */
    opf_set_workspace(&f, opf_workspace(&f), need);
    assert_int_equal(opf_call(&f, &d), KVG_OK);
    opf_free(&f);
}

static void test_carving(void **state)
{
    unsigned char buf[256];
    kvg_i_ws w;
    size_t off;
    (void)state;

    kvg_i_ws_measure(&w);
    assert_null(kvg_i_ws_take(&w, 3, 4));  /* 12 -> 16 + 16 */
    assert_null(kvg_i_ws_take(&w, 5, 8));  /* 40 -> 48 + 16 */
    assert_null(kvg_i_ws_take(&w, 0, 4));  /* 0 -> 0 + 16 */
    assert_int_equal(kvg_i_ws_used(&w), 32 + 64 + 16);

    for (off = 0; off < 16; off++) {
        unsigned char *p, *q, *r;
        kvg_i_ws_init(&w, buf + off, 112);
        p = (unsigned char *)kvg_i_ws_take(&w, 3, 4);
        q = (unsigned char *)kvg_i_ws_take(&w, 5, 8);
        r = (unsigned char *)kvg_i_ws_take(&w, 0, 4);
        assert_non_null(p);
        assert_non_null(q);
        assert_non_null(r);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_int_equal((uintptr_t)q % 16, 0);
        assert_int_equal((uintptr_t)r % 16, 0);
        assert_true(p >= buf + off && p + 12 <= q && q + 40 <= r &&
                    r <= buf + off + 112);
        assert_int_equal(kvg_i_ws_used(&w), 112);

        kvg_i_ws_init(&w, buf + off, 111);
        (void)kvg_i_ws_take(&w, 3, 4);
        (void)kvg_i_ws_take(&w, 5, 8);
        assert_null(kvg_i_ws_take(&w, 0, 4));
        assert_int_equal(kvg_i_ws_used(&w), 0);
    }

    kvg_i_ws_measure(&w);
    (void)kvg_i_ws_take(&w, SIZE_MAX / 2, 4);
    assert_int_equal(kvg_i_ws_used(&w), 0);
    kvg_i_ws_measure(&w);
    (void)kvg_i_ws_take(&w, SIZE_MAX / 64, 16);
    (void)kvg_i_ws_take(&w, SIZE_MAX / 64, 16);
    assert_int_not_equal(kvg_i_ws_used(&w), 0);
    (void)kvg_i_ws_take(&w, SIZE_MAX / 64, 16);
    (void)kvg_i_ws_take(&w, SIZE_MAX / 64, 16);
    assert_int_equal(kvg_i_ws_used(&w), 0); /* the sum overflows */
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_carving),
    };
    static const opf_per_kind per[] = {{"messages", one_kind}};
    return opf_run_tests("test_entry_skeleton", fixed, 1, per, 1);
}
