/*
 * tools/lib/report/error_hist.h - the error distribution of a compared tensor's
 * written elements, in bins an eye can read: bit-exact, then the size of
 * the error (decades of relative error for floating point, steps of
 * |delta| or code distance for integers and 8-bit floats), then NaN/inf
 * mismatches. Each bin counts its elements within and beyond tolerance
 * separately (element_class.h), so a bar's colour agrees with the verdict.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TOOLS_ERROR_HIST_H
#define KVGOLD_TOOLS_ERROR_HIST_H

#include <stdint.h>

#include "element_class.h"

#define KVG_HIST_MAX_BINS 16

typedef struct kvg_hist_bin {
    char label[24];
    int64_t within;   /* exact or within tolerance */
    int64_t beyond;   /* out of tolerance or NaN/inf mismatch */
} kvg_hist_bin;

typedef struct kvg_error_hist {
    int steps;        /* 1: bins are |delta| / code distance; 0: rel err */
    int nbins;
    kvg_hist_bin bin[KVG_HIST_MAX_BINS];
    int64_t written;  /* elements counted */
    int64_t untouched_changed; /* not in the bins: shown apart */
} kvg_error_hist;

/* Bin every written element of `t`. */
void kvg_error_hist_build(const kvg_report_tensor *t, kvg_error_hist *h);

#endif /* KVGOLD_TOOLS_ERROR_HIST_H */
