/*
 * src/compare/result_size.c - sizeof(kvg_compare_result) at run time.
 *
 * Bindings that cannot include the header (Python's ctypes) allocate the
 * result as an opaque buffer of this size and read it through the report
 * functions, so fields added to the end of the struct never break them.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/compare.h"

size_t kvg_compare_result_size(void)
{
    return sizeof(kvg_compare_result);
}
