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
 * Heads, tiles, pieces (the NZ orders of a PA_NZ cache). A slot may hold
 * `heads` copies of every segment, head h's at + h * head_stride[r]; a
 * region may tile its slots (tile[r] slots a tile, tiles tile_stride[r]
 * apart); a segment may be cut into pieces of `piece` elements,
 * piece_stride bytes apart, with other slots' pieces between them. In
 * full, element e of segment i of head h of slot s (b = s / block_size,
 * p = s % block_size, r = seg.region, t = region_tensor[r], esize the
 * dtype's bytes, fp4 two codes a byte) is at byte
 *
 *     b * block_stride[t] + region_offset[r] + h * head_stride[r]
 *     + (tile[r] ? (p / tile[r]) * tile_stride[r]
 *                  + (p % tile[r]) * slot_stride[r] : p * slot_stride[r])
 *     + seg.offset + (piece ? (e / piece) * piece_stride
 *                             + (e % piece) * esize : e * esize)
 *
 * C8-MXFP's K cache viewed [Bn, N, D/32, Bs, 32] is one fp8 segment of
 * D elements with heads N, head_stride D * Bs, slot_stride 32, piece 32,
 * piece_stride Bs * 32; its scale cache [Bn, N, Bs/16, D/64, 16, 2] is
 * one e8m0 segment of D/32 with heads N, head_stride Bs * D/32, tile 16,
 * tile_stride (D/64) * 32, slot_stride 2, piece 2, piece_stride 32. A
 * zero field keeps its plain meaning (heads 0 is 1 head, tile 0
 * untiled, piece 0 one piece). Groups are per head: a PAYLOAD's `count`
 * and `group`, and its SCALE's count, are one head's.
 *
 * The sink slot. Some paths clamp pad tokens (slot -1) to one slot and
 * write them there (vllm-ascend's C8-MXFP K scales into slot 0): with
 * more than one pad row the bytes left depend on the kernel's order.
 * has_sink = 1 names that slot: compare counts its segment bytes as
 * UNDEFINED (any value, never failing) when it is written, and audits
 * them as untouched when it is not.
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
 *   DONT_CARE bytes of a written slot the writer never sets and no
 *            reader reads (FlashMLA MODEL1's per-token pad byte after a
 *            torch.empty): kvgold leaves them as they were (they are in
 *            no written run), compare counts them with the UNDEFINED
 *            bytes and never judges their values.
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
    KVG_ROW_UNDEFINED = 4,
    KVG_ROW_DONT_CARE = 5
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
    int64_t piece;        /* elements per contiguous piece (fp4: even);
                             0: the whole segment is one piece */
    int64_t piece_stride; /* bytes between the starts of consecutive
                             pieces (piece > 0) */
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
    int heads;            /* >= 1 (0 read as 1): a slot holds `heads`
                             copies of every segment */
    int64_t head_stride[KVG_ROW_REGIONS]; /* bytes between heads' parts of
                                             a slot in region r */
    int64_t tile[KVG_ROW_REGIONS];        /* slots per tile in region r;
                                             0: untiled */
    int64_t tile_stride[KVG_ROW_REGIONS]; /* bytes between tiles of slots */
    int has_sink;         /* 1: the segment bytes of slot sink_slot are
                             written in an order the kernel does not define
                             (several pad rows clamped to one slot): compare
                             counts them as UNDEFINED, never judges their
                             values */
    int64_t sink_slot;
} kvg_row_layout;

/* Where one byte of a cache is, for reports. */
typedef struct kvg_row_place {
    int64_t slot;     /* -1: the byte belongs to no slot's part */
    int head;         /* the head's part the byte is in (0 without
                         heads); -1 with slot -1 */
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
 * (offset + bytes <= slot_stride[region]; pieced: the extent of its
 * pieces), no two segments overlapping, a PAYLOAD's group >= 0, a
 * SCALE's `of` naming a PAYLOAD with group > 0 and count = ceil(that
 * payload's count / group), the slots' parts of two regions of one
 * tensor disjoint within a block, each region inside its tensor's
 * block_stride, and blocks * block_stride[t] fitting in tensor_bytes[t].
 * Heads, tiles and pieces: heads >= 0, head_stride >= 1 with heads > 1;
 * tile 0 or dividing block_size with tile_stride >= 1; piece >= 0, a
 * piece of whole bytes (fp4: even), piece_stride >= a piece's bytes, a
 * pieced PAYLOAD with group > 0 dividing piece (each group in one
 * piece); a segment whose pieces reach past its slot's row (the NZ
 * order) is its region's only segment; and in each region the
 * dimensions (slots of a tile, tiles, heads, an NZ segment's pieces)
 * nest around a slot's row (or, for heads side by side inside a row,
 * around one head's segments): sorted by stride, each stride is at
 * least the bytes all smaller ones span. That proves, without visiting a byte, that no two bytes of
 * different (slot, head, segment, element) coincide; what it cannot
 * prove is refused. has_sink 0 or 1, sink_slot a slot of the layout.
 * `tensor_bytes` holds `tensors` sizes (NULL, or a 0 entry: that size
 * not checked). KVG_ERR_PARAM_INVALID with the segment (or tensor, or
 * region, or stride) and rule named in `diag` (optional) otherwise.
 */
KVG_API kvg_status kvg_row_layout_check(const kvg_row_layout *layout,
                                        const size_t *tensor_bytes,
                                        kvg_diag *diag);

/* Byte offset of segment `segment` of slot `slot` in ITS tensor: head 0,
 * element 0 (no check beyond 0 <= slot < blocks * block_size and the
 * segment's index; -1 otherwise). */
KVG_API int64_t kvg_row_segment_at(const kvg_row_layout *layout, int64_t slot,
                                   int segment);

/* Byte offset of element `element` (fp4: the byte holding code `element`)
 * of segment `segment` of head `head` of slot `slot` in ITS tensor, by
 * the formula above; -1 for a slot, head, segment or element out of
 * range. */
KVG_API int64_t kvg_row_element_at(const kvg_row_layout *layout, int64_t slot,
                                   int head, int segment, int64_t element);

/* The tensor segment `segment` lives in (region_tensor[seg.region]); -1
 * for no such segment. */
KVG_API int kvg_row_segment_tensor(const kvg_row_layout *layout,
                                   int segment);

/* The index of tensor `name` in the layout; -1 if none (or NULL). */
KVG_API int kvg_row_tensor_of(const kvg_row_layout *layout,
                              const char *name);

/* The place of byte `byte` of tensor `tensor` (layout checked
 * beforehand): slot, head, segment, element, group. Slot -1 for a byte
 * in no slot's part (also a gap between heads' or tiles' spans), or a
 * tensor the layout does not have. Arithmetic (the largest stride
 * first), no search over slots or pieces. */
KVG_API kvg_row_place kvg_row_place_of(const kvg_row_layout *layout,
                                       int tensor, int64_t byte);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_ROW_LAYOUT_H */
