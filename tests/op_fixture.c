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

/* The generated table (tests/CMakeLists.txt): every operator's
 * NULL-terminated array of kinds, then NULL. */
extern const opf_kind_desc *const *const opf_kind_lists[];

int opf_kind_count(void)
{
    int n = 0, i, j;
    for (i = 0; opf_kind_lists[i] != NULL; i++)
        for (j = 0; opf_kind_lists[i][j] != NULL; j++)
            n++;
    return n;
}

const opf_kind_desc *opf_kind_at(int k)
{
    int i, j;
    for (i = 0; opf_kind_lists[i] != NULL; i++)
        for (j = 0; opf_kind_lists[i][j] != NULL; j++)
            if (k-- == 0)
                return opf_kind_lists[i][j];
    return NULL;
}

uint64_t opf_kind_salt(const opf_kind_desc *kind)
{
    /* FNV-1a, cut to 16 bits: seeds stay small multiples apart */
    uint64_t h = 14695981039346656037u;
    const char *c;
    for (c = kind->label; *c != '\0'; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211u;
    return h & 0xFFFFu;
}

/* ---- one cmocka test per kind ------------------------------------------ */

typedef struct per_test {
    void (*run)(const opf_kind_desc *kind);
    const opf_kind_desc *kind;
} per_test;

static void run_per_test(void **state)
{
    const per_test *t = (const per_test *)*state;
    t->run(t->kind);
}

int opf_run_tests(const char *group, const struct CMUnitTest *fixed,
                  size_t n_fixed, const opf_per_kind *per, size_t n_per)
{
    const size_t kinds = (size_t)opf_kind_count();
    const size_t n = n_fixed + n_per * kinds;
    struct CMUnitTest *tests =
        (struct CMUnitTest *)calloc(n, sizeof *tests);
    per_test *states = (per_test *)calloc(n_per * kinds + 1, sizeof *states);
    char **names = (char **)calloc(n_per * kinds + 1, sizeof *names);
    size_t i, k, at = n_fixed;
    int rc;

    if (tests == NULL || states == NULL || names == NULL) {
        fprintf(stderr, "%s: out of memory\n", group);
        return 1;
    }
    if (kinds == 0) { /* the glob found nothing: a broken build */
        fprintf(stderr, "%s: no operator kinds (tests/ops/*/fixture.c)\n",
                group);
        return 1;
    }
    for (i = 0; i < n_fixed; i++)
        tests[i] = fixed[i];
    for (i = 0; i < n_per; i++)
        for (k = 0; k < kinds; k++, at++) {
            const opf_kind_desc *kind = opf_kind_at((int)k);
            const size_t len = strlen(per[i].prefix) + strlen(kind->label) + 2;
            per_test *st = &states[at - n_fixed];
            names[at - n_fixed] = (char *)malloc(len);
            if (names[at - n_fixed] == NULL) {
                fprintf(stderr, "%s: out of memory\n", group);
                return 1;
            }
            (void)snprintf(names[at - n_fixed], len, "%s %s", per[i].prefix,
                           kind->label);
            st->run = per[i].run;
            st->kind = kind;
            tests[at].name = names[at - n_fixed];
            tests[at].test_func = run_per_test;
            tests[at].initial_state = st;
        }
    rc = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
    for (i = 0; i < n_per * kinds; i++)
        free(names[i]);
    free(names);
    free(states);
    free(tests);
    return rc;
}

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
    x->null_status = required ? KVG_ERR_PARAM_NULLPTR : KVG_OK;
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

/* ---- index mutations several operators share ----------------------- */

int opf_mutate_token_index(opf *f, kvgt_rng *r, const char *name,
                           kvg_status *want, char *what, size_t cap)
{
    opf_tensor *t = opf_find(f, name);
    int64_t pos[64], n = opf_live(t, f->g.tokens, pos);
    const int64_t at = opf_pick(r, 0, f->g.tokens - 1);
    *want = KVG_ERR_PARAM_INVALID;
    if (opf_pick(r, 0, 1) && n >= 2) {
        const int64_t a = pos[opf_pick(r, 0, n - 1)];
        int64_t b;
        do
            b = pos[opf_pick(r, 0, n - 1)];
        while (b == a);
        opf_index_set(t, b, opf_index_get(t, a));
        (void)snprintf(what, cap, "%s[%lld] = %s[%lld]", name, (long long)b,
                       name, (long long)a);
    } else {
        const int64_t v = f->g.slots + opf_pick(r, 0, 1000);
        opf_index_set(t, at, opf_pick(r, 0, 3) ? v : INT32_MAX);
        (void)snprintf(what, cap, "%s[%lld] out of range", name,
                       (long long)at);
    }
    return 1;
}

/* ---- per-head runs ------------------------------------------------------ */

static int64_t run_count(const opf_heads *h, int64_t L, int64_t w, int64_t o)
{
    if (h->offset_index == NULL)
        return w;
    if (o == -1 || w == 0)
        return L;
    return L - w + h->keep;
}

void opf_build_heads(opf *f, kvgt_rng *r, const opf_heads *h)
{
    const kvg_dtype dt = h->int8 && opf_pick(r, 0, 2) == 2
                             ? KVG_INT8
                             : opf_pick(r, 0, 1) ? KVG_BF16 : KVG_FP16;
    const int64_t batch = opf_pick(r, 1, 3), heads = opf_pick(r, 1, 3);
    const int64_t dim = 32 * opf_pick(r, 1, 2), bs = 4 * opf_pick(r, 1, 2);
    opf_geo *g = &f->g;
    int64_t tok = 0, at = 0, i, sh[4], bn;
    opf_tensor *ts, *tw, *tl, *to = NULL;

    g->batch = batch, g->heads = heads, g->runs = batch * heads;
    for (i = 0; i < batch; i++)
        tok += g->L[i] = opf_pick(r, 1, 8);
    tok += opf_pick(r, 0, 1);
    for (i = 0; i < g->runs; i++) {
        const int64_t L = g->L[i / heads];
        g->w[i] = opf_pick(r, 0, L);
        g->o[i] = h->offset_index == NULL ? -1
                  : opf_pick(r, 0, 3) == 0 ? -1 : opf_pick(r, 0, L - g->w[i]);
        g->count[i] = run_count(h, L, g->w[i], g->o[i]);
        at += opf_pick(r, 0, 2);
        g->s[i] = opf_pick(r, 0, 4) == 0 ? -1 : at;
        if (g->s[i] >= 0)
            at += g->count[i];
    }
    bn = at / bs + 1;
    g->tokens = tok;
    g->slots = bn * bs;
    sh[0] = tok, sh[1] = heads, sh[2] = dim;
    opf_add(f, r, "key", OPF_INPUT, 1, dt, 3, sh, h->key);
    opf_add(f, r, "value", OPF_INPUT, 1, dt, 3, sh, h->value);
    sh[0] = bn, sh[1] = bs, sh[2] = 1, sh[3] = dim;
    opf_add(f, r, "key_cache", OPF_CACHE, 1, dt, 4, sh, h->key_cache);
    opf_add(f, r, "value_cache", OPF_CACHE, 1, dt, 4, sh, h->value_cache);
    sh[0] = g->runs;
    ts = opf_add(f, r, "slot_mapping", OPF_INPUT, 1, KVG_INT32, 1, sh,
                 h->slot_mapping);
    tw = opf_add(f, r, "wins", OPF_INPUT, 1, KVG_INT32, 1, sh, h->wins);
    if (h->offset_index != NULL)
        to = opf_add(f, r, "offset_index", OPF_INPUT, 1, KVG_INT32, 1, sh,
                     h->offset_index);
    sh[0] = batch;
    tl = opf_add(f, r, "seq_len", OPF_INPUT, 1, KVG_INT32, 1, sh, h->seq_len);
    for (i = 0; i < g->runs; i++) {
        opf_index_set(ts, i, g->s[i]);
        opf_index_set(tw, i, g->w[i]);
        if (to != NULL)
            opf_index_set(to, i, g->o[i]);
    }
    for (i = 0; i < batch; i++)
        opf_index_set(tl, i, g->L[i]);
}

/* Heads whose run is written and non-empty. */
static int64_t written_heads(const opf *f, int64_t *pos)
{
    int64_t i, k = 0;
    for (i = 0; i < f->g.runs; i++)
        if (f->g.s[i] >= 0 && f->g.count[i] > 0)
            pos[k++] = i;
    return k;
}

int opf_mutate_heads(opf *f, kvgt_rng *r, kvg_status *want, char *what,
                     size_t cap)
{
    const opf_geo *g = &f->g;
    const int offsets = opf_find(f, "offset_index") != NULL;
    const int64_t c = opf_pick(r, 0, 6);
    const int64_t i = opf_pick(r, 0, g->runs - 1);
    const int64_t b = opf_pick(r, 0, g->batch - 1);
    const int64_t L = g->L[i / g->heads];
    int64_t pos[16], n = written_heads(f, pos);

    *want = KVG_ERR_PARAM_INVALID;
    switch (c) {
    case 0: /* seq_len below 1 */
        opf_index_set(opf_find(f, "seq_len"), b, opf_pick(r, 0, 1) ? 0 : -3);
        break;
    case 1: /* seq_len sum above num_tokens */
        opf_index_set(opf_find(f, "seq_len"), b, g->L[b] + g->tokens);
        break;
    case 2: /* wins out of range where it counts: with offsets, outside
             * [0, L] (a window whose offset is -1 is not read); without,
             * past the rows of key (a window may reach into earlier
             * batches) or negative */
        if (offsets && g->o[i] == -1)
            return 0;
        opf_index_set(opf_find(f, "wins"), i,
                      opf_pick(r, 0, 1) ? (offsets ? L + 1 : g->tokens + 1)
                                        : -1);
        break;
    case 3: /* offset_index outside {-1} u [0, L - w] */
        if (!offsets)
            return 0;
        opf_index_set(opf_find(f, "offset_index"), i,
                      opf_pick(r, 0, 1) ? L - g->w[i] + 1 : -2);
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
    (void)snprintf(what, cap, "head index change %d (head %lld, batch %lld)",
                   (int)c, (long long)i, (long long)b);
    return 1;
}

/* ---- size arithmetic ----------------------------------------------------- */

/* 2^64 + 1 = 274177 * 67280421310721, so small m need large f. */
int opf_wrap_pair(uint64_t m, int64_t *f, int64_t *x)
{
    uint64_t k;
    for (k = 3; k < ((uint64_t)1 << 20); k++) {
        /* 2^64 = q*k + r */
        const uint64_t q = UINT64_MAX / k, r = UINT64_MAX % k + 1;
        if ((m % k + r % k) % k != 0)
            continue;
        /* x = (m + 2^64) / k = q + (m + r) / k, exactly */
        if (q + (m / k) + (m % k + r) / k > (uint64_t)INT64_MAX)
            continue;
        *f = (int64_t)k;
        *x = (int64_t)(q + m / k + (m % k + r) / k);
        return 1;
    }
    return 0;
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

void opf_init(opf *f, const opf_kind_desc *kind, uint64_t seed)
{
    kvgt_rng r;
    kvg_diag d;
    kvg_status st;
    int i;

    memset(f, 0, sizeof *f);
    f->desc = kind;
    f->op = kvg_op_find(f->desc->op);
    assert_non_null(f->op);
    f->seed = seed;
    /* malloc'd: the builder gives the bytes the type of its args struct */
    f->args = malloc(sizeof(kvg_i_op_args));
    f->args_nat = malloc(sizeof(kvg_i_op_args));
    assert_non_null(f->args);
    assert_non_null(f->args_nat);
    memset(f->args, 0, sizeof(kvg_i_op_args));
    kvgt_rng_seed(&r, seed * 7919u + opf_kind_salt(kind));
    f->desc->build(f, &r);
    st = opf_query(f, &f->need, &d);
    if (st != KVG_OK)
        fail_msg("%s seed %llu: fixture query failed: %s",
                 kind->label, (unsigned long long)seed, d.message);
    f->ws = (unsigned char *)kvgt_alloc_poisoned(f->need + 2 * OPF_GUARD,
                                                 seed + 991u);
    opf_set_workspace(f, f->ws + OPF_GUARD, f->need);
    memcpy(f->args_nat, f->args, sizeof(kvg_i_op_args));
    memcpy(f->lists_nat, f->lists, sizeof f->lists);
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
    memcpy(f->lists, f->lists_nat, sizeof f->lists);
}
