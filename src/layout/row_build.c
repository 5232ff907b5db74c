/*
 * src/layout/row_build.c - a kvg_row_layout built segment by segment
 * (row_build.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "src/layout/row_build.h"

void kvg_i_row_build_start(kvg_i_row_build *b, kvg_row_layout *l,
                           const char *name, const char *tensor0)
{
    memset(l, 0, sizeof *l);
    l->name = name;
    l->tensors = 1;
    l->tensor_name[0] = tensor0;
    l->regions = 1;
    b->layout = l;
    b->region = 0;
    b->at = 0;
}

int64_t kvg_i_row_build_region(kvg_i_row_build *b, int region)
{
    const int64_t used = b->at;

    b->region = region;
    b->at = 0;
    if (b->layout->regions < region + 1)
        b->layout->regions = region + 1;
    return used;
}

int kvg_i_row_build_add(kvg_i_row_build *b, const char *name,
                        kvg_row_field field, kvg_dtype dtype, int64_t count,
                        int64_t group, int of)
{
    kvg_row_layout *l = b->layout;
    const int i = l->segments++;

    l->seg[i].name = name;
    l->seg[i].field = field;
    l->seg[i].dtype = dtype;
    l->seg[i].region = b->region;
    l->seg[i].offset = b->at;
    l->seg[i].count = count;
    l->seg[i].group = group;
    l->seg[i].of = of;
    b->at += kvg_row_segment_bytes(&l->seg[i]);
    return i;
}

void kvg_i_row_build_groups(kvg_i_row_build *b, kvg_dtype cast, int64_t q,
                            int64_t g, int seg[2])
{
    const int64_t whole = q / g * g;

    seg[0] = whole > 0 ? kvg_i_row_build_add(b, "codes", KVG_ROW_PAYLOAD,
                                             cast, whole, g, -1)
                       : -1;
    seg[1] = q > whole ? kvg_i_row_build_add(b, "codes tail",
                                             KVG_ROW_PAYLOAD, cast,
                                             q - whole, q - whole, -1)
                       : -1;
}

void kvg_i_row_build_group_scales(kvg_i_row_build *b, kvg_dtype dtype,
                                  const int seg[2], int seg_scale[2])
{
    const kvg_row_layout *l = b->layout;
    int k;

    for (k = 0; k < 2; k++)
        seg_scale[k] =
            seg[k] < 0 ? -1
                       : kvg_i_row_build_add(
                             b, k == 0 ? "scale" : "scale tail",
                             KVG_ROW_SCALE, dtype,
                             l->seg[seg[k]].count / l->seg[seg[k]].group, 0,
                             seg[k]);
}
