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
 * SPDX-License-Identifier: Apache-2.0
 */
#include "op_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEDS_PER_KIND 10
#define MUTATIONS_PER_SEED 400
#define GUARD_SEEDS 40

typedef enum mut {
    MUT_NULL_VIEW, MUT_NULL_DATA, MUT_DTYPE, MUT_DIM, MUT_RANK, MUT_NBYTES,
    MUT_ATTR, MUT_INDEX, MUT_SCALE_ZERO, MUT_WORKSPACE, MUT_NULL_ARGS,
    MUT_KINDS
} mut;

static const char *const mut_names[MUT_KINDS] = {
    "NULL tensor", "NULL data", "dtype", "dim", "rank", "nbytes",
    "attribute", "index value", "zero scale", "workspace", "NULL args"};

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
    /* qkv: a missing scale of an int8 cache, or the before-quant q output
     * missing next to k/v, are attribute-style errors (161002). */
    o->want = f->kind == OPF_QKV && (strcmp(x->name, "k_scale") == 0 ||
                                     strcmp(x->name, "v_scale") == 0 ||
                                     strcmp(x->name, "q_out_before_quant") ==
                                         0)
                  ? KVG_ERR_PARAM_INVALID
                  : KVG_ERR_PARAM_NULLPTR;
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
    const int kv_cache = f->kind == OPF_KV &&
                         (strcmp(x->name, "k_cache") == 0 ||
                          strcmp(x->name, "ckv_cache") == 0);
    kvg_dtype d;
    /* a KV cache takes T or any 1-byte quant dtype (another one is a valid
     * call, or a missing-scale 161001): draw from the others */
    do
        d = (kvg_dtype)pick(r, 0, 11);
    while (d == x->t.dtype || (kv_cache && kvg_dtype_is_quant8(d)));
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
    int64_t c = pick(r, 0, 3);
    /* a KV scale [1] with a trailing 1 is [1, 1], also a scalar scale */
    if (c == 0 && f->kind == OPF_KV && x->t.rank == 1 && x->t.shape[0] == 1)
        c = 1;
    if (c == 0 && x->t.rank < KVG_MAX_RANK)
        x->t.shape[x->t.rank++] = 1; /* same bytes, one more dim */
    else if (c == 1)
        x->t.rank -= 1;
    else
        x->t.rank = c == 2 ? -1 : KVG_MAX_RANK + 1;
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

/* ---- attributes ------------------------------------------------------- */




/* ---- index values ----------------------------------------------------- */


static int mutate_token_index(opf *f, kvgt_rng *r, outcome *o,
                              const char *name)
{
    opf_tensor *t = opf_find(f, name);
    int64_t pos[64], n = opf_live(t, f->g.tokens, pos);
    const int64_t at = pick(r, 0, f->g.tokens - 1);
    if (pick(r, 0, 1) && n >= 2) {
        const int64_t a = pos[pick(r, 0, n - 1)];
        int64_t b;
        do
            b = pos[pick(r, 0, n - 1)];
        while (b == a);
        opf_index_set(t, b, opf_index_get(t, a));
        (void)snprintf(o->what, sizeof o->what, "%s[%lld] = %s[%lld]", name,
                       (long long)b, name, (long long)a);
    } else {
        const int64_t v = f->g.slots + pick(r, 0, 1000);
        opf_index_set(t, at, pick(r, 0, 3) ? v : INT32_MAX);
        (void)snprintf(o->what, sizeof o->what, "%s[%lld] out of range",
                       name, (long long)at);
    }
    return 1;
}

/* Heads whose run is written and non-empty. */
static int64_t written(const opf *f, int64_t *pos)
{
    int64_t i, k = 0;
    for (i = 0; i < f->g.runs; i++)
        if (f->g.s[i] >= 0 && f->g.count[i] > 0)
            pos[k++] = i;
    return k;
}

static int mutate_head_index(opf *f, kvgt_rng *r, outcome *o)
{
    const opf_geo *g = &f->g;
    const int64_t c = pick(r, 0, 6);
    const int64_t i = pick(r, 0, g->runs - 1), b = pick(r, 0, g->batch - 1);
    const int64_t L = g->L[i / g->heads];
    int64_t pos[16], n = written(f, pos);

    switch (c) {
    case 0: /* seq_len below 1 */
        opf_index_set(opf_find(f, "seq_len"), b, pick(r, 0, 1) ? 0 : -3);
        break;
    case 1: /* seq_len sum above num_tokens */
        opf_index_set(opf_find(f, "seq_len"), b, g->L[b] + g->tokens);
        break;
    case 2: /* wins outside [0, L] where it counts */
        if (f->kind != OPF_RAC_KVHEAD && g->o[i] == -1)
            return 0;
        opf_index_set(opf_find(f, "wins"), i, pick(r, 0, 1) ? L + 1 : -1);
        break;
    case 3: /* offset_index outside {-1} u [0, L - w] */
        if (f->kind == OPF_RAC_KVHEAD)
            return 0;
        opf_index_set(opf_find(f, "offset_index"), i,
                      pick(r, 0, 1) ? L - g->w[i] + 1 : -2);
        break;
    case 4: /* start slot out of range */
        opf_index_set(opf_find(f, "slot_mapping"), i, g->slots);
        break;
    case 5: /* a run past the end of the cache */
        if (n == 0)
            return 0;
        opf_index_set(opf_find(f, "slot_mapping"), pos[0],
                      g->slots - g->count[pos[0]] + 1);
        break;
    default: /* two runs overlapping */
        if (n < 2)
            return 0;
        opf_index_set(opf_find(f, "slot_mapping"), pos[1], g->s[pos[0]]);
        break;
    }
    (void)snprintf(o->what, sizeof o->what, "head index change %d (head "
                   "%lld, batch %lld)", (int)c, (long long)i, (long long)b);
    return 1;
}


static int mutate_index(opf *f, kvgt_rng *r, outcome *o)
{
    o->want = KVG_ERR_PARAM_INVALID;
    o->value_error = 1;
    o->query_agrees = 0;
    if (f->desc->mutate_value != NULL)
        return f->desc->mutate_value(f, r, &o->want, o->what,
                                     sizeof o->what);
    switch (f->kind) {
    case OPF_QKV: return mutate_token_index(f, r, o, "index");
    case OPF_RAC_ND:
    case OPF_RAC_NZ: return mutate_token_index(f, r, o, "slot_mapping");
    default: return mutate_head_index(f, r, o);
    }
}

static int mutate_scale_zero(opf *f, kvgt_rng *r, outcome *o)
{
    opf_tensor *s = opf_find(f, pick(r, 0, 1) ? "k_scale" : "v_scale");
    const float zero = pick(r, 0, 1) ? 0.0f : -0.0f;
    int64_t at;
    if (s == NULL)
        return 0;
    at = pick(r, 0, (int64_t)(s->natural.nbytes / 4) - 1);
    memcpy((unsigned char *)s->natural.data + (size_t)at * 4u, &zero, 4);
    o->want = KVG_ERR_PARAM_INVALID;
    (void)snprintf(o->what, sizeof o->what, "%s[%lld] = %s0", s->name,
                   (long long)at, signbit(zero) ? "-" : "+");
    return 1;
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
        case MUT_SCALE_ZERO:
            if (f->kind != OPF_QKV || !mutate_scale_zero(f, r, o))
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
                 opf_kind_name(f->kind), (unsigned long long)f->seed, label,
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
                   opf_kind_name(f->kind), (unsigned long long)f->seed, iter,
                   mut_names[o->kind], o->what);
    if (st != o->want)
        fail_msg("%s: status %d, want %d (%s)", label, (int)st, (int)o->want,
                 d.message);
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

static void atomicity(opf_kind kind)
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
        kvgt_rng_seed(&r, 0xA70u + (uint64_t)s * 31u + (uint64_t)kind);
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
        if (counts[i] == 0 && !(i == MUT_ATTR && kind == OPF_OMNI) &&
            !(i == MUT_SCALE_ZERO && kind != OPF_QKV))
            fail_msg("%s: no \"%s\" mutation was drawn", opf_kind_name(kind),
                     mut_names[i]);
}

static void guards(opf_kind kind)
{
    int s;
    for (s = 0; s < GUARD_SEEDS; s++) {
        opf f;
        kvg_diag d;
        size_t again = 0;
        opf_init(&f, kind, (uint64_t)(1000 + s));
        if (opf_call(&f, &d) != KVG_OK)
            fail_msg("%s seed %d: %s", opf_kind_name(kind), 1000 + s,
                     d.message);
        opf_assert_guards(&f, opf_kind_name(kind));
        /* the query after the call: same size, nothing written */
        assert_int_equal(opf_query(&f, &again, &d), KVG_OK);
        assert_int_equal(again, f.need);
        opf_free(&f);
    }
}

#define KIND_TESTS(name, kind)                                               \
    static void test_atomicity_##name(void **state)                          \
    {                                                                        \
        (void)state;                                                         \
        atomicity(kind);                                                     \
    }                                                                        \
    static void test_guards_##name(void **state)                             \
    {                                                                        \
        (void)state;                                                         \
        guards(kind);                                                        \
    }

KIND_TESTS(qkv, OPF_QKV)
KIND_TESTS(rac_nd, OPF_RAC_ND)
KIND_TESTS(rac_nz, OPF_RAC_NZ)
KIND_TESTS(rac_kvhead, OPF_RAC_KVHEAD)
KIND_TESTS(rac_kvhead_rope, OPF_RAC_KVHEAD_ROPE)
KIND_TESTS(omni, OPF_OMNI)
KIND_TESTS(kv, OPF_KV)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomicity_qkv),
        cmocka_unit_test(test_atomicity_rac_nd),
        cmocka_unit_test(test_atomicity_rac_nz),
        cmocka_unit_test(test_atomicity_rac_kvhead),
        cmocka_unit_test(test_atomicity_rac_kvhead_rope),
        cmocka_unit_test(test_atomicity_omni),
        cmocka_unit_test(test_atomicity_kv),
        cmocka_unit_test(test_guards_qkv),
        cmocka_unit_test(test_guards_rac_nd),
        cmocka_unit_test(test_guards_rac_nz),
        cmocka_unit_test(test_guards_rac_kvhead),
        cmocka_unit_test(test_guards_rac_kvhead_rope),
        cmocka_unit_test(test_guards_omni),
        cmocka_unit_test(test_guards_kv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
