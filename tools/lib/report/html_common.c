/*
 * tools/lib/report/html_common.c - colours, escaping and number formatting for
 * the HTML report.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <math.h>
#include <stdio.h>

#include "html_common.h"

const char *kvg_html_class_colour(kvg_elem_class c)
{
    static const char *const colours[KVG_EC_COUNT] = {
        "#e6e8eb", /* untouched: recedes */
        "#3a9a4a", /* exact: green */
        "#f2c230", /* within tolerance: amber */
        "#e0352b", /* out of tolerance: red */
        "#6a1b9a", /* NaN/inf mismatch: purple */
        "#ff00c8"  /* untouched but changed: magenta, the worst */
    };
    return (unsigned)c < KVG_EC_COUNT ? colours[c] : "#000000";
}

void kvg_html_put(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

void kvg_html_num(char *buf, size_t cap, double v)
{
    if (isnan(v))
        (void)snprintf(buf, cap, "n/a");
    else if (isinf(v))
        (void)snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    else
        (void)snprintf(buf, cap, "%.6g", v);
}

void kvg_html_value(char *buf, size_t cap, double v, unsigned long long bits,
                    kvg_dtype dtype)
{
    char num[40];
    int width = (int)(2 * kvg_dtype_size(dtype));
    if (kvg_dtype_is_fp4(dtype))
        width = 1; /* a 4-bit code (compare judges packed fp4 per code) */
    if (dtype == KVG_E8M0 && (bits & 0xFFu) == 0xFFu)
        (void)snprintf(num, sizeof num, "NaN");
    else if (dtype == KVG_E8M0) /* a scale: 2^(c - 127), exactly */
        (void)snprintf(num, sizeof num, "2^%d", (int)(bits & 0xFFu) - 127);
    else if (dtype == KVG_FP4_E1M2)
        (void)snprintf(num, sizeof num, "code"); /* kvgold cannot decode */
    else if (isnan(v))
        (void)snprintf(num, sizeof num, "nan");
    else if (dtype == KVG_INT8 || dtype == KVG_INT32 || dtype == KVG_INT64)
        (void)snprintf(num, sizeof num, "%.0f", v);
    else
        (void)snprintf(num, sizeof num, "%.9g", v);
    (void)snprintf(buf, cap, "%s (0x%0*llx)", num, width, bits);
}
