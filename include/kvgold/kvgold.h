/*
 * kvgold/kvgold.h - everything: the golden model of Ascend's fused KV-cache
 * operators (KvRmsNormRopeCache, QkvRmsNormRopeCache, ReshapeAndCacheOmni,
 * ReshapeAndCache), its number formats, cache layouts, .npy I/O and the CANN
 * precision comparison. Each header documents its own contract; start with
 * status.h and tensor.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_KVGOLD_H
#define KVGOLD_KVGOLD_H

#include "kvgold/api.h"
#include "kvgold/status.h"
#include "kvgold/dtype.h"
#include "kvgold/tensor.h"
#include "kvgold/format.h"
#include "kvgold/layout.h"
#include "kvgold/row_layout.h"
#include "kvgold/options.h"
#include "kvgold/npy.h"
#include "kvgold/compare.h"
#include "kvgold/op.h"
#include "kvgold/abi.h"
#include "kvgold/c8_mxfp_k_cache.h"
#include "kvgold/dynamic_block_quant.h"
#include "kvgold/dynamic_mx_quant.h"
#include "kvgold/indexer_compress_epilog.h"
#include "kvgold/indexer_quant_cache.h"
#include "kvgold/kv_compress_epilog.h"
#include "kvgold/concat_and_cache_ds_mla.h"
#include "kvgold/kv_rms_norm_rope_cache.h"
#include "kvgold/qkv_rms_norm_rope_cache.h"
#include "kvgold/reshape_and_cache_omni.h"
#include "kvgold/reshape_and_cache.h"
#include "kvgold/scatter_pa_kv_cache.h"

#endif /* KVGOLD_KVGOLD_H */
