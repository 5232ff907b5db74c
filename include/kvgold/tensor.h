/*
 * kvgold/tensor.h - a view of a caller-owned, dense, C-order tensor.
 *
 * kvgold never allocates tensors and never keeps a pointer after a call
 * returns. A view is a data pointer, the buffer's size in bytes, a dtype
 * and a shape. Only dense row-major (C order) data is supported: aclnn makes
 * its inputs contiguous before the kernels run, and so must the caller.
 *
 * `nbytes` is the size of the buffer behind `data`. Operators require it to
 * equal numel * dtype size exactly, so that a shape that does not describe
 * the buffer is refused instead of read or written past its end.
 *
 * Inputs are never written, even though `data` is not const (one view type
 * serves inputs, outputs and in-place caches, as DLPack's DLTensor does).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TENSOR_H
#define KVGOLD_TENSOR_H

#include "kvgold/api.h"

#include <stddef.h>
#include <stdint.h>

#include "kvgold/dtype.h"
#include "kvgold/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KVG_MAX_RANK 8

typedef struct kvg_tensor {
    void *data;
    size_t nbytes;
    kvg_dtype dtype;
    int rank;
    int64_t shape[KVG_MAX_RANK];
} kvg_tensor;

/*
 * Fill a view. `rank` entries are read from `shape`; the rest are zeroed.
 * Returns the view by value so it can initialise a declaration. A rank
 * outside [0, KVG_MAX_RANK] is stored as given and refused by every
 * operator; nothing is read from `shape` beyond KVG_MAX_RANK entries.
 */
KVG_API kvg_tensor kvg_tensor_make(void *data, size_t nbytes, kvg_dtype dtype,
                           int rank, const int64_t *shape);

/*
 * The element count of a shape, with every dimension required to be >= 0
 * and the product (and product * element size) to fit in both int64_t and
 * size_t. Rank 0 is one element. On overflow or a negative dimension,
 * returns KVG_ERR_PARAM_INVALID and leaves *numel untouched. `name` labels
 * the message and may be NULL.
 */
KVG_API kvg_status kvg_tensor_numel(const kvg_tensor *t, const char *name,
                            int64_t *numel, kvg_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_TENSOR_H */
