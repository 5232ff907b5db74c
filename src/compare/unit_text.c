/*
 * src/compare/unit_text.c - how the reports name one compared unit of the
 * dtypes whose codes are not plain numbers: an e8m0 scale is a power of
 * two and its distance is in binades; a packed fp4 unit is a 4-bit code,
 * whose index says which byte and nibble hold it (kvgold/compare.h,
 * codes_per_element). Shared by the text and JSON reports.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>

#include "src/compare/compare_internal.h"

#define E8M0_NAN 0xFFu
#define E8M0_BIAS 127

void kvg_i_cmp_code_text(kvg_dtype dt, uint64_t bits, char *out, size_t cap)
{
    if (kvg_i_cmp_codes_per_element(dt) == 2)
        (void)snprintf(out, cap, "0x%x", (unsigned)(bits & 0xFu));
    else
        (void)snprintf(out, cap, "0x%0*llx", (int)(2 * kvg_dtype_size(dt)),
                       (unsigned long long)bits);
}

int kvg_i_cmp_e8m0_text(uint64_t bits, char *out, size_t cap)
{
    unsigned c = (unsigned)(bits & 0xFFu);

    if (c == E8M0_NAN)
        return snprintf(out, cap, "NaN");
    return snprintf(out, cap, "2^%d", (int)c - E8M0_BIAS);
}

int64_t kvg_i_cmp_e8m0_binades(uint64_t golden_bits, uint64_t actual_bits)
{
    int64_t g = (int64_t)(golden_bits & 0xFFu);
    int64_t a = (int64_t)(actual_bits & 0xFFu);

    if (g == E8M0_NAN || a == E8M0_NAN)
        return -1; /* a NaN scale is no binade from anything */
    return a > g ? a - g : g - a;
}

void kvg_i_cmp_e8m0_pair_text(const kvg_compare_element *e, char *out,
                              size_t cap)
{
    char a[16], g[16];
    int64_t d = kvg_i_cmp_e8m0_binades(e->golden_bits, e->actual_bits);

    (void)kvg_i_cmp_e8m0_text(e->actual_bits, a, sizeof a);
    (void)kvg_i_cmp_e8m0_text(e->golden_bits, g, sizeof g);
    if (d < 0)
        (void)snprintf(out, cap, "%s (0x%02x) vs golden %s (0x%02x): NaN "
                                 "mismatch", a,
                       (unsigned)(e->actual_bits & 0xFFu), g,
                       (unsigned)(e->golden_bits & 0xFFu));
    else
        (void)snprintf(out, cap, "%s (0x%02x) vs golden %s (0x%02x): %lld "
                                 "binade%s", a,
                       (unsigned)(e->actual_bits & 0xFFu), g,
                       (unsigned)(e->golden_bits & 0xFFu), (long long)d,
                       d == 1 ? "" : "s");
}

void kvg_i_cmp_index_text(kvg_dtype dt, int64_t index, char *out, size_t cap)
{
    if (kvg_i_cmp_codes_per_element(dt) == 2)
        (void)snprintf(out, cap, "%lld (byte %lld %s)", (long long)index,
                       (long long)(index / 2), index % 2 ? "hi" : "lo");
    else
        (void)snprintf(out, cap, "%lld", (long long)index);
}

const char *kvg_i_cmp_values_note(kvg_dtype dt)
{
    if (dt == KVG_E8M0)
        return "not applicable: e8m0 scales are judged bit for bit, their "
               "distance in binades (a relative error or cosine of "
               "power-of-two scales is not the error they cause)";
    if (dt == KVG_FP4_E1M2)
        return "not applicable: kvgold has no fp4_e1m2 decoder; its codes "
               "are judged bit for bit";
    return "measured";
}
