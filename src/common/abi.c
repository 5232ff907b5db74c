/*
 * src/common/abi.c - the public structs' layout and enum values as data
 * (kvgold/abi.h), written with offsetof / sizeof so that the tables are
 * the compiler's, not a copy. Each field's type letter is stated here by
 * hand; tests/unit/test_abi.c checks that every letter's C type has the
 * field's size, so a member changing type cannot slip past.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/abi.h"
#include "kvgold/compare.h"
#include "kvgold/layout.h"
#include "kvgold/op.h"
#include "kvgold/status.h"
#include "kvgold/tensor.h"

/* A scalar member of T, and an array member (its element count too). */
#define KVG_ABI_M(T, m, type) \
    { #m, offsetof(T, m), sizeof(((T *)0)->m), type, 1 }
#define KVG_ABI_ARRAY(T, m, type) \
    { #m, offsetof(T, m), sizeof(((T *)0)->m), type, \
      sizeof(((T *)0)->m) / sizeof(((T *)0)->m[0]) }
#define KVG_ABI_STRUCT(T, fields) \
    { #T, sizeof(T), sizeof(fields) / sizeof(fields[0]), fields }

static const kvg_abi_field tensor_fields[] = {
    KVG_ABI_M(kvg_tensor, data, 'P'),
    KVG_ABI_M(kvg_tensor, nbytes, 'N'),
    KVG_ABI_M(kvg_tensor, dtype, 'i'),
    KVG_ABI_M(kvg_tensor, rank, 'i'),
    KVG_ABI_ARRAY(kvg_tensor, shape, 'q'),
};

static const kvg_abi_field diag_fields[] = {
    KVG_ABI_M(kvg_diag, status, 'i'),
    KVG_ABI_ARRAY(kvg_diag, tensor, 'c'),
    KVG_ABI_M(kvg_diag, dim, 'i'),
    KVG_ABI_M(kvg_diag, position, 'q'),
    KVG_ABI_ARRAY(kvg_diag, message, 'c'),
};

static const kvg_abi_field cache_layout_fields[] = {
    KVG_ABI_M(kvg_cache_layout, kind, 'i'),
    KVG_ABI_M(kvg_cache_layout, blocks, 'q'),
    KVG_ABI_M(kvg_cache_layout, slots, 'q'),
    KVG_ABI_M(kvg_cache_layout, heads, 'q'),
    KVG_ABI_M(kvg_cache_layout, dim, 'q'),
    KVG_ABI_M(kvg_cache_layout, c0, 'q'),
};

static const kvg_abi_field value_fields[] = {
    KVG_ABI_M(kvg_value, name, 'z'),
    KVG_ABI_M(kvg_value, type, 'i'),
    KVG_ABI_M(kvg_value, i, 'q'),
    KVG_ABI_M(kvg_value, f, 'd'),
    KVG_ABI_M(kvg_value, s, 'z'),
    KVG_ABI_M(kvg_value, ints, 'P'),
    KVG_ABI_M(kvg_value, count, 'N'),
};

static const kvg_abi_field named_tensor_fields[] = {
    KVG_ABI_M(kvg_named_tensor, name, 'z'),
    KVG_ABI_M(kvg_named_tensor, tensor, 'P'),
};

static const kvg_abi_field op_call_fields[] = {
    KVG_ABI_M(kvg_op_call, op, 'P'),
    KVG_ABI_M(kvg_op_call, tensors, 'P'),
    KVG_ABI_M(kvg_op_call, tensor_count, 'N'),
    KVG_ABI_M(kvg_op_call, attrs, 'P'),
    KVG_ABI_M(kvg_op_call, attr_count, 'N'),
    KVG_ABI_M(kvg_op_call, workspace, 'P'),
    KVG_ABI_M(kvg_op_call, workspace_size, 'N'),
};

static const kvg_abi_field op_tensor_info_fields[] = {
    KVG_ABI_M(kvg_op_tensor_info, name, 'z'),
    KVG_ABI_M(kvg_op_tensor_info, kind, 'i'),
    KVG_ABI_M(kvg_op_tensor_info, presence, 'i'),
};

static const kvg_abi_field op_attr_info_fields[] = {
    KVG_ABI_M(kvg_op_attr_info, name, 'z'),
    KVG_ABI_M(kvg_op_attr_info, type, 'i'),
    KVG_ABI_M(kvg_op_attr_info, is_option, 'i'),
    KVG_ABI_M(kvg_op_attr_info, required, 'i'),
    KVG_ABI_M(kvg_op_attr_info, dflt, 'z'),
};

static const kvg_abi_field elem_run_fields[] = {
    KVG_ABI_M(kvg_elem_run, first, 'q'),
    KVG_ABI_M(kvg_elem_run, count, 'q'),
};

static const kvg_abi_field compare_args_fields[] = {
    KVG_ABI_M(kvg_compare_args, name, 'z'),
    KVG_ABI_M(kvg_compare_args, golden, 'P'),
    KVG_ABI_M(kvg_compare_args, actual, 'P'),
    KVG_ABI_M(kvg_compare_args, initial, 'P'),
    KVG_ABI_M(kvg_compare_args, written, 'P'),
    KVG_ABI_M(kvg_compare_args, written_count, 'N'),
    KVG_ABI_M(kvg_compare_args, layout, 'P'),
    KVG_ABI_M(kvg_compare_args, criterion, 'i'),
    KVG_ABI_M(kvg_compare_args, role, 'i'),
    KVG_ABI_M(kvg_compare_args, threshold, 'd'),
    KVG_ABI_M(kvg_compare_args, mismatch_ratio, 'd'),
    KVG_ABI_M(kvg_compare_args, standard, 'i'),
    KVG_ABI_M(kvg_compare_args, level, 'i'),
    KVG_ABI_M(kvg_compare_args, third_party, 'P'),
    KVG_ABI_M(kvg_compare_args, written_runs, 'P'),
    KVG_ABI_M(kvg_compare_args, written_run_count, 'N'),
    KVG_ABI_M(kvg_compare_args, left_behind, 'P'),
    KVG_ABI_M(kvg_compare_args, left_behind_user, 'P'),
    KVG_ABI_M(kvg_compare_args, row_layout, 'P'),
    KVG_ABI_M(kvg_compare_args, row_tensor, 'i'),
};

/* The descriptions themselves, so that a binding can check the three
 * structs it declares by hand to read the rest. */
static const kvg_abi_field abi_field_fields[] = {
    KVG_ABI_M(kvg_abi_field, name, 'z'),
    KVG_ABI_M(kvg_abi_field, offset, 'N'),
    KVG_ABI_M(kvg_abi_field, size, 'N'),
    KVG_ABI_M(kvg_abi_field, type, 'c'),
    KVG_ABI_M(kvg_abi_field, count, 'N'),
};

static const kvg_abi_field abi_struct_fields[] = {
    KVG_ABI_M(kvg_abi_struct, name, 'z'),
    KVG_ABI_M(kvg_abi_struct, size, 'N'),
    KVG_ABI_M(kvg_abi_struct, field_count, 'N'),
    KVG_ABI_M(kvg_abi_struct, fields, 'P'),
};

static const kvg_abi_field abi_constant_fields[] = {
    KVG_ABI_M(kvg_abi_constant, name, 'z'),
    KVG_ABI_M(kvg_abi_constant, value, 'q'),
};

static const kvg_abi_struct structs[] = {
    KVG_ABI_STRUCT(kvg_tensor, tensor_fields),
    KVG_ABI_STRUCT(kvg_diag, diag_fields),
    KVG_ABI_STRUCT(kvg_cache_layout, cache_layout_fields),
    KVG_ABI_STRUCT(kvg_value, value_fields),
    KVG_ABI_STRUCT(kvg_named_tensor, named_tensor_fields),
    KVG_ABI_STRUCT(kvg_op_call, op_call_fields),
    KVG_ABI_STRUCT(kvg_op_tensor_info, op_tensor_info_fields),
    KVG_ABI_STRUCT(kvg_op_attr_info, op_attr_info_fields),
    KVG_ABI_STRUCT(kvg_elem_run, elem_run_fields),
    KVG_ABI_STRUCT(kvg_compare_args, compare_args_fields),
    KVG_ABI_STRUCT(kvg_abi_field, abi_field_fields),
    KVG_ABI_STRUCT(kvg_abi_struct, abi_struct_fields),
    KVG_ABI_STRUCT(kvg_abi_constant, abi_constant_fields),
};

#define KVG_ABI_C(c) { #c, (int64_t)(c) }

static const kvg_abi_constant constants[] = {
    KVG_ABI_C(KVG_MAX_RANK),
    KVG_ABI_C(KVG_DIAG_NAME_MAX),
    KVG_ABI_C(KVG_DIAG_MESSAGE_MAX),
    KVG_ABI_C(KVG_OP_INPUT),
    KVG_ABI_C(KVG_OP_CACHE),
    KVG_ABI_C(KVG_OP_OUTPUT),
    KVG_ABI_C(KVG_OP_REQUIRED),
    KVG_ABI_C(KVG_OP_OPTIONAL),
    KVG_ABI_C(KVG_OP_PRODUCED),
    KVG_ABI_C(KVG_VALUE_INT),
    KVG_ABI_C(KVG_VALUE_FLOAT),
    KVG_ABI_C(KVG_VALUE_BOOL),
    KVG_ABI_C(KVG_VALUE_STRING),
    KVG_ABI_C(KVG_VALUE_INTS),
    KVG_ABI_C(KVG_CRIT_AUTO),
    KVG_ABI_C(KVG_CRIT_BITWISE),
    KVG_ABI_C(KVG_CRIT_INT_ABS1),
    KVG_ABI_C(KVG_CRIT_FLOAT_RE),
    KVG_ABI_C(KVG_CRIT_CODE_DIST),
    KVG_ABI_C(KVG_LAYOUT_ND),
    KVG_ABI_C(KVG_LAYOUT_BNSD),
    KVG_ABI_C(KVG_LAYOUT_NZ),
};

size_t kvg_abi_struct_count(void)
{
    return sizeof structs / sizeof structs[0];
}

const kvg_abi_struct *kvg_abi_struct_at(size_t i)
{
    return i < kvg_abi_struct_count() ? &structs[i] : NULL;
}

const kvg_abi_struct *kvg_abi_struct_find(const char *name)
{
    size_t i;

    if (name == NULL)
        return NULL;
    for (i = 0; i < kvg_abi_struct_count(); i++)
        if (strcmp(structs[i].name, name) == 0)
            return &structs[i];
    return NULL;
}

size_t kvg_abi_constant_count(void)
{
    return sizeof constants / sizeof constants[0];
}

const kvg_abi_constant *kvg_abi_constant_at(size_t i)
{
    return i < kvg_abi_constant_count() ? &constants[i] : NULL;
}
