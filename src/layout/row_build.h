/*
 * src/layout/row_build.h - a kvg_row_layout built segment by segment:
 * the bookkeeping every packed-row preset repeats (the next free byte of
 * the current region, a payload cut into whole groups and a shorter last
 * group, the scales of those groups side by side, zero padding), so a
 * preset says only which segments its row has, in which order.
 *
 * Why the short last group is a segment of its own: the packed-row
 * engine quantises a PAYLOAD segment in count / group whole groups; a
 * kernel whose groups are ceil(q / g) (the last one shorter) is two
 * PAYLOAD segments, the whole groups and the tail, whose SCALE segments
 * sit side by side as the kernel's one run of ceil(q / g) scales.
 *
 * Names no operator; the caller fills what is not layout (tensor names
 * beyond the first, strides, blocks) and runs kvg_row_layout_check.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_LAYOUT_ROW_BUILD_H
#define KVGOLD_SRC_LAYOUT_ROW_BUILD_H

#include <stdint.h>

#include "kvgold/row_layout.h"

typedef struct kvg_i_row_build {
    kvg_row_layout *layout;
    int region;  /* where the next segment goes */
    int64_t at;  /* bytes so far in that region's slot part */
} kvg_i_row_build;

/* An empty layout named `name` (static), one tensor named `tensor0`
 * (static), one region; the builder at byte 0 of region 0. */
void kvg_i_row_build_start(kvg_i_row_build *b, kvg_row_layout *l,
                           const char *name, const char *tensor0);

/* Continue in region `region` (creating it: regions = region + 1) at
 * byte 0; returns the bytes the previous region's slot part took. */
int64_t kvg_i_row_build_region(kvg_i_row_build *b, int region);

/* Append a segment at the current byte; returns its index. */
int kvg_i_row_build_add(kvg_i_row_build *b, const char *name,
                        kvg_row_field field, kvg_dtype dtype, int64_t count,
                        int64_t group, int of);

/* q payload codes of `cast` in groups of g, the last group shorter when g
 * does not divide q: seg[0] the whole groups' segment (or -1 when q < g),
 * seg[1] the short group's (or -1). */
void kvg_i_row_build_groups(kvg_i_row_build *b, kvg_dtype cast, int64_t q,
                            int64_t g, int seg[2]);

/* The scales (`dtype`) of the segments kvg_i_row_build_groups made, side
 * by side: seg_scale[k] the SCALE segment of seg[k] (or -1). */
void kvg_i_row_build_group_scales(kvg_i_row_build *b, kvg_dtype dtype,
                                  const int seg[2], int seg_scale[2]);

#endif /* KVGOLD_SRC_LAYOUT_ROW_BUILD_H */
