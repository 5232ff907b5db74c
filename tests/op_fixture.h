/*
 * tests/op_fixture.h - one valid call of any operator, with every tensor
 * inside a guarded allocation, for the reliability tests (atomicity, guard
 * regions, size arithmetic).
 *
 * Allocation of tensor i:   [guard 64 B][capacity][guard 64 B]
 * The view starts at the capacity, nbytes is the natural size; capacity is
 * twice that plus 64, so a test can change a dim *and* nbytes consistently
 * without the op ever being handed memory it does not own. Guards and the
 * slack after nbytes hold seeded non-zero bytes that no call may change.
 *
 * Configurations come from a seed: dtypes, shapes, optional tensors, index
 * values (with skips), so that many random valid calls can be made. Each
 * kind is described next to its operator (tests/ops/<op>/fixture.c: its
 * builder and the mutations only it has); the call goes through the
 * operator's registry descriptor.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_OP_FIXTURE_H
#define KVGOLD_TESTS_OP_FIXTURE_H

#include "kvg_test.h"

#include "src/registry/op_desc.h"

typedef enum opf_kind {
    OPF_QKV = 0,
    OPF_RAC_ND,
    OPF_RAC_NZ,
    OPF_RAC_KVHEAD,
    OPF_RAC_KVHEAD_ROPE,
    OPF_OMNI,
    OPF_KV,
    OPF_KINDS
} opf_kind;

typedef enum opf_role {
    OPF_INPUT = 0,
    OPF_OUTPUT = 1, /* written entirely */
    OPF_CACHE = 2   /* in place */
} opf_role;

#define OPF_GUARD 64
#define OPF_MAX_TENSORS 20

typedef struct opf_tensor {
    const char *name;
    opf_role role;
    int required;          /* removing it (NULL) makes the call invalid */
    kvg_tensor t;          /* the view the op gets */
    kvg_tensor natural;    /* the valid view */
    const kvg_tensor **slot; /* the args field pointing at t */
    unsigned char *alloc;  /* guard + capacity + guard */
    size_t cap;
    unsigned char *image;  /* whole allocation at the last opf_snapshot */
    unsigned char *pristine; /* ... as opf_init left it (opf_restore) */
} opf_tensor;

/* Index geometry the mutations need. */
typedef struct opf_geo {
    int64_t tokens, slots;   /* per-token ops: rows and cache slots */
    /* KvRmsNormRopeCache: index entries, entries per batch (Skv, or
     * ceil(Skv / BS) in PA_BLK_*), BlockSize */
    int64_t entries, per_batch, bs;
    int64_t batch, heads, runs;
    int64_t L[4], w[16], o[16], s[16], count[16];
} opf_geo;

/* Not copyable: the args point into it. */
typedef struct opf opf;
struct opf_kind_desc;

struct opf {
    opf_kind kind;
    int n;
    opf_tensor t[OPF_MAX_TENSORS];
    const struct opf_kind_desc *desc;
    const kvg_op *op;
    /* The typed args struct (malloc'd: the builder's stores give the bytes
     * its type) the op gets, and the valid original. */
    void *args, *args_nat;
    int64_t qkv_size[8], head_nums[8], qkv_size_nat[8], head_nums_nat[8];
    opf_geo g;
    unsigned char *ws;   /* guard + need + guard */
    size_t need;
    unsigned char *ws_image, *ws_pristine;
    uint64_t seed;
};

/*
 * A kind: its label, the registry name of its operator, its builder, and
 * the mutations only it has (NULL: none). mutate_attr / mutate_value set
 * the status the call must return and describe the change; mutate_value
 * returns 0 when it cannot apply (another is drawn); untied says a dim
 * change that leaves the call valid.
 */
typedef struct opf_kind_desc {
    const char *label;
    const char *op;
    void (*build)(opf *f, kvgt_rng *r);
    void (*mutate_attr)(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap);
    int (*mutate_value)(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                        size_t cap);
    int (*untied)(const opf *f, const opf_tensor *x, int k, int64_t v);
} opf_kind_desc;

extern const opf_kind_desc opf_kind_qkv, opf_kind_rac_nd, opf_kind_rac_nz,
    opf_kind_rac_kvhead, opf_kind_rac_kvhead_rope, opf_kind_omni,
    opf_kind_kv;

const opf_kind_desc *opf_kind_of(opf_kind kind);
const char *opf_kind_name(opf_kind kind);

/* For the builders: a uniform draw in [lo, hi]; a tensor of `shape` in a
 * guarded, poisoned allocation (inputs get random non-zero finite values)
 * whose view *slot points at; n distinct slots in [0, slots), 1 in 4 set
 * to -1; the per-head builder Omni and KVHEAD(_ROPE) share. */
int64_t opf_pick(kvgt_rng *r, int64_t lo, int64_t hi);
opf_tensor *opf_add(opf *f, kvgt_rng *r, const char *name, opf_role role,
                    int required, kvg_dtype dt, int rank,
                    const int64_t *shape, const kvg_tensor **slot);
void opf_distinct_slots(kvgt_rng *r, opf_tensor *t, int64_t n,
                        int64_t slots);
void opf_build_heads(opf *f, kvgt_rng *r);
/* Positions of the non-negative entries among the first n. */
int64_t opf_live(opf_tensor *t, int64_t n, int64_t *pos);

/* Build a valid call of `kind` from `seed` (asserts it is valid). */
void opf_init(opf *f, opf_kind kind, uint64_t seed);
void opf_free(opf *f);

kvg_status opf_query(opf *f, size_t *bytes, kvg_diag *diag);
kvg_status opf_call(opf *f, kvg_diag *diag);
/* The same op with a NULL argument struct. */
kvg_status opf_call_null_args(opf *f, kvg_diag *diag);

/* Set the workspace (ptr, size) the call sees; opf_init sets the exact one. */
void opf_set_workspace(opf *f, void *ws, size_t size);
void *opf_workspace(opf *f); /* the exact, guarded workspace */

opf_tensor *opf_find(opf *f, const char *name);
/* Element i of an int32/int64 tensor. */
int64_t opf_index_get(const opf_tensor *t, int64_t i);
void opf_index_set(opf_tensor *t, int64_t i, int64_t v);

/* Copy every allocation (guards included) as the state a call is handed /
 * assert them all unchanged since. */
void opf_snapshot(opf *f);
void opf_assert_unchanged(const opf *f, const char *what);
/* After a valid call: guards and slack of every tensor unchanged, inputs
 * unchanged, workspace guards unchanged. */
void opf_assert_guards(const opf *f, const char *what);
/* Restore every view, args field and content to what opf_init built. */
void opf_restore(opf *f);

#endif /* KVGOLD_TESTS_OP_FIXTURE_H */
