/*
 * src/format/minifloat.h - the one rounding routine behind fp16, bf16,
 * fp8_e4m3fn and fp8_e5m2 encoding.
 *
 * These formats differ only in field widths and in what lives at the top of
 * the exponent range, so one integer round-and-pack (in the manner of
 * ml_dtypes' ConvertImpl and SoftFloat's roundPack) serves all four, with
 * the special codes described by a small table. bf16, fp8_e4m3fn and
 * fp8_e5m2 put a branch-light fast path in front of it for the inputs
 * whose rounding is one integer add (bf16.c, fp8_*.c say which); this
 * routine stays the definition for the rest (NaN, the subnormal range).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_MINIFLOAT_H
#define KVGOLD_SRC_MINIFLOAT_H

#include <stdint.h>

#include "kvgold/format.h"

typedef struct kvg_i_minifloat {
    int mant_bits;       /* stored mantissa bits M */
    int exp_bits;        /* exponent bits E */
    int bias;            /* exponent bias */
    uint32_t max_code;   /* magnitude code of the largest finite value */
    uint32_t inf_code;   /* magnitude code of +inf; 0 if the format has none */
    uint32_t nan_code;   /* magnitude code of the canonical NaN */
    int keep_payload;    /* 1: NaN keeps the top payload bits (fp16, bf16) */
    kvg_overflow default_overflow;
} kvg_i_minifloat;

/* Round |value| to the format per the header's rules; returns the code. */
uint32_t kvg_i_minifloat_encode(const kvg_i_minifloat *fmt, float value,
                                kvg_overflow overflow);

/* Exact decode of an IEEE-style code (fp16, bf16, fp8_e5m2, fp8_e4m3fn). */
float kvg_i_minifloat_decode(const kvg_i_minifloat *fmt, uint32_t code);

#endif /* KVGOLD_SRC_MINIFLOAT_H */
