/*
 * tools/lib/scan/compose.c - composites (binding.h, kvg_binding_composite):
 * a kvgold operator that no framework call is, computed by a chain of
 * framework calls whose last one (the anchor) writes the result. After a
 * reader has listed a dump, each keyed anchor becomes one call of the
 * composite, its arguments gathered from the chain's calls before it, so
 * that the engine judges the anchor's post-call outputs against the
 * operator run on the chain's first inputs. The chains are the bindings'
 * data: nothing here names an operator.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "scan.h"

#define MAX_LINKS 8

/* Call c's n-th positional argument, or NULL. */
static const kvg_scan_arg *positional_arg(const kvg_scan_call *c, int n)
{
    int i, k = 0;
    for (i = 0; i < c->n_in; i++)
        if (c->in[i].name[0] == '\0' && k++ == n)
            return &c->in[i];
    return NULL;
}

/* Call c's argument given by keyword `kw`, or NULL. */
static const kvg_scan_arg *keyword_arg(const kvg_scan_call *c, const char *kw)
{
    int i;
    for (i = 0; i < c->n_in; i++)
        if (strcmp(c->in[i].name, kw) == 0)
            return &c->in[i];
    return NULL;
}

/* Call c's argument given by a keyword link k maps to `entry`, or NULL. */
static const kvg_scan_arg *entry_by_keyword(const kvg_scan_call *c,
                                            const kvg_binding_link *k,
                                            const char *entry)
{
    const kvg_scan_arg *a = NULL;
    int j;
    for (j = 0; a == NULL && k->keywords != NULL &&
                k->keywords[j] != NULL && k->keywords[j + 1] != NULL;
         j += 2)
        if (strcmp(k->keywords[j + 1], entry) == 0)
            a = keyword_arg(c, k->keywords[j]);
    return a;
}

/* Link k's key argument in call c: positional, or by the keyword the
 * link names for the same position. */
static const kvg_scan_arg *key_of(const kvg_scan_call *c,
                                  const kvg_binding_link *k)
{
    const kvg_scan_arg *a = positional_arg(c, k->key_arg);
    return a != NULL ? a
                     : entry_by_keyword(c, k, k->positional[k->key_arg]);
}

static int keyed(const kvg_scan_call *c, const kvg_binding_link *k)
{
    const kvg_scan_arg *a;
    if (!kvg_scan_same_name(c->api, k->name))
        return 0;
    a = key_of(c, k);
    return a != NULL && a->kind == KVG_SCAN_TENSOR && a->rank > 0 &&
           a->rank >= k->key_lead &&
           (k->key_rank == 0 || a->rank == k->key_rank) &&
           (k->key_last == 0 || a->shape[a->rank - 1] == k->key_last) &&
           (k->key_dtype == KVG_DTYPE_INVALID || a->dtype == k->key_dtype);
}

int kvg_scan_link_keyed(const kvg_scan_call *c)
{
    size_t i, k;
    for (i = 0; kvg_composites[i] != NULL; i++)
        for (k = 0; k < kvg_composites[i]->n_links; k++)
            if (keyed(c, &kvg_composites[i]->links[k]))
                return 1;
    return 0;
}

/* Where the window of anchor i's chain starts: after the composite's
 * previous call in the same directory, or at the directory's first. */
static size_t window_start(const kvg_scan_list *l, size_t i,
                           const kvg_binding_composite *cp)
{
    size_t j = i;
    while (j > 0 && strcmp(l->calls[j - 1].dir, l->calls[i].dir) == 0 &&
           strcmp(l->calls[j - 1].api, cp->name) != 0)
        j--;
    return j;
}

/* The product of a's first `rank` dimensions (1 for none). */
static int64_t elements(const kvg_scan_arg *a, int rank)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < rank; i++)
        n *= a->shape[i];
    return n;
}

/* The rows of a key argument: its elements over its last dimension (one
 * a token, in every link of a chain). */
static int64_t rows_of(const kvg_scan_arg *a)
{
    return elements(a, a->rank - 1);
}

/* 1 if link k's key `a` is of the anchor's call, whose key is `ak`: as
 * many rows, or the same first k->key_lead dimensions. */
static int tied(const kvg_binding_link *k, const kvg_scan_arg *a,
                const kvg_scan_arg *ak)
{
    int i;
    if (k->key_lead == 0)
        return rows_of(a) == rows_of(ak);
    if (ak->rank < k->key_lead)
        return 0;
    for (i = 0; i < k->key_lead; i++)
        if (a->shape[i] != ak->shape[i])
            return 0;
    return 1;
}

/* Link k's call in [from, to) of the anchor's directory: the count of
 * keyed ones whose key is tied to the anchor's key `ak` (the last in
 * *at), and an unreadable one of its name in *bad (its arguments
 * unknown, it may be the link). */
static size_t find_link(const kvg_scan_list *l, size_t from, size_t to,
                        const kvg_binding_link *k, const kvg_scan_arg *ak,
                        size_t *at, const kvg_scan_call **bad)
{
    size_t j, n = 0;
    *bad = NULL;
    for (j = from; j < to; j++) {
        const kvg_scan_call *c = &l->calls[j];
        if (c->unreadable[0] != '\0' && kvg_scan_same_name(c->api, k->name))
            *bad = c;
        else if (c->unreadable[0] == '\0' && keyed(c, k) &&
                 tied(k, key_of(c, k), ak)) {
            *at = j;
            n++;
        }
    }
    return n;
}

/* The composite call's argument `entry` from the chain's calls: a
 * positional argument or a keyword a link maps to it; ABSENT if none. */
static void gather_arg(const kvg_binding_composite *cp,
                       const kvg_scan_call *const *calls, const char *entry,
                       kvg_scan_arg *out)
{
    size_t k;
    int n;
    memset(out, 0, sizeof *out);
    out->kind = KVG_SCAN_ABSENT;
    for (k = 0; k < cp->n_links; k++) {
        const kvg_binding_link *lk = &cp->links[k];
        const kvg_scan_arg *a = NULL;
        for (n = 0; a == NULL && lk->positional[n] != NULL; n++)
            if (strcmp(lk->positional[n], entry) == 0)
                a = positional_arg(calls[k], n);
        if (a == NULL)
            a = entry_by_keyword(calls[k], lk, entry);
        if (a != NULL) {
            *out = *a;
            out->name[0] = '\0'; /* bound by position */
            return;
        }
    }
}

static int index_of(const char *const *list, const char *name)
{
    int i;
    for (i = 0; list[i] != NULL; i++)
        if (strcmp(list[i], name) == 0)
            return i;
    return -1;
}

/* The composite's views: a tensor given the leading dimensions of
 * another when they hold as many elements. */
static void apply_views(const kvg_binding_composite *cp, kvg_scan_call *c)
{
    const char *const *pos = cp->form->positional;
    int i;
    for (i = 0; cp->views != NULL && cp->views[i] != NULL &&
                cp->views[i + 1] != NULL;
         i += 2) {
        int t = index_of(pos, cp->views[i]);
        int like = index_of(pos, cp->views[i + 1]);
        kvg_scan_arg *a, *b;
        if (t < 0 || like < 0)
            continue;
        a = &c->in[t];
        b = &c->in[like];
        if (a->kind != KVG_SCAN_TENSOR || b->kind != KVG_SCAN_TENSOR ||
            b->rank < 2 || elements(a, a->rank) != elements(b, b->rank - 1))
            continue;
        a->rank = b->rank - 1;
        memcpy(a->shape, b->shape, sizeof a->shape);
        a->shape[a->rank] = 0;
    }
}

/* The composite's retypes: a gathered tensor of one-byte codes taken as
 * the same bytes of another one-byte dtype. */
static void apply_retypes(const kvg_binding_composite *cp, kvg_scan_call *c)
{
    const char *const *pos = cp->form->positional;
    int i;
    for (i = 0; cp->retype != NULL && cp->retype[i] != NULL &&
                cp->retype[i + 1] != NULL;
         i += 2) {
        int t = index_of(pos, cp->retype[i]);
        kvg_dtype to = kvg_dtype_from_name(cp->retype[i + 1]);
        kvg_scan_arg *a;
        if (t < 0 || to == KVG_DTYPE_INVALID)
            continue;
        a = &c->in[t];
        /* read-back's one rule of what is a view of the same bytes */
        if (a->kind == KVG_SCAN_TENSOR &&
            kvg_scan_same_cache_dtype(a->dtype, to))
            a->dtype = to;
    }
}

/* The post-call tensor `name` from the last link that records it, or
 * ABSENT (read-back may fill it). */
static void gather_out(const kvg_binding_composite *cp,
                       const kvg_scan_call *const *calls, const char *name,
                       kvg_scan_arg *out)
{
    size_t k = cp->n_links;
    memset(out, 0, sizeof *out);
    out->kind = KVG_SCAN_ABSENT;
    while (k-- > 0) {
        int o = index_of(cp->links[k].outputs, name);
        if (o >= 0 && o < calls[k]->n_out &&
            calls[k]->out[o].kind == KVG_SCAN_TENSOR) {
            *out = calls[k]->out[o];
            return;
        }
    }
}

/* Anchor call `a` as the composite's call, from the chain's calls. */
static void gather(const kvg_binding_composite *cp,
                   const kvg_scan_call *const *calls, kvg_scan_call *out)
{
    const char *const *pos = cp->form->positional;
    const char *const *outs = cp->form->outputs;
    int n, q;

    for (n = 0; pos[n] != NULL && n < KVG_SCAN_MAX_ARGS; n++)
        gather_arg(cp, calls, pos[n], &out->in[n]);
    out->n_in = n;
    for (q = 0; outs[q] != NULL && q < KVG_SCAN_MAX_ARGS; q++)
        gather_out(cp, calls, outs[q], &out->out[q]);
    out->n_out = q;
    apply_views(cp, out);
    apply_retypes(cp, out);
}

/* What link lk's key is, for a reason: "argument 0 [..., 64], a row per
 * token" or "argument 0 [4, 2, ...]". */
static void key_text(const kvg_binding_link *lk, const kvg_scan_arg *ak,
                     char *out, size_t cap)
{
    size_t used;
    int i;
    if (lk->key_lead == 0) {
        (void)snprintf(out, cap, "argument %d [..., %lld], a row per token",
                       lk->key_arg, (long long)lk->key_last);
        return;
    }
    (void)snprintf(out, cap, "argument %d [", lk->key_arg);
    for (i = 0; i < lk->key_lead && i < ak->rank; i++)
        if ((used = strlen(out)) < cap)
            (void)snprintf(out + used, cap - used, "%lld, ",
                           (long long)ak->shape[i]);
    if ((used = strlen(out)) < cap)
        (void)snprintf(out + used, cap - used, "...]");
}

/* Why link k of the anchor's chain cannot be had, into c->unreadable. */
static void no_link(kvg_scan_call *c, const kvg_binding_composite *cp,
                    size_t k, size_t count, const kvg_scan_call *bad,
                    const kvg_scan_arg *ak)
{
    const kvg_binding_link *lk = &cp->links[k];
    char key[96];
    key_text(lk, ak, key, sizeof key);
    if (count == 0 && bad != NULL)
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "%s: its %s call %s cannot be read: %.200s", cp->name,
                       lk->name, bad->id, bad->unreadable);
    else if (count == 0)
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "%s: the chain has no %s call (%s) before it in "
                       "%s%s%s",
                       cp->name, lk->name, key, c->dir,
                       lk->hint != NULL ? "; " : "",
                       lk->hint != NULL ? lk->hint : "");
    else
        (void)snprintf(c->unreadable, sizeof c->unreadable,
                       "%s: ambiguous: %lu %s calls (%s) may be the "
                       "chain's link before it in %s; kvgold does not guess "
                       "which",
                       cp->name, (unsigned long)count, lk->name, key,
                       c->dir);
}

/* Anchor l->calls[i] as the composite's call, in place. */
static void compose_one(kvg_scan_list *l, size_t i,
                        const kvg_binding_composite *cp, kvg_scan_call *out)
{
    const kvg_scan_call *calls[MAX_LINKS];
    const kvg_scan_call *a = &l->calls[i];
    const kvg_binding_link *anchor = &cp->links[cp->n_links - 1];
    size_t from = window_start(l, i, cp), to = i, k;
    const kvg_scan_arg *ak;

    memset(out, 0, sizeof *out);
    out->format = a->format;
    (void)snprintf(out->api, sizeof out->api, "%s", cp->name);
    (void)snprintf(out->id, sizeof out->id, "%s", a->id);
    (void)snprintf(out->dir, sizeof out->dir, "%s", a->dir);
    (void)snprintf(out->out_pattern, sizeof out->out_pattern, "%s",
                   a->out_pattern);
    calls[cp->n_links - 1] = a;
    if (a->unreadable[0] != '\0')
        (void)snprintf(out->unreadable, sizeof out->unreadable, "%s",
                       a->unreadable);
    /* a readable anchor is keyed: its key is there */
    ak = out->unreadable[0] == '\0' ? key_of(a, anchor) : NULL;
    for (k = cp->n_links - 1; k-- > 0 && out->unreadable[0] == '\0';) {
        const kvg_scan_call *bad;
        size_t at = 0;
        size_t n = find_link(l, from, to, &cp->links[k], ak, &at, &bad);
        if (n != 1) {
            no_link(out, cp, k, n, bad, ak);
            break;
        }
        calls[k] = &l->calls[at];
        to = at; /* the chain's earlier links come before this one */
    }
    if (out->unreadable[0] == '\0')
        gather(cp, calls, out);
    l->calls[i] = *out;
}

kvg_status kvg_scan_compose(kvg_scan_list *l, kvg_diag *diag)
{
    kvg_scan_call *out = NULL;
    size_t i, c;

    for (i = 0; i < l->count; i++)
        for (c = 0; kvg_composites[c] != NULL; c++) {
            const kvg_binding_composite *cp = kvg_composites[c];
            const kvg_binding_link *anchor;
            if (cp->n_links == 0 || cp->n_links > MAX_LINKS)
                continue;
            anchor = &cp->links[cp->n_links - 1];
            if (!kvg_scan_same_name(l->calls[i].api, anchor->name) ||
                (l->calls[i].unreadable[0] == '\0' &&
                 !keyed(&l->calls[i], anchor)))
                continue;
            if (out == NULL &&
                (out = (kvg_scan_call *)malloc(sizeof *out)) == NULL)
                return kvg_diag_set(diag, KVG_ERR_NOMEM, "scan", -1, -1,
                                    "out of memory composing calls");
            compose_one(l, i, cp, out);
            break;
        }
    free(out);
    return KVG_OK;
}
