/*
 * src/common/slot_messages.c - what the unique-index check
 * (kvg_i_check_unique) says about a `slot_mapping` tensor, for every
 * operator whose index is named so: one wording, so a user reads the same
 * refusal from each. The context is the number of slots (const int64_t *).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "src/common/internal.h"

kvg_status kvg_i_slot_out_of_range(const void *ctx, int64_t t, int64_t s,
                                   kvg_diag *diag)
{
    const int64_t slots = *(const int64_t *)ctx;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0, t,
                        "slot_mapping: token %lld: slot %lld is outside [0, "
                        "%lld) (num_blocks*block_size)", (long long)t,
                        (long long)s, (long long)slots);
}

kvg_status kvg_i_slot_repeated(const void *ctx, int64_t key, int64_t first,
                               int64_t second, kvg_diag *diag)
{
    (void)ctx;
    return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, "slot_mapping", 0, second,
                        "slot_mapping: tokens %lld and %lld both write slot "
                        "%lld", (long long)first, (long long)second,
                        (long long)key);
}
