/*
 * tests/nonfinite16.h - 16-bit codes for the non-finite tests of the
 * operators' data paths (tests/ops/<op>/test_nonfinite_*.c,
 * docs/reliability.md): element access, NaN tests, the canonical NaNs.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_NONFINITE16_H
#define KVGOLD_TESTS_NONFINITE16_H

#include "kvg_test.h"

#include <stdint.h>
#include <string.h>

#define CODES 65536
#define D 128

static inline uint16_t get16(const kvg_tensor *t, int64_t i)
{
    uint16_t v;
    memcpy(&v, (const unsigned char *)t->data + (size_t)i * 2u, 2);
    return v;
}

static inline void set16(kvg_tensor *t, int64_t i, uint16_t v)
{
    memcpy((unsigned char *)t->data + (size_t)i * 2u, &v, 2);
}

static inline int is_nan16(kvg_dtype dt, uint16_t c)
{
    return dt == KVG_FP16 ? (c & 0x7C00) == 0x7C00 && (c & 0x03FF) != 0
                          : (c & 0x7F80) == 0x7F80 && (c & 0x007F) != 0;
}

static inline uint16_t canonical16(kvg_dtype dt)
{
    return dt == KVG_FP16 ? 0x7E00 : 0x7FC0;
}

static inline void *workspace(size_t bytes)
{
    return kvgt_alloc_poisoned(bytes, 4242);
}

#endif /* KVGOLD_TESTS_NONFINITE16_H */
