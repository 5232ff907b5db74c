/*
 * tools/bench/bench.h - the benchmark's measurement core (not part of the
 * library, not a test: nothing here asserts on time).
 *
 * How an operator is timed. The benchmark runs a case through the same
 * case adapter the oracle uses (tools/lib/case/case_op.c), with the timing
 * shim (timed_ops.c) in place of kvg_op_run. The adapter loads nothing
 * and copies the caches before that call, so the shim sees exactly the
 * arguments the oracle would pass; it fills the typed arguments once and
 * times only the operator: a first (cold) call, then samples of k
 * back-to-back calls, k chosen so that a sample lasts at
 * least `sample_s`, until `budget_s` is spent. Operators are idempotent on
 * their caches (they never read them), so repeating a call leaves every
 * byte as one call does. Wall clock: clock_gettime(CLOCK_MONOTONIC).
 *
 * What it also measures, for the byte rates:
 *   bytes_written  exactly the bytes the op writes: the outputs are filled
 *                  with a pattern P, the op runs, then with ~P, the op runs
 *                  again; a byte is written iff it came out the same both
 *                  times. (Outputs are then restored.)
 *   bytes_read     copy-only ops: bytes_written (each written byte is read
 *                  once from key/value) plus the index tensors; computing
 *                  ops: every read-only input in full (they read it all).
 *   memcpy         a plain memcpy of bytes_written bytes between two
 *                  buffers, timed the same way: the floor for a copy.
 *                  The destination is one buffer of bytes_written bytes,
 *                  which stays in the caches when it is small.
 *   written_runs   the written bytes of each output, gathered into
 *                  maximal runs of consecutive bytes: how many.
 *   places         the same bytes to the same places: into a buffer the
 *                  size of each output, every written run (address order)
 *                  copied from one contiguous source, timed the same way.
 *                  The floor of any copy that writes where the op writes;
 *                  not measured (places_measured 0) if memory runs out.
 *                  When an op writes a whole output (the main benchmark
 *                  shapes do), this is one memcpy per output.
 *   order          copy-only ops: the same bytes to the same places in
 *                  the order of the source bytes they copy, each read
 *                  from its own offset in a source the size of the copied
 *                  inputs (the op's own reads and writes, its order as it
 *                  walks the tokens), found by inverting the source bytes
 *                  bit by bit of their index (timing.c); order_runs: the
 *                  runs consecutive in both source and destination. Not
 *                  measured (order_measured 0) when a written byte is not
 *                  a byte of the sources, or memory runs out.
 *   dst_order      the same moves (run for run) in destination order:
 *                  writes in address order, reads gathered. An op may
 *                  walk either way, or tile; neither order is a proof of
 *                  a floor, the faster of the two is the one to beat.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_BENCH_H
#define KVGOLD_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/tensor.h"

typedef struct kvgb_config {
    double budget_s;  /* sampling time per measurement (op, memcpy) */
    double sample_s;  /* minimum duration of one sample */
    int min_samples;  /* at least this many samples, whatever the budget */
    int max_samples;  /* and at most this many */
} kvgb_config;

/* Per-call times of one measured function, in nanoseconds. */
typedef struct kvgb_stats {
    double first_ns;  /* the operator's first call, cold (0 for memcpy) */
    double median_ns; /* median over samples of (sample time / k) */
    double min_ns;
    long per_sample;  /* k, calls per sample */
    int samples;
} kvgb_stats;

typedef struct kvgb_result {
    int measured;       /* a shim ran */
    int copy_only;      /* the op only moves bytes */
    double setup_ns;    /* adapter work before the op call (cache copies) */
    int places_measured; /* `places` holds a measurement */
    int order_measured;  /* `order` holds a measurement */
    int dst_order_measured; /* `dst_order` holds a measurement */
    kvgb_stats op, copy, places, order, dst_order;
    uint64_t bytes_written, bytes_read;
    uint64_t written_runs, order_runs;
    double paired_ratio; /* copy-only: median of op/memcpy over pairs */
    int pairs;           /* of samples taken back to back (0: none) */
} kvgb_result;

/* Monotonic wall clock in nanoseconds. */
double kvgb_now_ns(void);

/*
 * Start a measurement: the shims report into `res` using `cfg`, both of
 * which must outlive the adapter call. `start_ns` is when the adapter was
 * entered (setup is measured from it). One session at a time: the shims
 * have the operators' signatures and cannot take a context argument.
 */
void kvgb_session_begin(const kvgb_config *cfg, kvgb_result *res,
                        double start_ns);
void kvgb_session_end(void);

/* The operator behind a shim, with a type-erased argument struct. */
typedef kvg_status (*kvgb_op_fn)(const void *args, kvg_diag *diag);

/*
 * Time `op(args)` as described above, measure its written bytes over the
 * `outs` tensors (everything the op may write) and the memcpy floors.
 * `ins` are the inputs counted as read (see bytes_read); `srcs` the
 * inputs a copy-only op copies from (inverted and restored to find the
 * source order). Returns the status of the first call; on error nothing
 * else is run.
 */
kvg_status kvgb_measure(kvgb_op_fn op, const void *args,
                        const kvg_tensor *const *outs, int n_outs,
                        const kvg_tensor *const *ins, int n_ins,
                        const kvg_tensor *const *srcs, int n_srcs,
                        int copy_only, kvg_diag *diag);

#endif /* KVGOLD_TOOLS_BENCH_H */
