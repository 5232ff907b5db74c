/*
 * tests/test_op.c - the generic entry point (kvgold/op.h), driven by the
 * registry over every operator and the NumPy generator's vectors: no
 * operator is named here.
 *
 *   tables      names unique and found again; defaults as documented
 *   shapes      kvg_op_output_shape of every case equals the generator's
 *               expected tensors (and says "not produced" for outputs a
 *               case does not expect)
 *   describe    every expected tensor gets a role; a 1-byte one is not
 *               float compute; a cache layout covers the whole cache
 *   refusals    unknown / repeated / NULL names and values, wrong value
 *               types, unknown mode strings: refused with the name in
 *               diag->tensor, and not a byte of any cache written
 *   bit-exact   the first valid case of each op through kvg_op_run equals
 *               its expected tensors (every case of every op does so in
 *               test_vectors, whose adapter calls kvg_op_run), and so
 *               does the same call prepared (kvg_op_prepare) and run
 *   lookups     kvg_op_tensor_find / attr_find / attr_old_name /
 *               case_rules agree with the tables; kvg_op_check_value
 *               refuses a value alone exactly as kvg_op_run refuses it
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_list.h"
#include "kvgold/op.h"

static void load(const kvgt_case_list *l, int i, kvg_case *c)
{
    char dir[1200];
    kvg_diag diag;
    (void)snprintf(dir, sizeof dir, "%s/%s", l->dir, l->names[i]);
    if (kvg_case_load(dir, c, &diag) != KVG_OK)
        fail_msg("%s: %s", dir, diag.message);
}

static const kvg_op_tensor_info *tensor_info(const kvg_op *op,
                                             const char *name)
{
    size_t i;
    for (i = 0; i < kvg_op_tensor_count(op); i++)
        if (strcmp(kvg_op_tensor_at(op, i)->name, name) == 0)
            return kvg_op_tensor_at(op, i);
    return NULL;
}

/* The lookups by name return the table's own entries; the case rules
 * are a tensor's REQUIRED or a string attribute's FORMAT, nothing else. */
static void check_lookups(const kvg_op *op)
{
    size_t j;
    assert_null(kvg_op_tensor_find(op, "no_such_name"));
    assert_null(kvg_op_tensor_find(op, NULL));
    assert_null(kvg_op_tensor_find(NULL, kvg_op_tensor_at(op, 0)->name));
    assert_null(kvg_op_attr_find(op, "no_such_name"));
    assert_null(kvg_op_attr_old_name(op, "no_such_name"));
    assert_int_equal(kvg_op_case_rules(op, "no_such_name"), 0);
    assert_int_equal(kvg_op_case_rules(NULL, "key"), 0);
    for (j = 0; j < kvg_op_tensor_count(op); j++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, j);
        const unsigned rules = kvg_op_case_rules(op, t->name);
        assert_ptr_equal(kvg_op_tensor_find(op, t->name), t);
        assert_int_equal(rules & ~KVG_OP_CASE_REQUIRED, 0);
    }
    for (j = 0; j < kvg_op_attr_count(op); j++) {
        const kvg_op_attr_info *a = kvg_op_attr_at(op, j);
        const char *old = kvg_op_attr_old_name(op, a->name);
        const unsigned rules = kvg_op_case_rules(op, a->name);
        assert_ptr_equal(kvg_op_attr_find(op, a->name), a);
        assert_int_equal(rules & ~KVG_OP_CASE_FORMAT, 0);
        if (rules != 0)
            assert_int_equal(a->type, KVG_VALUE_STRING);
        if (old == NULL)
            continue;
        assert_string_not_equal(old, a->name);
        assert_ptr_equal(kvg_op_attr_find(op, old), a);
        assert_ptr_equal(kvg_op_attr_old_name(op, old), old);
    }
}

static void test_tables(void **state)
{
    size_t i, j, k;
    (void)state;
    assert_true(kvg_op_count() >= 4);
    assert_null(kvg_op_at(kvg_op_count()));
    assert_null(kvg_op_find("no_such_op"));
    assert_null(kvg_op_find(NULL));
    for (i = 0; i < kvg_op_count(); i++) {
        const kvg_op *op = kvg_op_at(i);
        int written = 0;
        assert_non_null(op);
        assert_ptr_equal(kvg_op_find(kvg_op_name(op)), op);
        assert_null(kvg_op_tensor_at(op, kvg_op_tensor_count(op)));
        assert_null(kvg_op_attr_at(op, kvg_op_attr_count(op)));
        for (j = 0; j < kvg_op_tensor_count(op); j++) {
            const kvg_op_tensor_info *t = kvg_op_tensor_at(op, j);
            written += t->kind == KVG_OP_CACHE || t->kind == KVG_OP_OUTPUT;
            for (k = 0; k < j; k++)
                assert_string_not_equal(kvg_op_tensor_at(op, k)->name,
                                        t->name);
        }
        /* every op writes something: a KV cache it updates or an output
         * it produces (a quantiser has no cache) */
        assert_true(written >= 1);
        check_lookups(op);
        for (j = 0; j < kvg_op_attr_count(op); j++) {
            const kvg_op_attr_info *a = kvg_op_attr_at(op, j);
            assert_int_equal(a->required, a->dflt == NULL);
            for (k = 0; k < j; k++)
                assert_string_not_equal(kvg_op_attr_at(op, k)->name,
                                        a->name);
        }
    }
}

static void check_shape(const kvg_op *op, const kvg_case *c,
                        const kvg_case_call *cc, const kvg_op_tensor_info *t)
{
    const kvg_tensor *want = kvg_case_find(&c->expected, t->name);
    int64_t shape[KVG_MAX_RANK];
    kvg_dtype dtype = KVG_DTYPE_INVALID;
    int produced = -1, rank = -1, d;
    kvg_diag diag;

    /* an optional cache the case leaves out (a key-only call) has no
     * shape to report */
    if (t->kind == KVG_OP_CACHE && kvg_case_find(&c->inputs, t->name) == NULL)
        return;
    if (kvg_op_output_shape(&cc->call, t->name, &produced, &dtype, &rank,
                            shape, &diag) != KVG_OK)
        fail_msg("%s %s: %s", c->dir, t->name, diag.message);
    if (want == NULL) {
        if (t->presence == KVG_OP_PRODUCED)
            assert_int_equal(produced, 0);
        return;
    }
    assert_int_equal(produced, 1);
    assert_int_equal(dtype, want->dtype);
    assert_int_equal(rank, want->rank);
    for (d = 0; d < rank; d++)
        assert_int_equal(shape[d], want->shape[d]);
    (void)op;
}

static void check_described(const kvg_case *c, const kvg_case_call *cc,
                            const kvg_case_tensor *e)
{
    kvg_compare_role role = KVG_ROLE_DEFAULT;
    kvg_cache_layout layout;
    int has_layout = -1;
    kvg_diag diag;

    if (kvg_op_describe_output(&cc->call, e->name, &e->t, &role, &has_layout,
                               &layout, &diag) != KVG_OK)
        fail_msg("%s %s: %s", c->dir, e->name, diag.message);
    assert_int_not_equal(role, KVG_ROLE_DEFAULT);
    /* a 1-byte tensor is quantised or copied, never float compute */
    if (kvg_dtype_size(e->t.dtype) == 1)
        assert_int_not_equal(role, KVG_ROLE_COMPUTE);
    if (has_layout) {
        int64_t n = layout.blocks * layout.slots * layout.heads * layout.dim;
        assert_int_equal(n, (int64_t)(e->t.nbytes /
                                      kvg_dtype_size(e->t.dtype)));
    }
}

/* Shapes and roles of every valid case of every operator. */
static void test_shapes_and_roles(void **state)
{
    static kvgt_case_list l;
    size_t i, j;
    int n;
    (void)state;
    for (i = 0; i < kvg_op_count(); i++) {
        const kvg_op *op = kvg_op_at(i);
        kvgt_list_cases(kvg_op_name(op), &l);
        for (n = 0; n < l.count; n++) {
            kvg_case c;
            kvg_case_call cc;
            kvg_diag diag;
            int k;
            load(&l, n, &c);
            if (!c.expect_error) {
                if (kvg_case_call_build(&c, &cc, &diag) != KVG_OK)
                    fail_msg("%s: %s", c.dir, diag.message);
                for (j = 0; j < kvg_op_tensor_count(op); j++)
                    if (kvg_op_tensor_at(op, j)->kind != KVG_OP_INPUT)
                        check_shape(op, &c, &cc, kvg_op_tensor_at(op, j));
                for (k = 0; k < c.expected.count; k++)
                    check_described(&c, &cc, &c.expected.items[k]);
            }
            kvg_case_free(&c);
        }
    }
}

/* A valid case of `op` as a ready call: caches are poisoned copies. */
typedef struct ready {
    kvg_case c;
    kvg_case_call cc;
    kvg_case_set outs;
    void *ws;
} ready;

static void make_ready(const kvg_op *op, ready *r)
{
    static kvgt_case_list l;
    size_t bytes = 0, i;
    kvg_diag diag;
    int n;

    kvgt_list_cases(kvg_op_name(op), &l);
    for (n = 0; n < l.count; n++) {
        load(&l, n, &r->c);
        if (!r->c.expect_error)
            break;
        kvg_case_free(&r->c);
    }
    assert_true(n < l.count);
    if (kvg_case_call_build(&r->c, &r->cc, &diag) != KVG_OK)
        fail_msg("%s: %s", r->c.dir, diag.message);
    memset(&r->outs, 0, sizeof r->outs);
    /* caches and outputs written by the op: private poisoned copies */
    for (i = 0; i < r->cc.call.tensor_count; i++) {
        const kvg_op_tensor_info *t = tensor_info(op, r->cc.tensors[i].name);
        kvg_tensor *copy;
        if (t->kind == KVG_OP_INPUT)
            continue;
        copy = kvg_case_set_add(&r->outs, t->name, KVG_DTYPE_INVALID, 0,
                                NULL, r->cc.tensors[i].tensor, &diag);
        assert_non_null(copy);
        r->cc.tensors[i].tensor = copy;
    }
    for (i = 0; i < kvg_op_tensor_count(op); i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(op, i);
        int64_t shape[KVG_MAX_RANK];
        kvg_dtype dtype;
        int produced = 0, rank = 0;
        kvg_tensor *o;
        if (t->kind != KVG_OP_OUTPUT ||
            kvg_case_find(&r->outs, t->name) != NULL)
            continue;
        assert_int_equal(kvg_op_output_shape(&r->cc.call, t->name, &produced,
                                             &dtype, &rank, shape, &diag),
                         KVG_OK);
        if (!produced)
            continue;
        o = kvg_case_set_add(&r->outs, t->name, dtype, rank, shape, NULL,
                             &diag);
        assert_non_null(o);
        kvgt_poison(o->data, o->nbytes, 11 + i);
        r->cc.tensors[r->cc.call.tensor_count].name = t->name;
        r->cc.tensors[r->cc.call.tensor_count++].tensor = o;
    }
    if (kvg_op_workspace_size(&r->cc.call, &bytes, &diag) != KVG_OK)
        fail_msg("%s: %s", r->c.dir, diag.message);
    r->ws = kvgt_alloc_poisoned(bytes ? bytes : 1, 7);
    r->cc.call.workspace = r->ws;
    r->cc.call.workspace_size = bytes;
}

static void free_ready(ready *r)
{
    free(r->ws);
    kvg_case_set_free(&r->outs);
    kvg_case_free(&r->c);
}

/* Every written tensor still holds what it held before the call. */
static void assert_untouched(const ready *r, const kvg_case_set *before,
                             const char *what)
{
    int i;
    for (i = 0; i < r->outs.count; i++)
        kvgt_assert_bytes_equal(r->outs.items[i].t.data,
                                before->items[i].t.data,
                                before->items[i].t.nbytes, what);
}

static void expect_refusal(ready *r, kvg_status want, const char *name,
                           const char *what)
{
    kvg_case_set before;
    kvg_diag diag;
    kvg_status st;
    int i;

    memset(&before, 0, sizeof before);
    for (i = 0; i < r->outs.count; i++)
        assert_non_null(kvg_case_set_add(&before, r->outs.items[i].name,
                                         KVG_DTYPE_INVALID, 0, NULL,
                                         &r->outs.items[i].t, &diag));
    st = kvg_op_run(&r->cc.call, &diag);
    if (st != want || strcmp(diag.tensor, name) != 0)
        fail_msg("%s (%s): got %d naming \"%s\" (%s), want %d naming \"%s\"",
                 what, kvg_op_name(r->cc.call.op), (int)st, diag.tensor,
                 diag.message, (int)want, name);
    assert_int_equal(diag.status, want);
    assert_true(diag.message[0] != '\0');
    assert_untouched(r, &before, what);
    kvg_case_set_free(&before);
}

/* The value alone through kvg_op_check_value: refused as the call was
 * (same status, name and message), or accepted when `want` is KVG_OK. */
static void expect_alone(const kvg_op *op, const kvg_value *v,
                         kvg_status want, const kvg_diag *as_run)
{
    kvg_diag diag;
    kvg_status st = kvg_op_check_value(op, v, &diag);
    if (st != want)
        fail_msg("%s: check_value of %s gave %d (%s), want %d",
                 kvg_op_name(op), v->name, (int)st, diag.message, (int)want);
    if (want == KVG_OK)
        return;
    assert_string_equal(diag.tensor, as_run->tensor);
    assert_string_equal(diag.message, as_run->message);
}

/* One extra value appended to the call for one refusal, then removed; the
 * value alone is refused the same way. */
static void refuse_value(ready *r, kvg_value v, kvg_status want,
                         const char *what)
{
    kvg_value *slot = &r->cc.values[r->cc.call.attr_count];
    kvg_op_call alone = r->cc.call; /* the value the only one given */
    kvg_diag as_run;
    *slot = v;
    r->cc.call.attr_count++;
    expect_refusal(r, want, v.name, what);
    r->cc.call.attr_count--;
    alone.attrs = &v;
    alone.attr_count = 1;
    assert_int_equal(kvg_op_run(&alone, &as_run), want);
    expect_alone(r->cc.call.op, &v, want, &as_run);
}

static void refuse_names(ready *r)
{
    kvg_named_tensor *extra = &r->cc.tensors[r->cc.call.tensor_count];
    const kvg_tensor *first = r->cc.tensors[0].tensor;

    extra->name = "no_such_tensor";
    extra->tensor = first;
    r->cc.call.tensor_count++;
    expect_refusal(r, KVG_ERR_PARAM_INVALID, "no_such_tensor",
                   "unknown tensor");
    extra->name = r->cc.tensors[0].name;
    expect_refusal(r, KVG_ERR_PARAM_INVALID, extra->name, "tensor twice");
    r->cc.call.tensor_count--;
    r->cc.tensors[0].tensor = NULL;
    expect_refusal(r, KVG_ERR_PARAM_NULLPTR, r->cc.tensors[0].name,
                   "NULL view");
    r->cc.tensors[0].tensor = first;
}

static void refuse_values(ready *r)
{
    const kvg_op *op = r->cc.call.op;
    kvg_value bad = KVG_VALUE_I64("no_such_attr", 1);
    size_t i;

    refuse_value(r, bad, KVG_ERR_PARAM_INVALID, "unknown attribute");
    for (i = 0; i < r->cc.call.attr_count; i++) /* the case's own values */
        expect_alone(op, &r->cc.values[i], KVG_OK, NULL);
    for (i = 0; i < kvg_op_attr_count(op); i++) {
        const kvg_op_attr_info *a = kvg_op_attr_at(op, i);
        kvg_value wrong = KVG_VALUE_STR(a->name, "Norm");
        kvg_value mode = KVG_VALUE_STR(a->name, "NO_SUCH_MODE");
        if (a->type == KVG_VALUE_STRING) {
            wrong.type = KVG_VALUE_FLOAT;
            refuse_value(r, mode, KVG_ERR_PARAM_INVALID, "unknown mode");
        }
        refuse_value(r, wrong, KVG_ERR_PARAM_INVALID, "wrong type");
    }
}

static void assert_expected(const ready *r)
{
    int i;
    for (i = 0; i < r->c.expected.count; i++) {
        const kvg_case_tensor *e = &r->c.expected.items[i];
        const kvg_tensor *got = kvg_case_find(&r->outs, e->name);
        assert_non_null(got);
        assert_int_equal(got->nbytes, e->t.nbytes);
        kvgt_assert_bytes_equal(got->data, e->t.data, e->t.nbytes, e->name);
    }
}

/* The same first case, prepared then run (twice: a prepared call runs
 * again as it ran first); a refused preparation cannot be run. */
static void run_prepared(const kvg_op *op)
{
    static ready r;
    kvg_op_prepared p;
    kvg_value bad = KVG_VALUE_I64("no_such_attr", 1);
    kvg_diag diag;
    int k;

    make_ready(op, &r);
    for (k = 0; k < 2; k++) {
        if (kvg_op_prepare(&r.cc.call, &p, &diag) != KVG_OK ||
            kvg_op_run_prepared(&p, &diag) != KVG_OK)
            fail_msg("%s: prepared: %s", r.c.dir, diag.message);
        assert_ptr_equal(p.op, op);
        assert_expected(&r);
    }
    r.cc.values[r.cc.call.attr_count++] = bad;
    assert_int_equal(kvg_op_prepare(&r.cc.call, &p, &diag),
                     KVG_ERR_PARAM_INVALID);
    assert_string_equal(diag.tensor, "no_such_attr");
    assert_null(p.op);
    assert_int_equal(kvg_op_run_prepared(&p, &diag), KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_op_run_prepared(NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_op_prepare(&r.cc.call, NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    r.cc.call.attr_count--;
    free_ready(&r);
}

static void test_refusals_then_bit_exact(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < kvg_op_count(); i++) {
        static ready r;
        kvg_diag diag;
        make_ready(kvg_op_at(i), &r);
        refuse_names(&r);
        refuse_values(&r);
        if (kvg_op_run(&r.cc.call, &diag) != KVG_OK)
            fail_msg("%s: %s", r.c.dir, diag.message);
        assert_expected(&r);
        free_ready(&r);
        run_prepared(kvg_op_at(i));
    }
}

static void test_null_call(void **state)
{
    kvg_op_call call;
    kvg_op_prepared prepared;
    kvg_value named = KVG_VALUE_I64("x", 1);
    kvg_diag diag;
    size_t bytes = 0;
    (void)state;
    assert_int_equal(kvg_op_run(NULL, &diag), KVG_ERR_PARAM_NULLPTR);
    kvg_op_call_init(&call, NULL);
    assert_int_equal(kvg_op_workspace_size(&call, &bytes, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    kvg_op_call_init(&call, kvg_op_at(0));
    call.tensor_count = 1; /* without an array */
    assert_int_equal(kvg_op_run(&call, &diag), KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_op_prepare(&call, &prepared, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_null(prepared.op);
    assert_int_equal(kvg_op_check_value(NULL, &named, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_int_equal(kvg_op_check_value(kvg_op_at(0), NULL, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    named.name = NULL;
    assert_int_equal(kvg_op_check_value(kvg_op_at(0), &named, &diag),
                     KVG_ERR_PARAM_NULLPTR);
    assert_true(diag.message[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_shapes_and_roles),
        cmocka_unit_test(test_refusals_then_bit_exact),
        cmocka_unit_test(test_null_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
