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
 *
 * The kinds are found, not listed: every tests/ops/<op>/fixture.c defines
 *
 *     const opf_kind_desc *const opf_kinds_<op>[] = {&kind_a, ..., NULL};
 *
 * and tests/CMakeLists.txt globs those files and generates the table of
 * all the arrays (opf_kind_count / opf_kind_at walk it). The generic tests
 * run one cmocka test per kind, named by its label (opf_run_tests).
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_OP_FIXTURE_H
#define KVGOLD_TESTS_OP_FIXTURE_H

#include "kvg_test.h"

#include "src/registry/op_desc.h"

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
    /* The status a call with this tensor NULL must return: opf_add sets
     * KVG_ERR_PARAM_NULLPTR (161001) for a required tensor; a builder sets
     * KVG_ERR_PARAM_INVALID where its operator treats the absence as an
     * attribute-style error (a scale that only some dtypes need, one of a
     * set of outputs given without the others). */
    kvg_status null_status;
    kvg_tensor t;          /* the view the op gets */
    kvg_tensor natural;    /* the valid view */
    const kvg_tensor **slot; /* the args field pointing at t */
    unsigned char *alloc;  /* guard + capacity + guard */
    size_t cap;
    unsigned char *image;  /* whole allocation at the last opf_snapshot */
    unsigned char *pristine; /* ... as opf_init left it (opf_restore) */
} opf_tensor;

/* Index geometry the mutations need (each builder fills what its own
 * mutations read). */
typedef struct opf_geo {
    int64_t tokens, slots;   /* per-token index: rows and cache slots */
    /* index entries, entries per batch, block size (an index of blocks) */
    int64_t entries, per_batch, bs;
    /* per-head runs (opf_build_heads): batches, heads, runs = batch*heads,
     * sequence lengths L, and per run window w, offset o, start slot s
     * (-1: skipped) and element count */
    int64_t batch, heads, runs;
    int64_t L[4], w[16], o[16], s[16], count[16];
} opf_geo;

/* Not copyable: the args point into it. */
typedef struct opf opf;
struct opf_kind_desc;

struct opf {
    int n;
    opf_tensor t[OPF_MAX_TENSORS];
    const struct opf_kind_desc *desc;
    const kvg_op *op;
    /* The typed args struct (malloc'd: the builder's stores give the bytes
     * its type) the op gets, and the valid original. */
    void *args, *args_nat;
    /* Integer-list attributes the args point into (a builder's own, e.g.
     * a size list), restored with the args; lists_nat: the valid ones. */
    int64_t lists[4][8], lists_nat[4][8];
    opf_geo g;
    unsigned char *ws;   /* guard + need + guard */
    size_t need;
    unsigned char *ws_image, *ws_pristine;
    uint64_t seed;
};

/*
 * A kind: its label (the cmocka test name), the registry name of its
 * operator, its builder, and the mutations and exceptions only it has
 * (NULL: none). The generic tests (test_atomicity, test_overlap,
 * test_size_overflow, test_entry_skeleton) name no operator: everything
 * particular to one is here.
 *
 * mutate_attr   change one attribute (or anything else the size query
 *               validates too: a zero scale ...), set the status the call
 *               must return and describe the change;
 * mutate_value  change one index value or element the size query does not
 *               validate (out of range, duplicate, overlapping run, a
 *               non-finite input ...): the call must refuse it with a
 *               diag.position; returns 0 when it cannot apply (another
 *               mutation is drawn);
 * untied        the change of x's dim k to v (k >= 0), of its dtype to v
 *               (k == OPF_UNTIED_DTYPE) or of its rank to v (k ==
 *               OPF_UNTIED_RANK; one rank more is a trailing dim of 1
 *               added) leaves the call valid, or is refused with another
 *               status than 161002.
 *
 * untied: test_atomicity changes one dim, dtype or rank of one tensor at a
 * time and requires 161002. That holds only where the operator ties the
 * thing changed to another tensor or attribute; a new operator meets the
 * exceptions as a valid call where a refusal was expected (test_atomicity:
 * "status 0, want 161002 ... a change the operator allows"). Examples:
 * a cache whose batch need only be at least the input's, so a larger one
 * is valid; a cache that takes any 1-byte quant dtype, so one quant dtype
 * for another is valid; a [1] scale with a trailing 1 added is [1, 1],
 * also a scalar scale. Say each such change in the kind's untied,
 * no wider than the rule that makes it valid, so that every other change
 * is still drawn. (A NULL tensor refused with 161002 rather than 161001
 * is the tensor's null_status.)
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

#define OPF_UNTIED_DTYPE (-1)
#define OPF_UNTIED_RANK (-2)

/* Every kind of every operator (the generated table), in a fixed order. */
int opf_kind_count(void);
const opf_kind_desc *opf_kind_at(int i);
/* A number from the kind's label, for seeding: a kind's calls do not
 * change when another operator is added. */
uint64_t opf_kind_salt(const opf_kind_desc *kind);

/* Runs `fixed` (n_fixed tests), then for each per-kind function one cmocka
 * test per kind, named "<prefix> <label>"; returns cmocka's result. */
typedef struct opf_per_kind {
    const char *prefix;
    void (*run)(const opf_kind_desc *kind);
} opf_per_kind;
int opf_run_tests(const char *group, const struct CMUnitTest *fixed,
                  size_t n_fixed, const opf_per_kind *per, size_t n_per);

/* For the builders: a uniform draw in [lo, hi]; a tensor of `shape` in a
 * guarded, poisoned allocation (inputs get random non-zero finite values)
 * whose view *slot points at; n distinct slots in [0, slots), 1 in 4 set
 * to -1. */
int64_t opf_pick(kvgt_rng *r, int64_t lo, int64_t hi);
opf_tensor *opf_add(opf *f, kvgt_rng *r, const char *name, opf_role role,
                    int required, kvg_dtype dt, int rank,
                    const int64_t *shape, const kvg_tensor **slot);
void opf_distinct_slots(kvgt_rng *r, opf_tensor *t, int64_t n,
                        int64_t slots);

/* A per-token index (g.tokens entries over g.slots slots, built by
 * opf_distinct_slots): one entry repeats another live one, or goes out of
 * range. A mutate_value for operators that refuse both. */
int opf_mutate_token_index(opf *f, kvgt_rng *r, const char *name,
                           kvg_status *want, char *what, size_t cap);

/* Per-head runs: batch * heads runs of one sequence each, head i of batch
 * b copying a window of its sequence (length L = seq_len[b]) to the cache
 * from slot_mapping[i] on. The args fields the builder fills; without
 * offset_index a run is the window (wins[i] tokens), with it a run is the
 * whole sequence (offset -1 or an empty window) or the L - w + keep
 * tokens around the window. */
typedef struct opf_heads {
    const kvg_tensor **key, **value, **key_cache, **value_cache,
        **slot_mapping, **wins, **seq_len, **offset_index;
    int keep;      /* with offset_index: tokens a window keeps (0 or 1) */
    int int8;      /* caches may be int8 */
} opf_heads;
void opf_build_heads(opf *f, kvgt_rng *r, const opf_heads *h);
/* One index value of per-head runs made invalid: seq_len below 1 or past
 * the tokens, a window or offset out of range, a start slot out of range,
 * a run past the cache's end, two runs overlapping. */
int opf_mutate_heads(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                     size_t cap);

/* f * x = m + 2^64 with 3 <= f < 2^20 and x <= INT64_MAX, or 0: a pair of
 * dims whose product wraps to m (for the size-overflow tests). */
int opf_wrap_pair(uint64_t m, int64_t *f, int64_t *x);
/* Positions of the non-negative entries among the first n. */
int64_t opf_live(opf_tensor *t, int64_t n, int64_t *pos);

/* Build a valid call of `kind` from `seed` (asserts it is valid). */
void opf_init(opf *f, const opf_kind_desc *kind, uint64_t seed);
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
