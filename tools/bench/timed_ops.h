/*
 * tools/bench/timed_ops.h - timing shims with the operators' signatures.
 *
 * tools/bench/adapt_<op>.c compiles tools/case/case_<op>.c with
 * `#define kvg_<op> kvgb_timed_<op>`, so the adapter, unchanged, calls the
 * shim; the shim times the real kvg_<op> (bench.h). The adapters' entry
 * points are renamed the same way (kvgb_case_run_<op>) so they do not
 * clash with the originals in kvgold_case.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_BENCH_TIMED_OPS_H
#define KVGOLD_TOOLS_BENCH_TIMED_OPS_H

#include "kvgold/kv_rms_norm_rope_cache.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"
#include "kvgold/reshape_and_cache.h"
#include "kvgold/reshape_and_cache_omni.h"

struct kvg_case;
struct kvg_case_set;

kvg_status kvgb_timed_qkv_rms_norm_rope_cache(
    const kvg_qkv_rms_norm_rope_cache_args *a, kvg_diag *diag);
kvg_status kvgb_timed_kv_rms_norm_rope_cache(
    const kvg_kv_rms_norm_rope_cache_args *a, kvg_diag *diag);
kvg_status kvgb_timed_reshape_and_cache_omni(
    const kvg_reshape_and_cache_omni_args *a, kvg_diag *diag);
kvg_status kvgb_timed_reshape_and_cache(const kvg_reshape_and_cache_args *a,
                                        kvg_diag *diag);

/* The adapters, compiled with the renamed operator calls. */
kvg_status kvgb_case_run_qkv_rms_norm_rope_cache(const struct kvg_case *c,
                                                 struct kvg_case_set *out,
                                                 kvg_diag *diag);
kvg_status kvgb_case_run_kv_rms_norm_rope_cache(const struct kvg_case *c,
                                                struct kvg_case_set *out,
                                                kvg_diag *diag);
kvg_status kvgb_case_run_reshape_and_cache_omni(const struct kvg_case *c,
                                                struct kvg_case_set *out,
                                                kvg_diag *diag);
kvg_status kvgb_case_run_reshape_and_cache(const struct kvg_case *c,
                                           struct kvg_case_set *out,
                                           kvg_diag *diag);

#endif /* KVGOLD_TOOLS_BENCH_TIMED_OPS_H */
