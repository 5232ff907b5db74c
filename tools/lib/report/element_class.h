/*
 * tools/lib/report/element_class.h - what happened to one element of a compared
 * tensor, judged by the result's own criterion and limits: the vocabulary
 * of the HTML report's cache map and error histogram.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_ELEMENT_CLASS_H
#define KVGOLD_TOOLS_ELEMENT_CLASS_H

#include <stdint.h>

#include "kvgold/compare.h"
#include "kvgold/layout.h"
#include "kvgold/op.h"
#include "kvgold/tensor.h"

/* Ordered from harmless to worst: a folded cell shows its worst class. */
typedef enum kvg_elem_class {
    KVG_EC_UNTOUCHED = 0,  /* not written, bit-identical to before */
    KVG_EC_EXACT = 1,      /* written, bit-identical (or both NaN) */
    KVG_EC_WITHIN = 2,     /* written, differs, within tolerance */
    KVG_EC_OUT = 3,        /* written, beyond tolerance */
    KVG_EC_NONFINITE = 4,  /* written, NaN/inf where the golden differs */
    KVG_EC_CHANGED = 5     /* not written, yet changed */
} kvg_elem_class;
#define KVG_EC_COUNT 6

/* Short name ("untouched", "exact", ...) and a one-line legend. */
const char *kvg_elem_class_name(kvg_elem_class c);
const char *kvg_elem_class_legend(kvg_elem_class c);

/* The inputs of one compared tensor, as kvg_compare_tensor saw them. */
typedef struct kvg_report_tensor {
    const kvg_compare_result *result; /* required */
    const kvg_tensor *golden;         /* required */
    const kvg_tensor *actual;         /* required, same dtype and shape */
    const kvg_tensor *initial;        /* NULL: untouched compares to golden */
    const unsigned char *written;     /* NULL: every element written */
    const kvg_cache_layout *layout;   /* NULL: not a cache */
    /* Or the written set as sorted runs (kvg_compare_args.written_runs):
     * non-NULL in place of `written`, count 0 = nothing written. */
    const struct kvg_elem_run *written_runs;
    size_t written_run_count;
} kvg_report_tensor;

/* One judged element: class, the score it ranks by within its class
 * (rel err for float_re, |delta| for integers, code distance for
 * code_dist, abs err otherwise; +inf for a non-finite mismatch), and the
 * two values with their raw codes. */
typedef struct kvg_elem_judgement {
    kvg_elem_class cls;
    double score;
    double expected, actual;
    uint64_t expected_bits, actual_bits;
} kvg_elem_judgement;

/* Per-tensor state the judge needs (8-bit float code ranks). */
typedef struct kvg_elem_judge {
    const kvg_report_tensor *t;
    kvg_dtype dtype;
    size_t esize;
    int rank[256];
} kvg_elem_judge;

/* Prepare a judge for `t` (whose tensors the caller has validated by
 * comparing them: same dtype, same shape, mask of the element count). */
void kvg_elem_judge_init(kvg_elem_judge *j, const kvg_report_tensor *t);

/* Judge flat element `index`. */
void kvg_elem_judge_one(const kvg_elem_judge *j, int64_t index,
                        kvg_elem_judgement *out);

/* Number of elements of the tensor. */
int64_t kvg_report_tensor_elements(const kvg_report_tensor *t);

#endif /* KVGOLD_TOOLS_ELEMENT_CLASS_H */
