/*
 * tests/test_abi.c - the layout tables and constants of kvgold/abi.h and
 * the status enumeration of kvgold/status.h, which bindings build their
 * structs and codes from (the Python package's _lib.py).
 *
 *  - every field's type letter names a C type of the field's element size
 *    and alignment, and the fields, in order, tile the struct exactly as
 *    the C rules lay them out: a member left out of a table, a member
 *    whose type changed, or a wrong letter fails here;
 *  - a few layouts against offsetof written here, and the status codes
 *    against the contract's values (kvgold/status.h, aclnn's 161001/2).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <stdio.h>
#include <string.h>

#include "kvgold/kvgold.h"

/* Size and alignment of the C type a letter stands for (0: no letter);
 * a type's alignment is where it lands after a char. */
struct a_p { char c; void *t; };
struct a_z { char c; char *t; };
struct a_i { char c; int t; };
struct a_q { char c; int64_t t; };
struct a_uq { char c; uint64_t t; };
struct a_d { char c; double t; };
struct a_n { char c; size_t t; };
#define ALIGN_OF(S) offsetof(struct S, t)

static void letter_type(char letter, size_t *size, size_t *align)
{
    switch (letter) {
    case 'P': *size = sizeof(void *); *align = ALIGN_OF(a_p); return;
    case 'z': *size = sizeof(char *); *align = ALIGN_OF(a_z); return;
    case 'i': *size = sizeof(int); *align = ALIGN_OF(a_i); return;
    case 'q': *size = 8; *align = ALIGN_OF(a_q); return;
    case 'Q': *size = 8; *align = ALIGN_OF(a_uq); return;
    case 'd': *size = sizeof(double); *align = ALIGN_OF(a_d); return;
    case 'N': *size = sizeof(size_t); *align = ALIGN_OF(a_n); return;
    case 'c': *size = 1; *align = 1; return;
    default: *size = 0; *align = 1; return;
    }
}

static size_t round_up(size_t n, size_t align)
{
    return (n + align - 1) / align * align;
}

/* The fields of s tile it: each at the next offset its alignment allows
 * after the previous one, the struct's size the last end rounded up to
 * the largest alignment. */
static void check_tiling(const kvg_abi_struct *s)
{
    size_t end = 0, max_align = 1, i;

    assert_true(s->field_count > 0);
    for (i = 0; i < s->field_count; i++) {
        const kvg_abi_field *f = &s->fields[i];
        size_t size, align;

        letter_type(f->type, &size, &align);
        if (size == 0 || f->count == 0 || f->size != size * f->count ||
            f->offset != round_up(end, align))
            fail_msg("%s.%s: type '%c' x %zu at offset %zu, size %zu; "
                     "expected size %zu at offset %zu", s->name, f->name,
                     f->type, f->count, f->offset, f->size,
                     size * f->count, round_up(end, align));
        end = f->offset + f->size;
        if (align > max_align)
            max_align = align;
    }
    if (s->size != round_up(end, max_align))
        fail_msg("%s: size %zu, its fields end at %zu (alignment %zu)",
                 s->name, s->size, end, max_align);
}

static void test_every_struct_tiles(void **state)
{
    size_t i, j;

    (void)state;
    assert_true(kvg_abi_struct_count() >= 10);
    for (i = 0; i < kvg_abi_struct_count(); i++) {
        const kvg_abi_struct *s = kvg_abi_struct_at(i);

        assert_non_null(s);
        check_tiling(s);
        assert_ptr_equal(kvg_abi_struct_find(s->name), s);
        for (j = 0; j < i; j++)
            assert_string_not_equal(kvg_abi_struct_at(j)->name, s->name);
    }
    assert_null(kvg_abi_struct_at(kvg_abi_struct_count()));
    assert_null(kvg_abi_struct_find(NULL));
    assert_null(kvg_abi_struct_find("kvg_compare_result"));
    assert_null(kvg_abi_struct_find("kvg_tensor "));
}

static const kvg_abi_field *field(const char *s, const char *name)
{
    const kvg_abi_struct *st = kvg_abi_struct_find(s);
    size_t i;

    assert_non_null(st);
    for (i = 0; i < st->field_count; i++)
        if (strcmp(st->fields[i].name, name) == 0)
            return &st->fields[i];
    fail_msg("%s has no field %s", s, name);
    return NULL;
}

static void test_known_layouts(void **state)
{
    (void)state;
    assert_int_equal(kvg_abi_struct_find("kvg_tensor")->size,
                     sizeof(kvg_tensor));
    assert_int_equal(field("kvg_tensor", "shape")->offset,
                     offsetof(kvg_tensor, shape));
    assert_int_equal(field("kvg_tensor", "shape")->count, KVG_MAX_RANK);
    assert_int_equal(field("kvg_diag", "message")->count,
                     KVG_DIAG_MESSAGE_MAX);
    assert_int_equal(field("kvg_diag", "position")->offset,
                     offsetof(kvg_diag, position));
    assert_int_equal(kvg_abi_struct_find("kvg_compare_args")->size,
                     sizeof(kvg_compare_args));
    assert_int_equal(field("kvg_compare_args", "left_behind_user")->offset,
                     offsetof(kvg_compare_args, left_behind_user));
    assert_int_equal(field("kvg_value", "f")->type, 'd');
    assert_int_equal(field("kvg_op_attr_info", "dflt")->type, 'z');
}

static int64_t constant(const char *name)
{
    size_t i;

    for (i = 0; i < kvg_abi_constant_count(); i++)
        if (strcmp(kvg_abi_constant_at(i)->name, name) == 0)
            return kvg_abi_constant_at(i)->value;
    fail_msg("no constant %s", name);
    return -1;
}

static void test_constants(void **state)
{
    size_t i, j;

    (void)state;
    assert_int_equal(constant("KVG_MAX_RANK"), 8);
    assert_int_equal(constant("KVG_DIAG_NAME_MAX"), 48);
    assert_int_equal(constant("KVG_OP_CACHE"), 1);
    assert_int_equal(constant("KVG_VALUE_INTS"), 4);
    assert_int_equal(constant("KVG_CRIT_CODE_DIST"), 4);
    for (i = 0; i < kvg_abi_constant_count(); i++)
        for (j = 0; j < i; j++)
            assert_string_not_equal(kvg_abi_constant_at(j)->name,
                                    kvg_abi_constant_at(i)->name);
    assert_null(kvg_abi_constant_at(kvg_abi_constant_count()));
}

/* The contract's codes (kvgold/status.h), each listed once. */
static void test_status_enumeration(void **state)
{
    static const int want[] = {0, 161001, 161002, 170001, 170002, 170003,
                               170004, 170005};
    size_t i, j;

    (void)state;
    assert_int_equal(kvg_status_count(), sizeof want / sizeof want[0]);
    for (i = 0; i < kvg_status_count(); i++) {
        kvg_status st = kvg_status_at(i);

        assert_int_equal(st, want[i]);
        assert_string_not_equal(kvg_status_name(st), "KVG_ERR_UNKNOWN");
        for (j = 0; j < i; j++)
            assert_int_not_equal(kvg_status_at(j), st);
    }
    assert_string_equal(kvg_status_name(kvg_status_at(2)),
                        "KVG_ERR_PARAM_INVALID");
    assert_int_equal(kvg_status_at(kvg_status_count()), KVG_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_struct_tiles),
        cmocka_unit_test(test_known_layouts),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_status_enumeration),
    };
    return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
