/*
 * tests/copy_fixture.h - shared helpers of the copy operators' tests:
 * 16-bit / byte element access, int32 index fills, and the "rejected and
 * nothing written" assertion.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_COPY_FIXTURE_H
#define KVGOLD_TESTS_COPY_FIXTURE_H

#include "kvg_test.h"

#include <stdlib.h>
#include <string.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

static inline uint16_t kvgt_get16(const kvg_tensor *t, int64_t i)
{
    uint16_t v;
    memcpy(&v, (const unsigned char *)t->data + (size_t)i * 2u, 2);
    return v;
}

static inline void kvgt_set16(kvg_tensor *t, int64_t i, uint16_t v)
{
    memcpy((unsigned char *)t->data + (size_t)i * 2u, &v, 2);
}

static inline void kvgt_set_i32(kvg_tensor *t, const int32_t *v, int64_t n)
{
    assert_int_equal(t->nbytes, (size_t)n * 4u);
    memcpy(t->data, v, (size_t)n * 4u);
}

/* A copy of a tensor's bytes, to prove later that nothing changed. */
static inline unsigned char *kvgt_snapshot(const kvg_tensor *t)
{
    unsigned char *p = (unsigned char *)malloc(t->nbytes);
    assert_non_null(p);
    memcpy(p, t->data, t->nbytes);
    return p;
}

/* Status, named tensor, message fragment and (unless -2) position. */
static inline void kvgt_assert_diag(kvg_status got, const kvg_diag *d,
                                   kvg_status want, const char *tensor,
                                   const char *fragment, int64_t position)
{
    if (got != want)
        fail_msg("status %d, want %d (%s)", (int)got, (int)want, d->message);
    assert_int_equal(d->status, want);
    if (strcmp(d->tensor, tensor) != 0)
        fail_msg("diag names \"%s\", want \"%s\" (%s)", d->tensor, tensor,
                 d->message);
    if (strstr(d->message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", d->message, fragment);
    if (position != -2 && d->position != position)
        fail_msg("diag position %lld, want %lld (%s)", (long long)d->position,
                 (long long)position, d->message);
}

#endif /* KVGOLD_TESTS_COPY_FIXTURE_H */
