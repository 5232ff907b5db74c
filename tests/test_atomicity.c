/*
 * tests/test_atomicity.c - "bad input changes nothing" and "no write outside
 * the tensors", for every operator and mode (docs/reliability.md).
 *
 * Atomicity: for many seeded valid calls (op_fixture.h), apply one random
 * invalid mutation at a time - a NULL tensor or data pointer, a dtype, a
 * dim (with nbytes kept or moved along), a rank, nbytes off by one, an
 * attribute, an index value (out of range, duplicate, overlapping run,
 * window outside seq_len, ...), a zero scale, a short or missing workspace,
 * a NULL argument struct - and require the documented status, a filled
 * diag, the size query agreeing (for everything it validates), and every
 * byte of every allocation (guards, data, slack; workspace guards)
 * unchanged. After all the mutations the valid call must still give the
 * bytes it gave before them.
 *
 * Guard regions: many random valid calls per mode, every tensor and the
 * workspace between canaries; the canaries, the slack behind each tensor
 * and every input must be intact afterwards.
 *
 * No operator is named here: the mutations one operator has (attributes,
 * index values) and its exceptions to the generic ones (a NULL tensor
 * that is an attribute-style error, a dim, dtype or rank change that
 * leaves the call valid) come with its kinds (tests/ops/<op>/fixture.c,
 * op_fixture.h); every kind found is tested.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEDS_PER_KIND 10
#define MUTATIONS_PER_SEED 400
#define GUARD_SEEDS 40

typedef enum mut {
    MUT_NULL_VIEW, MUT_NULL_DATA, MUT_DTYPE, MUT_DIM, MUT_RANK, MUT_NBYTES,
    MUT_ATTR, MUT_INDEX, MUT_WORKSPACE, MUT_NULL_ARGS, MUT_KINDS
} mut;

static const char *const mut_names[MUT_KINDS] = {
    "NULL tensor", "NULL data", "dtype", "dim", "rank", "nbytes",
    "attribute", "index value", "workspace", "NULL args"};

typedef struct outcome {
    mut kind;
    kvg_status want;
    int query_agrees; /* the size query validates what was mutated */
    int value_error;  /* an index-value error: diag.position >= 0 */
    char what[200];
} outcome;

static int64_t pick(kvgt_rng *r, int64_t lo, int64_t hi)
{
    return kvgt_rng_range(r, lo, hi);
}

/* ---- tensor mutations ------------------------------------------------- */

static int mutate_null_view(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *x = &f->t[pick(r, 0, f->n - 1)];
    if (!x->required)
        return 0;
    *x->slot = NULL;
    o->want = x->null_status;
    (void)snprintf(o->what, sizeof o->what, "%s = NULL", x->name);
    return 1;
}

static void mutate_null_data(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *x = &f->t[pick(r, 0, f->n - 1)];
    x->t.data = NULL;
    o->want = KVG_ERR_PARAM_NULLPTR;
    (void)snprintf(o->what, sizeof o->what, "%s.data = NULL", x->name);
}

static void mutate_dtype(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *x = &f->t[pick(r, 0, f->n - 1)];
    kvg_dtype d;
    /* draw from the dtypes the operator ties (untied) */
    do
        d = (kvg_dtype)pick(r, 0, 11);
    while (d == x->t.dtype ||
           (f->desc->untied != NULL &&
            f->desc->untied(f, x, OPF_UNTIED_DTYPE, (int64_t)d)));
    x->t.dtype = d;
    o->want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(o->what, sizeof o->what, "%s.dtype = %d", x->name, (int)d);
}

/* nbytes follows the new shape when it fits the capacity. */
static void fit_nbytes(opf_tensor *x)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < x->t.rank; i++) {
        if (x->t.shape[i] < 0 ||
            (x->t.shape[i] != 0 && n > (int64_t)x->cap / x->t.shape[i]))
            return;
        n *= x->t.shape[i];
    }
    if ((size_t)n * kvg_dtype_size(x->t.dtype) <= x->cap)
        x->t.nbytes = (size_t)n * kvg_dtype_size(x->t.dtype);
}


static void mutate_dim(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *x;
    int k;
    int64_t d, v;
    do {
        x = &f->t[pick(r, 0, f->n - 1)];
        k = (int)pick(r, 0, x->t.rank - 1);
        d = x->t.shape[k];
        {
            const int64_t choices[7] = {d + 1, d - 1, 0, -1, 2 * d, d + 16,
                                        INT64_MAX};
            v = choices[pick(r, 0, 6)];
        }
    } while (f->desc->untied != NULL && f->desc->untied(f, x, k, v));
    x->t.shape[k] = v;
    if (pick(r, 0, 1))
        fit_nbytes(x);
    o->want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(o->what, sizeof o->what, "%s dim %d: %lld -> %lld "
                   "(nbytes %lu)", x->name, k, (long long)d,
                   (long long)x->t.shape[k], (unsigned long)x->t.nbytes);
}

static void mutate_rank(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *x = &f->t[pick(r, 0, f->n - 1)];
    int rank;
    do {
        const int64_t c = pick(r, 0, 3);
        /* one more (a trailing 1: the same bytes), one less, -1, too many */
        rank = c == 0 && x->t.rank < KVG_MAX_RANK ? x->t.rank + 1
               : c == 1                          ? x->t.rank - 1
               : c == 2                          ? -1
                                                 : KVG_MAX_RANK + 1;
    } while (f->desc->untied != NULL &&
             f->desc->untied(f, x, OPF_UNTIED_RANK, rank));
    if (rank == x->t.rank + 1 && rank <= KVG_MAX_RANK)
        x->t.shape[x->t.rank] = 1;
    x->t.rank = rank;
    o->want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(o->what, sizeof o->what, "%s rank -> %d", x->name,
                   x->t.rank);
}

static void mutate_nbytes(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *x = &f->t[pick(r, 0, f->n - 1)];
    x->t.nbytes = pick(r, 0, 1) ? x->t.nbytes + 1 : x->t.nbytes - 1;
    o->want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(o->what, sizeof o->what, "%s nbytes -> %lu", x->name,
                   (unsigned long)x->t.nbytes);
}

/* ---- the operator's own: attributes and index values ------------- */

static int mutate_index(opf *f, kvgt_rng *r, outcome *o)
{
    o->want = KVG_ERR_PARAM_INVALID;
    o->value_error = 1;
    o->query_agrees = 0;
    return f->desc->mutate_value != NULL &&
           f->desc->mutate_value(f, r, &o->want, o->what, sizeof o->what);
}

static void mutate_workspace(opf *f, kvgt_rng *r, outcome *o)
{
    const int64_t c = pick(r, 0, 2);
    opf_set_workspace(f, c == 0 ? NULL : opf_workspace(f),
                      c == 1 ? f->need - 1 : c == 2 ? 0 : f->need);
    o->want = KVG_ERR_WORKSPACE;
    o->query_agrees = 0;
    (void)snprintf(o->what, sizeof o->what, "workspace %s",
                   c == 0 ? "NULL" : c == 1 ? "one byte short" : "size 0");
}

/* One invalid mutation of a valid fixture; fills the expected outcome. */
static void mutate(opf *f, kvgt_rng *r, outcome *o)
{
    for (;;) {
        memset(o, 0, sizeof *o);
        o->kind = (mut)pick(r, 0, MUT_KINDS - 1);
        o->query_agrees = 1;
        switch (o->kind) {
        case MUT_NULL_VIEW:
            if (!mutate_null_view(f, r, o))
                continue;
            return;
        case MUT_NULL_DATA: mutate_null_data(f, r, o); return;
        case MUT_DTYPE: mutate_dtype(f, r, o); return;
        case MUT_DIM: mutate_dim(f, r, o); return;
        case MUT_RANK: mutate_rank(f, r, o); return;
        case MUT_NBYTES: mutate_nbytes(f, r, o); return;
        case MUT_ATTR:
            if (f->desc->mutate_attr == NULL)
                continue; /* no attributes */
            f->desc->mutate_attr(f, r, &o->want, o->what, sizeof o->what);
            return;
        case MUT_INDEX:
            if (!mutate_index(f, r, o))
                continue;
            return;
        case MUT_WORKSPACE: mutate_workspace(f, r, o); return;
        default:
            o->want = KVG_ERR_PARAM_NULLPTR;
            o->query_agrees = 0;
            (void)snprintf(o->what, sizeof o->what, "NULL argument struct");
            return;
        }
    }
}

/* ---- the tests -------------------------------------------------------- */

/* Copies of every allocation after the valid call. */
typedef struct images {
    unsigned char *t[OPF_MAX_TENSORS];
} images;

static void valid_call(opf *f, images *im, int record, const char *label)
{
    kvg_diag d;
    kvg_status st;
    int i;
    opf_snapshot(f);
    st = opf_call(f, &d);
    if (st != KVG_OK)
        fail_msg("%s seed %llu (%s): valid call failed: %s",
                 f->desc->label, (unsigned long long)f->seed, label,
                 d.message);
    opf_assert_guards(f, label);
    for (i = 0; i < f->n; i++) {
        const size_t size = f->t[i].cap + 2 * OPF_GUARD;
        if (record) {
            im->t[i] = (unsigned char *)malloc(size);
            assert_non_null(im->t[i]);
            memcpy(im->t[i], f->t[i].alloc, size);
        } else {
            char what[128];
            (void)snprintf(what, sizeof what, "%s: %s after the invalid "
                           "calls", label, f->t[i].name);
            kvgt_assert_bytes_equal(f->t[i].alloc, im->t[i], size, what);
        }
    }
}

static void check_rejected(opf *f, const outcome *o, int iter)
{
    kvg_diag d, qd;
    size_t bytes = 0;
    kvg_status st;
    char label[320];

    opf_snapshot(f); /* the state the call is handed, mutation included */
    st = o->kind == MUT_NULL_ARGS ? opf_call_null_args(f, &d)
                                  : opf_call(f, &d);
    (void)snprintf(label, sizeof label, "%s seed %llu mutation %d (%s: %s)",
                   f->desc->label, (unsigned long long)f->seed, iter,
                   mut_names[o->kind], o->what);
    if (st != o->want)
        fail_msg("%s: status %d, want %d (%s)%s", label, (int)st,
                 (int)o->want, d.message,
                 st == KVG_OK && (o->kind == MUT_DIM || o->kind == MUT_DTYPE ||
                                  o->kind == MUT_RANK)
                     ? " - a change the operator allows: say it in its "
                       "kind's untied (tests/op_fixture.h)"
                     : "");
    if (d.status != st || d.message[0] == '\0' || d.tensor[0] == '\0')
        fail_msg("%s: diag not filled (status %d, tensor \"%s\", \"%s\")",
                 label, (int)d.status, d.tensor, d.message);
    if (o->value_error && d.position < 0)
        fail_msg("%s: a value error without a position (%s)", label,
                 d.message);
    opf_assert_unchanged(f, label);
    if (o->query_agrees) {
        kvg_status qs = opf_query(f, &bytes, &qd);
        if (qs != st || strcmp(qd.message, d.message) != 0)
            fail_msg("%s: the size query says %d \"%s\", the call %d \"%s\"",
                     label, (int)qs, qd.message, (int)st, d.message);
        opf_assert_unchanged(f, label);
    }
}

static void atomicity(const opf_kind_desc *kind)
{
    int s, i, counts[MUT_KINDS];
    memset(counts, 0, sizeof counts);
    for (s = 0; s < SEEDS_PER_KIND; s++) {
        opf f;
        images im;
        kvgt_rng r;
        opf_init(&f, kind, (uint64_t)(s + 1));
        valid_call(&f, &im, 1, "reference");
        opf_restore(&f);
        kvgt_rng_seed(&r, 0xA70u + (uint64_t)s * 31u + opf_kind_salt(kind));
        for (i = 0; i < MUTATIONS_PER_SEED; i++) {
            outcome o;
            mutate(&f, &r, &o);
            counts[o.kind]++;
            check_rejected(&f, &o, i);
            opf_restore(&f);
        }
        valid_call(&f, &im, 0, "after the invalid calls");
        for (i = 0; i < f.n; i++)
            free(im.t[i]);
        opf_free(&f);
    }
    for (i = 0; i < MUT_KINDS; i++)
        if (counts[i] == 0 && !(i == MUT_ATTR && kind->mutate_attr == NULL) &&
            !(i == MUT_INDEX && kind->mutate_value == NULL))
            fail_msg("%s: no \"%s\" mutation was drawn", kind->label,
                     mut_names[i]);
}

static void guards(const opf_kind_desc *kind)
{
    int s;
    for (s = 0; s < GUARD_SEEDS; s++) {
        opf f;
        kvg_diag d;
        size_t again = 0;
        opf_init(&f, kind, (uint64_t)(1000 + s));
        if (opf_call(&f, &d) != KVG_OK)
            fail_msg("%s seed %d: %s", kind->label, 1000 + s, d.message);
        opf_assert_guards(&f, kind->label);
        /* the query after the call: same size, nothing written */
        assert_int_equal(opf_query(&f, &again, &d), KVG_OK);
        assert_int_equal(again, f.need);
        opf_free(&f);
    }
}

int main(void)
{
    static const opf_per_kind per[] = {{"atomicity", atomicity},
                                       {"guards", guards}};
    return opf_run_tests("test_atomicity", NULL, 0, per,
                         sizeof per / sizeof per[0]);
}
