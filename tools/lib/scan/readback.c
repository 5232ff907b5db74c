/*
 * tools/lib/scan/readback.c - read-back: a cache's post-call state from
 * the next call that reads it.
 *
 * An msprobe record of an in-place API that returns None holds the
 * caches before the call only (its pre-forward hook saved them); their
 * state after it is recorded as an input of the next record that takes
 * the cache - the attention that reads it - which msprobe saved, as a
 * clone, before that call ran (docs/scan.md, "Read-back"). dump.json has
 * no data pointer, so the link is inferred by the rules of docs/scan.md,
 * kept strict here:
 *   1. the records after the writer, in order, up to the next call of
 *      the same kvgold operator (after it, whose cache a tensor is cannot
 *      be told);
 *   2. no record of a kvgold operator that updates a cache in place is
 *      a reader (another layer's writer takes a cache of the same shape);
 *   3. the writer's caches of one dtype and shape take the first inputs
 *      of that dtype and shape in order (args, then kwargs, a list's
 *      members), its k-th such cache the k-th; too few: none is linked;
 *      one-byte dtypes of byte codes are one dtype here (a view of the
 *      same bytes), the input judged as the writer's dtype;
 *   4. (scan.c, judging) a linked tensor that differs from the pre-call
 *      cache outside the bytes the call writes in more than it writes
 *      is not the writer's cache: NOT JUDGED.
 * Which tensors are in-place caches is the registry's (KVG_OP_CACHE);
 * nothing here names an operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "kvgold/op.h"
#include "scan.h"

/* One in-place cache of the writer that the dump has no post-call copy
 * of. */
typedef struct missing {
    const char *name;
    int out;                 /* its index among the form's outputs */
    const kvg_scan_arg *pre; /* the pre-call cache */
    /* the input linked: another record's, kept by the reader (from), or
     * input from_arg of a listed call that writes no cache (from_call);
     * both NULL: none yet */
    const kvg_scan_later *from;
    const kvg_scan_call *from_call;
    int from_arg;
} missing;

#define MAX_MISSING 8

/* The search for the writer's missing caches, and what ended it before
 * every cache had its input. */
typedef struct walk {
    missing m[MAX_MISSING];
    int n;
    const char *op; /* the writer's operator */
    char why[KVG_COMPARE_REASON_MAX / 2]; /* what stopped it */
    int no_reader; /* 1: no reader came: the hint says what to dump */
} walk;

/* The operator whose call or name entry c is, or NULL. */
static const char *op_of(const kvg_scan_call *c)
{
    const kvg_scan_opmap *m = kvg_scan_find(c->api, c->format, NULL);
    return m != NULL ? kvg_scan_op(m) : kvg_scan_op_of_name(c->api);
}

/* 1 if tensor `name` of operator `op` is updated in place. */
static int is_cache(const char *op, const char *name)
{
    const kvg_op *o = kvg_op_find(op);
    size_t i;
    for (i = 0; o != NULL && i < kvg_op_tensor_count(o); i++) {
        const kvg_op_tensor_info *t = kvg_op_tensor_at(o, i);
        if (strcmp(t->name, name) == 0)
            return t->kind == KVG_OP_CACHE;
    }
    return 0;
}

/* 1 if operator `op` updates a cache in place: its calls are writers,
 * never readers (rule 2). */
static int writes_in_place(const char *op)
{
    const kvg_op *o = kvg_op_find(op);
    size_t i;
    for (i = 0; o != NULL && i < kvg_op_tensor_count(o); i++)
        if (kvg_op_tensor_at(o, i)->kind == KVG_OP_CACHE)
            return 1;
    return 0;
}

/* 1 if t holds one byte an element, one code a byte: int8, uint8, the
 * fp8s, hif8, E8M0 (not the packed fp4 pairs, whose shape counts pairs). */
static int byte_codes(kvg_dtype t)
{
    return kvg_dtype_size(t) == 1 && !kvg_dtype_is_fp4(t);
}

/* The same dtype, or two dtypes of byte codes (rule 3): torch's
 * view(dtype) between one-byte dtypes keeps the shape and the bytes, and
 * a backend passes one cache so under two names (vllm-ascend's C8-MXFP K
 * cache: an int8 view to the scatter, float8_e4m3fn to the attention;
 * its scale cache uint8 to the index_put_, float8_e8m0fnu to the
 * attention). A tensor of other bytes of that shape is still refused by
 * rule 4 (scan.c). */
int kvg_scan_same_cache_dtype(kvg_dtype a, kvg_dtype b)
{
    return a == b || (byte_codes(a) && byte_codes(b));
}

int kvg_scan_same_geometry(kvg_dtype dtype, int rank, const int64_t *shape,
                           const kvg_scan_arg *b)
{
    int i;
    if (!kvg_scan_same_cache_dtype(dtype, b->dtype) || rank != b->rank)
        return 0;
    for (i = 0; i < rank; i++)
        if (shape[i] != b->shape[i])
            return 0;
    return 1;
}

static int same_geometry(const kvg_scan_arg *a, const kvg_scan_arg *b)
{
    return kvg_scan_same_geometry(a->dtype, a->rank, a->shape, b);
}

/* Input a is the next candidate of its geometry: it goes to the first
 * cache of that geometry still without one (rule 3). */
static void offer(walk *w, const kvg_scan_arg *a, const kvg_scan_later *k,
                  const kvg_scan_call *c, int arg)
{
    int i;
    for (i = 0; i < w->n; i++)
        if (w->m[i].from == NULL && w->m[i].from_call == NULL &&
            same_geometry(w->m[i].pre, a)) {
            w->m[i].from = k;
            w->m[i].from_call = c;
            w->m[i].from_arg = arg;
            return;
        }
}

static int linked(const walk *w)
{
    int i;
    for (i = 0; i < w->n; i++)
        if (w->m[i].from == NULL && w->m[i].from_call == NULL)
            return 0;
    return 1;
}

/* A listed call after the writer: 1 to go on, 0 when it ends the walk. */
static int visit_call(walk *w, const kvg_scan_call *c)
{
    const char *op = op_of(c);
    int i;
    if (op != NULL && strcmp(op, w->op) == 0) {
        (void)snprintf(w->why, sizeof w->why,
                       "no call reads it after this one before the next "
                       "%s call", w->op);
        return 0;
    }
    if (op != NULL && writes_in_place(op))
        return 1; /* rule 2 */
    if (c->unreadable[0] != '\0') {
        (void)snprintf(w->why, sizeof w->why,
                       "%.70s, which may read it, cannot be read", c->id);
        w->no_reader = 0;
        return 0;
    }
    for (i = 0; i < c->n_in; i++)
        if (c->in[i].kind == KVG_SCAN_TENSOR)
            offer(w, &c->in[i], NULL, c, i);
    return 1;
}

static int visit_later(walk *w, const kvg_scan_later *k)
{
    if (k->unreadable[0] != '\0' && k->arg.kind != KVG_SCAN_TENSOR) {
        (void)snprintf(w->why, sizeof w->why,
                       "%.70s, which may read it, cannot be read", k->id);
        w->no_reader = 0;
        return 0;
    }
    offer(w, &k->arg, k, NULL, 0);
    return 1;
}

/* Walk the records after calls[i] in its directory, listed calls and
 * kept inputs in dump order, until every cache has its input or the walk
 * ends (rule 1). */
static void walk_after(const kvg_scan_list *l, size_t i, walk *w)
{
    const kvg_scan_call *wr = &l->calls[i];
    size_t j, k = 0;
    while (k < l->n_later && l->later[k].before <= i)
        k++;
    for (j = i + 1; !linked(w); j++) {
        for (; k < l->n_later && l->later[k].before <= j && !linked(w);
             k++) {
            if (strcmp(l->later[k].dir, wr->dir) != 0)
                return;
            if (!visit_later(w, &l->later[k]))
                return;
        }
        if (j >= l->count || linked(w) ||
            strcmp(l->calls[j].dir, wr->dir) != 0 ||
            !visit_call(w, &l->calls[j]))
            return;
    }
}

/* Where input n of listed call c is in its record. */
static void where_of(const kvg_scan_call *c, int n, char *out, size_t cap)
{
    int i, pos = 0;
    if (c->in[n].name[0] != '\0') {
        (void)snprintf(out, cap, "input_kwargs.%s", c->in[n].name);
        return;
    }
    for (i = 0; i < n; i++)
        pos += c->in[i].name[0] == '\0';
    (void)snprintf(out, cap, "input_args[%d]", pos);
}

/* The record key of an id ("step0/rank0:NPU.x.0.forward" -> the part
 * after the ':'). */
static const char *key_of(const char *id)
{
    const char *colon = strrchr(id, ':');
    return colon != NULL ? colon + 1 : id;
}

/* Cache x's input as the writer's post-call output. */
static void link_one(kvg_scan_call *c, const missing *x)
{
    kvg_scan_arg a;
    char where[KVG_SCAN_NAME_MAX];
    const char *id;
    char retyped[48] = "";
    size_t used = strlen(c->read_back);
    int q;

    if (x->from != NULL) {
        a = x->from->arg;
        id = x->from->id;
        (void)snprintf(where, sizeof where, "%s", x->from->arg.name);
    } else {
        a = x->from_call->in[x->from_arg];
        id = x->from_call->id;
        where_of(x->from_call, x->from_arg, where, sizeof where);
    }
    if (x->from != NULL && x->from->unreadable[0] != '\0') {
        (void)snprintf(c->read_back_why, sizeof c->read_back_why,
                       "read back from %.60s %s, which cannot be read: "
                       "%.120s", key_of(id), where, x->from->unreadable);
        return;
    }
    /* a view of the same bytes as another one-byte dtype (rule 3) is
     * judged as the writer's dtype */
    if (a.dtype != x->pre->dtype) {
        (void)snprintf(retyped, sizeof retyped, ", its bytes as %s",
                       kvg_dtype_name(x->pre->dtype));
        a.dtype = x->pre->dtype;
    }
    for (q = c->n_out; q < x->out; q++)
        memset(&c->out[q], 0, sizeof c->out[q]); /* ABSENT */
    if (c->n_out <= x->out)
        c->n_out = x->out + 1;
    a.read_back = 1;
    /* the record's key cut before its place in it, if either must be */
    (void)snprintf(a.name, sizeof a.name, "%.*s %s",
                   strlen(where) + 2 < sizeof a.name
                       ? (int)(sizeof a.name - 2 - strlen(where))
                       : 0,
                   key_of(id), where);
    c->out[x->out] = a;
    if (used < sizeof c->read_back)
        (void)snprintf(c->read_back + used, sizeof c->read_back - used,
                       "%s%s read back from %s %s%s", used ? "; " : "",
                       x->name, id, where, retyped);
}

/* The missing caches of call c, in the order of its form's outputs. */
static int find_missing(const kvg_scan_call *c, const kvg_scan_sig *s,
                        const kvg_scan_bound *b, const char *op, walk *w)
{
    int n;
    w->n = 0;
    for (n = 0; s->outputs[n] != NULL && w->n < MAX_MISSING; n++) {
        const char *name = s->outputs[n];
        const kvg_scan_arg *pre;
        if (name[0] == '-' || name[0] == '=' || !is_cache(op, name) ||
            (n < c->n_out && c->out[n].kind == KVG_SCAN_TENSOR) ||
            (pre = kvg_scan_bound_pre(b, name)) == NULL)
            continue; /* not in place, recorded, or not given */
        memset(&w->m[w->n], 0, sizeof w->m[0]);
        w->m[w->n].name = name;
        w->m[w->n].out = n;
        w->m[w->n].pre = pre;
        w->n++;
    }
    return w->n;
}

/* The caches of a geometry too few inputs were found for lose the ones
 * they had (rule 3: the k-th cache takes the k-th input, or none does). */
static void drop_partial(walk *w)
{
    int i, j;
    for (i = 0; i < w->n; i++) {
        if (w->m[i].from != NULL || w->m[i].from_call != NULL)
            continue;
        for (j = 0; j < w->n; j++)
            if (same_geometry(w->m[j].pre, w->m[i].pre)) {
                w->m[j].from = NULL;
                w->m[j].from_call = NULL;
            }
    }
}

static void read_back_one(kvg_scan_list *l, size_t i)
{
    kvg_scan_call *c = &l->calls[i];
    kvg_scan_sig sig;
    const kvg_scan_opmap *m;
    kvg_scan_bound b;
    kvg_diag diag;
    walk w;
    int k;

    if (c->format != KVG_SCAN_MSPROBE || c->unreadable[0] != '\0' ||
        (m = kvg_scan_find(c->api, c->format, &sig)) == NULL)
        return;
    kvg_diag_clear(&diag);
    if (kvg_scan_bind(c, m, &sig, &b, &diag) != KVG_OK)
        return; /* judging says why */
    memset(&w, 0, sizeof w);
    w.op = kvg_scan_op(m);
    if (find_missing(c, &sig, &b, w.op, &w) == 0)
        return;
    (void)snprintf(w.why, sizeof w.why,
                   "no call reads it after this one in its dump.json");
    w.no_reader = 1;
    walk_after(l, i, &w);
    if (!linked(&w)) {
        drop_partial(&w);
        (void)snprintf(c->read_back_why, sizeof c->read_back_why, "%s%s",
                       w.why,
                       w.no_reader ? ": add the call that reads it (the "
                                     "attention, e.g. npu_fused_infer_"
                                     "attention_score) to msprobe's dump "
                                     "list"
                                   : "");
    }
    for (k = 0; k < w.n; k++)
        if (w.m[k].from != NULL || w.m[k].from_call != NULL)
            link_one(c, &w.m[k]);
}

void kvg_scan_read_back(kvg_scan_list *l)
{
    size_t i;
    for (i = 0; i < l->count; i++)
        read_back_one(l, i);
}
