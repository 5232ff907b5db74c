/*
 * tests/ops/reshape_and_cache_omni/fuzz_reshape_and_cache_omni.c - ReshapeAndCacheOmni's
 * validation on fuzzed arguments: a valid call built from the input
 * (fuzz_runs.h), every tensor and index value open to a perturbation, the
 * shared driver's invariants (fuzz_util.h), and on success every copied row
 * equal to its source row and every other slot untouched.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "fuzz_runs.h"
#include "kvgold/reshape_and_cache_omni.h"

static kvg_status op_size(const void *a, size_t *bytes, kvg_diag *diag)
{
    return kvg_reshape_and_cache_omni_workspace_size(
        (const kvg_reshape_and_cache_omni_args *)a, bytes, diag);
}

static kvg_status op_call(const void *a, kvg_diag *diag)
{
    return kvg_reshape_and_cache_omni(
        (const kvg_reshape_and_cache_omni_args *)a, diag);
}

static void op_ws(void *a, void *ws, size_t size)
{
    ((kvg_reshape_and_cache_omni_args *)a)->workspace = ws;
    ((kvg_reshape_and_cache_omni_args *)a)->workspace_size = size;
}

static void on_success(void *ctx)
{
    fz_runs_check_success(FZ_RUN_OMNI, (const fz_runs *)ctx);
}

static const kvg_tensor *view(const fz_buf *b)
{
    return b != NULL ? b->view : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const value_names[] = {"slot_mapping", "wins",
                                              "seq_len", "offset_index",
                                              NULL};
    fz_in in;
    fz_pool pool;
    fz_runs r;
    fz_op op;
    kvg_reshape_and_cache_omni_args a;
    uint8_t vmode;

    fz_in_init(&in, data, size);
    vmode = fz_u8(&in);
    fz_pool_init(&pool, fz_u64(&in), (fz_values)(vmode % 3));
    fz_runs_make(&pool, &in, FZ_RUN_OMNI, &r);
    kvg_reshape_and_cache_omni_args_init(&a);
    a.key = view(r.key), a.value = view(r.value);
    a.key_cache = view(r.key_cache), a.value_cache = view(r.value_cache);
    a.slot_mapping = view(r.slot_mapping), a.wins = view(r.wins);
    a.seq_len = view(r.seq_len), a.offset_index = view(r.offset_index);
    op.size = op_size, op.call = op_call, op.set_workspace = op_ws;
    op.on_success = on_success, op.ctx = &r, op.value_tensors = value_names;
    fz_drive(&pool, &in, &op, &a);
    fz_pool_free(&pool);
    return 0;
}
