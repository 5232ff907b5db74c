/*
 * src/common/tensor.c - tensor views, checked sizes and the shared checks
 * every operator's validation is built from.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "src/common/internal.h"

kvg_tensor kvg_tensor_make(void *data, size_t nbytes, kvg_dtype dtype,
                           int rank, const int64_t *shape)
{
    kvg_tensor t;
    int i;

    memset(&t, 0, sizeof t);
    t.data = data;
    t.nbytes = nbytes;
    t.dtype = dtype;
    t.rank = rank;
    for (i = 0; i < rank && i < KVG_MAX_RANK && shape != NULL; i++)
        t.shape[i] = shape[i];
    return t;
}

int kvg_i_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0)
        return 0;
    if (a != 0 && b > INT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

int kvg_i_add_i64(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || a > INT64_MAX - b)
        return 0;
    *out = a + b;
    return 1;
}

void kvg_i_shape_str(const kvg_tensor *t, char *buf, size_t size)
{
    size_t used = 0;
    int i;
    int rank = t->rank;

    if (size == 0)
        return;
    buf[0] = '\0';
    if (rank < 0 || rank > KVG_MAX_RANK) {
        (void)snprintf(buf, size, "(rank %d)", rank);
        return;
    }
    for (i = 0; i < rank && used + 1 < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%lld", i ? ", " : "[",
                         (long long)t->shape[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (rank == 0)
        (void)snprintf(buf, size, "[]");
    else if (used + 1 < size)
        (void)snprintf(buf + used, size - used, "]");
}

kvg_status kvg_tensor_numel(const kvg_tensor *t, const char *name,
                            int64_t *numel, kvg_diag *diag)
{
    int64_t n = 1;
    int64_t bytes;
    int i;
    const char *label = name != NULL ? name : "tensor";
    size_t elem;

    if (t == NULL || numel == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: NULL tensor or result pointer", label);
    if (t->rank < 0 || t->rank > KVG_MAX_RANK)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: rank %d is outside [0, %d]", label, t->rank,
                            KVG_MAX_RANK);
    elem = kvg_dtype_size(t->dtype);
    if (elem == 0)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: invalid dtype %d", label, (int)t->dtype);
    for (i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, i, -1,
                                "%s: dim %d is negative (%lld)", label, i,
                                (long long)t->shape[i]);
        if (!kvg_i_mul_i64(n, t->shape[i], &n))
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, i, -1,
                                "%s: element count overflows int64 at dim %d",
                                label, i);
    }
    if (!kvg_i_mul_i64(n, (int64_t)elem, &bytes) ||
        (uint64_t)bytes > (uint64_t)SIZE_MAX)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: byte size of %lld elements overflows", label,
                            (long long)n);
    *numel = n;
    return KVG_OK;
}

kvg_status kvg_i_check_present(const kvg_tensor *t, const char *name,
                               kvg_diag *diag)
{
    if (t == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: required tensor is NULL", name);
    if (t->data == NULL)
        return kvg_diag_set(diag, KVG_ERR_PARAM_NULLPTR, name, -1, -1,
                            "%s: data pointer is NULL", name);
    return KVG_OK;
}

kvg_status kvg_i_check_dense(const kvg_tensor *t, const char *name,
                             kvg_diag *diag)
{
    int64_t numel;
    int i;

    KVG_TRY(kvg_tensor_numel(t, name, &numel, diag));
    for (i = 0; i < t->rank; i++)
        if (t->shape[i] == 0)
            return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, i, -1,
                                "%s: dim %d is 0 (empty tensors are not "
                                "accepted)", name, i);
    if ((uint64_t)t->nbytes != (uint64_t)numel * kvg_dtype_size(t->dtype)) {
        char shape[160];
        kvg_i_shape_str(t, shape, sizeof shape);
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: buffer is %llu bytes but shape %s of %s needs "
                            "%llu", name, (unsigned long long)t->nbytes, shape,
                            kvg_dtype_name(t->dtype),
                            (unsigned long long)((uint64_t)numel *
                                                 kvg_dtype_size(t->dtype)));
    }
    return KVG_OK;
}

kvg_status kvg_i_check_dtype(const kvg_tensor *t, const char *name,
                             kvg_dtype want, kvg_diag *diag)
{
    if (t->dtype != want)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: dtype must be %s, got %s", name,
                            kvg_dtype_name(want), kvg_dtype_name(t->dtype));
    return KVG_OK;
}

kvg_status kvg_i_check_rank(const kvg_tensor *t, const char *name, int want,
                            kvg_diag *diag)
{
    if (t->rank != want) {
        char shape[160];
        kvg_i_shape_str(t, shape, sizeof shape);
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, -1, -1,
                            "%s: rank must be %d, got %d (shape %s)", name,
                            want, t->rank, shape);
    }
    return KVG_OK;
}

kvg_status kvg_i_check_dim(const kvg_tensor *t, const char *name, int dim,
                           int64_t want, const char *what, kvg_diag *diag)
{
    if (dim < 0 || dim >= t->rank)
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, dim, -1,
                            "%s: has no dim %d (rank %d)", name, dim, t->rank);
    if (t->shape[dim] != want) {
        char shape[160];
        kvg_i_shape_str(t, shape, sizeof shape);
        return kvg_diag_set(diag, KVG_ERR_PARAM_INVALID, name, dim, -1,
                            "%s: dim %d must be %lld (%s), got %lld (shape %s)",
                            name, dim, (long long)want,
                            what != NULL ? what : "",
                            (long long)t->shape[dim], shape);
    }
    return KVG_OK;
}

int64_t kvg_i_numel(const kvg_tensor *t)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

size_t kvg_i_ws_bytes(size_t count, size_t item)
{
    size_t bytes;
    if (item != 0 && count > (SIZE_MAX - KVG_I_WS_ALIGN) / item)
        return 0;
    bytes = count * item;
    return (bytes + KVG_I_WS_ALIGN - 1) / KVG_I_WS_ALIGN * KVG_I_WS_ALIGN +
           KVG_I_WS_ALIGN;
}

void kvg_i_ws_init(kvg_i_ws *ws, void *base, size_t size)
{
    ws->base = (unsigned char *)base;
    ws->size = size;
    ws->used = 0;
    ws->failed = 0;
}

void kvg_i_ws_measure(kvg_i_ws *ws) { kvg_i_ws_init(ws, NULL, SIZE_MAX); }

void *kvg_i_ws_take(kvg_i_ws *ws, size_t count, size_t item)
{
    size_t need = kvg_i_ws_bytes(count, item);
    uintptr_t addr;
    size_t pad;

    if (ws->failed || need == 0 || need > ws->size - ws->used) {
        ws->failed = 1;
        return NULL;
    }
    ws->used += need;
    if (ws->base == NULL)
        return NULL;
    addr = (uintptr_t)(ws->base + ws->used - need);
    pad = (size_t)((KVG_I_WS_ALIGN - addr % KVG_I_WS_ALIGN) % KVG_I_WS_ALIGN);
    return ws->base + (ws->used - need) + pad;
}

size_t kvg_i_ws_used(const kvg_i_ws *ws) { return ws->failed ? 0 : ws->used; }
