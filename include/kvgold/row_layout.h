/*
 * kvgold/row_layout.h - a packed cache row as data: which bytes of a slot
 * hold which field (quantised payload, its scales, pass-through bytes,
 * padding), and where each slot's bytes are in the cache's one or two
 * tensors.
 *
 * Since 2026 KV caches are written with per-group dynamic quantisation
 * into rows that carry their own scales (the KV compress epilogs of
 * docs/kv_compress_epilog.md, the indexer epilogs, the packed C8 MLA
 * row). The layouts
 * differ between implementations of one operator name ([rope | quant |
 * scales] against [quant | rope | scales], scales per slot or after a
 * block's values), so a layout is data, not code: the operators write
 * through one engine that reads a kvg_row_layout, `compare` judges a
 * cache field by field from the same kvg_row_layout, and `kvgold
 * explain-layout` prints it. No layout is written twice.
 *
 * Tensors. A layout spans one or two tensors (KVG_ROW_TENSORS): most
 * packed rows live in the one cache tensor, but some operators keep the
 * scales in a tensor of their own (a `cache` of codes beside a
 * `cache_scale`). Each region lives in one tensor (region_tensor), so
 * one description writes the payload and its scales and compare audits
 * each tensor's own bytes, the ones no slot's segment covers included: a
 * dropped storage offset that makes two layers share one scale region
 * shows as changed bytes of the scale tensor. tensor_name[] holds the
 * call's names of the tensors ("cache", "cache_scale"), so a consumer
 * holding one tensor finds which it is (kvg_row_tensor_of).
 *
 * Addressing. Each tensor is a byte array. Slot s >= 0 lives in block
 * b = s / block_size at position p = s % block_size of every tensor. A
 * block holds one or two regions (KVG_ROW_REGIONS) in all; region r of
 * block b starts at byte
 *
 *     b * block_stride[t] + region_offset[r]      (t = region_tensor[r])
 *
 * of tensor t, and slot p's part of it at + p * slot_stride[r]. Per-slot
 * rows (every field of a slot in one row) use region 0 only; block-major
 * layouts (sgl-kernel-npu layout 2: a block's values, then its scales)
 * put the scales in region 1 of the same tensor, a separate scale tensor
 * puts them in region 1 of tensor 1. Segment i of a slot starts
 * `offset` bytes into the slot's part of region `region` and holds
 * `count` elements of `dtype` (fp4: `count` 4-bit codes, two per byte,
 * element 2j in the low nibble, so `count` is even).
 *
 * Fields (kvg_row_field):
 *   PAYLOAD  quantised codes (fp8, hif8, int8, fp4). With group > 0 the
 *            segment is cut into ceil(count / group) groups (the last
 *            one shorter when group does not divide count: 448 nope
 *            columns in groups of 128 are 3 groups of 128 and one of
 *            64), and the SCALE segment whose `of` names this segment
 *            holds one scale per group, in order. group 0: computed
 *            element by element without a stored scale (e.g. a hif8
 *            rope, x * x_scale).
 *   SCALE    one scale per group of the PAYLOAD segment `of` (fp32, bf16
 *            or e8m0): judged bit for bit.
 *   COPY     bytes passed through from the input (a bf16 rope): bit for
 *            bit.
 *   PAD      bytes the operator writes as zero: bit for bit.
 *   UNDEFINED bytes the kernel writes with contents it never set (e.g.
 *            sgl-kernel-npu layout 2 copies roundup(n, 8) scale bytes
 *            out of a buffer it filled with n): kvgold writes zeros;
 *            compare does not judge their values and says how many
 *            such bytes it skipped.
 * Bytes of a slot's part that no segment covers are not written by the
 * operator (e.g. [row_bytes, headDim) of a wider cache row): they must
 * keep their previous contents, as every byte of a slot not written,
 * and every byte of a tensor outside its regions.
 *
 * The struct is plain data with a fixed capacity (no allocation); the
 * names are static strings. kvg_row_layout_check is the one validation;
 * every consumer calls it (or receives a layout an operator built and
 * checked).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_ROW_LAYOUT_H
#define KVGOLD_ROW_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "kvgold/api.h"
#include "kvgold/dtype.h"
#include "kvgold/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVG_ROW_SEGMENTS 8
#define KVG_ROW_REGIONS 2
#define KVG_ROW_TENSORS 2

typedef enum kvg_row_field {
    KVG_ROW_PAYLOAD = 0,
    KVG_ROW_SCALE = 1,
    KVG_ROW_COPY = 2,
    KVG_ROW_PAD = 3,
    KVG_ROW_UNDEFINED = 4
} kvg_row_field;

typedef struct kvg_row_segment {
    const char *name;    /* static: "nope", "rope", "scale", "pad", ... */
    kvg_row_field field;
    kvg_dtype dtype;     /* as stored; PAD is KVG_UINT8 */
    int region;          /* 0 or 1 (< regions) */
    int64_t offset;      /* bytes into the slot's part of the region */
    int64_t count;       /* elements (fp4: codes) */
    int64_t group;       /* PAYLOAD: elements per scale (0: none) */
    int of;              /* SCALE: index of the PAYLOAD segment it scales;
                            else -1 */
} kvg_row_segment;

typedef struct kvg_row_layout {
    const char *name;    /* static: the preset, e.g. "ot mode 1" */
    int segments;        /* 1..KVG_ROW_SEGMENTS */
    kvg_row_segment seg[KVG_ROW_SEGMENTS];
    int tensors;         /* 1..KVG_ROW_TENSORS */
    /* static: the call's names of the tensors, e.g. "cache",
     * "cache_scale"; non-NULL and distinct */
    const char *tensor_name[KVG_ROW_TENSORS];
    int regions;         /* 1..KVG_ROW_REGIONS */
    int region_tensor[KVG_ROW_REGIONS];     /* 0..tensors-1 */
    int64_t region_offset[KVG_ROW_REGIONS]; /* bytes into a block of its
                                               tensor */
    int64_t slot_stride[KVG_ROW_REGIONS];   /* bytes between slots */
    int64_t block_size;   /* slots per block (>= 1) */
    int64_t block_stride[KVG_ROW_TENSORS]; /* bytes between blocks, per
                                              tensor */
    int64_t blocks;       /* blocks in every tensor; slots = blocks *
                             block_size */
} kvg_row_layout;

/* Where one byte of a cache is, for reports. */
typedef struct kvg_row_place {
    int64_t slot;     /* -1: the byte belongs to no slot's part */
    int segment;      /* -1: inside a slot's part, but no segment (not
                         written by the operator) */
    int64_t element;  /* element (fp4: first code) within the segment */
    int64_t group;    /* PAYLOAD with group > 0, SCALE: the group; else -1 */
} kvg_row_place;

/* Bytes of `count` elements of `dtype` (fp4: count / 2); 0 for an invalid
 * dtype or an odd fp4 count. */
KVG_API int64_t kvg_row_segment_bytes(const kvg_row_segment *seg);

/*
 * Everything a consumer relies on, before it reads a byte: 1..8
 * segments, 1..2 tensors with non-NULL, distinct names, 1..2 regions,
 * each region in a tensor (region_tensor < tensors), every tensor
 * holding a region and a segment, each segment inside its slot's part
 * (offset + bytes <= slot_stride[region]), no two segments overlapping,
 * a PAYLOAD's group >= 0, a SCALE's `of` naming a PAYLOAD with
 * group > 0 and count = ceil(that payload's count / group), the slots'
 * parts of two regions of one tensor disjoint within a block, each
 * region inside its tensor's block_stride, and blocks * block_stride[t]
 * fitting in tensor_bytes[t]. `tensor_bytes` holds `tensors` sizes
 * (NULL, or a 0 entry: that size not checked). KVG_ERR_PARAM_INVALID
 * with the segment (or tensor, or region) and rule named in `diag`
 * (optional) otherwise.
 */
KVG_API kvg_status kvg_row_layout_check(const kvg_row_layout *layout,
                                        const size_t *tensor_bytes,
                                        kvg_diag *diag);

/* Byte offset of segment `segment` of slot `slot` in ITS tensor (no check
 * beyond 0 <= slot < blocks * block_size and the segment's index; -1
 * otherwise). */
KVG_API int64_t kvg_row_segment_at(const kvg_row_layout *layout, int64_t slot,
                                   int segment);

/* The tensor segment `segment` lives in (region_tensor[seg.region]); -1
 * for no such segment. */
KVG_API int kvg_row_segment_tensor(const kvg_row_layout *layout,
                                   int segment);

/* The index of tensor `name` in the layout; -1 if none (or NULL). */
KVG_API int kvg_row_tensor_of(const kvg_row_layout *layout,
                              const char *name);

/* The place of byte `byte` of tensor `tensor` (layout checked
 * beforehand); slot -1 for a byte in no slot's part, or a tensor the
 * layout does not have. */
KVG_API kvg_row_place kvg_row_place_of(const kvg_row_layout *layout,
                                       int tensor, int64_t byte);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_ROW_LAYOUT_H */
