/*
 * tools/lib/scan/paged_bin_shapes.c - the shapes of ops-test-kit's .bin
 * inputs (raw bytes, no header) of a paged-cache copy whose inputs are
 * key, value, key_cache, value_cache, slot_mapping[, wins, seq_len[,
 * offset_index]]: the operators whose scan map names it (scan/ops/) share
 * that argument list.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>

#include "scan.h"

/* ops-test-kit's .bin inputs (key, value, key_cache, value_cache,
 * slot_mapping, wins, seq_len, offset_index): the index tensors are 1-D;
 * key and value are [tokens, N, D] with D (and, per token, N) from their
 * ND cache [blocks, block_size, N, D], or with the per-head modes (wins
 * given) N = wins / seq_len entries. */
void kvg_scan_paged_bin_shapes(kvg_scan_call *c)
{
    const int64_t n_wins = c->n_in > 6 && c->in[5].kind == KVG_SCAN_TENSOR &&
                                   c->in[6].kind == KVG_SCAN_TENSOR &&
                                   c->in[6].nbytes >= 4
                               ? (int64_t)(c->in[5].nbytes / 4) /
                                     (int64_t)(c->in[6].nbytes / 4)
                               : 0;
    int i;

    for (i = 0; i < c->n_in; i++) {
        kvg_scan_arg *a = &c->in[i];
        const size_t es = kvg_dtype_size(a->dtype);
        if (a->kind != KVG_SCAN_TENSOR || a->rank >= 0 || es == 0)
            continue;
        if (i >= 4) {
            a->rank = 1;
            a->shape[0] = (int64_t)(a->nbytes / es);
        } else if (i < 2 && c->n_out > i && c->out[i].rank == 4) {
            const int64_t *cs = c->out[i].shape;
            const int64_t heads = n_wins > 0 ? n_wins : cs[2];
            const uint64_t row = (uint64_t)heads * (uint64_t)cs[3] * es;
            if (heads <= 0 || cs[3] <= 0 || a->nbytes % row != 0)
                continue;
            a->rank = 3;
            a->shape[0] = (int64_t)(a->nbytes / row);
            a->shape[1] = heads;
            a->shape[2] = cs[3];
        }
    }
}
