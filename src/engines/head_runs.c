/*
 * src/engines/head_runs.c - validation and writing of per-head slot runs
 * (the operators that use it: docs/architecture.md, "Engines").
 *
 * The kernels read seq_len, wins, offset_index and slot_mapping on the
 * device and check none of their values; out-of-contract values make them
 * wrap unsigned lengths or write past the cache. The oracle refuses them
 * instead, naming the head, so a test case never encodes a corruption.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/engines/head_runs.h"

#include <string.h>

#include "kvgold/layout.h"
#include "src/common/internal.h"
#include "src/kernels/kernels.h"
#include "src/kernels/prefetch.h"
#include "src/layout/flat_slot.h"
#include "src/registry/op_desc.h"

/* The index tensors' names: the operator's (rules), else ATB's. */
#define WINS(r) ((r)->rules != NULL ? (r)->rules->wins : "wins")
#define SEQ(r) ((r)->rules != NULL ? (r)->rules->seq_len : "seq_len")
#define OFF(r) ((r)->rules != NULL ? (r)->rules->offset_index : "offset_index")

/* Which source tokens (relative to the batch's first row) a head keeps:
 * part A, then (KVHEAD_ROPE only) one mean token over a window, then
 * part C, written to consecutive slots in that order. */
typedef struct run_plan {
    int64_t a_from, a_len;
    int64_t mean_from, mean_len; /* mean_len 0: no compensation token */
    int64_t c_from, c_len;
} run_plan;

static int64_t plan_count(const run_plan *p)
{
    return p->a_len + (p->mean_len > 0 ? 1 : 0) + p->c_len;
}

/* The plan of a head whose L, w, o already passed the range checks. */
static run_plan make_plan(kvg_i_run_kind kind, int64_t L, int64_t w, int64_t o)
{
    run_plan p;
    memset(&p, 0, sizeof p);
    if (kind == KVG_I_RUN_KVHEAD) {
        p.a_from = L - w;
        p.a_len = w;
        return p;
    }
    if (o == -1 || w == 0) { /* inactive: -1 overrides wins, w 0 is a copy */
        p.a_len = L;
        return p;
    }
    p.a_len = o;
    if (kind == KVG_I_RUN_KVHEAD_ROPE) {
        p.mean_from = o;
        p.mean_len = w;
    }
    p.c_from = o + w;
    p.c_len = L - o - w;
    return p;
}

/* ---- shapes ------------------------------------------------------------ */

static kvg_status check_present(const kvg_i_runs *r, kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_present(r->key, "key", diag));
    KVG_TRY(kvg_i_check_present(r->value, "value", diag));
    KVG_TRY(kvg_i_check_present(r->key_cache, "key_cache", diag));
    KVG_TRY(kvg_i_check_present(r->value_cache, "value_cache", diag));
    KVG_TRY(kvg_i_check_present(r->slot_mapping, "slot_mapping", diag));
    KVG_TRY(kvg_i_check_present(r->wins, WINS(r), diag));
    KVG_TRY(kvg_i_check_present(r->seq_len, SEQ(r), diag));
    if (r->kind != KVG_I_RUN_KVHEAD)
        return kvg_i_check_present(r->offset_index, OFF(r), diag);
    return KVG_OK;
}

/* Rank and density of one tensor. */
static kvg_status check_form(const kvg_tensor *t, const char *name, int rank,
                             kvg_diag *diag)
{
    KVG_TRY(kvg_i_check_dense(t, name, diag));
    return kvg_i_check_rank(t, name, rank, diag);
}

/* A key given per batch, [B, S, N, D], where the operator allows it. */
static int batched(const kvg_i_runs *r)
{
    return r->rules != NULL && r->rules->batched_key && r->key->rank == 4;
}

static kvg_status check_forms(const kvg_i_runs *r, kvg_diag *diag)
{
    const int per_batch = batched(r);
    KVG_TRY(check_form(r->key, "key", 3 + per_batch, diag));
    KVG_TRY(check_form(r->value, "value", 3 + per_batch, diag));
    KVG_TRY(check_form(r->key_cache, "key_cache", 4, diag));
    KVG_TRY(check_form(r->value_cache, "value_cache", 4, diag));
    KVG_TRY(check_form(r->slot_mapping, "slot_mapping", 1 + per_batch,
                       diag));
    KVG_TRY(check_form(r->wins, WINS(r), 1 + per_batch, diag));
    KVG_TRY(check_form(r->seq_len, SEQ(r), 1, diag));
    if (r->offset_index != NULL)
        return check_form(r->offset_index, OFF(r), 1, diag);
    return KVG_OK;
}

/* The dtypes a head of `r` may hold: ATB's (fp16, bf16; int8 in KVHEAD),
 * or with the rules' any_copy_dtype every dtype a copy moves (the mean of
 * KVHEAD_ROPE stays fp16 / bf16). */
static int dtype_ok(const kvg_i_runs *r, kvg_dtype dt)
{
    if (r->rules != NULL && r->rules->any_copy_dtype &&
        r->kind != KVG_I_RUN_KVHEAD_ROPE)
        return kvg_dtype_size(dt) != 0 && dt != KVG_INT64 &&
               dt != KVG_FP4_E2M1 && dt != KVG_FP4_E1M2;
    return dt == KVG_FP16 || dt == KVG_BF16 ||
           (r->kind == KVG_I_RUN_KVHEAD && dt == KVG_INT8);
}

/* int32 (ATB), or with the rules' index_int64 int32 or int64 as
 * slot_mapping is, the others following it. */
static kvg_status index_dtype(const kvg_i_runs *r, kvg_dtype *idx,
                              kvg_diag *diag)
{
    *idx = KVG_INT32;
    if (r->rules == NULL || !r->rules->index_int64)
        return kvg_i_check_dtype(r->slot_mapping, "slot_mapping", KVG_INT32,
                                 diag);
    *idx = r->slot_mapping->dtype;
    if (*idx != KVG_INT32 && *idx != KVG_INT64)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", -1, -1,
                            "slot_mapping: dtype must be int32 or int64, got "
                            "%s",
                            kvg_dtype_name(*idx));
    return KVG_OK;
}

static kvg_status check_dtypes(const kvg_i_runs *r, kvg_diag *diag)
{
    kvg_dtype dt = r->key->dtype, idx;

    if (!dtype_ok(r, dt))
        return kvg_diag_set(
            diag, KVG_ERR_PARAM_INVALID, "key", -1, -1,
            "key: dtype must be %s, got %s",
            r->kind == KVG_I_RUN_KVHEAD_ROPE || r->rules == NULL ||
                    !r->rules->any_copy_dtype
                ? (r->kind == KVG_I_RUN_KVHEAD ? "fp16, bf16 or int8"
                                               : "fp16 or bf16")
                : "one a copy moves (not int64 or fp4)",
            kvg_dtype_name(dt));
    KVG_TRY(kvg_i_check_dtype(r->value, "value", dt, diag));
    KVG_TRY(kvg_i_check_dtype(r->key_cache, "key_cache", dt, diag));
    KVG_TRY(kvg_i_check_dtype(r->value_cache, "value_cache", dt, diag));
    KVG_TRY(index_dtype(r, &idx, diag));
    KVG_TRY(kvg_i_check_dtype(r->wins, WINS(r), idx, diag));
    KVG_TRY(kvg_i_check_dtype(r->seq_len, SEQ(r), idx, diag));
    if (r->offset_index != NULL)
        return kvg_i_check_dtype(r->offset_index, OFF(r), idx, diag);
    return KVG_OK;
}

static kvg_status check_head_size(const kvg_i_runs *r, kvg_diag *diag)
{
    const size_t es = kvg_dtype_size(r->key->dtype);
    const int d = r->key->rank - 1;
    if (r->rules != NULL && r->rules->row_bytes_align) {
        if ((size_t)r->dim * es % 32 != 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "key", d, -1,
                                "key: dim %d (head size D = %lld) times %zu "
                                "bytes must be a multiple of 32", d,
                                (long long)r->dim, es);
        return KVG_OK;
    }
    if (r->dim % 32 != 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "key", 2, -1,
                            "key: dim 2 (head size D) must be a multiple of "
                            "32, got %lld", (long long)r->dim);
    if (r->kind != KVG_I_RUN_KVHEAD && r->dim > KVG_I_RUNS_ATB_MAX_DIM)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "key", 2, -1,
                            "key: dim 2 (head size D) must be at most %d, got "
                            "%lld", KVG_I_RUNS_ATB_MAX_DIM, (long long)r->dim);
    return KVG_OK;
}

/* [B, S, N, D]: S rows per batch, B of seq_len; slot_mapping and wins
 * [B, N]. */
static kvg_status check_batched_dims(kvg_i_runs *r, kvg_diag *diag)
{
    const kvg_tensor *k = r->key;
    int d;

    r->batch_rows = k->shape[1];
    r->tokens = k->shape[0] * k->shape[1]; /* fits: the key is dense */
    r->heads = k->shape[2];
    r->dim = k->shape[3];
    for (d = 0; d < 4; d++)
        KVG_TRY(kvg_i_check_dim(r->value, "value", d, k->shape[d],
                                "as key", diag));
    KVG_TRY(kvg_i_check_dim(r->seq_len, SEQ(r), 0, k->shape[0],
                            "B of key (dim 0)", diag));
    KVG_TRY(kvg_i_check_dim(r->slot_mapping, "slot_mapping", 0,
                            k->shape[0], "B of key", diag));
    KVG_TRY(kvg_i_check_dim(r->slot_mapping, "slot_mapping", 1, r->heads,
                            "N of key", diag));
    KVG_TRY(kvg_i_check_dim(r->wins, WINS(r), 0, k->shape[0], "B of key",
                            diag));
    return kvg_i_check_dim(r->wins, WINS(r), 1, r->heads, "N of key", diag);
}

static kvg_status check_token_dims(kvg_i_runs *r, kvg_diag *diag)
{
    r->batch_rows = 0;
    r->tokens = r->key->shape[0];
    r->heads = r->key->shape[1];
    r->dim = r->key->shape[2];
    KVG_TRY(kvg_i_check_dim(r->value, "value", 0, r->tokens,
                            "num_tokens of key", diag));
    KVG_TRY(kvg_i_check_dim(r->value, "value", 1, r->heads, "N of key",
                            diag));
    return kvg_i_check_dim(r->value, "value", 2, r->dim, "D of key", diag);
}

static kvg_status check_dims(kvg_i_runs *r, kvg_diag *diag)
{
    const kvg_tensor *kc = r->key_cache;
    int d;

    r->batch = r->seq_len->shape[0];
    KVG_TRY(batched(r) ? check_batched_dims(r, diag)
                       : check_token_dims(r, diag));
    KVG_TRY(check_head_size(r, diag));
    KVG_TRY(kvg_i_check_dim(kc, "key_cache", 2, 1,
                            "one head per slot in a head-compressed cache",
                            diag));
    KVG_TRY(kvg_i_check_dim(kc, "key_cache", 3, r->dim, "D of key", diag));
    for (d = 0; d < 4; d++)
        KVG_TRY(kvg_i_check_dim(r->value_cache, "value_cache", d,
                                kc->shape[d], "as key_cache", diag));
    /* batch <= INT32_MAX-ish and heads fit: dense tensors cannot overflow. */
    if (!kvg_i_mul_i64(r->batch, r->heads, &r->runs))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, SEQ(r), 0, -1,
                            "%s: batch*N overflows", SEQ(r));
    if (r->batch_rows == 0) {
        KVG_TRY(kvg_i_check_dim(r->slot_mapping, "slot_mapping", 0,
                                r->runs, "batch*N", diag));
        KVG_TRY(kvg_i_check_dim(r->wins, WINS(r), 0, r->runs, "batch*N",
                                diag));
    }
    if (r->offset_index != NULL)
        KVG_TRY(kvg_i_check_dim(r->offset_index, OFF(r), 0,
                                r->runs, "batch*N", diag));
    if (r->rules == NULL && r->kind == KVG_I_RUN_OMNI &&
        r->runs >= KVG_I_RUNS_ATB_MAX_HEADS)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0, -1,
                            "slot_mapping: batch*N = %lld*%lld = %lld heads; "
                            "ATB's kernel takes fewer than %d",
                            (long long)r->batch, (long long)r->heads,
                            (long long)r->runs, KVG_I_RUNS_ATB_MAX_HEADS);
    r->blocks = kc->shape[0];
    r->block_size = kc->shape[1];
    r->slots = r->blocks * r->block_size; /* fits: the cache is dense */
    return KVG_OK;
}

kvg_status kvg_i_runs_check_shapes(kvg_i_runs *r, kvg_diag *diag)
{
    KVG_TRY(check_present(r, diag));
    KVG_TRY(check_forms(r, diag));
    KVG_TRY(check_dtypes(r, diag));
    return check_dims(r, diag);
}

/* ---- workspace --------------------------------------------------------- */

void kvg_i_runs_carve(const kvg_i_runs *r, kvg_i_ws *w, kvg_i_runs_ws *ws)
{
    ws->cum = (int64_t *)kvg_i_ws_take(w, (size_t)r->batch + 1,
                                       sizeof(int64_t));
    ws->items = (kvg_i_keypos *)kvg_i_ws_take(w, (size_t)r->runs,
                                              sizeof(kvg_i_keypos));
    ws->scratch = NULL;
    if (r->kind == KVG_I_RUN_KVHEAD_ROPE)
        ws->scratch = (float *)kvg_i_ws_take(w, 2 * (size_t)r->dim,
                                             sizeof(float));
}

size_t kvg_i_runs_spans(const kvg_i_runs *r, kvg_i_span *s)
{
    const kvg_i_span list[] = {{"key", r->key, 0},
                               {"value", r->value, 0},
                               {"slot_mapping", r->slot_mapping, 0},
                               {WINS(r), r->wins, 0},
                               {SEQ(r), r->seq_len, 0},
                               {OFF(r), r->offset_index, 0},
                               {"key_cache", r->key_cache, 1},
                               {"value_cache", r->value_cache, 1}};
    memcpy(s, list, sizeof list);
    return sizeof list / sizeof list[0];
}

/* ---- index values ------------------------------------------------------ */

#define HEAD_FMT "head %lld (batch %lld, head %lld)"
#define HEAD_ARGS(r, i) (long long)(i), (long long)((i) / (r)->heads), \
                        (long long)((i) % (r)->heads)

/* seq_len[b] >= 1 and cum[b] = seq_len[0] + ... + seq_len[b-1], with the
 * total at most num_tokens (rows past it do not exist); for a per-batch
 * key cum[b] = b * S and seq_len[b] <= S. */
static kvg_status check_seq_len(const kvg_i_runs *r, int64_t *cum,
                                kvg_diag *diag)
{
    int64_t b;
    cum[0] = 0;
    for (b = 0; b < r->batch; b++) {
        int64_t L = kvg_i_index_at(r->seq_len, b);
        if (L < 1)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, SEQ(r), 0, b,
                                "%s: batch %lld has %s %lld; it must be at "
                                "least 1", SEQ(r), (long long)b, SEQ(r),
                                (long long)L);
        if (r->batch_rows > 0) {
            if (L > r->batch_rows)
                return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, SEQ(r), 0, b,
                                    "%s: batch %lld has %s %lld, more than "
                                    "the %lld rows key holds per batch (dim "
                                    "1)", SEQ(r), (long long)b, SEQ(r),
                                    (long long)L, (long long)r->batch_rows);
            cum[b + 1] = (b + 1) * r->batch_rows; /* <= tokens */
            continue;
        }
        cum[b + 1] = cum[b] + L; /* cum[b] <= num_tokens: no overflow */
        if (cum[b + 1] > r->tokens)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, SEQ(r), 0, b,
                                "%s: batches 0..%lld hold %lld tokens, more "
                                "than the %lld rows of key (dim 0)", SEQ(r),
                                (long long)b, (long long)cum[b + 1],
                                (long long)r->tokens);
    }
    return KVG_OK;
}

/* ATB's KVHEAD: the kernel reads the w tokens that end at the batch's
 * cumulative end (rows end - w .. end - 1 of key, whatever seq_len[b] is),
 * so w past L takes earlier batches' tokens, which is defined; only w past
 * `end` (rows before key's first) or a negative w (an unsigned length) is
 * not. */
static kvg_status check_kvhead_wins(const kvg_i_runs *r, int64_t i,
                                    int64_t end, kvg_diag *diag)
{
    int64_t w = kvg_i_index_at(r->wins, i);

    if (w < 0 || w > end)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, WINS(r), 0, i,
                            "%s: " HEAD_FMT ": %s %lld is outside [0, %lld]: "
                            "KVHEAD reads the %s rows of key before row %lld, "
                            "where batch %lld ends", WINS(r), HEAD_ARGS(r, i),
                            WINS(r),
                            (long long)w, (long long)end, WINS(r),
                            (long long)end, (long long)(i / r->heads));
    return KVG_OK;
}

/* offset_index == -1 turns compression off whatever wins holds (the seed:
 * "no requirement on the value of wins"); MindIE's decode relies on it,
 * keeping the prefill wins (L - 384) next to seq_len 1. Otherwise
 * 0 <= w <= L and 0 <= o <= L - w, or the kernel's unsigned lengths wrap. */
static kvg_status check_window(const kvg_i_runs *r, int64_t i, int64_t L,
                               int64_t end, kvg_diag *diag)
{
    int64_t w = kvg_i_index_at(r->wins, i);
    int64_t o = r->offset_index != NULL ? kvg_i_index_at(r->offset_index, i)
                                        : 0;

    if (r->kind == KVG_I_RUN_KVHEAD && r->rules == NULL)
        return check_kvhead_wins(r, i, end, diag);
    if (r->offset_index != NULL && o == -1)
        return KVG_OK;
    if (w < 0 || w > L)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, WINS(r), 0, i,
                            "%s: " HEAD_FMT ": %s %lld is outside [0, %s "
                            "%lld]%s%s%s", WINS(r), HEAD_ARGS(r, i), WINS(r),
                            (long long)w, SEQ(r), (long long)L,
                            r->offset_index != NULL ? " (only " : "",
                            r->offset_index != NULL ? OFF(r) : "",
                            r->offset_index != NULL ? " -1 lifts this)" : "");
    if (r->offset_index != NULL && (o < 0 || o > L - w))
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, OFF(r), 0, i,
                            "%s: " HEAD_FMT ": %s %lld must be -1 or in [0, %s "
                            "- %s] = [0, %lld]", OFF(r), HEAD_ARGS(r, i),
                            OFF(r), (long long)o, SEQ(r), WINS(r),
                            (long long)(L - w));
    return KVG_OK;
}

static run_plan head_plan(const kvg_i_runs *r, int64_t i)
{
    int64_t L = kvg_i_index_at(r->seq_len, i / r->heads);
    int64_t w = kvg_i_index_at(r->wins, i);
    int64_t o = r->offset_index != NULL ? kvg_i_index_at(r->offset_index, i)
                                        : -1;
    return make_plan(r->kind, L, w, o);
}

/* Slot range and run end of every written head; collects the non-empty
 * runs (start slot, head) for the overlap check. */
static kvg_status check_slots(const kvg_i_runs *r, kvg_i_keypos *items,
                              size_t *n, kvg_diag *diag)
{
    int64_t i;
    *n = 0;
    for (i = 0; i < r->runs; i++) {
        int64_t s = kvg_i_index_at(r->slot_mapping, i);
        run_plan p = head_plan(r, i);
        int64_t count = plan_count(&p);
        if (s < 0)
            continue; /* skipped head */
        if (s >= r->slots)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0,
                                i, "slot_mapping: " HEAD_FMT ": slot %lld is "
                                "outside [0, %lld) (num_blocks*block_size)",
                                HEAD_ARGS(r, i), (long long)s,
                                (long long)r->slots);
        if (count > r->slots - s)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0,
                                i, "slot_mapping: " HEAD_FMT ": its %lld "
                                "tokens from slot %lld run to slot %lld, "
                                "past the end of the cache (%lld slots)",
                                HEAD_ARGS(r, i),
                                (long long)count, (long long)s,
                                (long long)(s + count - 1),
                                (long long)r->slots);
        if (count > 0) {
            items[*n].key = s;
            items[*n].pos = i;
            (*n)++;
        }
    }
    return KVG_OK;
}

/* Sorted by start slot, runs are disjoint iff each ends before the next
 * starts: if runs a < c overlap, so do a and its successor b, since
 * start(b) <= start(c) < end(a). O(n log n). */
static kvg_status check_overlap(const kvg_i_runs *r, kvg_i_keypos *items,
                                size_t n, kvg_diag *diag)
{
    size_t k;
    kvg_i_sort_keypos(items, n);
    for (k = 1; k < n; k++) {
        int64_t ia = items[k - 1].pos, ib = items[k].pos;
        run_plan pa = head_plan(r, ia), pb = head_plan(r, ib);
        int64_t sa = items[k - 1].key, sb = items[k].key;
        int64_t ea = sa + plan_count(&pa), eb = sb + plan_count(&pb);
        if (sb < ea)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0,
                                ib, "slot_mapping: " HEAD_FMT " writes slots "
                                "[%lld, %lld) and " HEAD_FMT " writes [%lld, "
                                "%lld): the runs overlap from slot %lld",
                                HEAD_ARGS(r, ia), (long long)sa, (long long)ea,
                                HEAD_ARGS(r, ib), (long long)sb, (long long)eb,
                                (long long)sb);
    }
    return KVG_OK;
}

kvg_status kvg_i_runs_check_values(const kvg_i_runs *r,
                                   const kvg_i_runs_ws *ws, kvg_diag *diag)
{
    int64_t *cum = ws->cum, i;
    size_t n;

    KVG_TRY(check_seq_len(r, cum, diag));
    for (i = 0; i < r->runs; i++) {
        const int64_t L = kvg_i_index_at(r->seq_len, i / r->heads);
        KVG_TRY(check_window(r, i, L, cum[i / r->heads] + L, diag));
    }
    KVG_TRY(check_slots(r, ws->items, &n, diag));
    return check_overlap(r, ws->items, n, diag);
}

/* ---- writing ----------------------------------------------------------- */

/* One side (K or V) of the write: source rows, cache and its layout. */
typedef struct side {
    const unsigned char *src; /* [T, N, D] */
    unsigned char *cache;     /* [NB, BS, 1, D] */
    kvg_cache_layout layout;
    size_t esize, row_bytes;
    float *acc, *row; /* KVHEAD_ROPE scratch, D floats each */
} side;

/* Flat slot s is block s / BS, row s % BS (runs cross block boundaries).
 * With one head per slot the cache is [NB*BS, D] rows, so slot s starts
 * s*D elements in (kvg_layout_offset of block s / BS, row s % BS) and a
 * run of slots is one contiguous stretch of rows. */
static unsigned char *slot_ptr(const side *sd, int64_t s)
{
    const kvg_cache_coord c = kvg_i_flat_slot(&sd->layout, s);
    return sd->cache + (size_t)kvg_layout_offset(&sd->layout, &c) * sd->esize;
}

/* Both caches: [NB, BS, 1, D] rows. */
static kvg_cache_layout slot_layout(const kvg_i_runs *r)
{
    kvg_cache_layout l;
    memset(&l, 0, sizeof l);
    l.kind = KVG_LAYOUT_ND;
    l.blocks = r->blocks;
    l.slots = r->block_size;
    l.heads = 1;
    l.dim = r->dim;
    return l;
}

static const unsigned char *row_ptr(const kvg_i_runs *r, const side *sd,
                                    int64_t token, int64_t head)
{
    return sd->src + (size_t)((token * r->heads + head) * r->dim) * sd->esize;
}

/* acc = +0; acc = acc + x[j] in token order; acc / (float)len; RNE. Starting
 * from +0 (as the kernel's zeroed accumulator) makes an all -0 window +0. */
static void mean_row(const kvg_i_runs *r, const side *sd, int64_t first,
                     int64_t head, int64_t len, int64_t slot)
{
    const size_t d = (size_t)r->dim;
    const float count = (float)len;
    size_t c;
    int64_t j;

    for (c = 0; c < d; c++)
        sd->acc[c] = 0.0f;
    for (j = 0; j < len; j++) {
        kvg_i_load_row(r->key->dtype, row_ptr(r, sd, first + j, head), d,
                       sd->row);
        for (c = 0; c < d; c++)
            sd->acc[c] = sd->acc[c] + sd->row[c];
    }
    for (c = 0; c < d; c++)
        sd->acc[c] = sd->acc[c] / count;
    kvg_i_store_row(r->key->dtype, sd->acc, d, KVG_OVF_DEFAULT,
                    slot_ptr(sd, slot));
}

/* ---- the copied rows ---------------------------------------------------
 *
 * The rows a head keeps go to consecutive slots, but they are D elements
 * out of every N*D of the source. Head by head, a head's pass reads its
 * piece of every source row (256 bytes of each 2 KiB for N 8, D 128 fp16):
 * N strided passes over the source. Token by token, every head's piece of
 * a key row is copied before the next row, then likewise for the value:
 * each source is read once, front to back, and each head's slots are
 * written in order, one stream per head. That is faster where most heads
 * keep the row (all heads kept: Omni 1.72x -> 1.45x memcpy; key and value
 * in turn rather than together, 8 streams instead of 16: -> 1.0-1.4x),
 * and slower where half of them or fewer do (the streaming heads' middle:
 * the hardware prefetcher then also brings the pieces no head keeps; 1.3
 * to 2x slower). So the rows are cut into stretches over which the same
 * heads keep them, each copied token by token if more than half of the
 * heads keep it, else head by head. Either way the key rows go first,
 * then the value rows: fewer streams at once won every time (head by head
 * over the 4/8-streaming middle, key heads then value heads rather than
 * both caches of a head in turn: paired 1.95x -> 1.65x median; tiles of
 * 64-512 tokens over the heads, more streams: 1.7x slower).
 * Measured on the head-runs benchmark shapes (docs/performance.md). */

/* Heads planned at once, on the stack. */
#define KVG_I_RUN_GROUP 32

/* Where a written head's kept rows go: part A's rows [a_from, a_to) to
 * a_dst + (row - a_from) rows, part C's likewise (per cache). */
typedef struct head_dst {
    int64_t head, a_from, a_to, c_from, c_to;
    unsigned char *a_dst[2], *c_dst[2];
} head_dst;

/* The written heads among runs [i0, i1), into g; returns how many. */
static int plan_group(const kvg_i_runs *r, const side *sd, int64_t i0,
                      int64_t i1, head_dst *g)
{
    int64_t i;
    int n = 0, k;

    for (i = i0; i < i1; i++) {
        const int64_t s = kvg_i_index_at(r->slot_mapping, i);
        run_plan p;
        if (s < 0)
            continue;
        p = head_plan(r, i);
        g[n].head = i % r->heads;
        g[n].a_from = p.a_from;
        g[n].a_to = p.a_from + p.a_len;
        g[n].c_from = p.c_from;
        g[n].c_to = p.c_from + p.c_len;
        for (k = 0; k < 2; k++) {
            g[n].a_dst[k] = slot_ptr(&sd[k], s);
            g[n].c_dst[k] = slot_ptr(&sd[k], s + p.a_len +
                                                 (p.mean_len > 0 ? 1 : 0));
        }
        n++;
    }
    return n;
}

/* Where head x puts row t, in cache k; NULL if it does not keep it. */
static unsigned char *row_dst(const head_dst *x, int k, int64_t t, size_t rb)
{
    if (t >= x->a_from && t < x->a_to)
        return x->a_dst[k] + (size_t)(t - x->a_from) * rb;
    if (t >= x->c_from && t < x->c_to)
        return x->c_dst[k] + (size_t)(t - x->c_from) * rb;
    return NULL;
}

/* Every end of a kept range, sorted, without repeats; returns how many. */
static int range_ends(const head_dst *g, int n, int64_t *cut)
{
    int m = 0, j, i, u;

    for (j = 0; j < n; j++) {
        if (g[j].a_to > g[j].a_from) {
            cut[m++] = g[j].a_from;
            cut[m++] = g[j].a_to;
        }
        if (g[j].c_to > g[j].c_from) {
            cut[m++] = g[j].c_from;
            cut[m++] = g[j].c_to;
        }
    }
    for (i = 1; i < m; i++) /* insertion sort: at most 4 * 32 ends */
        for (j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            const int64_t v = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = v;
        }
    for (i = 0, u = 0; i < m; i++)
        if (u == 0 || cut[i] != cut[u - 1])
            cut[u++] = cut[i];
    return u;
}

/* Head by head, a head's pieces are rb bytes every N*rb of the source,
 * a stride the hardware prefetcher follows late: each pass asks for its
 * piece KVG_I_RUN_AHEAD rows ahead. Omni 4/8 streaming, three sets of
 * alternated runs: no hint 593-652 us (median of the rounds), 16 rows
 * ahead 535-589; 4, 32 and 64 rows no better than 16. */
#define KVG_I_RUN_AHEAD 16

static void ask_for_row(const unsigned char *p, size_t bytes)
{
    size_t o;
    for (o = 0; o < bytes; o += KVG_I_LINE)
        KVG_I_PREFETCH(p + o);
}

/* Rows [t0, t1) of the batch at `base`, kept by the same heads of g
 * (none of whose ranges ends inside), in the faster order. Where each
 * keeping head's row t0 comes from and goes to is worked out once: inside
 * the stretch the source moves a token and the cache a row a token. */
static void copy_stretch(const kvg_i_runs *r, const side *sd,
                         const head_dst *g, int n, int64_t group,
                         int64_t base, int64_t t0, int64_t t1)
{
    const size_t rb = sd[0].row_bytes; /* value: same dtype, same D */
    const size_t stride = (size_t)r->heads * rb; /* one source token */
    unsigned char *to[2][KVG_I_RUN_GROUP];
    const unsigned char *from[2][KVG_I_RUN_GROUP];
    int64_t t;
    int j, k, keep = 0;

    for (j = 0; j < n; j++) {
        if (row_dst(&g[j], 0, t0, rb) == NULL)
            continue;
        for (k = 0; k < 2; k++) {
            to[k][keep] = row_dst(&g[j], k, t0, rb);
            from[k][keep] = row_ptr(r, &sd[k], base + t0, g[j].head);
        }
        keep++;
    }
    if (2 * (int64_t)keep > group) { /* token by token */
        for (k = 0; k < 2; k++)
            for (t = t0; t < t1; t++)
                for (j = 0; j < keep; j++)
                    memcpy(to[k][j] + (size_t)(t - t0) * rb,
                           from[k][j] + (size_t)(t - t0) * stride, rb);
        return;
    }
    for (k = 0; k < 2; k++) /* head by head */
        for (j = 0; j < keep; j++)
            for (t = t0; t < t1; t++) {
                if (t + KVG_I_RUN_AHEAD < t1)
                    ask_for_row(from[k][j] + (size_t)(t + KVG_I_RUN_AHEAD -
                                                      t0) * stride, rb);
                memcpy(to[k][j] + (size_t)(t - t0) * rb,
                       from[k][j] + (size_t)(t - t0) * stride, rb);
            }
}

/* The copied rows of runs [i0, i1) of one batch (its rows from base). */
static void copy_group(const kvg_i_runs *r, const side *sd, int64_t base,
                       int64_t i0, int64_t i1)
{
    head_dst g[KVG_I_RUN_GROUP];
    int64_t cut[4 * KVG_I_RUN_GROUP];
    const int n = plan_group(r, sd, i0, i1, g);
    const int m = range_ends(g, n, cut);
    int c;

    for (c = 0; c + 1 < m; c++)
        copy_stretch(r, sd, g, n, i1 - i0, base, cut[c], cut[c + 1]);
}

/* Run i's compensation token (KVHEAD_ROPE), both caches. */
static void mean_run(const kvg_i_runs *r, const side *sd, const int64_t *cum,
                     int64_t i)
{
    const int64_t s = kvg_i_index_at(r->slot_mapping, i);
    const int64_t base = cum[i / r->heads], h = i % r->heads;
    run_plan p;

    if (s < 0)
        return;
    p = head_plan(r, i);
    if (p.mean_len == 0)
        return;
    mean_row(r, &sd[0], base + p.mean_from, h, p.mean_len, s + p.a_len);
    mean_row(r, &sd[1], base + p.mean_from, h, p.mean_len, s + p.a_len);
}

static side make_side(const kvg_i_runs *r, const kvg_tensor *src,
                      const kvg_tensor *cache, float *scratch)
{
    side sd;
    memset(&sd, 0, sizeof sd);
    sd.src = (const unsigned char *)src->data;
    sd.cache = (unsigned char *)cache->data;
    sd.layout = slot_layout(r);
    sd.esize = kvg_dtype_size(src->dtype);
    sd.row_bytes = (size_t)r->dim * sd.esize;
    sd.acc = scratch;
    sd.row = scratch != NULL ? scratch + r->dim : NULL;
    return sd;
}

void kvg_i_runs_write(const kvg_i_runs *r, const kvg_i_runs_ws *ws)
{
    side sd[2];
    int64_t i, b, h;

    sd[0] = make_side(r, r->key, r->key_cache, ws->scratch);
    sd[1] = make_side(r, r->value, r->value_cache, ws->scratch);
    for (i = 0; i < r->runs; i++)
        mean_run(r, sd, ws->cum, i);
    for (b = 0; b < r->batch; b++)
        for (h = 0; h < r->heads; h += KVG_I_RUN_GROUP)
            copy_group(r, sd, ws->cum[b], b * r->heads + h,
                       b * r->heads + (r->heads - h < KVG_I_RUN_GROUP
                                           ? r->heads
                                           : h + KVG_I_RUN_GROUP));
}

/* ---- what a call writes --------------------------------------------------- */

void kvg_i_runs_enumerate(const void *ctx, kvg_i_run_sink *s)
{
    const kvg_i_runs *r = (const kvg_i_runs *)ctx;
    const kvg_cache_layout l = slot_layout(r);
    int64_t i;

    for (i = 0; i < r->runs; i++) {
        const int64_t slot = kvg_i_index_at(r->slot_mapping, i);
        const run_plan p = head_plan(r, i);
        if (slot < 0)
            continue; /* skipped head */
        /* the head's plan_count tokens go to consecutive slots, whose
         * rows are consecutive in the cache (one head per slot) */
        kvg_i_sink_row(s, &l, kvg_i_flat_slot(&l, slot),
                       plan_count(&p) * r->dim);
    }
}
