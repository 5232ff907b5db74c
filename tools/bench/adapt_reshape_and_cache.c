/*
 * tools/bench/adapt_reshape_and_cache.c - the case adapter tools/case/case_reshape_and_cache.c,
 * compiled again with its operator call routed to the timing shim
 * (timed_ops.h), so the benchmark builds the arguments exactly as the
 * oracle does and times the operator call alone.
 * SPDX-License-Identifier: Apache-2.0
 */
#define kvg_reshape_and_cache kvgb_timed_reshape_and_cache
#define kvg_case_run_reshape_and_cache kvgb_case_run_reshape_and_cache

#include "../case/case_reshape_and_cache.c"
