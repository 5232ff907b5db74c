/*
 * kvgold/abi.h - the public structs' layout and the public enums' values,
 * as data the library exports.
 *
 * For bindings that cannot read a C header (the Python package's ctypes,
 * docs/python.md): they learn from the library they load how its structs
 * are laid out and what its constants are, instead of copying them by
 * hand, so a binding and a library of another version cannot disagree
 * silently. The tables are static and const; nothing here allocates.
 *
 *   const kvg_abi_struct *s = kvg_abi_struct_find("kvg_tensor");
 *   for (size_t i = 0; i < s->field_count; i++)
 *       printf("%s at %zu, %zu bytes\n", s->fields[i].name,
 *              s->fields[i].offset, s->fields[i].size);
 *
 * Described structs: kvg_tensor, kvg_diag, kvg_cache_layout, kvg_value,
 * kvg_named_tensor, kvg_op_call, kvg_op_tensor_info, kvg_op_attr_info,
 * kvg_elem_run, kvg_compare_args, and this header's own kvg_abi_field,
 * kvg_abi_struct and kvg_abi_constant (a binding declares those three to
 * read the rest, and checks them against their descriptions).
 * kvg_compare_result is not described: it is an opaque buffer of
 * kvg_compare_result_size() bytes to a binding.
 *
 * The status codes are enumerated by kvg_status_count / kvg_status_at
 * (kvgold/status.h), not here.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_ABI_H
#define KVGOLD_ABI_H

#include "kvgold/api.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One member of a struct, in declaration order.
 *   offset, size  offsetof and sizeof of the member (a whole array)
 *   type          its element's type, as one letter of Python's struct
 *                 module and ctypes: 'P' a data or function pointer, 'z' a
 *                 pointer to a NUL-terminated string (const char *), 'i'
 *                 an int or an enum, 'q' int64_t, 'Q' uint64_t, 'd'
 *                 double, 'N' size_t, 'c' char
 *   count         1, or the length of an array member (size / count bytes
 *                 each)
 */
typedef struct kvg_abi_field {
    const char *name;
    size_t offset;
    size_t size;
    char type;
    size_t count;
} kvg_abi_field;

typedef struct kvg_abi_struct {
    const char *name; /* the typedef name, "kvg_tensor" */
    size_t size;      /* sizeof, trailing padding included */
    size_t field_count;
    const kvg_abi_field *fields;
} kvg_abi_struct;

/* The described structs in a fixed order; the i-th is NULL when
 * i >= count. */
KVG_API size_t kvg_abi_struct_count(void);
KVG_API const kvg_abi_struct *kvg_abi_struct_at(size_t i);

/* The struct of a typedef name; NULL when it is not described or name is
 * NULL. */
KVG_API const kvg_abi_struct *kvg_abi_struct_find(const char *name);

/*
 * A named integer constant of the public headers, by its C name: the
 * array bounds (KVG_MAX_RANK, KVG_DIAG_NAME_MAX, KVG_DIAG_MESSAGE_MAX) and
 * the values of the enums a binding passes or reads (kvg_op_tensor_kind
 * KVG_OP_INPUT.., kvg_op_presence KVG_OP_REQUIRED.., kvg_value_type
 * KVG_VALUE_INT.., kvg_compare_criterion KVG_CRIT_AUTO.., kvg_layout_kind
 * KVG_LAYOUT_ND..). Dtypes are not listed: kvg_dtype_from_name and
 * kvg_dtype_size (kvgold/dtype.h) give them by their case-format tag.
 */
typedef struct kvg_abi_constant {
    const char *name;
    int64_t value;
} kvg_abi_constant;

/* The constants in a fixed order; the i-th is NULL when i >= count. */
KVG_API size_t kvg_abi_constant_count(void);
KVG_API const kvg_abi_constant *kvg_abi_constant_at(size_t i);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_ABI_H */
