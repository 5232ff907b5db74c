/*
 * src/common/internal.h - helpers shared by the library's own sources.
 *
 * Nothing here is installed. Names use the prefix kvg_i_ so that even the
 * static archive exports nothing outside the kvg_ namespace.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_INTERNAL_H
#define KVGOLD_SRC_INTERNAL_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

/*
 * The arithmetic contract (spec section 1) needs every float operation
 * rounded to binary32: no x87 excess precision, no contraction into FMA.
 * The build passes -ffp-contract=off; the pragma says the same to any
 * compiler that honours it.
 */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "kvgold needs FLT_EVAL_METHOD == 0 (binary32 evaluated as binary32)"
#endif

/*
 * Errors: kvg_diag_set and KVG_TRY (kvgold/status.h) are the one idiom, in
 * src/ as in the tools. KVG_I_PRINTF checks the library's own printf-like
 * helpers.
 */
#if defined(__GNUC__) || defined(__clang__)
#define KVG_I_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KVG_I_PRINTF(f, a)
#endif

/* a * b into *out; returns 0 (and leaves *out) when it would overflow
 * int64_t or when either operand is negative. */
int kvg_i_mul_i64(int64_t a, int64_t b, int64_t *out);
/* a + b into *out; 0 on overflow or a negative operand. */
int kvg_i_add_i64(int64_t a, int64_t b, int64_t *out);

/* Format a shape as "[2, 3, 128]" into buf (always NUL-terminated). */
void kvg_i_shape_str(const kvg_tensor *t, char *buf, size_t size);

/*
 * Tensor checks used by every operator's validation. Each returns KVG_OK or
 * fills diag with a message naming `name` and returns the error.
 *
 * kvg_i_check_present: the view and its data are non-NULL (161001).
 * kvg_i_check_dense:   rank in [0, KVG_MAX_RANK], dims >= 1 (no empty
 *                      tensors), numel*size fits, nbytes equals it (161002).
 * kvg_i_check_dtype:   dtype equals `want` (161002).
 * kvg_i_check_rank:    rank equals `want` (161002).
 * kvg_i_check_dim:     shape[dim] equals `want` (161002); `what` explains
 *                      where the expected value comes from ("B*S").
 */
kvg_status kvg_i_check_present(const kvg_tensor *t, const char *name,
                               kvg_diag *diag);
kvg_status kvg_i_check_dense(const kvg_tensor *t, const char *name,
                             kvg_diag *diag);
kvg_status kvg_i_check_dtype(const kvg_tensor *t, const char *name,
                             kvg_dtype want, kvg_diag *diag);
kvg_status kvg_i_check_rank(const kvg_tensor *t, const char *name, int want,
                            kvg_diag *diag);
kvg_status kvg_i_check_dim(const kvg_tensor *t, const char *name, int dim,
                           int64_t want, const char *what, kvg_diag *diag);

/* One tensor argument for kvg_i_check_apart: its name, its view (NULL:
 * absent, skipped) and whether the operator writes it. */
typedef struct kvg_i_span {
    const char *name;
    const kvg_tensor *t;
    int written;
} kvg_i_span;

/*
 * No written tensor of s[0..n) shares a byte with any other tensor of the
 * list, and the workspace [ws, ws + ws_size) (NULL: not checked) shares none
 * with any tensor; else 161002 naming both (src/common/apart.c says why).
 * Call it after the presence and shape checks, before the workspace is
 * used.
 */
kvg_status kvg_i_check_apart(const kvg_i_span *s, size_t n, const void *ws,
                             size_t ws_size, kvg_diag *diag);

/* numel of a tensor that already passed kvg_i_check_dense. */
int64_t kvg_i_numel(const kvg_tensor *t);

/* Read element i of an int32 or int64 index tensor as int64 (unaligned-safe).
 * Inline: the copy operators read a slot or two a token, and a decode
 * step's token is one 2 KiB row (a call each was 2-3% of the ND
 * paged-copy decode benchmark). */
static inline int64_t kvg_i_index_at(const kvg_tensor *t, int64_t i)
{
    const unsigned char *p = (const unsigned char *)t->data;
    if (t->dtype == KVG_INT32) {
        int32_t v;
        memcpy(&v, p + (size_t)i * 4u, sizeof v);
        return v;
    } else {
        int64_t v;
        memcpy(&v, p + (size_t)i * 8u, sizeof v);
        return v;
    }
}

/*
 * The one way an operator carves its workspace: a bump allocator over the
 * caller's buffer, each piece aligned to 16 bytes. An operator writes ONE
 * carving function that takes its pieces in a fixed order; run over a
 * measuring kvg_i_ws it gives the size (kvg_<op>_workspace_size), run over
 * the caller's buffer it gives the pointers, so the size query and the
 * call cannot disagree (src/common/entry.c runs both).
 */
typedef struct kvg_i_ws {
    unsigned char *base; /* NULL: measuring, nothing is handed out */
    size_t size;
    size_t used;
    int failed;          /* a take overflowed size_t or ran out */
} kvg_i_ws;

#define KVG_I_WS_ALIGN 16u
/* Bytes to reserve for `count` items of `item` bytes, alignment included;
 * 0 on size_t overflow. */
size_t kvg_i_ws_bytes(size_t count, size_t item);
void kvg_i_ws_init(kvg_i_ws *ws, void *base, size_t size);
/* A kvg_i_ws that only adds up what is taken from it. */
void kvg_i_ws_measure(kvg_i_ws *ws);
/* The next piece: NULL when measuring, and NULL (ws->failed set) when the
 * workspace is exhausted, which a size measured by the same carving makes
 * impossible. */
void *kvg_i_ws_take(kvg_i_ws *ws, size_t count, size_t item);
/* The bytes taken so far; 0 once a take failed. */
size_t kvg_i_ws_used(const kvg_i_ws *ws);


/*
 * Sorting and duplicate detection for index validation. A key/position pair
 * sorts by key, then by position, so results do not depend on the sort.
 */
typedef struct kvg_i_keypos {
    int64_t key;
    int64_t pos;
} kvg_i_keypos;

/* In-place heapsort (no allocation, O(n log n), no recursion). */
void kvg_i_sort_keypos(kvg_i_keypos *items, size_t n);

/*
 * Sort items and look for equal keys. When some key occurs more than once,
 * returns 1 with *first < *second the positions of the duplicate pair whose
 * later position is smallest (the first token, in order, that repeats an
 * earlier one) and *key its key; otherwise returns 0.
 */
int kvg_i_find_duplicate(kvg_i_keypos *items, size_t n, int64_t *key,
                         int64_t *first, int64_t *second);

/*
 * The unique-index check: entries [0, n) of an int32 / int64 index tensor,
 * where a negative entry skips (or, with `negative` set, is refused), an
 * entry must be below `limit`, and no two kept entries may have the same
 * key. In position order the first negative entry (when refused) or entry
 * >= limit is refused by negative / out_of_range; then, over the keys
 * (key_of, or the entry itself when NULL; sorted in `keys`, n items of
 * workspace), the duplicate pair kvg_i_find_duplicate reports is refused
 * by repeated. The operator writes the messages (through kvg_diag_set); ctx
 * is its own.
 */
typedef struct kvg_i_unique {
    const kvg_tensor *index;
    int64_t n, limit;
    const void *ctx;
    int64_t (*key_of)(const void *ctx, int64_t pos, int64_t value);
    kvg_status (*negative)(const void *ctx, int64_t pos, int64_t value,
                           kvg_diag *diag); /* NULL: negative skips */
    kvg_status (*out_of_range)(const void *ctx, int64_t pos, int64_t value,
                               kvg_diag *diag);
    kvg_status (*repeated)(const void *ctx, int64_t key, int64_t first,
                           int64_t second, kvg_diag *diag);
} kvg_i_unique;
kvg_status kvg_i_check_unique(const kvg_i_unique *u, kvg_i_keypos *keys,
                              kvg_diag *diag);

/* The out_of_range and repeated callbacks for an index tensor named
 * slot_mapping; ctx points at the number of slots (int64_t). */
kvg_status kvg_i_slot_out_of_range(const void *ctx, int64_t t, int64_t s,
                                   kvg_diag *diag);
kvg_status kvg_i_slot_repeated(const void *ctx, int64_t key, int64_t first,
                               int64_t second, kvg_diag *diag);

#endif /* KVGOLD_SRC_INTERNAL_H */
