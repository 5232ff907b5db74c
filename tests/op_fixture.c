/*
 * tests/op_fixture.c - valid calls of every operator in guarded buffers
 * (see op_fixture.h): the parts every operator shares. Each operator's
 * builder and mutations are in tests/ops/<op>/fixture.c; its typed call
 * goes through its registry descriptor.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvgold/format.h"

/* The kinds, each described next to its operator (tests/ops/<op>/). */
static const opf_kind_desc *const k_kinds[OPF_KINDS] = {
    &opf_kind_qkv,         &opf_kind_rac_nd,   &opf_kind_rac_nz,
    &opf_kind_rac_kvhead,  &opf_kind_rac_kvhead_rope, &opf_kind_omni,
    &opf_kind_kv};

const opf_kind_desc *opf_kind_of(opf_kind kind) { return k_kinds[kind]; }

const char *opf_kind_name(opf_kind kind) { return k_kinds[kind]->label; }

int64_t opf_pick(kvgt_rng *r, int64_t lo, int64_t hi)
{
    return kvgt_rng_range(r, lo, hi);
}

static int64_t prod(int rank, const int64_t *shape)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* A tensor of the natural shape in a guarded, poisoned allocation; inputs
 * get random non-zero finite values (index tensors are set by the caller). */
opf_tensor *opf_add(opf *f, kvgt_rng *r, const char *name, opf_role role,
                       int required, kvg_dtype dt, int rank,
                       const int64_t *shape, const kvg_tensor **slot)
{
    opf_tensor *x;
    size_t bytes = (size_t)prod(rank, shape) * kvg_dtype_size(dt), i;
    unsigned char *data;

    assert_true(f->n < OPF_MAX_TENSORS);
    x = &f->t[f->n++];
    memset(x, 0, sizeof *x);
    x->name = name;
    x->role = role;
    x->required = required;
    x->cap = 2 * bytes + 64;
    x->alloc = (unsigned char *)kvgt_alloc_poisoned(
        2 * OPF_GUARD + x->cap, f->seed * 131u + (uint64_t)f->n);
    data = x->alloc + OPF_GUARD;
    if (role == OPF_INPUT && dt != KVG_INT32 && dt != KVG_INT64) {
        const size_t es = kvg_dtype_size(dt);
        for (i = 0; i < bytes; i += es) {
            float u = kvgt_rng_unit(r);
            float v = (0.05f + 2.95f * fabsf(u)) * (u < 0 ? -1.0f : 1.0f);
            assert_int_equal(kvg_encode_f32(dt, v, KVG_OVF_DEFAULT, data + i),
                             KVG_OK);
        }
    }
    x->t = kvg_tensor_make(data, bytes, dt, rank, shape);
    x->natural = x->t;
    x->slot = slot;
    *slot = &x->t;
    return x;
}

int64_t opf_index_get(const opf_tensor *t, int64_t i)
{
    const unsigned char *p = (const unsigned char *)t->natural.data;
    if (t->natural.dtype == KVG_INT32) {
        int32_t v;
        memcpy(&v, p + (size_t)i * 4u, 4);
        return v;
    } else {
        int64_t v;
        memcpy(&v, p + (size_t)i * 8u, 8);
        return v;
    }
}

void opf_index_set(opf_tensor *t, int64_t i, int64_t v)
{
    unsigned char *p = (unsigned char *)t->natural.data;
    if (t->natural.dtype == KVG_INT32) {
        int32_t x = (int32_t)v;
        assert_true(v >= INT32_MIN && v <= INT32_MAX);
        memcpy(p + (size_t)i * 4u, &x, 4);
    } else {
        memcpy(p + (size_t)i * 8u, &v, 8);
    }
}

/* n distinct slots in [0, slots), a shuffled prefix; 1 in 4 set to -1. */
void opf_distinct_slots(kvgt_rng *r, opf_tensor *t, int64_t n,
                           int64_t slots)
{
    int64_t *perm = (int64_t *)malloc((size_t)slots * sizeof *perm), i;
    assert_non_null(perm);
    for (i = 0; i < slots; i++)
        perm[i] = i;
    for (i = 0; i < n; i++) {
        int64_t j = opf_pick(r, i, slots - 1), tmp = perm[i];
        perm[i] = perm[j], perm[j] = tmp;
        opf_index_set(t, i, opf_pick(r, 0, 3) == 0 ? -1 : perm[i]);
    }
    free(perm);
}

/* Non-negative entries of the first n of an index tensor, into pos. */
int64_t opf_live(opf_tensor *t, int64_t n, int64_t *pos)
{
    int64_t i, k = 0;
    for (i = 0; i < n; i++)
        if (opf_index_get(t, i) >= 0)
            pos[k++] = i;
    return k;
}

/* ---- entry points: the typed call through the operator's descriptor -- */

kvg_status opf_query(opf *f, size_t *bytes, kvg_diag *diag)
{
    return f->op->workspace_size((const kvg_i_op_args *)f->args, bytes, diag);
}

kvg_status opf_call(opf *f, kvg_diag *diag)
{
    return f->op->run((const kvg_i_op_args *)f->args, diag);
}

kvg_status opf_call_null_args(opf *f, kvg_diag *diag)
{
    return f->op->run(NULL, diag);
}

void opf_set_workspace(opf *f, void *ws, size_t size)
{
    unsigned char *a = (unsigned char *)f->args;
    memcpy(a + f->op->workspace_offset, &ws, sizeof ws);
    memcpy(a + f->op->workspace_size_offset, &size, sizeof size);
}

void *opf_workspace(opf *f)
{
    return f->ws + OPF_GUARD;
}

void opf_init(opf *f, opf_kind kind, uint64_t seed)
{
    kvgt_rng r;
    kvg_diag d;
    kvg_status st;
    int i;

    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->desc = k_kinds[kind];
    f->op = kvg_op_find(f->desc->op);
    assert_non_null(f->op);
    f->seed = seed;
    /* malloc'd: the builder gives the bytes the type of its args struct */
    f->args = malloc(sizeof(kvg_i_op_args));
    f->args_nat = malloc(sizeof(kvg_i_op_args));
    assert_non_null(f->args);
    assert_non_null(f->args_nat);
    memset(f->args, 0, sizeof(kvg_i_op_args));
    kvgt_rng_seed(&r, seed * 7919u + (uint64_t)kind);
    f->desc->build(f, &r);
    st = opf_query(f, &f->need, &d);
    if (st != KVG_OK)
        fail_msg("%s seed %llu: fixture query failed: %s",
                 opf_kind_name(kind), (unsigned long long)seed, d.message);
    f->ws = (unsigned char *)kvgt_alloc_poisoned(f->need + 2 * OPF_GUARD,
                                                 seed + 991u);
    opf_set_workspace(f, f->ws + OPF_GUARD, f->need);
    memcpy(f->args_nat, f->args, sizeof(kvg_i_op_args));
    memcpy(f->qkv_size_nat, f->qkv_size, sizeof f->qkv_size);
    memcpy(f->head_nums_nat, f->head_nums, sizeof f->head_nums);
    opf_snapshot(f);
    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        x->pristine = (unsigned char *)malloc(x->cap + 2 * OPF_GUARD);
        assert_non_null(x->pristine);
        memcpy(x->pristine, x->image, x->cap + 2 * OPF_GUARD);
    }
    f->ws_pristine = (unsigned char *)malloc(f->need + 2 * OPF_GUARD);
    assert_non_null(f->ws_pristine);
    memcpy(f->ws_pristine, f->ws_image, f->need + 2 * OPF_GUARD);
}

void opf_free(opf *f)
{
    int i;
    for (i = 0; i < f->n; i++) {
        free(f->t[i].alloc);
        free(f->t[i].image);
        free(f->t[i].pristine);
    }
    free(f->ws);
    free(f->ws_image);
    free(f->ws_pristine);
    free(f->args);
    free(f->args_nat);
    f->n = 0;
}

opf_tensor *opf_find(opf *f, const char *name)
{
    int i;
    for (i = 0; i < f->n; i++)
        if (strcmp(f->t[i].name, name) == 0)
            return &f->t[i];
    return NULL;
}

/* ---- snapshots and guards --------------------------------------------- */

static size_t total(const opf_tensor *x)
{
    return x->cap + 2 * OPF_GUARD;
}

void opf_snapshot(opf *f)
{
    int i;
    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        free(x->image);
        x->image = (unsigned char *)malloc(total(x));
        assert_non_null(x->image);
        memcpy(x->image, x->alloc, total(x));
    }
    free(f->ws_image);
    f->ws_image = (unsigned char *)malloc(f->need + 2 * OPF_GUARD);
    assert_non_null(f->ws_image);
    memcpy(f->ws_image, f->ws, f->need + 2 * OPF_GUARD);
}

static void region(const unsigned char *got, const unsigned char *want,
                   size_t from, size_t to, const char *what, const char *name,
                   const char *part)
{
    char label[256];
    if (to <= from || memcmp(got + from, want + from, to - from) == 0)
        return;
    (void)snprintf(label, sizeof label, "%s: %s (%s)", what, name, part);
    kvgt_assert_bytes_equal(got + from, want + from, to - from, label);
}

void opf_assert_unchanged(const opf *f, const char *what)
{
    int i;
    for (i = 0; i < f->n; i++) {
        const opf_tensor *x = &f->t[i];
        region(x->alloc, x->image, 0, total(x), what, x->name,
               "guards, data and slack");
    }
    region(f->ws, f->ws_image, 0, OPF_GUARD, what, "workspace", "front guard");
    region(f->ws, f->ws_image, OPF_GUARD + f->need, f->need + 2 * OPF_GUARD,
           what, "workspace", "back guard");
}

void opf_assert_guards(const opf *f, const char *what)
{
    int i;
    for (i = 0; i < f->n; i++) {
        const opf_tensor *x = &f->t[i];
        const size_t end = OPF_GUARD + x->natural.nbytes;
        if (x->role == OPF_INPUT) {
            region(x->alloc, x->image, 0, total(x), what, x->name,
                   "input written");
            continue;
        }
        region(x->alloc, x->image, 0, OPF_GUARD, what, x->name,
               "front guard");
        region(x->alloc, x->image, end, total(x), what, x->name,
               "slack and back guard");
    }
    region(f->ws, f->ws_image, 0, OPF_GUARD, what, "workspace", "front guard");
    region(f->ws, f->ws_image, OPF_GUARD + f->need, f->need + 2 * OPF_GUARD,
           what, "workspace", "back guard");
}

void opf_restore(opf *f)
{
    int i;
    for (i = 0; i < f->n; i++) {
        opf_tensor *x = &f->t[i];
        memcpy(x->alloc, x->pristine, total(x));
        x->t = x->natural;
    }
    memcpy(f->ws, f->ws_pristine, f->need + 2 * OPF_GUARD);
    memcpy(f->args, f->args_nat, sizeof(kvg_i_op_args));
    memcpy(f->qkv_size, f->qkv_size_nat, sizeof f->qkv_size);
    memcpy(f->head_nums, f->head_nums_nat, sizeof f->head_nums);
}
