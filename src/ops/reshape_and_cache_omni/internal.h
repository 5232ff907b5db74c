/*
 * src/ops/reshape_and_cache_omni/internal.h - what the descriptor of
 * ReshapeAndCacheOmni needs from its entry point.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_OMNI_INTERNAL_H
#define KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_OMNI_INTERNAL_H

#include "kvgold/reshape_and_cache_omni.h"
#include "src/engines/head_runs.h"

/* Everything the operator checks before it writes a byte, in its order
 * (kvg_i_entry_validate, src/common/entry.h); *r is the run engine's view
 * of the call. The entry point and the descriptor's `written` share it. */
kvg_status kvg_i_reshape_and_cache_omni_validate(
    const kvg_reshape_and_cache_omni_args *args, kvg_i_runs *r,
    kvg_i_runs_ws *pieces, kvg_diag *diag);

#endif /* KVGOLD_SRC_OPS_RESHAPE_AND_CACHE_OMNI_INTERNAL_H */
