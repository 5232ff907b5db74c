/*
 * src/common/half_row.h - the refusal of a non-finite element in an
 * fp16 / bf16 row of an input, in one wording for the operators that refuse it
 * so (what their kernels' reductions and casts do with one is not
 * established, quant_epilogs.md Q3). Names no operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_SRC_HALF_ROW_H
#define KVGOLD_SRC_HALF_ROW_H

#include <stdint.h>

#include "kvgold/status.h"
#include "kvgold/dtype.h"
#include "kvgold/tensor.h"

/* Tensor `name`'s first non-finite element in the d little-endian
 * 16-bit codes at e (t's row; x gives the dtype and rank) refused, naming
 * the tensor, token t and column - or, for t < 0 (a tensor of one row,
 * gamma), the element - its dtype and code; KVG_OK for a finite row. A
 * loop with an exit: a caller with long rows runs a vectorised pass (one
 * without an exit) first and calls this for a row that holds one. */
static inline kvg_status kvg_i_refuse_nonfinite_in(const kvg_tensor *x,
                                                   const char *name,
                                                   const unsigned char *e,
                                                   int64_t d, int64_t t,
                                                   kvg_diag *diag)
{
    const unsigned exp = x->dtype == KVG_FP16 ? 0x7C00u : 0x7F80u;
    unsigned code;
    int64_t i;

    for (i = 0; i < d; i++) {
        code = (unsigned)e[2 * i] | (unsigned)e[2 * i + 1] << 8;
        if ((code & exp) != exp)
            continue;
        if (t < 0)
            return kvg_diag_set(
                diag, KVG_ERR_PARAM_INVALID, name, 0, i,
                "%s: element %lld: %s 0x%04X is not finite (refused: what "
                "the kernel does with it is not established)",
                name, (long long)i, kvg_dtype_name(x->dtype), code);
        return kvg_diag_set(
            diag, KVG_ERR_PARAM_INVALID, name, x->rank - 1, t,
            "%s: token %lld, column %lld: %s 0x%04X is not finite "
            "(refused: what the kernel does with it is not established)",
            name, (long long)t, (long long)i, kvg_dtype_name(x->dtype),
            code);
    }
    return KVG_OK;
}

/* The same for token t's row of x, the operators' input named "x". */
static inline kvg_status kvg_i_refuse_nonfinite_row(const kvg_tensor *x,
                                                    const unsigned char *e,
                                                    int64_t d, int64_t t,
                                                    kvg_diag *diag)
{
    return kvg_i_refuse_nonfinite_in(x, "x", e, d, t, diag);
}

#endif /* KVGOLD_SRC_HALF_ROW_H */
