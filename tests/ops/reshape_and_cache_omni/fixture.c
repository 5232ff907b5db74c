/*
 * tests/ops/reshape_and_cache_omni/fixture.c - ReshapeAndCacheOmni in the
 * reliability fixture (tests/op_fixture.h): seeded valid calls of per-head
 * runs (opf_build_heads) and their index-value mutations. It has no
 * attributes.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include "kvgold/reshape_and_cache_omni.h"

static void build_omni(opf *f, kvgt_rng *r)
{
    kvg_reshape_and_cache_omni_args *a =
        (kvg_reshape_and_cache_omni_args *)f->args;
    opf_heads h;

    kvg_reshape_and_cache_omni_args_init(a);
    h.key = &a->key, h.value = &a->value, h.key_cache = &a->key_cache;
    h.value_cache = &a->value_cache, h.slot_mapping = &a->slot_mapping;
    h.wins = &a->wins, h.seq_len = &a->seq_len;
    h.offset_index = &a->offset_index;
    h.keep = 0; /* an offset run is the sequence less its window */
    h.int8 = 0;
    opf_build_heads(f, r, &h);
}

static const opf_kind_desc kind_omni = {
    "reshape_and_cache_omni", "reshape_and_cache_omni", build_omni, NULL,
    opf_mutate_heads, NULL};

const opf_kind_desc *const opf_kinds_reshape_and_cache_omni[] = {&kind_omni,
                                                                 NULL};
