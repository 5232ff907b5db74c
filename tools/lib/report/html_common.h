/*
 * tools/lib/report/html_common.h - what the HTML report's pieces share: the
 * class colours (one per element class, also the CSS), escaping, number
 * and element formatting.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_HTML_COMMON_H
#define KVGOLD_TOOLS_HTML_COMMON_H

#include <stdio.h>

#include "cache_map.h"
#include "error_hist.h"

/* Fill colour of each class ("#rrggbb"): grey, green, amber, red, purple,
 * magenta. The map's frame and grid lines use KVG_HTML_FRAME, a colour
 * nothing else on the page has (the browser test finds the map by it). */
const char *kvg_html_class_colour(kvg_elem_class c);
#define KVG_HTML_FRAME "#8a93a0"

/* Escape text for HTML content and attribute values. */
void kvg_html_put(FILE *out, const char *s);

/* "%.6g", with "n/a" for NaN and "inf"/"-inf". */
void kvg_html_num(char *buf, size_t cap, double v);

/* "value (0xcode)" of one element, the code as wide as the dtype (one
 * hex digit for an fp4 code); an e8m0 scale as "2^-7 (0x78)". */
void kvg_html_value(char *buf, size_t cap, double v, unsigned long long bits,
                    kvg_dtype dtype);

/* A packed cache's field verdicts and named places (html_rows.c). */
void kvg_html_rows(FILE *out, const kvg_compare_result *r);

/* The SVG picture of a cache (cache_map.h) and of an error histogram. */
void kvg_html_cache_map(FILE *out, const kvg_report_tensor *t,
                        const kvg_cache_map *map);
void kvg_html_histogram(FILE *out, const kvg_report_tensor *t,
                        const kvg_error_hist *h);

#endif /* KVGOLD_TOOLS_HTML_COMMON_H */
