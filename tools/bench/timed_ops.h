/*
 * tools/bench/timed_ops.h - the timing shim, with kvg_op_run's signature.
 *
 * The benchmark runs a case through the one case adapter
 * (kvg_case_run_with, tools/lib/case/case_op.c) with this shim in place of
 * kvg_op_run, so it sees exactly the call the oracle makes; the shim fills
 * the operator's typed arguments once and times the typed call alone
 * (bench.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_BENCH_TIMED_OPS_H
#define KVGOLD_TOOLS_BENCH_TIMED_OPS_H

#include "kvgold/op.h"

kvg_status kvgb_timed_op(const kvg_op_call *call, kvg_diag *diag);

#endif /* KVGOLD_TOOLS_BENCH_TIMED_OPS_H */
