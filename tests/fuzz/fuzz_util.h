/*
 * tests/fuzz/fuzz_util.h - what the operator fuzz targets share.
 *
 * A fuzz input is read as a schema of small decisions (fz_u8 and friends):
 * byte 0 always means "the natural, valid choice", and an exhausted input
 * reads as zeros, so the empty input is a valid call and a seed corpus of
 * a few bytes reaches the compute step. Tensor contents do not come from
 * the input byte by byte (that would push the later decisions out of
 * reach) but from a splitmix64 stream seeded by the input, in one of a few
 * value modes (finite, raw bits, finite with NaN/inf/subnormal/max
 * sprinkled in).
 *
 * Every tensor buffer is allocated at exactly the size its view claims, so
 * AddressSanitizer (libFuzzer build) and valgrind (replay twin) see any
 * access past it. The checks (FZ_CHECK) print what broke and abort, which
 * both libFuzzer and the replay runner report as a failure.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_FUZZ_UTIL_H
#define KVGOLD_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

/* ---- failing ------------------------------------------------------------ */

void fz_fail(const char *file, int line, const char *what, const char *info);
#define FZ_CHECK(cond, info)                                                 \
    do {                                                                     \
        if (!(cond))                                                         \
            fz_fail(__FILE__, __LINE__, #cond, (info));                      \
    } while (0)

/* ---- reading the input -------------------------------------------------- */

typedef struct fz_in {
    const uint8_t *p;
    size_t n, at;
} fz_in;

void fz_in_init(fz_in *in, const uint8_t *data, size_t size);
uint8_t fz_u8(fz_in *in);            /* 0 once the input is exhausted */
uint64_t fz_u64(fz_in *in);          /* little-endian, zero-extended */
/* lo + (byte % (hi - lo + 1)): lo when exhausted; hi - lo < 256. */
int64_t fz_pick(fz_in *in, int64_t lo, int64_t hi);
/* A "weird" integer for a dim or index value: 0, -1, 1, INT64_MAX, values
 * whose products wrap 2^64 to small numbers, powers of two, ... */
int64_t fz_weird(fz_in *in);

/* ---- the value stream ---------------------------------------------------- */

typedef struct fz_rng {
    uint64_t s;
} fz_rng;
uint64_t fz_next(fz_rng *r);
/* Uniform in [0, n) (n > 0). */
uint64_t fz_below(fz_rng *r, uint64_t n);

typedef enum fz_values {
    FZ_VAL_FINITE = 0, /* random finite values in about +-4 */
    FZ_VAL_SPECIAL = 1, /* finite, 1 in 8 NaN/inf/subnormal/max/0 (fp32:
                          1 in 256) */
    FZ_VAL_RAW = 2     /* uniformly random bit patterns */
} fz_values;

/* Fill a buffer of `dtype` elements (bytes beyond whole elements get raw
 * bits) from the stream in the given mode. Index dtypes get raw bits. */
void fz_fill(void *buf, size_t bytes, kvg_dtype dtype, fz_values mode,
             fz_rng *r);

/* ---- tensors ----------------------------------------------------------- */

typedef enum fz_role {
    FZ_INPUT = 0, /* must never change */
    FZ_OUTPUT = 1, /* written entirely by a successful call */
    FZ_CACHE = 2   /* in place: only the addressed slots may change */
} fz_role;

typedef struct fz_buf {
    const char *name;
    fz_role role;
    kvg_tensor t;        /* the view the op gets (possibly mutated) */
    kvg_tensor *view;    /* &t, or NULL when the mutation removed it */
    unsigned char *mem;  /* the exact allocation behind t.data */
    size_t size;         /* its size (== t.nbytes) */
    unsigned char *snap; /* contents before the call */
    unsigned char *after; /* contents after the first successful call */
} fz_buf;

#define FZ_MAX_BUFS 24

typedef struct fz_pool {
    fz_buf b[FZ_MAX_BUFS];
    int n;
    fz_rng rng;     /* value stream */
    fz_values mode; /* value mode of inputs */
    int mutated;    /* a tensor mutation was applied */
} fz_pool;

void fz_pool_init(fz_pool *pool, uint64_t seed, fz_values mode);
void fz_pool_free(fz_pool *pool);

/*
 * A tensor of the natural dtype and shape, then (decided by one input
 * byte) possibly mutated: the view removed, its data NULL, its dtype, rank
 * or one dim changed, a wrapping shape, or the buffer a few bytes short or
 * long. The buffer is allocated at the exact byte size the final view
 * claims (64 bytes when that size is absurd), and t.nbytes is that size.
 * Inputs are filled from the value stream, outputs and caches poisoned.
 * Returns the fz_buf (its `view` is what the op gets).
 */
fz_buf *fz_tensor(fz_pool *pool, fz_in *in, const char *name, fz_role role,
                  kvg_dtype dtype, int rank, const int64_t *shape);

/* Element i of an int32/int64 buffer, if it lies inside the allocation
 * (a mutated view may describe something else). */
int fz_index_get(const fz_buf *b, int64_t i, int64_t *v);
void fz_index_set(fz_buf *b, int64_t i, int64_t v);

void fz_pool_snapshot(fz_pool *pool);
/* Every buffer byte-identical to the snapshot (the error path). */
void fz_pool_check_unchanged(const fz_pool *pool, const char *why);
/* Inputs identical to the snapshot (the success path). */
void fz_pool_check_inputs(const fz_pool *pool);
/* Restore every buffer to the snapshot (to run the call again). */
void fz_pool_restore(fz_pool *pool);
/* Record the contents after a successful call / compare with them. */
void fz_pool_record(fz_pool *pool);
void fz_pool_check_same_as_recorded(const fz_pool *pool);

/* An allocation of exactly `size` bytes (at least 1), poisoned. */
void *fz_alloc(size_t size, uint64_t seed);

/*
 * The checks shared by every error: a known status, diag filled in with
 * the same status, a non-empty message and a tensor/attribute name, and
 * nothing written anywhere.
 */
void fz_check_error(const fz_pool *pool, kvg_status st, const kvg_diag *diag);

/*
 * One fuzzed call, driven the same way for every operator:
 *   1. snapshot every buffer; run the workspace-size query;
 *   2. if it fails: the error checks, then the call (with a workspace) must
 *      fail with the same status, tensor and message, and again with diag
 *      NULL, changing nothing;
 *   3. otherwise one input byte picks the workspace: exact, NULL, one byte
 *      short, size 0, larger and misaligned, or exact after probing NULL
 *      args / NULL result pointer (161001). Short or NULL must give
 *      170001; any other error must be a value error (161002, naming one of
 *      `value_tensors`, with a position); both change nothing;
 *   4. a success leaves the inputs alone, passes `on_success`, and a second
 *      call from the same state with a differently poisoned workspace gives
 *      the same bytes everywhere.
 */
typedef struct fz_op {
    kvg_status (*size)(const void *args, size_t *bytes, kvg_diag *diag);
    kvg_status (*call)(const void *args, kvg_diag *diag);
    void (*set_workspace)(void *args, void *ws, size_t size);
    void (*on_success)(void *ctx);
    void *ctx;
    const char *const *value_tensors; /* NULL-terminated */
} fz_op;

void fz_drive(fz_pool *pool, fz_in *in, const fz_op *op, void *args);

#endif /* KVGOLD_TESTS_FUZZ_UTIL_H */
