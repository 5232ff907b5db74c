/*
 * tests/fuzz/fuzz_runs.h - fuzzed per-head runs (the modes of
 * src/engines/head_runs.h: OMNI windows, KVHEAD, KVHEAD_ROPE), shared by
 * the fuzz targets of the operators built on that engine.
 *
 * fz_runs_make builds a valid call from input bytes (batch, heads, D,
 * seq_len, wins, offset_index, runs packed into the cache with gaps, some
 * heads skipped), with the tensors made by fz_tensor (so each may be
 * mutated) and every index value open to one perturbation. After a
 * successful call, fz_runs_check_success re-derives from the views which
 * slots each head may write (the keep rule of the mode, written out here
 * from the headers' contracts) and requires every copied row to be the
 * right source row and every other slot to be untouched.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_FUZZ_RUNS_H
#define KVGOLD_TESTS_FUZZ_RUNS_H

#include "fuzz_util.h"

typedef enum fz_run_kind {
    FZ_RUN_OMNI = 0,
    FZ_RUN_KVHEAD = 1,
    FZ_RUN_KVHEAD_ROPE = 2
} fz_run_kind;

typedef struct fz_runs {
    fz_buf *key, *value, *key_cache, *value_cache, *slot_mapping, *wins,
        *seq_len, *offset_index;
} fz_runs;

/* `want_offsets`: offset_index is a natural input (OMNI, KVHEAD_ROPE);
 * one input byte may still add or drop it and the other per-head tensors. */
void fz_runs_make(fz_pool *pool, fz_in *in, fz_run_kind kind, fz_runs *r);

/* Checks after a successful call in mode `kind`. */
void fz_runs_check_success(fz_run_kind kind, const fz_runs *r);

/* Count of slots head i writes (L its seq_len, w wins, o offset_index or
 * -1 when absent). */
int64_t fz_runs_count(fz_run_kind kind, int64_t L, int64_t w, int64_t o);

#endif /* KVGOLD_TESTS_FUZZ_RUNS_H */
