/*
 * src/ops/reshape_and_cache_omni/internal.h - what the descriptor of
 * ReshapeAndCacheOmni needs from its entry point.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_OMNI_INTERNAL_H
#define KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_OMNI_INTERNAL_H

#include "kvgold/reshape_and_cache_omni.h"
#include "src/ops/reshape_and_cache_omni/head_runs.h"

/* The run engine's view of a call (KVG_I_RUN_OMNI), its shapes checked
 * (kvg_i_runs_check_shapes); what the entry point checks first. */
kvg_status kvg_i_omni_runs(const kvg_reshape_and_cache_omni_args *args,
                           kvg_i_runs *r, kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_OMNI_INTERNAL_H */
