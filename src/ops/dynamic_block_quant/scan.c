/*
 * src/ops/dynamic_block_quant/scan.c - the one pass over a run of x that
 * both the value checks and the compute step need: the largest magnitude
 * (the block's amax) and the smallest nonzero one (what the subnormal
 * refusals need, check.c), read as bit patterns.
 *
 * Why bit patterns: the 950 kernel takes amax as an integer max of the
 * magnitude bits (NaN > Inf > finite, blocks.c), and the magnitudes of one
 * format order as their patterns, so one integer max and one integer min
 * per element give both, with no widening and no branch: the compiler
 * vectorises the loops (built per ISA, src/kernels/dispatch.h). The
 * smallest nonzero magnitude is kept as (pattern - 1) mod the magnitude
 * width, so that +-0 becomes the largest value and drops out of the min
 * without a test; it stays within the signed range, which SSE2's 16-bit
 * min/max need.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/kernels/dispatch.h"
#include "src/ops/dynamic_block_quant/internal.h"

/* fp16 / bf16: 15 magnitude bits. */
KVG_I_IN_EVERY_CLONE
static inline void scan16(const unsigned char *restrict p, size_t n,
                          kvg_i_dynamic_block_quant_scan *acc)
{
    int16_t best = (int16_t)acc->amax, low = (int16_t)acc->low;
    size_t j;

    for (j = 0; j < n; j++) {
        uint16_t h;
        int16_t mag, less;
        memcpy(&h, p + 2 * j, 2);
        mag = (int16_t)(h & 0x7FFFu);
        less = (int16_t)((h + 0x7FFFu) & 0x7FFFu); /* mag - 1; 0 -> 0x7FFF */
        best = mag > best ? mag : best;
        low = less < low ? less : low;
    }
    acc->amax = (uint32_t)best;
    acc->low = (uint32_t)low;
}

/* fp32: 31 magnitude bits. */
KVG_I_IN_EVERY_CLONE
static inline void scan32(const unsigned char *restrict p, size_t n,
                          kvg_i_dynamic_block_quant_scan *acc)
{
    int32_t best = (int32_t)acc->amax, low = (int32_t)acc->low;
    size_t j;

    for (j = 0; j < n; j++) {
        uint32_t u;
        int32_t mag, less;
        memcpy(&u, p + 4 * j, 4);
        mag = (int32_t)(u & 0x7FFFFFFFu);
        less = (int32_t)((u + 0x7FFFFFFFu) & 0x7FFFFFFFu);
        best = mag > best ? mag : best;
        low = less < low ? less : low;
    }
    acc->amax = (uint32_t)best;
    acc->low = (uint32_t)low;
}

KVG_I_ROW_KERNEL
void kvg_i_dynamic_block_quant_scan_run(kvg_dtype t, const void *src,
                                        size_t n,
                                        kvg_i_dynamic_block_quant_scan *acc)
{
    if (t == KVG_FP32)
        scan32((const unsigned char *)src, n, acc);
    else
        scan16((const unsigned char *)src, n, acc);
}
